-- Same shape as migrations/postgres; SQLite needs INTEGER PRIMARY KEY AUTOINCREMENT for ids.
-- The dashboard's settings (SPEC §21): when a key was last used, invitations to one account,
-- and the mail to people rather than customers (invitations, password resets, test emails).

-- Written at most once a minute per key, when a process looks the key up again.
ALTER TABLE api_keys ADD COLUMN last_used_at TIMESTAMP;

-- An owner's invitation is a one-time link bound to one account and one role: using it makes
-- the user a member of that account, never of another. Links without an account set a password.
ALTER TABLE user_tokens ADD COLUMN account_id BIGINT;
ALTER TABLE user_tokens ADD COLUMN role TEXT CHECK (role IN ('owner', 'staff', 'viewer'));
ALTER TABLE user_tokens ADD COLUMN invited_by BIGINT;
CREATE INDEX user_tokens_account ON user_tokens (account_id, expires_at) WHERE account_id IS NOT NULL;

-- Mail to a person (not a document to a customer), drained by the durable-job mechanism like
-- `emails`. The body holds a one-time link until the message is settled, then it is cleared:
-- the database keeps a link's hash only, beyond the minutes it takes to send it.
CREATE TABLE notices (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id BIGINT REFERENCES accounts (id),
    kind TEXT NOT NULL CHECK (kind IN ('invitation', 'password_reset', 'test')),
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
CREATE INDEX notices_due ON notices (next_attempt_at) WHERE state = 'queued';
CREATE INDEX notices_account ON notices (account_id, id);
