-- The fewest statements of POST /api/v1/invoices with three lines for an existing customer
-- (../shared/perf/ref_create.sql): one transaction; the counter bumped by one upsert, the
-- invoice, the lines in one multi-row INSERT, the event; the customer check left to the foreign
-- key. :accounts is the number of bench accounts (ids 1..N, customer i of account i).
\set acct random(1, :accounts)
BEGIN;
INSERT INTO document_counters AS c (account_id, livemode, kind, year, last_value)
VALUES (:acct, false, 'invoice', extract(year FROM now() AT TIME ZONE 'utc')::int, 1)
ON CONFLICT (account_id, livemode, kind, year) DO UPDATE SET last_value = c.last_value + 1
RETURNING last_value AS seq, year AS yr \gset
INSERT INTO invoices (account_id, livemode, number, status, customer_id, currency, issue_date,
    due_date, payment_terms, subtotal_cents, tax_cents, total_cents, amount_paid_cents, notes,
    metadata, token, quotation_id, created_at, updated_at)
VALUES (:acct, false, 'INV-' || :yr || '-' || lpad(:seq::text, 6, '0'), 'draft', :acct, 'EUR',
    current_date, current_date + 30, 'net_30', 9950, 1511, 11461, 0, NULL, '{}',
    md5(random()::text), NULL, (now() AT TIME ZONE 'utc')::timestamp(0),
    (now() AT TIME ZONE 'utc')::timestamp(0))
RETURNING id AS inv \gset
INSERT INTO line_items (account_id, livemode, document_kind, document_id, position, description,
    quantity_milli, unit_price_cents, tax_rate_milli, subtotal_cents, tax_cents, total_cents,
    product_id)
VALUES (:acct, false, 'invoice', :inv, 0, 'Consulting', 1500, 3300, 19000, 4950, 941, 5891, NULL),
       (:acct, false, 'invoice', :inv, 1, 'Hosting', 2000, 1000, 0, 2000, 0, 2000, NULL),
       (:acct, false, 'invoice', :inv, 2, 'Support', 1000, 3000, 19000, 3000, 570, 3570, NULL);
INSERT INTO events (account_id, livemode, event_type, data, created_at)
VALUES (:acct, false, 'invoice.created', repeat('x', 1400), (now() AT TIME ZONE 'utc')::timestamp(0));
COMMIT;
