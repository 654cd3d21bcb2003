-- Same shape as migrations/postgres; SQLite needs INTEGER PRIMARY KEY AUTOINCREMENT for ids.
CREATE TABLE products (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
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
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX products_newest ON products (account_id, livemode, created_at DESC, id DESC);
CREATE INDEX products_by_active ON products (account_id, livemode, active, created_at DESC, id DESC);

-- No foreign key here, unlike PostgreSQL: SQLite cannot drop a column that one names (so the
-- down migration could not run), and its write transactions are exclusive, so the code's
-- "is the product in use?" check cannot race with a new line.
ALTER TABLE line_items ADD COLUMN product_id BIGINT;
CREATE INDEX line_items_by_product ON line_items (account_id, product_id) WHERE product_id IS NOT NULL;

CREATE TABLE payments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
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
    FOREIGN KEY (invoice_id) REFERENCES invoices (id),
    FOREIGN KEY (customer_id) REFERENCES customers (id)
);
CREATE INDEX payments_newest ON payments (account_id, livemode, created_at DESC, id DESC);
CREATE INDEX payments_by_status ON payments (account_id, livemode, status, created_at DESC, id DESC);
CREATE INDEX payments_by_customer ON payments (account_id, livemode, customer_id, created_at DESC, id DESC);
CREATE INDEX payments_by_invoice ON payments (account_id, livemode, invoice_id, created_at DESC, id DESC);
