-- The customer portal (SPEC §26): a link per customer and environment, a capability whose
-- token is kept only as its SHA-256; revoking a customer's links deletes them.
CREATE TABLE portal_links (
    id BIGSERIAL PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    customer_id BIGINT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    expires_at TIMESTAMP NOT NULL,
    created_at TIMESTAMP NOT NULL,
    FOREIGN KEY (account_id, customer_id) REFERENCES customers (account_id, id)
);
CREATE INDEX portal_links_of_customer ON portal_links (account_id, livemode, customer_id);
