-- The catalog (SPEC §14). Line items copy what they take from a product, so changing or
-- archiving a product never changes a document; the reference only says where a line came from.
CREATE TABLE products (
    id BIGSERIAL NOT NULL,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    unit_price_cents BIGINT NOT NULL,
    currency TEXT NOT NULL,
    tax_rate_milli BIGINT NOT NULL,
    active BOOLEAN NOT NULL,
    metadata TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, id)
);
CREATE INDEX products_newest ON products (account_id, livemode, created_at DESC, id DESC);
CREATE INDEX products_by_active ON products (account_id, livemode, active, created_at DESC, id DESC);
CREATE INDEX products_id ON products (id);

-- A product that a line names cannot be deleted: the code checks first, and the foreign key
-- catches a line written by a racing transaction.
ALTER TABLE line_items ADD COLUMN product_id BIGINT;
ALTER TABLE line_items ADD CONSTRAINT line_items_product
    FOREIGN KEY (account_id, product_id) REFERENCES products (account_id, id);
CREATE INDEX line_items_by_product ON line_items (account_id, product_id) WHERE product_id IS NOT NULL;

-- Payments (SPEC §13). Only verified ones count towards invoices.amount_paid_cents, which the
-- verifying transaction updates while it holds the invoice row's lock.
CREATE TABLE payments (
    id BIGSERIAL NOT NULL,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    invoice_id BIGINT NOT NULL,
    customer_id BIGINT NOT NULL,
    amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
    currency TEXT NOT NULL,
    status TEXT NOT NULL,
    method TEXT NOT NULL,
    reference TEXT,
    rejection_reason TEXT,
    metadata TEXT NOT NULL,
    verified_at TIMESTAMP,
    rejected_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, id),
    FOREIGN KEY (account_id, invoice_id) REFERENCES invoices (account_id, id),
    FOREIGN KEY (account_id, customer_id) REFERENCES customers (account_id, id)
);
CREATE INDEX payments_newest ON payments (account_id, livemode, created_at DESC, id DESC);
CREATE INDEX payments_by_status ON payments (account_id, livemode, status, created_at DESC, id DESC);
CREATE INDEX payments_by_customer ON payments (account_id, livemode, customer_id, created_at DESC, id DESC);
CREATE INDEX payments_by_invoice ON payments (account_id, livemode, invoice_id, created_at DESC, id DESC);
CREATE INDEX payments_id ON payments (id);
