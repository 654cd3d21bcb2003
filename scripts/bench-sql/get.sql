-- The ideal SQL of GET /api/v1/invoices/{id}: the invoice and its lines.
SELECT * FROM invoices WHERE account_id = 1 AND livemode = false AND id = :id;
SELECT * FROM line_items WHERE account_id = 1 AND livemode = false AND document_kind = 'invoice'
  AND document_id = :id ORDER BY position;
