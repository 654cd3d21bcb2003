-- The fewest statements of GET /api/v1/invoices/{id} (../shared/perf/ref_get.sql): the scoped
-- invoice and its lines in one round trip. pgbench -D: id = the invoice.
SELECT i.id, i.account_id, i.livemode, i.number, i.status, i.customer_id, i.currency, i.issue_date,
       i.due_date, i.payment_terms, i.subtotal_cents, i.tax_cents, i.total_cents,
       i.amount_paid_cents, i.notes, i.metadata, i.token, i.quotation_id, i.sent_at, i.viewed_at,
       i.paid_at, i.cancelled_at, i.created_at, i.updated_at,
       l.id AS line_id, l.position, l.description, l.quantity_milli, l.unit_price_cents,
       l.tax_rate_milli, l.subtotal_cents AS line_subtotal, l.tax_cents AS line_tax,
       l.total_cents AS line_total, l.product_id
FROM invoices i
LEFT JOIN line_items l ON l.account_id = i.account_id AND l.livemode = i.livemode
  AND l.document_kind = 'invoice' AND l.document_id = i.id
WHERE i.account_id = 1 AND i.livemode = false AND i.id = :id
ORDER BY l.position;
