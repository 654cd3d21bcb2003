-- Idempotency keys are now claimed by the request's own transaction and written only with their
-- answer (SPEC §15); claims left "running" by the previous version held nothing and go.
DELETE FROM idempotency_keys WHERE state <> 'done';
