-- Tenant tables carry account_id and livemode, and their primary keys lead with account_id so
-- they can be distributed by account (Citus) without changes. Ids still come from one sequence
-- per table, so they are unique across tenants.
CREATE TABLE accounts (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL,
    default_currency TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);

-- Looked up by key hash before the account is known: a reference table on a sharded cluster.
CREATE TABLE api_keys (
    id BIGSERIAL PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    last4 TEXT NOT NULL,
    scopes TEXT NOT NULL,
    rate_per_minute INTEGER,
    burst INTEGER,
    expires_at TIMESTAMP,
    revoked_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at);

CREATE TABLE customers (
    id BIGSERIAL NOT NULL,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    email_normalized TEXT NOT NULL,
    phone TEXT,
    company TEXT,
    address TEXT,
    metadata TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, id)
);
-- The database, not the code, guarantees one customer per email (SPEC §8).
CREATE UNIQUE INDEX customers_email ON customers (account_id, livemode, email_normalized);
CREATE INDEX customers_newest ON customers (account_id, livemode, created_at DESC, id DESC);
-- Tells 403 from 404 for an id of another tenant.
CREATE INDEX customers_id ON customers (id);
