-- The customer portal (SPEC §26): a link per customer and environment, a capability whose
-- token is kept only as its SHA-256; revoking a customer's links deletes them. Keys lead with
-- the account, as every tenant table's (a token is 192 random bits: unique without a constraint).
CREATE TABLE portal_links (
    id BIGSERIAL NOT NULL,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    customer_id BIGINT NOT NULL,
    token_hash TEXT NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, id),
    UNIQUE (account_id, token_hash),
    FOREIGN KEY (account_id, customer_id) REFERENCES customers (account_id, id)
);
-- The portal page finds a link by its token's hash alone, as the invoice page its invoice.
CREATE INDEX portal_links_token ON portal_links (token_hash);
CREATE INDEX portal_links_of_customer ON portal_links (account_id, livemode, customer_id);
