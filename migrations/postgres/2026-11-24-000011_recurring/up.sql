-- Recurring invoices (SPEC §20): a schedule and its template lines (line_items, document_kind
-- 'recurring_invoice'). `next_period` is the number of the next period to issue.
CREATE TABLE recurring_invoices (
    id BIGSERIAL NOT NULL,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    customer_id BIGINT NOT NULL,
    currency TEXT NOT NULL,
    subtotal_cents BIGINT NOT NULL,
    tax_cents BIGINT NOT NULL,
    total_cents BIGINT NOT NULL,
    interval_unit TEXT NOT NULL,
    interval_count INTEGER NOT NULL,
    start_date DATE NOT NULL,
    end_date DATE,
    occurrences INTEGER,
    payment_terms TEXT NOT NULL,
    notes TEXT,
    metadata TEXT NOT NULL,
    auto_send BOOLEAN NOT NULL,
    email BOOLEAN NOT NULL,
    status TEXT NOT NULL,
    next_period INTEGER NOT NULL,
    next_issue_date DATE,
    invoices_created INTEGER NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, id)
);
CREATE INDEX recurring_invoices_newest ON recurring_invoices (account_id, livemode, created_at DESC, id DESC);
CREATE INDEX recurring_invoices_due ON recurring_invoices (next_issue_date) WHERE status = 'active';
CREATE INDEX recurring_invoices_id ON recurring_invoices (id);

-- Each period's invoice exists once: the key the sweep's insert cannot get past twice.
ALTER TABLE invoices ADD COLUMN recurring_invoice_id BIGINT;
ALTER TABLE invoices ADD COLUMN recurring_period INTEGER;
CREATE UNIQUE INDEX invoices_recurring_period ON invoices (account_id, recurring_invoice_id, recurring_period);
