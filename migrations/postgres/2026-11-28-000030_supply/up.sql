-- When the supply credited was made (SPEC §27), as JSON like invoices' buyer_refs: delivery_date or service_period.
ALTER TABLE credit_notes ADD COLUMN refs TEXT;
