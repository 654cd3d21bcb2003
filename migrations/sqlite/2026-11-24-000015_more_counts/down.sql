DROP TRIGGER customers_uncounted;
DROP TRIGGER customers_counted;
DROP TRIGGER payments_uncounted;
DROP TRIGGER payments_status_counted;
DROP TRIGGER payments_counted;
DROP TRIGGER quotations_uncounted;
DROP TRIGGER quotations_status_counted;
DROP TRIGGER quotations_counted;
DELETE FROM document_counts WHERE kind IN ('quotation', 'payment', 'customer');
