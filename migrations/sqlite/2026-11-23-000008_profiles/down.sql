DROP TABLE document_logos;
ALTER TABLE quotations DROP COLUMN recipient;
ALTER TABLE quotations DROP COLUMN issuer;
ALTER TABLE invoices DROP COLUMN recipient;
ALTER TABLE invoices DROP COLUMN issuer;
ALTER TABLE customers DROP COLUMN tax_id;
ALTER TABLE customers DROP COLUMN locale;
DROP TABLE account_logos;
DROP TABLE account_profiles;
