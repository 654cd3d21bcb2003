-- Credit notes (SPEC §19): final once written, numbered CN-{year}-{NNNNNN} like invoices, their
-- lines in line_items (document_kind 'credit_note'). They show their invoice's parties.
CREATE TABLE credit_notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    number TEXT NOT NULL,
    invoice_id BIGINT NOT NULL,
    customer_id BIGINT NOT NULL,
    currency TEXT NOT NULL,
    reason TEXT NOT NULL,
    memo TEXT,
    subtotal_cents BIGINT NOT NULL,
    tax_cents BIGINT NOT NULL,
    total_cents BIGINT NOT NULL,
    refund_due_cents BIGINT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    FOREIGN KEY (invoice_id) REFERENCES invoices (id)
);
CREATE UNIQUE INDEX credit_notes_number ON credit_notes (account_id, livemode, number);
CREATE INDEX credit_notes_newest ON credit_notes (account_id, livemode, created_at DESC, id DESC);
CREATE INDEX credit_notes_invoice ON credit_notes (account_id, invoice_id);

-- What the invoice's credit notes took, kept with it so its amount due is one row's arithmetic.
ALTER TABLE invoices ADD COLUMN amount_credited_cents BIGINT NOT NULL DEFAULT 0;
