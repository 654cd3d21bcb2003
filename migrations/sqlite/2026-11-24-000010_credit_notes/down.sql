ALTER TABLE invoices DROP COLUMN amount_credited_cents;
DROP TABLE credit_notes;
