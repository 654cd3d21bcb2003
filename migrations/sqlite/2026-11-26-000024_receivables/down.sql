DROP TRIGGER invoices_receivable_changed;
DROP TRIGGER invoices_receivable_gone;
DROP TRIGGER invoices_receivable;
DROP TABLE receivable_changes;
