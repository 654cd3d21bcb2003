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
