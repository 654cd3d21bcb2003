-- A process takes the requests waiting on one bucket together, in one statement, and the
-- bucket may grant only some of them: how many the last take granted is read back from here
-- (RETURNING sees the new row only).
ALTER TABLE rate_limits ADD COLUMN granted INTEGER NOT NULL DEFAULT 0;
