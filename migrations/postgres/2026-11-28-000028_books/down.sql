-- Back to revenue sums kept by triggers (as after 2026-11-28-000027).
DROP TRIGGER payments_collected_changed ON payments;
DROP TRIGGER payments_collected ON payments;
DROP FUNCTION keep_collected();
DROP FUNCTION add_collected(BIGINT, BOOLEAN, TEXT, DATE, BIGINT);
DROP TABLE collected_days;
DROP TABLE booked_days;
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
    SELECT account_id, livemode, currency, CAST(sent_at AS DATE) AS day, total_cents AS invoiced,
        tax_cents AS tax, 0 AS credited, 0 AS credited_tax, 0 AS collected
        FROM invoices WHERE status NOT IN ('draft', 'cancelled') AND sent_at IS NOT NULL
    UNION ALL
    SELECT account_id, livemode, currency, CAST(created_at AS DATE), 0, 0, total_cents, tax_cents, 0
        FROM credit_notes
    UNION ALL
    SELECT account_id, livemode, currency, CAST(verified_at AS DATE), 0, 0, 0, 0, amount_cents
        FROM payments WHERE status = 'verified' AND verified_at IS NOT NULL
) d GROUP BY account_id, livemode, currency, day;

CREATE FUNCTION add_revenue(a BIGINT, l BOOLEAN, c TEXT, d DATE, inv BIGINT, tx BIGINT,
    cr BIGINT, cr_tax BIGINT, col BIGINT) RETURNS void LANGUAGE sql AS $$
    INSERT INTO revenue_days AS r VALUES (a, l, c, d, inv, tx, cr, cr_tax, col)
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            invoiced = r.invoiced + EXCLUDED.invoiced, tax = r.tax + EXCLUDED.tax,
            credited = r.credited + EXCLUDED.credited,
            credited_tax = r.credited_tax + EXCLUDED.credited_tax,
            collected = r.collected + EXCLUDED.collected
$$;

CREATE FUNCTION keep_invoiced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    was BOOLEAN := TG_OP <> 'INSERT' AND OLD.status NOT IN ('draft', 'cancelled')
        AND OLD.sent_at IS NOT NULL;
    is_now BOOLEAN := TG_OP <> 'DELETE' AND NEW.status NOT IN ('draft', 'cancelled')
        AND NEW.sent_at IS NOT NULL;
BEGIN
    IF was AND is_now AND OLD.currency = NEW.currency AND OLD.sent_at::date = NEW.sent_at::date
        AND OLD.total_cents = NEW.total_cents AND OLD.tax_cents = NEW.tax_cents THEN
        RETURN NULL;
    END IF;
    IF was THEN
        PERFORM add_revenue(OLD.account_id, OLD.livemode, OLD.currency, OLD.sent_at::date,
            -OLD.total_cents, -OLD.tax_cents, 0, 0, 0);
    END IF;
    IF is_now THEN
        PERFORM add_revenue(NEW.account_id, NEW.livemode, NEW.currency, NEW.sent_at::date,
            NEW.total_cents, NEW.tax_cents, 0, 0, 0);
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION keep_credited() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM add_revenue(OLD.account_id, OLD.livemode, OLD.currency, OLD.created_at::date,
            0, 0, -OLD.total_cents, -OLD.tax_cents, 0);
    ELSE
        PERFORM add_revenue(NEW.account_id, NEW.livemode, NEW.currency, NEW.created_at::date,
            0, 0, NEW.total_cents, NEW.tax_cents, 0);
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION keep_collected() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    was BOOLEAN := TG_OP <> 'INSERT' AND OLD.status = 'verified' AND OLD.verified_at IS NOT NULL;
    is_now BOOLEAN := TG_OP <> 'DELETE' AND NEW.status = 'verified'
        AND NEW.verified_at IS NOT NULL;
BEGIN
    IF was AND is_now AND OLD.currency = NEW.currency
        AND OLD.verified_at::date = NEW.verified_at::date
        AND OLD.amount_cents = NEW.amount_cents THEN
        RETURN NULL;
    END IF;
    IF was THEN
        PERFORM add_revenue(OLD.account_id, OLD.livemode, OLD.currency, OLD.verified_at::date,
            0, 0, 0, 0, -OLD.amount_cents);
    END IF;
    IF is_now THEN
        PERFORM add_revenue(NEW.account_id, NEW.livemode, NEW.currency, NEW.verified_at::date,
            0, 0, 0, 0, NEW.amount_cents);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER invoices_revenue_changed
    AFTER UPDATE OF status, sent_at, total_cents, tax_cents, currency ON invoices
    FOR EACH ROW EXECUTE FUNCTION keep_invoiced();
CREATE TRIGGER credit_notes_revenue AFTER INSERT OR DELETE ON credit_notes
    FOR EACH ROW EXECUTE FUNCTION keep_credited();
CREATE TRIGGER payments_revenue AFTER INSERT OR DELETE ON payments
    FOR EACH ROW EXECUTE FUNCTION keep_collected();
CREATE TRIGGER payments_revenue_changed
    AFTER UPDATE OF status, verified_at, amount_cents, currency ON payments
    FOR EACH ROW EXECUTE FUNCTION keep_collected();
CREATE TRIGGER invoices_revenue AFTER INSERT ON invoices FOR EACH ROW
    WHEN (NEW.status NOT IN ('draft', 'cancelled') AND NEW.sent_at IS NOT NULL)
    EXECUTE FUNCTION keep_invoiced();
CREATE TRIGGER invoices_revenue_gone AFTER DELETE ON invoices FOR EACH ROW
    WHEN (OLD.status NOT IN ('draft', 'cancelled') AND OLD.sent_at IS NOT NULL)
    EXECUTE FUNCTION keep_invoiced();
