-- Kept counts (migration 000012) for the other lists that grow with an account: quotations and
-- payments by status, customers in all. Not events: nearly every write transaction writes one,
-- and a count row every writer holds to its commit would serialise a tenant's writes (and
-- deadlock against status moves); the events list counts its rows. Same table, same rules: changed by triggers
-- in the transaction of every insert, status change and delete.
INSERT INTO document_counts (account_id, livemode, kind, status, n)
SELECT account_id, livemode, 'quotation', status, COUNT(*) FROM quotations
GROUP BY account_id, livemode, status;
INSERT INTO document_counts (account_id, livemode, kind, status, n)
SELECT account_id, livemode, 'payment', status, COUNT(*) FROM payments
GROUP BY account_id, livemode, status;
INSERT INTO document_counts (account_id, livemode, kind, status, n)
SELECT account_id, livemode, 'customer', '', COUNT(*) FROM customers
GROUP BY account_id, livemode;

-- TG_ARGV[0]: the kind counted; TG_ARGV[1]: 'status' when the table has one (counted per
-- status), anything else when it does not (one count, status '').
CREATE FUNCTION count_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    by_status boolean := TG_ARGV[1] = 'status';
    old_status text := '';
    new_status text := '';
BEGIN
    IF by_status AND TG_OP IN ('UPDATE', 'DELETE') THEN old_status := OLD.status; END IF;
    IF by_status AND TG_OP IN ('UPDATE', 'INSERT') THEN new_status := NEW.status; END IF;
    -- Two rows change on a status move: always in the order of their status, so two moves in
    -- opposite directions cannot deadlock on them.
    IF TG_OP = 'UPDATE' AND old_status > new_status THEN
        INSERT INTO document_counts AS c VALUES (NEW.account_id, NEW.livemode, TG_ARGV[0], new_status, 1)
            ON CONFLICT (account_id, livemode, kind, status) DO UPDATE SET n = c.n + 1;
        UPDATE document_counts SET n = n - 1 WHERE account_id = OLD.account_id
            AND livemode = OLD.livemode AND kind = TG_ARGV[0] AND status = old_status;
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE document_counts SET n = n - 1 WHERE account_id = OLD.account_id
            AND livemode = OLD.livemode AND kind = TG_ARGV[0] AND status = old_status;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        INSERT INTO document_counts AS c VALUES (NEW.account_id, NEW.livemode, TG_ARGV[0], new_status, 1)
            ON CONFLICT (account_id, livemode, kind, status) DO UPDATE SET n = c.n + 1;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER quotations_counted AFTER INSERT OR DELETE ON quotations
    FOR EACH ROW EXECUTE FUNCTION count_rows('quotation', 'status');
CREATE TRIGGER quotations_status_counted AFTER UPDATE OF status ON quotations
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION count_rows('quotation', 'status');
CREATE TRIGGER payments_counted AFTER INSERT OR DELETE ON payments
    FOR EACH ROW EXECUTE FUNCTION count_rows('payment', 'status');
CREATE TRIGGER payments_status_counted AFTER UPDATE OF status ON payments
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION count_rows('payment', 'status');
CREATE TRIGGER customers_counted AFTER INSERT OR DELETE ON customers
    FOR EACH ROW EXECUTE FUNCTION count_rows('customer', 'none');
