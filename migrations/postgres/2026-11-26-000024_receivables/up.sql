-- What invoices are owed, kept by day (SPEC §22: the revenue report's `outstanding` at a
-- period's end): every change to an invoice's amount due (sent, paid in part or whole, credited,
-- cancelled, marked paid) adds the difference on the day it happens, in the same transaction,
-- so what was owed at the end of a day is the sum of the days before it, however many invoices
-- there are. An invoice's amount due is the API's `amount_due_cents`.
CREATE TABLE receivable_changes (
    account_id BIGINT NOT NULL,
    livemode BOOLEAN NOT NULL,
    currency TEXT NOT NULL,
    day DATE NOT NULL,
    delta BIGINT NOT NULL,
    PRIMARY KEY (account_id, livemode, currency, day)
);

CREATE FUNCTION invoice_due(status TEXT, total BIGINT, paid BIGINT, credited BIGINT)
    RETURNS BIGINT LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN status IN ('sent', 'viewed', 'overdue')
        THEN GREATEST(total - paid - credited, 0) ELSE 0 END
$$;

-- The history so far, from the documents' own times: sent, paid for, credited, then closed
-- (what was still owed when it was cancelled or marked paid), and what credits beyond the
-- amount due took off too much given back on the day of the close (or today, when still open),
-- so every invoice's days add up to its amount due now.
INSERT INTO receivable_changes (account_id, livemode, currency, day, delta)
SELECT account_id, livemode, currency, day, SUM(delta) FROM (
    SELECT account_id, livemode, currency, CAST(sent_at AS DATE) AS day, total_cents AS delta
        FROM invoices WHERE status <> 'draft' AND sent_at IS NOT NULL
    UNION ALL
    SELECT p.account_id, p.livemode, i.currency, CAST(p.verified_at AS DATE), -p.amount_cents
        FROM payments p JOIN invoices i ON i.account_id = p.account_id AND i.id = p.invoice_id
        WHERE p.status = 'verified' AND p.verified_at IS NOT NULL AND i.sent_at IS NOT NULL
    UNION ALL
    SELECT n.account_id, n.livemode, i.currency, CAST(n.created_at AS DATE), -n.total_cents
        FROM credit_notes n JOIN invoices i ON i.account_id = n.account_id AND i.id = n.invoice_id
        WHERE i.sent_at IS NOT NULL
    UNION ALL
    SELECT account_id, livemode, currency,
        CAST(COALESCE(cancelled_at, paid_at, now() AT TIME ZONE 'UTC') AS DATE),
        invoice_due(status, total_cents, amount_paid_cents, amount_credited_cents)
            - (total_cents - amount_paid_cents - amount_credited_cents)
        FROM invoices WHERE status <> 'draft' AND sent_at IS NOT NULL
) h GROUP BY account_id, livemode, currency, day HAVING SUM(delta) <> 0;

CREATE FUNCTION keep_receivables() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    today DATE := (now() AT TIME ZONE 'UTC')::date;
    old_due BIGINT := 0;
    new_due BIGINT := 0;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        old_due := invoice_due(OLD.status, OLD.total_cents, OLD.amount_paid_cents,
            OLD.amount_credited_cents);
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        new_due := invoice_due(NEW.status, NEW.total_cents, NEW.amount_paid_cents,
            NEW.amount_credited_cents);
    END IF;
    IF old_due <> 0 THEN
        INSERT INTO receivable_changes AS r VALUES (OLD.account_id, OLD.livemode, OLD.currency,
            today, -old_due)
            ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET delta = r.delta - old_due;
    END IF;
    IF new_due <> 0 THEN
        INSERT INTO receivable_changes AS r VALUES (NEW.account_id, NEW.livemode, NEW.currency,
            today, new_due)
            ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET delta = r.delta + new_due;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER invoices_receivable AFTER INSERT OR DELETE ON invoices
    FOR EACH ROW EXECUTE FUNCTION keep_receivables();
CREATE TRIGGER invoices_receivable_changed
    AFTER UPDATE OF status, total_cents, amount_paid_cents, amount_credited_cents, currency
    ON invoices FOR EACH ROW EXECUTE FUNCTION keep_receivables();
