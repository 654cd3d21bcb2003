DELETE FROM notices WHERE kind IN ('email_change', 'email_changing');
ALTER TABLE notices DROP CONSTRAINT notices_kind_check;
ALTER TABLE notices ADD CONSTRAINT notices_kind_check
    CHECK (kind IN ('invitation', 'password_reset', 'test'));
DELETE FROM user_tokens WHERE purpose = 'email_change';
ALTER TABLE user_tokens DROP COLUMN new_email;
