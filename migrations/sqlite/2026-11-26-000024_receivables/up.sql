-- What invoices are owed, kept by day (SPEC §22): see the PostgreSQL migration of the same name.
CREATE TABLE receivable_changes (
    account_id BIGINT NOT NULL,
    livemode BOOLEAN NOT NULL,
    currency TEXT NOT NULL,
    day DATE NOT NULL,
    delta BIGINT NOT NULL,
    PRIMARY KEY (account_id, livemode, currency, day)
);

INSERT INTO receivable_changes (account_id, livemode, currency, day, delta)
SELECT account_id, livemode, currency, day, SUM(delta) FROM (
    SELECT account_id, livemode, currency, substr(sent_at, 1, 10) AS day, total_cents AS delta
        FROM invoices WHERE status <> 'draft' AND sent_at IS NOT NULL
    UNION ALL
    SELECT p.account_id, p.livemode, i.currency, substr(p.verified_at, 1, 10), -p.amount_cents
        FROM payments p JOIN invoices i ON i.account_id = p.account_id AND i.id = p.invoice_id
        WHERE p.status = 'verified' AND p.verified_at IS NOT NULL AND i.sent_at IS NOT NULL
    UNION ALL
    SELECT n.account_id, n.livemode, i.currency, substr(n.created_at, 1, 10), -n.total_cents
        FROM credit_notes n JOIN invoices i ON i.account_id = n.account_id AND i.id = n.invoice_id
        WHERE i.sent_at IS NOT NULL
    UNION ALL
    SELECT account_id, livemode, currency,
        substr(COALESCE(cancelled_at, paid_at, datetime('now')), 1, 10),
        (CASE WHEN status IN ('sent', 'viewed', 'overdue')
            THEN MAX(total_cents - amount_paid_cents - amount_credited_cents, 0) ELSE 0 END)
            - (total_cents - amount_paid_cents - amount_credited_cents)
        FROM invoices WHERE status <> 'draft' AND sent_at IS NOT NULL
) h WHERE true GROUP BY account_id, livemode, currency, day HAVING SUM(delta) <> 0;

-- An invoice's amount due, before and after a change: the API's `amount_due_cents`.
CREATE TRIGGER invoices_receivable AFTER INSERT ON invoices
    WHEN NEW.status IN ('sent', 'viewed', 'overdue')
        AND NEW.total_cents - NEW.amount_paid_cents - NEW.amount_credited_cents > 0 BEGIN
    INSERT INTO receivable_changes (account_id, livemode, currency, day, delta)
        VALUES (NEW.account_id, NEW.livemode, NEW.currency, date('now'),
            NEW.total_cents - NEW.amount_paid_cents - NEW.amount_credited_cents)
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET delta = delta + excluded.delta;
END;

CREATE TRIGGER invoices_receivable_gone AFTER DELETE ON invoices
    WHEN OLD.status IN ('sent', 'viewed', 'overdue')
        AND OLD.total_cents - OLD.amount_paid_cents - OLD.amount_credited_cents > 0 BEGIN
    INSERT INTO receivable_changes (account_id, livemode, currency, day, delta)
        VALUES (OLD.account_id, OLD.livemode, OLD.currency, date('now'),
            -(OLD.total_cents - OLD.amount_paid_cents - OLD.amount_credited_cents))
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET delta = delta + excluded.delta;
END;

CREATE TRIGGER invoices_receivable_changed
    AFTER UPDATE OF status, total_cents, amount_paid_cents, amount_credited_cents, currency
    ON invoices BEGIN
    INSERT INTO receivable_changes (account_id, livemode, currency, day, delta)
        SELECT OLD.account_id, OLD.livemode, OLD.currency, date('now'),
            -MAX(OLD.total_cents - OLD.amount_paid_cents - OLD.amount_credited_cents, 0)
        WHERE OLD.status IN ('sent', 'viewed', 'overdue')
            AND OLD.total_cents - OLD.amount_paid_cents - OLD.amount_credited_cents > 0
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET delta = delta + excluded.delta;
    INSERT INTO receivable_changes (account_id, livemode, currency, day, delta)
        SELECT NEW.account_id, NEW.livemode, NEW.currency, date('now'),
            MAX(NEW.total_cents - NEW.amount_paid_cents - NEW.amount_credited_cents, 0)
        WHERE NEW.status IN ('sent', 'viewed', 'overdue')
            AND NEW.total_cents - NEW.amount_paid_cents - NEW.amount_credited_cents > 0
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET delta = delta + excluded.delta;
END;
