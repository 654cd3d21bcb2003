-- Same shape as migrations/sqlite.
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
    id BIGSERIAL PRIMARY KEY,
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
CREATE TRIGGER notices_notify AFTER INSERT ON notices
    FOR EACH STATEMENT EXECUTE FUNCTION notify_jobs();

-- The second factor: a TOTP secret per user (the server reads it to check a code), the last
-- 30-second step used (a code works once), single-use recovery codes kept by their SHA-256,
-- the session's second factor, and an account's demand that every member use one.
ALTER TABLE users ADD COLUMN totp_secret TEXT;
ALTER TABLE users ADD COLUMN totp_last_step BIGINT;
ALTER TABLE user_sessions ADD COLUMN second_factor_at TIMESTAMP;
-- The secret being set up, chosen by the server and kept here until its first code proves it.
ALTER TABLE user_sessions ADD COLUMN pending_totp TEXT;
ALTER TABLE accounts ADD COLUMN require_totp BOOLEAN NOT NULL DEFAULT FALSE;
CREATE TABLE recovery_codes (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id),
    code_hash TEXT NOT NULL,
    used_at TIMESTAMP
);
CREATE INDEX recovery_codes_user ON recovery_codes (user_id, code_hash);
