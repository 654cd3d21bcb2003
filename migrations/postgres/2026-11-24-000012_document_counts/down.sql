DROP TRIGGER invoices_status_counted ON invoices;
DROP TRIGGER invoices_counted ON invoices;
DROP FUNCTION count_invoices();
DROP TABLE document_counts;
