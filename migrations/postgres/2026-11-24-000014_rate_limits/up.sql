-- Rate-limit buckets shared by every server on this database (SPEC §6, §12): one row per key
-- or client IP holding its GCRA "theoretical arrival time", moved by one statement per request.
-- UNLOGGED: a crash forgets them (every bucket starts full again), and they cost no WAL.
-- Not a tenant table: a bucket is looked up before the tenant is known (a reference table
-- under Citus, like api_keys).
CREATE UNLOGGED TABLE rate_limits (
    bucket TEXT PRIMARY KEY,
    tat TIMESTAMPTZ NOT NULL
);
