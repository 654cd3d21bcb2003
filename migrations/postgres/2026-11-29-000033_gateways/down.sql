DROP TABLE payment_proofs;
DROP TABLE refunds;
DROP INDEX payments_gateway_reference;
ALTER TABLE payments DROP COLUMN amount_refunded_cents;
ALTER TABLE payments DROP COLUMN gateway;
DROP TABLE checkout_sessions;
DROP TABLE gateway_events;
DROP TABLE gateway_accounts;
