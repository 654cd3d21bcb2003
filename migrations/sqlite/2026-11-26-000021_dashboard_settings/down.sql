DROP TABLE notices;
DROP INDEX user_tokens_account;
ALTER TABLE user_tokens DROP COLUMN invited_by;
ALTER TABLE user_tokens DROP COLUMN role;
ALTER TABLE user_tokens DROP COLUMN account_id;
ALTER TABLE api_keys DROP COLUMN last_used_at;
