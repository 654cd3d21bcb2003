-- The fewest statements of GET /api/v1/invoices/{id} (../shared/perf/ref_get.sql): the scoped
-- invoice and its lines in one round trip. pgbench -D: imin/imax = account 1's invoice ids, one
-- drawn at random per transaction as the server's load draws them.
-- With every column the answer carries: ref_get.sql predates the reminders, credited amount,
-- recurring template, buyer references, tax rounding (invoice) and the unit, VAT category and
-- exemption reason (line), which the API returns and so must read (2-5 % of pgbench's rate,
-- docs/BENCHMARKS.md 2026-11-27 evening).
\set id random(:imin, :imax)
SELECT i.id, i.account_id, i.livemode, i.number, i.status, i.customer_id, i.currency, i.issue_date,
       i.due_date, i.payment_terms, i.subtotal_cents, i.tax_cents, i.total_cents,
       i.amount_paid_cents, i.notes, i.metadata, i.token, i.quotation_id, i.sent_at, i.viewed_at,
       i.paid_at, i.cancelled_at, i.created_at, i.updated_at,
       i.reminders, i.amount_credited_cents, i.recurring_invoice_id, i.buyer_refs, i.tax_rounding,
       l.id AS line_id, l.position, l.description, l.quantity_milli, l.unit_price_cents,
       l.tax_rate_milli, l.subtotal_cents AS line_subtotal, l.tax_cents AS line_tax,
       l.total_cents AS line_total, l.product_id, l.unit, l.tax_category, l.tax_exemption_reason
FROM invoices i
LEFT JOIN line_items l ON l.account_id = i.account_id AND l.livemode = i.livemode
  AND l.document_kind = 'invoice' AND l.document_id = i.id
WHERE i.account_id = 1 AND i.livemode = false AND i.id = :id
ORDER BY l.position;
