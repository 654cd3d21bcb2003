-- How many documents of each kind a tenant has in each status, kept by triggers in the same
-- transaction as every insert, status change and delete (SPEC §5).
CREATE TABLE document_counts (
    account_id BIGINT NOT NULL,
    livemode BOOLEAN NOT NULL,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (account_id, livemode, kind, status)
);

INSERT INTO document_counts (account_id, livemode, kind, status, n)
SELECT account_id, livemode, 'invoice', status, COUNT(*) FROM invoices WHERE true
GROUP BY account_id, livemode, status;

CREATE TRIGGER invoices_counted AFTER INSERT ON invoices BEGIN
    INSERT INTO document_counts (account_id, livemode, kind, status, n)
        VALUES (NEW.account_id, NEW.livemode, 'invoice', NEW.status, 1)
        ON CONFLICT (account_id, livemode, kind, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER invoices_status_counted AFTER UPDATE OF status ON invoices
    WHEN OLD.status <> NEW.status BEGIN
    UPDATE document_counts SET n = n - 1 WHERE account_id = OLD.account_id
        AND livemode = OLD.livemode AND kind = 'invoice' AND status = OLD.status;
    INSERT INTO document_counts (account_id, livemode, kind, status, n)
        VALUES (NEW.account_id, NEW.livemode, 'invoice', NEW.status, 1)
        ON CONFLICT (account_id, livemode, kind, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER invoices_uncounted AFTER DELETE ON invoices BEGIN
    UPDATE document_counts SET n = n - 1 WHERE account_id = OLD.account_id
        AND livemode = OLD.livemode AND kind = 'invoice' AND status = OLD.status;
END;
