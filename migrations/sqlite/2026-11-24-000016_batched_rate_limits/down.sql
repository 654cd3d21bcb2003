-- SQLite serves one process: its rate limits stay in that process's memory, so this version
-- changes nothing here.
SELECT 1;
