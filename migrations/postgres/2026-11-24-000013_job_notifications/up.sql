-- Workers sleep until a job is queued (crates/storage/src/wakeup.rs): every statement that
-- queues webhook deliveries or email notifies the channel, delivered to listeners at commit
-- (and only then, so a rolled-back job wakes nobody).
CREATE FUNCTION notify_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('invoicing_jobs', TG_TABLE_NAME);
    RETURN NULL;
END $$;

CREATE TRIGGER webhook_deliveries_notify AFTER INSERT ON webhook_deliveries
    FOR EACH STATEMENT EXECUTE FUNCTION notify_jobs();
CREATE TRIGGER emails_notify AFTER INSERT ON emails
    FOR EACH STATEMENT EXECUTE FUNCTION notify_jobs();
