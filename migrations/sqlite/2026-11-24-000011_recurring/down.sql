DROP INDEX invoices_recurring_period;
ALTER TABLE invoices DROP COLUMN recurring_period;
ALTER TABLE invoices DROP COLUMN recurring_invoice_id;
DROP TABLE recurring_invoices;
