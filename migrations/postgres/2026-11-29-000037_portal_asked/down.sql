DELETE FROM notices WHERE kind = 'portal_link';
ALTER TABLE notices DROP CONSTRAINT notices_kind_check;
ALTER TABLE notices ADD CONSTRAINT notices_kind_check
    CHECK (kind IN ('invitation', 'password_reset', 'test', 'email_change', 'email_changing'));
ALTER TABLE portal_links DROP COLUMN asked;
