-- The aging report (SPEC §22) reads only open invoices, and everything it sums is in this index:
-- a scan of the open invoices' index entries, never of the table, however many are paid.
CREATE INDEX invoices_open ON invoices (account_id, livemode, customer_id, currency, due_date,
    total_cents, amount_paid_cents, amount_credited_cents)
    WHERE status IN ('sent', 'viewed', 'overdue');
