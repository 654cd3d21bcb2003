ALTER TABLE account_profiles DROP COLUMN time_zone;
