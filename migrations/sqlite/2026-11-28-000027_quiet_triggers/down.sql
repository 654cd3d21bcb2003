DROP TRIGGER invoices_revenue;
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

DROP TRIGGER invoices_revenue_gone;
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
