-- Idempotency keys (SPEC §15): one row per key and tenant, claimed before the request runs and
-- completed with its answer; the scheduler forgets rows older than a day.
CREATE TABLE idempotency_keys (
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    idem_key TEXT NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    body_sha256 TEXT NOT NULL,
    state TEXT NOT NULL,
    status_code INTEGER,
    response_body TEXT,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, livemode, idem_key)
);
CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at);
