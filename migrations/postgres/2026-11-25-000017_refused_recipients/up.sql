-- The recipients an SMTP server refused at RCPT TO (5xx), each with the server's reply, as a
-- JSON array of {address, reply} (SPEC §18): the message still goes to every accepted one.
ALTER TABLE emails ADD COLUMN refused_recipients TEXT NOT NULL DEFAULT '[]';
