DROP TRIGGER invoices_receivable_changed ON invoices;
DROP TRIGGER invoices_receivable ON invoices;
DROP FUNCTION keep_receivables();
DROP TABLE receivable_changes;
DROP FUNCTION invoice_due(TEXT, BIGINT, BIGINT, BIGINT);
