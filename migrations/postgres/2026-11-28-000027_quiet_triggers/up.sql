-- Inserting an invoice (or any event) no longer runs trigger work that does nothing
-- (issue 33, docs/BENCHMARKS.md).

-- Workers are woken only when a statement queued something. The statement triggers fired on
-- every event's insert, whose fan-out most often queues no delivery, and each pg_notify takes
-- the notification queue's lock at commit and wakes every listening connection.
CREATE OR REPLACE FUNCTION notify_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT FROM queued) THEN
        PERFORM pg_notify('invoicing_jobs', TG_TABLE_NAME);
    END IF;
    RETURN NULL;
END $$;

DROP TRIGGER webhook_deliveries_notify ON webhook_deliveries;
CREATE TRIGGER webhook_deliveries_notify AFTER INSERT ON webhook_deliveries
    REFERENCING NEW TABLE AS queued FOR EACH STATEMENT EXECUTE FUNCTION notify_jobs();
DROP TRIGGER emails_notify ON emails;
CREATE TRIGGER emails_notify AFTER INSERT ON emails
    REFERENCING NEW TABLE AS queued FOR EACH STATEMENT EXECUTE FUNCTION notify_jobs();
DROP TRIGGER notices_notify ON notices;
CREATE TRIGGER notices_notify AFTER INSERT ON notices
    REFERENCING NEW TABLE AS queued FOR EACH STATEMENT EXECUTE FUNCTION notify_jobs();

-- An invoice inserted or deleted while it is owed nothing (a draft) or counts for no revenue
-- (not sent) leaves receivables and revenue as they are: the conditions are the functions'
-- own early exits, checked before a PL/pgSQL call is made.
DROP TRIGGER invoices_receivable ON invoices;
CREATE TRIGGER invoices_receivable AFTER INSERT ON invoices FOR EACH ROW
    WHEN (invoice_due(NEW.status, NEW.total_cents, NEW.amount_paid_cents,
        NEW.amount_credited_cents) <> 0)
    EXECUTE FUNCTION keep_receivables();
CREATE TRIGGER invoices_receivable_gone AFTER DELETE ON invoices FOR EACH ROW
    WHEN (invoice_due(OLD.status, OLD.total_cents, OLD.amount_paid_cents,
        OLD.amount_credited_cents) <> 0)
    EXECUTE FUNCTION keep_receivables();

DROP TRIGGER invoices_revenue ON invoices;
CREATE TRIGGER invoices_revenue AFTER INSERT ON invoices FOR EACH ROW
    WHEN (NEW.status NOT IN ('draft', 'cancelled') AND NEW.sent_at IS NOT NULL)
    EXECUTE FUNCTION keep_invoiced();
CREATE TRIGGER invoices_revenue_gone AFTER DELETE ON invoices FOR EACH ROW
    WHEN (OLD.status NOT IN ('draft', 'cancelled') AND OLD.sent_at IS NOT NULL)
    EXECUTE FUNCTION keep_invoiced();
