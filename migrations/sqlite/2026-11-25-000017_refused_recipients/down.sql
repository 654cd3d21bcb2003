ALTER TABLE emails DROP COLUMN refused_recipients;
