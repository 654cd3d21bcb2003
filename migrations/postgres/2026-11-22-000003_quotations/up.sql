CREATE TABLE quotations (
    id BIGSERIAL NOT NULL,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    number TEXT NOT NULL,
    status TEXT NOT NULL,
    customer_id BIGINT NOT NULL,
    currency TEXT NOT NULL,
    issue_date DATE NOT NULL,
    valid_until DATE NOT NULL,
    subtotal_cents BIGINT NOT NULL,
    tax_cents BIGINT NOT NULL,
    total_cents BIGINT NOT NULL,
    notes TEXT,
    metadata TEXT NOT NULL,
    token TEXT NOT NULL,
    accepted_by_name TEXT,
    accepted_from_ip TEXT,
    accepted_user_agent TEXT,
    rejection_reason TEXT,
    invoice_id BIGINT,
    sent_at TIMESTAMP,
    viewed_at TIMESTAMP,
    accepted_at TIMESTAMP,
    rejected_at TIMESTAMP,
    expired_at TIMESTAMP,
    converted_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, id),
    FOREIGN KEY (account_id, customer_id) REFERENCES customers (account_id, id)
);
CREATE UNIQUE INDEX quotations_number ON quotations (account_id, livemode, number);
CREATE INDEX quotations_newest ON quotations (account_id, livemode, created_at DESC, id DESC);
CREATE INDEX quotations_by_status ON quotations (account_id, livemode, status, created_at DESC, id DESC);
CREATE INDEX quotations_by_customer ON quotations (account_id, livemode, customer_id, created_at DESC, id DESC);
CREATE INDEX quotations_id ON quotations (id);
CREATE INDEX quotations_token ON quotations (token);
CREATE INDEX quotations_open_validity ON quotations (valid_until) WHERE status IN ('sent', 'viewed');
-- A quotation becomes at most one invoice, whatever races: the database refuses a second.
CREATE UNIQUE INDEX invoices_from_quotation ON invoices (account_id, quotation_id) WHERE quotation_id IS NOT NULL;
