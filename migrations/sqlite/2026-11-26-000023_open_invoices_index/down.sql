DROP INDEX invoices_open;
