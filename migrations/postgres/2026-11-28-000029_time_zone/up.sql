-- The merchant's day (SPEC §27): an IANA zone name per profile; what no profile row has is UTC.
ALTER TABLE account_profiles ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';
