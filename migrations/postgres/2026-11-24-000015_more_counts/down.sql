DROP TRIGGER customers_counted ON customers;
DROP TRIGGER payments_status_counted ON payments;
DROP TRIGGER payments_counted ON payments;
DROP TRIGGER quotations_status_counted ON quotations;
DROP TRIGGER quotations_counted ON quotations;
DROP FUNCTION count_rows();
DELETE FROM document_counts WHERE kind IN ('quotation', 'payment', 'customer');
