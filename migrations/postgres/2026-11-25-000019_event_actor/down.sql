ALTER TABLE events DROP COLUMN actor_id;
ALTER TABLE events DROP COLUMN actor_type;
