-- The document an event is about (its object's id; the kind is the event type's first word),
-- so a document's timeline (SPEC §21) reads its own events by index instead of every event.
ALTER TABLE events ADD COLUMN object_id BIGINT;
UPDATE events SET object_id = (data::jsonb ->> 'id')::bigint
  WHERE jsonb_typeof(data::jsonb -> 'id') = 'number';
CREATE INDEX events_object ON events (account_id, livemode, object_id, id) WHERE object_id IS NOT NULL;
