CREATE TABLE webhook_endpoints (
    id BIGSERIAL NOT NULL,
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    url TEXT NOT NULL,
    -- JSON array of event types, or ["*"].
    events TEXT NOT NULL,
    description TEXT,
    secret TEXT NOT NULL,
    enabled BOOLEAN NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, id)
);
CREATE INDEX webhook_endpoints_newest ON webhook_endpoints (account_id, livemode, created_at DESC, id DESC);
CREATE INDEX webhook_endpoints_id ON webhook_endpoints (id);

-- One row per (event, endpoint): written in the event's transaction, so no event is lost
-- between its commit and its delivery. `claim`/`locked_until` lease it to one worker.
CREATE TABLE webhook_deliveries (
    id BIGSERIAL NOT NULL,
    account_id BIGINT NOT NULL,
    livemode BOOLEAN NOT NULL,
    endpoint_id BIGINT NOT NULL,
    event_id BIGINT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_at TIMESTAMP NOT NULL,
    claim TEXT,
    locked_until TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, id),
    FOREIGN KEY (account_id, endpoint_id) REFERENCES webhook_endpoints (account_id, id),
    FOREIGN KEY (account_id, event_id) REFERENCES events (account_id, id)
);
-- The workers' query reads only what is still to be sent.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (account_id, endpoint_id);

CREATE TABLE webhook_attempts (
    id BIGSERIAL NOT NULL,
    account_id BIGINT NOT NULL,
    livemode BOOLEAN NOT NULL,
    delivery_id BIGINT NOT NULL,
    endpoint_id BIGINT NOT NULL,
    event_id BIGINT NOT NULL,
    event_type TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    status_code INTEGER,
    duration_ms BIGINT NOT NULL,
    error TEXT,
    response_excerpt TEXT,
    state TEXT NOT NULL,
    next_attempt_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, id),
    FOREIGN KEY (account_id, endpoint_id) REFERENCES webhook_endpoints (account_id, id)
);
CREATE INDEX webhook_attempts_newest ON webhook_attempts (account_id, livemode, endpoint_id, created_at DESC, id DESC);
