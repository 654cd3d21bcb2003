-- A portal link the customer asked for by email (SPEC §26): at most one a minute per customer.
ALTER TABLE portal_links ADD COLUMN asked BOOLEAN NOT NULL DEFAULT FALSE;
-- Its email is a notice of its own kind.
ALTER TABLE notices DROP CONSTRAINT notices_kind_check;
ALTER TABLE notices ADD CONSTRAINT notices_kind_check
    CHECK (kind IN ('invitation', 'password_reset', 'test', 'email_change', 'email_changing', 'portal_link'));
