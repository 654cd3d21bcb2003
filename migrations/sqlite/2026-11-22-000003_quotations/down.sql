DROP INDEX invoices_from_quotation;
DROP TABLE quotations;
