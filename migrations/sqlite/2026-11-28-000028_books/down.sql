-- Back to revenue sums kept by triggers (as after 2026-11-28-000027).
DROP TRIGGER payments_collected_changed;
DROP TRIGGER payments_collected_gone;
DROP TRIGGER payments_collected;
DROP TABLE collected_days;
DROP TABLE booked_days;
-- The revenue report's sums by day (SPEC §22): see the PostgreSQL migration of the same name.
CREATE TABLE revenue_days (
    account_id BIGINT NOT NULL,
    livemode BOOLEAN NOT NULL,
    currency TEXT NOT NULL,
    day DATE NOT NULL,
    invoiced BIGINT NOT NULL,
    tax BIGINT NOT NULL,
    credited BIGINT NOT NULL,
    credited_tax BIGINT NOT NULL,
    collected BIGINT NOT NULL,
    PRIMARY KEY (account_id, livemode, currency, day)
);

INSERT INTO revenue_days
SELECT account_id, livemode, currency, day, SUM(invoiced), SUM(tax), SUM(credited),
    SUM(credited_tax), SUM(collected) FROM (
    SELECT account_id, livemode, currency, substr(sent_at, 1, 10) AS day, total_cents AS invoiced,
        tax_cents AS tax, 0 AS credited, 0 AS credited_tax, 0 AS collected
        FROM invoices WHERE status NOT IN ('draft', 'cancelled') AND sent_at IS NOT NULL
    UNION ALL
    SELECT account_id, livemode, currency, substr(created_at, 1, 10), 0, 0, total_cents, tax_cents, 0
        FROM credit_notes
    UNION ALL
    SELECT account_id, livemode, currency, substr(verified_at, 1, 10), 0, 0, 0, 0, amount_cents
        FROM payments WHERE status = 'verified' AND verified_at IS NOT NULL
) d WHERE true GROUP BY account_id, livemode, currency, day;

CREATE TRIGGER invoices_revenue AFTER INSERT ON invoices BEGIN
    INSERT INTO revenue_days
        SELECT NEW.account_id, NEW.livemode, NEW.currency, substr(NEW.sent_at, 1, 10), NEW.total_cents, NEW.tax_cents, 0, 0, 0
        WHERE NEW.status NOT IN ('draft', 'cancelled') AND NEW.sent_at IS NOT NULL
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            invoiced = invoiced + excluded.invoiced, tax = tax + excluded.tax,
            credited = credited + excluded.credited,
            credited_tax = credited_tax + excluded.credited_tax,
            collected = collected + excluded.collected;
END;

CREATE TRIGGER invoices_revenue_gone AFTER DELETE ON invoices BEGIN
    INSERT INTO revenue_days
        SELECT OLD.account_id, OLD.livemode, OLD.currency, substr(OLD.sent_at, 1, 10), -OLD.total_cents, -OLD.tax_cents, 0, 0, 0
        WHERE OLD.status NOT IN ('draft', 'cancelled') AND OLD.sent_at IS NOT NULL
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            invoiced = invoiced + excluded.invoiced, tax = tax + excluded.tax,
            credited = credited + excluded.credited,
            credited_tax = credited_tax + excluded.credited_tax,
            collected = collected + excluded.collected;
END;

CREATE TRIGGER invoices_revenue_changed
    AFTER UPDATE OF status, sent_at, total_cents, tax_cents, currency ON invoices BEGIN
    INSERT INTO revenue_days
        SELECT OLD.account_id, OLD.livemode, OLD.currency, substr(OLD.sent_at, 1, 10), -OLD.total_cents, -OLD.tax_cents, 0, 0, 0
        WHERE OLD.status NOT IN ('draft', 'cancelled') AND OLD.sent_at IS NOT NULL
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            invoiced = invoiced + excluded.invoiced, tax = tax + excluded.tax,
            credited = credited + excluded.credited,
            credited_tax = credited_tax + excluded.credited_tax,
            collected = collected + excluded.collected;
    INSERT INTO revenue_days
        SELECT NEW.account_id, NEW.livemode, NEW.currency, substr(NEW.sent_at, 1, 10), NEW.total_cents, NEW.tax_cents, 0, 0, 0
        WHERE NEW.status NOT IN ('draft', 'cancelled') AND NEW.sent_at IS NOT NULL
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            invoiced = invoiced + excluded.invoiced, tax = tax + excluded.tax,
            credited = credited + excluded.credited,
            credited_tax = credited_tax + excluded.credited_tax,
            collected = collected + excluded.collected;
END;

CREATE TRIGGER credit_notes_revenue AFTER INSERT ON credit_notes BEGIN
    INSERT INTO revenue_days
        SELECT NEW.account_id, NEW.livemode, NEW.currency, substr(NEW.created_at, 1, 10), 0, 0, NEW.total_cents, NEW.tax_cents, 0
        WHERE true
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            invoiced = invoiced + excluded.invoiced, tax = tax + excluded.tax,
            credited = credited + excluded.credited,
            credited_tax = credited_tax + excluded.credited_tax,
            collected = collected + excluded.collected;
END;

CREATE TRIGGER credit_notes_revenue_gone AFTER DELETE ON credit_notes BEGIN
    INSERT INTO revenue_days
        SELECT OLD.account_id, OLD.livemode, OLD.currency, substr(OLD.created_at, 1, 10), 0, 0, -OLD.total_cents, -OLD.tax_cents, 0
        WHERE true
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            invoiced = invoiced + excluded.invoiced, tax = tax + excluded.tax,
            credited = credited + excluded.credited,
            credited_tax = credited_tax + excluded.credited_tax,
            collected = collected + excluded.collected;
END;

CREATE TRIGGER payments_revenue AFTER INSERT ON payments BEGIN
    INSERT INTO revenue_days
        SELECT NEW.account_id, NEW.livemode, NEW.currency, substr(NEW.verified_at, 1, 10), 0, 0, 0, 0, NEW.amount_cents
        WHERE NEW.status = 'verified' AND NEW.verified_at IS NOT NULL
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            invoiced = invoiced + excluded.invoiced, tax = tax + excluded.tax,
            credited = credited + excluded.credited,
            credited_tax = credited_tax + excluded.credited_tax,
            collected = collected + excluded.collected;
END;

CREATE TRIGGER payments_revenue_gone AFTER DELETE ON payments BEGIN
    INSERT INTO revenue_days
        SELECT OLD.account_id, OLD.livemode, OLD.currency, substr(OLD.verified_at, 1, 10), 0, 0, 0, 0, -OLD.amount_cents
        WHERE OLD.status = 'verified' AND OLD.verified_at IS NOT NULL
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            invoiced = invoiced + excluded.invoiced, tax = tax + excluded.tax,
            credited = credited + excluded.credited,
            credited_tax = credited_tax + excluded.credited_tax,
            collected = collected + excluded.collected;
END;

CREATE TRIGGER payments_revenue_changed
    AFTER UPDATE OF status, verified_at, amount_cents, currency ON payments BEGIN
    INSERT INTO revenue_days
        SELECT OLD.account_id, OLD.livemode, OLD.currency, substr(OLD.verified_at, 1, 10), 0, 0, 0, 0, -OLD.amount_cents
        WHERE OLD.status = 'verified' AND OLD.verified_at IS NOT NULL
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            invoiced = invoiced + excluded.invoiced, tax = tax + excluded.tax,
            credited = credited + excluded.credited,
            credited_tax = credited_tax + excluded.credited_tax,
            collected = collected + excluded.collected;
    INSERT INTO revenue_days
        SELECT NEW.account_id, NEW.livemode, NEW.currency, substr(NEW.verified_at, 1, 10), 0, 0, 0, 0, NEW.amount_cents
        WHERE NEW.status = 'verified' AND NEW.verified_at IS NOT NULL
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            invoiced = invoiced + excluded.invoiced, tax = tax + excluded.tax,
            credited = credited + excluded.credited,
            credited_tax = credited_tax + excluded.credited_tax,
            collected = collected + excluded.collected;
END;
-- Inserting or deleting an invoice that counts for no revenue (a draft, a cancelled one, one
-- never sent) runs no revenue statement: the condition moves from the statement's WHERE to the
-- trigger's WHEN, as on PostgreSQL (issue 33).
DROP TRIGGER invoices_revenue;
CREATE TRIGGER invoices_revenue AFTER INSERT ON invoices
    WHEN NEW.status NOT IN ('draft', 'cancelled') AND NEW.sent_at IS NOT NULL BEGIN
    INSERT INTO revenue_days
        SELECT NEW.account_id, NEW.livemode, NEW.currency, substr(NEW.sent_at, 1, 10), NEW.total_cents, NEW.tax_cents, 0, 0, 0
        WHERE true
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            invoiced = invoiced + excluded.invoiced, tax = tax + excluded.tax,
            credited = credited + excluded.credited,
            credited_tax = credited_tax + excluded.credited_tax,
            collected = collected + excluded.collected;
END;

DROP TRIGGER invoices_revenue_gone;
CREATE TRIGGER invoices_revenue_gone AFTER DELETE ON invoices
    WHEN OLD.status NOT IN ('draft', 'cancelled') AND OLD.sent_at IS NOT NULL BEGIN
    INSERT INTO revenue_days
        SELECT OLD.account_id, OLD.livemode, OLD.currency, substr(OLD.sent_at, 1, 10), -OLD.total_cents, -OLD.tax_cents, 0, 0, 0
        WHERE true
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            invoiced = invoiced + excluded.invoiced, tax = tax + excluded.tax,
            credited = credited + excluded.credited,
            credited_tax = credited_tax + excluded.credited_tax,
            collected = collected + excluded.collected;
END;
