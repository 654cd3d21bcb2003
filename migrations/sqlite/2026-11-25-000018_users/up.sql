-- Same shape as migrations/postgres; SQLite needs INTEGER PRIMARY KEY AUTOINCREMENT for ids.
-- Dashboard users (SPEC §21). None of these tables is tenant data: a user may belong to several
-- accounts, and users, sessions, links and sign-in failures are looked up (by email, by token
-- hash) before the account is known. Under Citus they are reference tables, like api_keys.
-- Timestamps are UTC whole seconds, as everywhere.

-- One row per person. Unique by the lower-cased email; `email` keeps the spelling given (with
-- its domain in lower case). No password until the person sets one through a one-time link;
-- only its Argon2id PHC string is kept.
CREATE TABLE users (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    email TEXT NOT NULL,
    email_normalized TEXT NOT NULL,
    password_hash TEXT,
    password_changed_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX users_email ON users (email_normalized);

-- A user's role in one account. Every account with members keeps at least one owner: the
-- storage refuses to remove or demote the last one, with the account's row locked.
CREATE TABLE memberships (
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    user_id BIGINT NOT NULL REFERENCES users (id),
    role TEXT NOT NULL CHECK (role IN ('owner', 'staff', 'viewer')),
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, user_id)
);
-- The accounts of a user (the account picker; sign-in).
CREATE INDEX memberships_user ON memberships (user_id);

-- Signed-in sessions, found by the SHA-256 of the cookie's random token on every dashboard
-- request. Idle after 30 minutes (last_seen_at), ended after 12 hours (created_at).
CREATE TABLE user_sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    token_hash TEXT NOT NULL UNIQUE,
    user_id BIGINT NOT NULL REFERENCES users (id),
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    created_at TIMESTAMP NOT NULL,
    last_seen_at TIMESTAMP NOT NULL,
    password_entered_at TIMESTAMP NOT NULL
);
-- A user's sessions (list, end the others).
CREATE INDEX user_sessions_user ON user_sessions (user_id, created_at);

-- One-time set-password links (invitation, reset): the SHA-256 of the token only. Using one
-- deletes its row, so it works once.
CREATE TABLE user_tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    token_hash TEXT NOT NULL UNIQUE,
    user_id BIGINT NOT NULL REFERENCES users (id),
    purpose TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL
);
CREATE INDEX user_tokens_user ON user_tokens (user_id);

-- Failed sign-ins per typed email and client network, shared by every process: the throttle
-- counts a pair's rows of the last 15 minutes. A success deletes the pair's rows; the
-- scheduler forgets older ones.
CREATE TABLE login_failures (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    email TEXT NOT NULL,
    ip TEXT NOT NULL,
    failed_at TIMESTAMP NOT NULL
);
CREATE INDEX login_failures_pair ON login_failures (email, ip, failed_at);
CREATE INDEX login_failures_at ON login_failures (failed_at);
