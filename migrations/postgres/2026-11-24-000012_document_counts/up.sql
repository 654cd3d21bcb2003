-- How many documents of each kind a tenant has in each status, kept by triggers in the same
-- transaction as every insert, status change and delete (SPEC §5: exact totals for unfiltered
-- and status-filtered lists, at any size, without counting rows).
CREATE TABLE document_counts (
    account_id BIGINT NOT NULL,
    livemode BOOLEAN NOT NULL,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (account_id, livemode, kind, status)
);

INSERT INTO document_counts (account_id, livemode, kind, status, n)
SELECT account_id, livemode, 'invoice', status, COUNT(*) FROM invoices
GROUP BY account_id, livemode, status;

CREATE FUNCTION count_invoices() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Two rows change on a status move: always in the order of their status, so two moves in
    -- opposite directions cannot deadlock on them.
    IF TG_OP = 'UPDATE' AND OLD.status > NEW.status THEN
        INSERT INTO document_counts AS c VALUES (NEW.account_id, NEW.livemode, 'invoice', NEW.status, 1)
            ON CONFLICT (account_id, livemode, kind, status) DO UPDATE SET n = c.n + 1;
        UPDATE document_counts SET n = n - 1 WHERE account_id = OLD.account_id
            AND livemode = OLD.livemode AND kind = 'invoice' AND status = OLD.status;
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE document_counts SET n = n - 1 WHERE account_id = OLD.account_id
            AND livemode = OLD.livemode AND kind = 'invoice' AND status = OLD.status;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        INSERT INTO document_counts AS c VALUES (NEW.account_id, NEW.livemode, 'invoice', NEW.status, 1)
            ON CONFLICT (account_id, livemode, kind, status) DO UPDATE SET n = c.n + 1;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER invoices_counted AFTER INSERT OR DELETE ON invoices
    FOR EACH ROW EXECUTE FUNCTION count_invoices();
CREATE TRIGGER invoices_status_counted AFTER UPDATE OF status ON invoices
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION count_invoices();
