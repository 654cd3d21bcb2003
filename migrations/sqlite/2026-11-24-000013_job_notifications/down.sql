-- PostgreSQL notifies idle workers of new jobs through triggers; SQLite has no notifications
-- (a process's own workers are woken in memory), so this version changes nothing here.
SELECT 1;
