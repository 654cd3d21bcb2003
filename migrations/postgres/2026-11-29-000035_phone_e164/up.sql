-- A customer's phone as it can be dialled (SPEC §26): E.164, for WhatsApp and SMS links.
ALTER TABLE customers ADD COLUMN phone_e164 TEXT;
