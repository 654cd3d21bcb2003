-- The email outbox (SPEC §18): written in the transaction of the change that asks for mail, and
-- drained by the mail workers with the same leases as webhook deliveries (`claim`,
-- `locked_until`, `next_attempt_at`).
CREATE TABLE emails (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    kind TEXT NOT NULL,
    invoice_id BIGINT,
    quotation_id BIGINT,
    credit_note_id BIGINT,
    -- JSON arrays of addresses.
    recipients TEXT NOT NULL,
    cc TEXT NOT NULL,
    subject TEXT NOT NULL,
    message TEXT,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    last_error TEXT,
    message_id TEXT,
    sent_at TIMESTAMP,
    next_attempt_at TIMESTAMP NOT NULL,
    claim TEXT,
    locked_until TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    FOREIGN KEY (invoice_id) REFERENCES invoices (id),
    FOREIGN KEY (quotation_id) REFERENCES quotations (id)
);
CREATE INDEX emails_due ON emails (next_attempt_at) WHERE state = 'queued';
CREATE INDEX emails_newest ON emails (account_id, livemode, created_at DESC, id DESC);

-- One row per invoice and reminder offset: the primary key is what makes a reminder go out
-- once, whichever process or sweep gets there first.
CREATE TABLE invoice_reminders (
    account_id BIGINT NOT NULL,
    invoice_id BIGINT NOT NULL,
    offset_days INTEGER NOT NULL,
    email_id BIGINT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, invoice_id, offset_days),
    FOREIGN KEY (invoice_id) REFERENCES invoices (id)
);

-- An invoice's own reminder offsets (JSON array); NULL follows the account's.
ALTER TABLE invoices ADD COLUMN reminders TEXT;
