-- A customer's statement by email (SPEC §22, §18 kind `statement`): the customer and the
-- statement asked for (currency and days), made again when the message is sent.
ALTER TABLE emails ADD COLUMN customer_id BIGINT;
ALTER TABLE emails ADD COLUMN statement_currency TEXT;
ALTER TABLE emails ADD COLUMN statement_from DATE;
ALTER TABLE emails ADD COLUMN statement_to DATE;
