-- The books (SPEC §22): which document counts when, kept by day, currency, tax rate and VAT
-- category in the transaction of every change. The rule is the domain's
-- (`invoicing_domain::report::books`); storage writes what it decides (`books.rs`), so revenue,
-- tax, statements and their CSV read one set of sums. An invoice counts on its issue date with
-- its lines once it leaves its draft, a credit note negative on its day, and a void takes back
-- on its day, rate by rate, what the invoice's credit notes had not. `tax_category` is '' for
-- a 0 % line that names none.
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
    SELECT n.account_id, n.livemode, n.currency, CAST(n.created_at AS DATE), l.tax_rate_milli,
        COALESCE(l.tax_category, ''), -l.subtotal_cents, -l.tax_cents
        FROM credit_notes n JOIN line_items l ON l.account_id = n.account_id
            AND l.livemode = n.livemode AND l.document_kind = 'credit_note' AND l.document_id = n.id
    UNION ALL
    SELECT i.account_id, i.livemode, i.currency, CAST(i.cancelled_at AS DATE), l.tax_rate_milli,
        COALESCE(l.tax_category, ''), -l.subtotal_cents, -l.tax_cents
        FROM invoices i JOIN line_items l ON l.account_id = i.account_id
            AND l.livemode = i.livemode AND l.document_kind = 'invoice' AND l.document_id = i.id
        WHERE i.status = 'cancelled' AND i.sent_at IS NOT NULL
    UNION ALL
    SELECT i.account_id, i.livemode, i.currency, CAST(i.cancelled_at AS DATE), l.tax_rate_milli,
        COALESCE(l.tax_category, ''), l.subtotal_cents, l.tax_cents
        FROM invoices i JOIN credit_notes n ON n.account_id = i.account_id
            AND n.livemode = i.livemode AND n.invoice_id = i.id
        JOIN line_items l ON l.account_id = n.account_id AND l.livemode = n.livemode
            AND l.document_kind = 'credit_note' AND l.document_id = n.id
        WHERE i.status = 'cancelled' AND i.sent_at IS NOT NULL
) b GROUP BY account_id, livemode, currency, day, rate, category
HAVING SUM(taxable) <> 0 OR SUM(tax) <> 0;

-- What payments brought by day stays a trigger's (no rule to decide: a payment counts when it is
-- verified); invoices and credit notes no longer write revenue sums.
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

DROP TRIGGER payments_revenue_changed ON payments;
DROP TRIGGER payments_revenue ON payments;
DROP TRIGGER credit_notes_revenue ON credit_notes;
DROP TRIGGER invoices_revenue_changed ON invoices;
DROP TRIGGER invoices_revenue_gone ON invoices;
DROP TRIGGER invoices_revenue ON invoices;
DROP FUNCTION keep_collected();
DROP FUNCTION keep_credited();
DROP FUNCTION keep_invoiced();
DROP FUNCTION add_revenue(BIGINT, BOOLEAN, TEXT, DATE, BIGINT, BIGINT, BIGINT, BIGINT, BIGINT);
DROP TABLE revenue_days;

CREATE FUNCTION add_collected(a BIGINT, l BOOLEAN, c TEXT, d DATE, amount BIGINT)
    RETURNS void LANGUAGE sql AS $$
    INSERT INTO collected_days AS r VALUES (a, l, c, d, amount)
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            collected = r.collected + EXCLUDED.collected
$$;

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
        PERFORM add_collected(OLD.account_id, OLD.livemode, OLD.currency, OLD.verified_at::date,
            -OLD.amount_cents);
    END IF;
    IF is_now THEN
        PERFORM add_collected(NEW.account_id, NEW.livemode, NEW.currency, NEW.verified_at::date,
            NEW.amount_cents);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER payments_collected AFTER INSERT OR DELETE ON payments
    FOR EACH ROW EXECUTE FUNCTION keep_collected();
CREATE TRIGGER payments_collected_changed
    AFTER UPDATE OF status, verified_at, amount_cents, currency ON payments
    FOR EACH ROW EXECUTE FUNCTION keep_collected();
