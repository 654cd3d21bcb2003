-- The books (SPEC §22): see the PostgreSQL migration of the same name.
CREATE TABLE booked_days (
    account_id BIGINT NOT NULL,
    livemode BOOLEAN NOT NULL,
    currency TEXT NOT NULL,
    day DATE NOT NULL,
    tax_rate_milli BIGINT NOT NULL,
    tax_category TEXT NOT NULL,
    taxable BIGINT NOT NULL,
    tax BIGINT NOT NULL,
    PRIMARY KEY (account_id, livemode, currency, day, tax_rate_milli, tax_category)
);

-- The documents so far, by the same rule. An invoice left its draft unless it is one, or was
-- cancelled without ever being sent (a draft's cancel stamps no `sent_at`; paid ones cannot be
-- cancelled).
INSERT INTO booked_days
SELECT account_id, livemode, currency, day, rate, category, SUM(taxable), SUM(tax) FROM (
    SELECT i.account_id, i.livemode, i.currency, i.issue_date AS day, l.tax_rate_milli AS rate,
        COALESCE(l.tax_category, '') AS category, l.subtotal_cents AS taxable, l.tax_cents AS tax
        FROM invoices i JOIN line_items l ON l.account_id = i.account_id
            AND l.livemode = i.livemode AND l.document_kind = 'invoice' AND l.document_id = i.id
        WHERE i.status <> 'draft' AND NOT (i.status = 'cancelled' AND i.sent_at IS NULL)
    UNION ALL
    SELECT n.account_id, n.livemode, n.currency, substr(n.created_at, 1, 10), l.tax_rate_milli,
        COALESCE(l.tax_category, ''), -l.subtotal_cents, -l.tax_cents
        FROM credit_notes n JOIN line_items l ON l.account_id = n.account_id
            AND l.livemode = n.livemode AND l.document_kind = 'credit_note' AND l.document_id = n.id
    UNION ALL
    SELECT i.account_id, i.livemode, i.currency, substr(i.cancelled_at, 1, 10), l.tax_rate_milli,
        COALESCE(l.tax_category, ''), -l.subtotal_cents, -l.tax_cents
        FROM invoices i JOIN line_items l ON l.account_id = i.account_id
            AND l.livemode = i.livemode AND l.document_kind = 'invoice' AND l.document_id = i.id
        WHERE i.status = 'cancelled' AND i.sent_at IS NOT NULL
    UNION ALL
    SELECT i.account_id, i.livemode, i.currency, substr(i.cancelled_at, 1, 10), l.tax_rate_milli,
        COALESCE(l.tax_category, ''), l.subtotal_cents, l.tax_cents
        FROM invoices i JOIN credit_notes n ON n.account_id = i.account_id
            AND n.livemode = i.livemode AND n.invoice_id = i.id
        JOIN line_items l ON l.account_id = n.account_id AND l.livemode = n.livemode
            AND l.document_kind = 'credit_note' AND l.document_id = n.id
        WHERE i.status = 'cancelled' AND i.sent_at IS NOT NULL
) b WHERE true GROUP BY account_id, livemode, currency, day, rate, category
HAVING SUM(taxable) <> 0 OR SUM(tax) <> 0;

-- What payments brought by day stays a trigger's; invoices and credit notes no longer write
-- revenue sums.
CREATE TABLE collected_days (
    account_id BIGINT NOT NULL,
    livemode BOOLEAN NOT NULL,
    currency TEXT NOT NULL,
    day DATE NOT NULL,
    collected BIGINT NOT NULL,
    PRIMARY KEY (account_id, livemode, currency, day)
);
INSERT INTO collected_days
SELECT account_id, livemode, currency, day, collected FROM revenue_days WHERE collected <> 0;

DROP TRIGGER payments_revenue_changed;
DROP TRIGGER payments_revenue_gone;
DROP TRIGGER payments_revenue;
DROP TRIGGER credit_notes_revenue_gone;
DROP TRIGGER credit_notes_revenue;
DROP TRIGGER invoices_revenue_changed;
DROP TRIGGER invoices_revenue_gone;
DROP TRIGGER invoices_revenue;
DROP TABLE revenue_days;

CREATE TRIGGER payments_collected AFTER INSERT ON payments
    WHEN NEW.status = 'verified' AND NEW.verified_at IS NOT NULL BEGIN
    INSERT INTO collected_days
        SELECT NEW.account_id, NEW.livemode, NEW.currency, substr(NEW.verified_at, 1, 10), NEW.amount_cents
        WHERE true
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            collected = collected + excluded.collected;
END;
CREATE TRIGGER payments_collected_gone AFTER DELETE ON payments
    WHEN OLD.status = 'verified' AND OLD.verified_at IS NOT NULL BEGIN
    INSERT INTO collected_days
        SELECT OLD.account_id, OLD.livemode, OLD.currency, substr(OLD.verified_at, 1, 10), -OLD.amount_cents
        WHERE true
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            collected = collected + excluded.collected;
END;
CREATE TRIGGER payments_collected_changed
    AFTER UPDATE OF status, verified_at, amount_cents, currency ON payments BEGIN
    INSERT INTO collected_days
        SELECT OLD.account_id, OLD.livemode, OLD.currency, substr(OLD.verified_at, 1, 10), -OLD.amount_cents
        WHERE OLD.status = 'verified' AND OLD.verified_at IS NOT NULL
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            collected = collected + excluded.collected;
    INSERT INTO collected_days
        SELECT NEW.account_id, NEW.livemode, NEW.currency, substr(NEW.verified_at, 1, 10), NEW.amount_cents
        WHERE NEW.status = 'verified' AND NEW.verified_at IS NOT NULL
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            collected = collected + excluded.collected;
END;
