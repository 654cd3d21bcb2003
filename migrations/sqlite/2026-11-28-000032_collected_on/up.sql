-- What a payment brought counts on the merchant's date of its verification (SPEC §27), which
-- only the account's time zone knows: the server writes it beside verified_at, and the trigger
-- that keeps collected_days reads it. Payments verified before keep their UTC date.
ALTER TABLE payments ADD COLUMN collected_on DATE;
UPDATE payments SET collected_on = substr(verified_at, 1, 10) WHERE verified_at IS NOT NULL;

DROP TRIGGER payments_collected;
DROP TRIGGER payments_collected_gone;
DROP TRIGGER payments_collected_changed;
CREATE TRIGGER payments_collected AFTER INSERT ON payments
    WHEN NEW.status = 'verified' AND NEW.collected_on IS NOT NULL BEGIN
    INSERT INTO collected_days
        SELECT NEW.account_id, NEW.livemode, NEW.currency, NEW.collected_on, NEW.amount_cents
        WHERE true
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            collected = collected + excluded.collected;
END;
CREATE TRIGGER payments_collected_gone AFTER DELETE ON payments
    WHEN OLD.status = 'verified' AND OLD.collected_on IS NOT NULL BEGIN
    INSERT INTO collected_days
        SELECT OLD.account_id, OLD.livemode, OLD.currency, OLD.collected_on, -OLD.amount_cents
        WHERE true
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            collected = collected + excluded.collected;
END;
CREATE TRIGGER payments_collected_changed
    AFTER UPDATE OF status, collected_on, amount_cents, currency ON payments BEGIN
    INSERT INTO collected_days
        SELECT OLD.account_id, OLD.livemode, OLD.currency, OLD.collected_on, -OLD.amount_cents
        WHERE OLD.status = 'verified' AND OLD.collected_on IS NOT NULL
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            collected = collected + excluded.collected;
    INSERT INTO collected_days
        SELECT NEW.account_id, NEW.livemode, NEW.currency, NEW.collected_on, NEW.amount_cents
        WHERE NEW.status = 'verified' AND NEW.collected_on IS NOT NULL
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            collected = collected + excluded.collected;
END;
