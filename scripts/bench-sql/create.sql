-- The ideal SQL of POST /api/v1/invoices with three lines for an existing customer: what the
-- request cannot do without (customer and currency, number, invoice, lines, event, webhook
-- fan-out, all in one transaction). :accounts is the number of bench accounts (ids 1..N).
\set acct random(1, :accounts)
BEGIN;
SELECT c.id AS cust FROM customers c, accounts a
  WHERE c.account_id = :acct AND c.livemode = false AND a.id = :acct LIMIT 1 \gset
UPDATE document_counters SET last_value = last_value + 1
  WHERE account_id = :acct AND livemode = false AND kind = 'invoice'
    AND year = EXTRACT(YEAR FROM now())::int
  RETURNING last_value AS seq \gset
INSERT INTO invoices (account_id, livemode, number, status, customer_id, currency, issue_date,
    due_date, subtotal_cents, tax_cents, total_cents, amount_paid_cents, metadata, token,
    created_at, updated_at, amount_credited_cents)
  VALUES (:acct, false, 'INV-' || EXTRACT(YEAR FROM now())::int || '-' || lpad(:seq::text, 6, '0'),
    'draft', :cust, (SELECT default_currency FROM accounts WHERE id = :acct), CURRENT_DATE, CURRENT_DATE + 30, 9950, 1520, 11470, 0, '{}',
    md5(random()::text), now(), now(), 0)
  RETURNING id AS inv \gset
INSERT INTO line_items (account_id, livemode, document_kind, document_id, position, description,
    quantity_milli, unit_price_cents, tax_rate_milli, subtotal_cents, tax_cents, total_cents,
    product_id)
  VALUES (:acct, false, 'invoice', :inv, 0, 'Consulting', 1500, 3300, 19000, 4950, 941, 5891, NULL),
         (:acct, false, 'invoice', :inv, 1, 'Hosting', 2000, 1000, 0, 2000, 0, 2000, NULL),
         (:acct, false, 'invoice', :inv, 2, 'Support', 1000, 3000, 19000, 3000, 570, 3570, NULL)
  RETURNING id, description, quantity_milli, unit_price_cents, tax_rate_milli, subtotal_cents,
    tax_cents, total_cents, product_id;
INSERT INTO events (account_id, livemode, event_type, data, created_at)
  VALUES (:acct, false, 'invoice.created', repeat('x', 1400), now()) RETURNING id AS ev \gset
INSERT INTO webhook_deliveries (account_id, livemode, endpoint_id, event_id, state, attempts,
    next_attempt_at, created_at, updated_at)
  SELECT account_id, livemode, id, :ev, 'pending', 0, now(), now(), now() FROM webhook_endpoints
  WHERE account_id = :acct AND livemode = false AND enabled
    AND (events = '["*"]' OR events LIKE '%"invoice.created"%');
COMMIT;
