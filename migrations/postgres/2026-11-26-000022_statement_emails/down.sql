ALTER TABLE emails DROP COLUMN statement_to;
ALTER TABLE emails DROP COLUMN statement_from;
ALTER TABLE emails DROP COLUMN statement_currency;
ALTER TABLE emails DROP COLUMN customer_id;
