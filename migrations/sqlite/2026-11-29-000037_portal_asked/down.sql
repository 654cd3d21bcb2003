DELETE FROM notices WHERE kind = 'portal_link';
ALTER TABLE notices RENAME TO notices_old;
CREATE TABLE notices (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id BIGINT REFERENCES accounts (id),
    kind TEXT NOT NULL CHECK (kind IN ('invitation', 'password_reset', 'test', 'email_change', 'email_changing')),
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
ALTER TABLE portal_links DROP COLUMN asked;
