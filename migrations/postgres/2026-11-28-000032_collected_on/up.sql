-- What a payment brought counts on the merchant's date of its verification (SPEC §27), which
-- only the account's time zone knows: the server writes it beside verified_at, and the trigger
-- that keeps collected_days reads it. Payments verified before keep their UTC date.
ALTER TABLE payments ADD COLUMN collected_on DATE;
UPDATE payments SET collected_on = verified_at::date WHERE verified_at IS NOT NULL;

CREATE OR REPLACE FUNCTION keep_collected() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    was BOOLEAN := TG_OP <> 'INSERT' AND OLD.status = 'verified' AND OLD.collected_on IS NOT NULL;
    is_now BOOLEAN := TG_OP <> 'DELETE' AND NEW.status = 'verified'
        AND NEW.collected_on IS NOT NULL;
BEGIN
    IF was AND is_now AND OLD.currency = NEW.currency
        AND OLD.collected_on = NEW.collected_on
        AND OLD.amount_cents = NEW.amount_cents THEN
        RETURN NULL;
    END IF;
    IF was THEN
        PERFORM add_collected(OLD.account_id, OLD.livemode, OLD.currency, OLD.collected_on,
            -OLD.amount_cents);
    END IF;
    IF is_now THEN
        PERFORM add_collected(NEW.account_id, NEW.livemode, NEW.currency, NEW.collected_on,
            NEW.amount_cents);
    END IF;
    RETURN NULL;
END $$;

DROP TRIGGER payments_collected_changed ON payments;
CREATE TRIGGER payments_collected_changed
    AFTER UPDATE OF status, collected_on, amount_cents, currency ON payments
    FOR EACH ROW EXECUTE FUNCTION keep_collected();
