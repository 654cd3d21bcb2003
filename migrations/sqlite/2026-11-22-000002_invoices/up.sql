-- Same shape as migrations/postgres; SQLite needs INTEGER PRIMARY KEY AUTOINCREMENT for ids.
-- Gap-free numbering: one row per tenant, document kind and year, bumped inside the creating
-- transaction, so a rolled-back create returns its number.
CREATE TABLE document_counters (
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    kind TEXT NOT NULL,
    year INTEGER NOT NULL,
    last_value BIGINT NOT NULL,
    PRIMARY KEY (account_id, livemode, kind, year)
);

CREATE TABLE invoices (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    number TEXT NOT NULL,
    status TEXT NOT NULL,
    customer_id BIGINT NOT NULL,
    currency TEXT NOT NULL,
    issue_date DATE NOT NULL,
    due_date DATE NOT NULL,
    payment_terms TEXT,
    subtotal_cents BIGINT NOT NULL,
    tax_cents BIGINT NOT NULL,
    total_cents BIGINT NOT NULL,
    amount_paid_cents BIGINT NOT NULL DEFAULT 0,
    notes TEXT,
    metadata TEXT NOT NULL,
    token TEXT NOT NULL,
    quotation_id BIGINT,
    sent_at TIMESTAMP,
    viewed_at TIMESTAMP,
    paid_at TIMESTAMP,
    cancelled_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    FOREIGN KEY (customer_id) REFERENCES customers (id)
);
CREATE UNIQUE INDEX invoices_number ON invoices (account_id, livemode, number);
CREATE INDEX invoices_newest ON invoices (account_id, livemode, created_at DESC, id DESC);
CREATE INDEX invoices_by_status ON invoices (account_id, livemode, status, created_at DESC, id DESC);
CREATE INDEX invoices_by_customer ON invoices (account_id, livemode, customer_id, created_at DESC, id DESC);
-- The public page finds an invoice by its capability token alone.
CREATE INDEX invoices_token ON invoices (token);
-- The overdue sweep reads only open invoices.
CREATE INDEX invoices_due_open ON invoices (due_date) WHERE status IN ('sent', 'viewed');

-- Lines of invoices and (later) quotations: one implementation for both kinds of document.
CREATE TABLE line_items (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    document_kind TEXT NOT NULL,
    document_id BIGINT NOT NULL,
    position INTEGER NOT NULL,
    description TEXT NOT NULL,
    quantity_milli BIGINT NOT NULL,
    unit_price_cents BIGINT NOT NULL,
    tax_rate_milli BIGINT NOT NULL,
    subtotal_cents BIGINT NOT NULL,
    tax_cents BIGINT NOT NULL,
    total_cents BIGINT NOT NULL
);
CREATE INDEX line_items_document ON line_items (account_id, document_kind, document_id, position);

CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    event_type TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX events_newest ON events (account_id, livemode, created_at DESC, id DESC);
CREATE INDEX events_by_type ON events (account_id, livemode, event_type, created_at DESC, id DESC);
