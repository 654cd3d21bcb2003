DROP TRIGGER invoices_revenue ON invoices;
DROP TRIGGER invoices_revenue_gone ON invoices;
CREATE TRIGGER invoices_revenue AFTER INSERT OR DELETE ON invoices
    FOR EACH ROW EXECUTE FUNCTION keep_invoiced();

DROP TRIGGER invoices_receivable ON invoices;
DROP TRIGGER invoices_receivable_gone ON invoices;
CREATE TRIGGER invoices_receivable AFTER INSERT OR DELETE ON invoices
    FOR EACH ROW EXECUTE FUNCTION keep_receivables();

DROP TRIGGER notices_notify ON notices;
CREATE TRIGGER notices_notify AFTER INSERT ON notices
    FOR EACH STATEMENT EXECUTE FUNCTION notify_jobs();
DROP TRIGGER emails_notify ON emails;
CREATE TRIGGER emails_notify AFTER INSERT ON emails
    FOR EACH STATEMENT EXECUTE FUNCTION notify_jobs();
DROP TRIGGER webhook_deliveries_notify ON webhook_deliveries;
CREATE TRIGGER webhook_deliveries_notify AFTER INSERT ON webhook_deliveries
    FOR EACH STATEMENT EXECUTE FUNCTION notify_jobs();

CREATE OR REPLACE FUNCTION notify_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('invoicing_jobs', TG_TABLE_NAME);
    RETURN NULL;
END $$;
