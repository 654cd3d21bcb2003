ALTER TABLE customers DROP COLUMN phone_e164;
