-- The merchant's profile (SPEC §16): one per account and environment, so a test key can never
-- change what live customers see. A missing row reads as the defaults (the account's name and
-- currency); the first PATCH writes it.
CREATE TABLE account_profiles (
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    name TEXT NOT NULL,
    legal_name TEXT,
    email TEXT,
    phone TEXT,
    website TEXT,
    address TEXT,
    tax_id TEXT,
    payment_instructions TEXT,
    invoice_footer TEXT,
    locale TEXT NOT NULL,
    brand_color TEXT,
    default_currency TEXT NOT NULL,
    reminders TEXT NOT NULL,
    send_receipts BOOLEAN NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, livemode)
);

-- Logos apart from the profile, so reading a profile never drags up to 512 KiB along.
CREATE TABLE account_logos (
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    content_type TEXT NOT NULL,
    bytes BYTEA NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, livemode)
);

-- A customer's own locale overrides the account's; a tax id shows on their documents.
ALTER TABLE customers ADD COLUMN locale TEXT;
ALTER TABLE customers ADD COLUMN tax_id TEXT;

-- What a document showed when it left draft (SPEC §9): the merchant (JSON, with the hash of
-- its logo) and the customer, so later changes never rewrite a document already sent.
ALTER TABLE invoices ADD COLUMN issuer TEXT;
ALTER TABLE invoices ADD COLUMN recipient TEXT;
ALTER TABLE quotations ADD COLUMN issuer TEXT;
ALTER TABLE quotations ADD COLUMN recipient TEXT;

-- The logos those copies name, by content hash: one copy however many documents show it.
CREATE TABLE document_logos (
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    hash TEXT NOT NULL,
    content_type TEXT NOT NULL,
    bytes BYTEA NOT NULL,
    PRIMARY KEY (account_id, hash)
);
