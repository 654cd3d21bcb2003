-- Online payments (SPEC §25): each account's environment connects its own Stripe account; the
-- secrets are sealed (AEAD) by the server before they reach this table.
CREATE TABLE gateway_accounts (
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    gateway TEXT NOT NULL,
    -- The last segment of the webhook URL: an unguessable name for (account, environment).
    endpoint TEXT NOT NULL UNIQUE,
    publishable_key TEXT NOT NULL,
    secret_last4 TEXT NOT NULL,
    sealed_secret_key TEXT NOT NULL,
    sealed_webhook_secret TEXT,
    checked_at TIMESTAMP,
    check_ok BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, livemode, gateway)
);

-- Each gateway event is handled once; its id is written in the transaction that handles it.
CREATE TABLE gateway_events (
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    endpoint TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    received_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, endpoint, event_id)
);

-- The hosted checkouts opened for invoices: reused while open for the same amount, asked about
-- by the sweep until they end, and the only sessions a notification may pay.
CREATE TABLE checkout_sessions (
    id BIGSERIAL NOT NULL,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    invoice_id BIGINT NOT NULL,
    gateway TEXT NOT NULL,
    session_id TEXT NOT NULL,
    url TEXT,
    amount_cents BIGINT NOT NULL,
    currency TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, id),
    UNIQUE (account_id, gateway, session_id)
);
CREATE INDEX checkout_sessions_of_invoice ON checkout_sessions (account_id, livemode, invoice_id);
CREATE INDEX checkout_sessions_open ON checkout_sessions (updated_at) WHERE status = 'open';

ALTER TABLE payments ADD COLUMN gateway TEXT;
-- What was returned of it; the invoice's amount_paid_cents is net of refunds.
ALTER TABLE payments ADD COLUMN amount_refunded_cents BIGINT NOT NULL DEFAULT 0;
-- One gateway payment (Stripe's PaymentIntent) is one payment, whoever reports it first.
CREATE UNIQUE INDEX payments_gateway_reference ON payments (account_id, livemode, gateway, reference)
    WHERE gateway IS NOT NULL;

CREATE TABLE refunds (
    id BIGSERIAL NOT NULL,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    payment_id BIGINT NOT NULL,
    invoice_id BIGINT NOT NULL,
    amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
    status TEXT NOT NULL,
    reason TEXT,
    gateway_refund_id TEXT,
    idempotency_key TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, id),
    UNIQUE (account_id, idempotency_key)
);
CREATE INDEX refunds_of_payment ON refunds (account_id, livemode, payment_id);
CREATE INDEX refunds_pending ON refunds (updated_at) WHERE status = 'pending';

-- Proof of a transfer the customer attached to "I have paid" (never public).
CREATE TABLE payment_proofs (
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    payment_id BIGINT NOT NULL,
    filename TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size BIGINT NOT NULL,
    bytes BYTEA NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, payment_id)
);
