-- The ideal SQL of GET /api/v1/invoices?status=draft: a page of 20 (and one more to know if
-- another page follows), the page's lines, and the kept total.
SELECT * FROM invoices WHERE account_id = 1 AND livemode = false AND status = 'draft'
  ORDER BY created_at DESC, id DESC LIMIT 21;
SELECT * FROM line_items WHERE account_id = 1 AND livemode = false AND document_kind = 'invoice'
  AND document_id IN (SELECT id FROM invoices WHERE account_id = 1 AND livemode = false
    AND status = 'draft' ORDER BY created_at DESC, id DESC LIMIT 20)
  ORDER BY document_id, position;
SELECT n FROM document_counts WHERE account_id = 1 AND livemode = false AND kind = 'invoice'
  AND status = 'draft';
