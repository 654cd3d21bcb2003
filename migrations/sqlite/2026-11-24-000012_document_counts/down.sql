DROP TRIGGER invoices_uncounted;
DROP TRIGGER invoices_status_counted;
DROP TRIGGER invoices_counted;
DROP TABLE document_counts;
