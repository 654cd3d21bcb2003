ALTER TABLE credit_notes DROP COLUMN refs;
