DROP TRIGGER emails_notify ON emails;
DROP TRIGGER webhook_deliveries_notify ON webhook_deliveries;
DROP FUNCTION notify_jobs();
