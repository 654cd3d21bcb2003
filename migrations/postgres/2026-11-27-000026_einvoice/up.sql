-- What EN 16931 e-invoices need (SPEC §23); optional everywhere else.
ALTER TABLE account_profiles
    ADD COLUMN vat_id TEXT,
    ADD COLUMN electronic_address TEXT,
    ADD COLUMN bank_account TEXT,
    ADD COLUMN contact TEXT,
    ADD COLUMN tax_rounding TEXT NOT NULL DEFAULT 'line';
ALTER TABLE customers
    ADD COLUMN vat_id TEXT,
    ADD COLUMN electronic_address TEXT;
ALTER TABLE invoices
    -- The buyer's references (BT-10, BT-13) as one JSON object: the table is at diesel's 32 columns.
    ADD COLUMN buyer_refs TEXT,
    ADD COLUMN tax_rounding TEXT NOT NULL DEFAULT 'line';
ALTER TABLE line_items
    ADD COLUMN unit TEXT NOT NULL DEFAULT 'C62',
    ADD COLUMN tax_category TEXT,
    ADD COLUMN tax_exemption_reason TEXT;
-- A line above 0 % is standard rated unless it says otherwise; at 0 % only the merchant knows.
UPDATE line_items SET tax_category = 'S' WHERE tax_rate_milli > 0;
