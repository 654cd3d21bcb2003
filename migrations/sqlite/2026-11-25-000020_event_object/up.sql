-- Same shape as migrations/postgres: the document an event is about, for timelines.
ALTER TABLE events ADD COLUMN object_id BIGINT;
UPDATE events SET object_id = json_extract(data, '$.id')
  WHERE json_type(data, '$.id') = 'integer';
CREATE INDEX events_object ON events (account_id, livemode, object_id, id) WHERE object_id IS NOT NULL;
