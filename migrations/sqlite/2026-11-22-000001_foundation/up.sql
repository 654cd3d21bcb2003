-- Same shape as migrations/postgres; SQLite needs INTEGER PRIMARY KEY AUTOINCREMENT for ids.
CREATE TABLE accounts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    default_currency TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);

CREATE TABLE api_keys (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
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
    id INTEGER PRIMARY KEY AUTOINCREMENT,
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
    updated_at TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX customers_email ON customers (account_id, livemode, email_normalized);
CREATE INDEX customers_newest ON customers (account_id, livemode, created_at DESC, id DESC);
