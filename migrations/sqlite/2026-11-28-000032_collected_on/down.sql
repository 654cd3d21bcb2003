DROP TRIGGER payments_collected;
DROP TRIGGER payments_collected_gone;
DROP TRIGGER payments_collected_changed;
CREATE TRIGGER payments_collected AFTER INSERT ON payments
    WHEN NEW.status = 'verified' AND NEW.verified_at IS NOT NULL BEGIN
    INSERT INTO collected_days
        SELECT NEW.account_id, NEW.livemode, NEW.currency, substr(NEW.verified_at, 1, 10), NEW.amount_cents
        WHERE true
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            collected = collected + excluded.collected;
END;
CREATE TRIGGER payments_collected_gone AFTER DELETE ON payments
    WHEN OLD.status = 'verified' AND OLD.verified_at IS NOT NULL BEGIN
    INSERT INTO collected_days
        SELECT OLD.account_id, OLD.livemode, OLD.currency, substr(OLD.verified_at, 1, 10), -OLD.amount_cents
        WHERE true
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            collected = collected + excluded.collected;
END;
CREATE TRIGGER payments_collected_changed
    AFTER UPDATE OF status, verified_at, amount_cents, currency ON payments BEGIN
    INSERT INTO collected_days
        SELECT OLD.account_id, OLD.livemode, OLD.currency, substr(OLD.verified_at, 1, 10), -OLD.amount_cents
        WHERE OLD.status = 'verified' AND OLD.verified_at IS NOT NULL
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            collected = collected + excluded.collected;
    INSERT INTO collected_days
        SELECT NEW.account_id, NEW.livemode, NEW.currency, substr(NEW.verified_at, 1, 10), NEW.amount_cents
        WHERE NEW.status = 'verified' AND NEW.verified_at IS NOT NULL
        ON CONFLICT (account_id, livemode, currency, day) DO UPDATE SET
            collected = collected + excluded.collected;
END;
ALTER TABLE payments DROP COLUMN collected_on;
