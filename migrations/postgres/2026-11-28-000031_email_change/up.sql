-- Changing one's own email (SPEC §27): the link mailed to the new address carries it, and two
-- notices more (the link, and a word to the old address).
ALTER TABLE user_tokens ADD COLUMN new_email TEXT;
ALTER TABLE notices DROP CONSTRAINT notices_kind_check;
ALTER TABLE notices ADD CONSTRAINT notices_kind_check
    CHECK (kind IN ('invitation', 'password_reset', 'test', 'email_change', 'email_changing'));
