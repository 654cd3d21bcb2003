-- Who caused each event (SPEC §21, "Audit"): `api_key` with the key's id, `user` with the
-- user's id, `system` or `customer` without one. Events written before this read as `system`.
ALTER TABLE events ADD COLUMN actor_type TEXT NOT NULL DEFAULT 'system';
ALTER TABLE events ADD COLUMN actor_id BIGINT;
