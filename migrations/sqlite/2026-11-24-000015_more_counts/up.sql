-- Kept counts (migration 000012) for the other lists that grow with an account: quotations and
-- payments by status, customers in all. Not events: nearly every write transaction writes one,
-- and a count row every writer holds to its commit would serialise a tenant's writes (and
-- deadlock against status moves); the events list counts its rows.
INSERT INTO document_counts (account_id, livemode, kind, status, n)
SELECT account_id, livemode, 'quotation', status, COUNT(*) FROM quotations WHERE true
GROUP BY account_id, livemode, status;
INSERT INTO document_counts (account_id, livemode, kind, status, n)
SELECT account_id, livemode, 'payment', status, COUNT(*) FROM payments WHERE true
GROUP BY account_id, livemode, status;
INSERT INTO document_counts (account_id, livemode, kind, status, n)
SELECT account_id, livemode, 'customer', '', COUNT(*) FROM customers WHERE true
GROUP BY account_id, livemode;

CREATE TRIGGER quotations_counted AFTER INSERT ON quotations BEGIN
    INSERT INTO document_counts (account_id, livemode, kind, status, n)
        VALUES (NEW.account_id, NEW.livemode, 'quotation', NEW.status, 1)
        ON CONFLICT (account_id, livemode, kind, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER quotations_status_counted AFTER UPDATE OF status ON quotations
    WHEN OLD.status <> NEW.status BEGIN
    UPDATE document_counts SET n = n - 1 WHERE account_id = OLD.account_id
        AND livemode = OLD.livemode AND kind = 'quotation' AND status = OLD.status;
    INSERT INTO document_counts (account_id, livemode, kind, status, n)
        VALUES (NEW.account_id, NEW.livemode, 'quotation', NEW.status, 1)
        ON CONFLICT (account_id, livemode, kind, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER quotations_uncounted AFTER DELETE ON quotations BEGIN
    UPDATE document_counts SET n = n - 1 WHERE account_id = OLD.account_id
        AND livemode = OLD.livemode AND kind = 'quotation' AND status = OLD.status;
END;

CREATE TRIGGER payments_counted AFTER INSERT ON payments BEGIN
    INSERT INTO document_counts (account_id, livemode, kind, status, n)
        VALUES (NEW.account_id, NEW.livemode, 'payment', NEW.status, 1)
        ON CONFLICT (account_id, livemode, kind, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER payments_status_counted AFTER UPDATE OF status ON payments
    WHEN OLD.status <> NEW.status BEGIN
    UPDATE document_counts SET n = n - 1 WHERE account_id = OLD.account_id
        AND livemode = OLD.livemode AND kind = 'payment' AND status = OLD.status;
    INSERT INTO document_counts (account_id, livemode, kind, status, n)
        VALUES (NEW.account_id, NEW.livemode, 'payment', NEW.status, 1)
        ON CONFLICT (account_id, livemode, kind, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER payments_uncounted AFTER DELETE ON payments BEGIN
    UPDATE document_counts SET n = n - 1 WHERE account_id = OLD.account_id
        AND livemode = OLD.livemode AND kind = 'payment' AND status = OLD.status;
END;

CREATE TRIGGER customers_counted AFTER INSERT ON customers BEGIN
    INSERT INTO document_counts (account_id, livemode, kind, status, n)
        VALUES (NEW.account_id, NEW.livemode, 'customer', '', 1)
        ON CONFLICT (account_id, livemode, kind, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER customers_uncounted AFTER DELETE ON customers BEGIN
    UPDATE document_counts SET n = n - 1 WHERE account_id = OLD.account_id
        AND livemode = OLD.livemode AND kind = 'customer' AND status = '';
END;
