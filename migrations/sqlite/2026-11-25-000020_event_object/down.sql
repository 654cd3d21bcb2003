DROP INDEX events_object;
ALTER TABLE events DROP COLUMN object_id;
