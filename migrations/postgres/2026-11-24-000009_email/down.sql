ALTER TABLE invoices DROP COLUMN reminders;
DROP TABLE invoice_reminders;
DROP TABLE emails;
