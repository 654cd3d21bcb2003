ALTER TABLE line_items DROP COLUMN tax_exemption_reason, DROP COLUMN tax_category, DROP COLUMN unit;
ALTER TABLE invoices DROP COLUMN tax_rounding, DROP COLUMN buyer_refs;
ALTER TABLE customers DROP COLUMN electronic_address, DROP COLUMN vat_id;
ALTER TABLE account_profiles DROP COLUMN tax_rounding, DROP COLUMN contact, DROP COLUMN bank_account,
    DROP COLUMN electronic_address, DROP COLUMN vat_id;
