-- Payment requests (SPEC §26): the invoice a request made, where the payment page sends the
-- customer back to the shop, and when an unpaid request lapses. One row per such invoice.
CREATE TABLE payment_requests (
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    invoice_id BIGINT NOT NULL,
    success_url TEXT,
    cancel_url TEXT,
    expires_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, livemode, invoice_id),
    FOREIGN KEY (invoice_id) REFERENCES invoices (id)
);
-- What the scheduler's expiry sweep reads.
CREATE INDEX payment_requests_expiring ON payment_requests (expires_at) WHERE expires_at IS NOT NULL;
