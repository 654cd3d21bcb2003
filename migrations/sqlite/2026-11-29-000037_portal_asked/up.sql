-- A portal link the customer asked for by email (SPEC §26): at most one a minute per customer.
ALTER TABLE portal_links ADD COLUMN asked BOOLEAN NOT NULL DEFAULT 0;
-- Its email is a notice of its own kind; SQLite cannot alter a CHECK: the table is rebuilt.
ALTER TABLE notices RENAME TO notices_old;
CREATE TABLE notices (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id BIGINT REFERENCES accounts (id),
    kind TEXT NOT NULL CHECK (kind IN ('invitation', 'password_reset', 'test', 'email_change', 'email_changing', 'portal_link')),
    recipient TEXT NOT NULL,
    locale TEXT NOT NULL,
    sender_name TEXT NOT NULL,
    subject TEXT NOT NULL,
    body TEXT,
    link TEXT,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    last_error TEXT,
    sent_at TIMESTAMP,
    next_attempt_at TIMESTAMP NOT NULL,
    claim TEXT,
    locked_until TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
INSERT INTO notices SELECT * FROM notices_old;
DROP TABLE notices_old;
CREATE INDEX notices_due ON notices (next_attempt_at) WHERE state = 'queued';
CREATE INDEX notices_account ON notices (account_id, id);
