-- The fewest statements of GET /api/v1/invoices?status=draft (../shared/perf/ref_list.sql): the
-- page of 20 newest with their lines and the total, in one round trip.
WITH page AS (
  SELECT * FROM invoices
  WHERE account_id = 1 AND livemode = false AND status = 'draft'
  ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET 0)
SELECT (SELECT count(*) FROM invoices WHERE account_id = 1 AND livemode = false AND status = 'draft') AS total,
       p.id, p.account_id, p.livemode, p.number, p.status, p.customer_id, p.currency, p.issue_date,
       p.due_date, p.payment_terms, p.subtotal_cents, p.tax_cents, p.total_cents,
       p.amount_paid_cents, p.notes, p.metadata, p.token, p.quotation_id, p.sent_at, p.viewed_at,
       p.paid_at, p.cancelled_at, p.created_at, p.updated_at,
       l.id AS line_id, l.position, l.description, l.quantity_milli, l.unit_price_cents,
       l.tax_rate_milli, l.subtotal_cents AS line_subtotal, l.tax_cents AS line_tax,
       l.total_cents AS line_total, l.product_id
FROM page p
LEFT JOIN line_items l ON l.account_id = p.account_id AND l.livemode = p.livemode
  AND l.document_kind = 'invoice' AND l.document_id = p.id
ORDER BY p.created_at DESC, p.id DESC, l.position;
