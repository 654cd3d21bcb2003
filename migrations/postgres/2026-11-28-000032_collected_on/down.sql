CREATE OR REPLACE FUNCTION keep_collected() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    was BOOLEAN := TG_OP <> 'INSERT' AND OLD.status = 'verified' AND OLD.verified_at IS NOT NULL;
    is_now BOOLEAN := TG_OP <> 'DELETE' AND NEW.status = 'verified'
        AND NEW.verified_at IS NOT NULL;
BEGIN
    IF was AND is_now AND OLD.currency = NEW.currency
        AND OLD.verified_at::date = NEW.verified_at::date
        AND OLD.amount_cents = NEW.amount_cents THEN
        RETURN NULL;
    END IF;
    IF was THEN
        PERFORM add_collected(OLD.account_id, OLD.livemode, OLD.currency, OLD.verified_at::date,
            -OLD.amount_cents);
    END IF;
    IF is_now THEN
        PERFORM add_collected(NEW.account_id, NEW.livemode, NEW.currency, NEW.verified_at::date,
            NEW.amount_cents);
    END IF;
    RETURN NULL;
END $$;
DROP TRIGGER payments_collected_changed ON payments;
CREATE TRIGGER payments_collected_changed
    AFTER UPDATE OF status, verified_at, amount_cents, currency ON payments
    FOR EACH ROW EXECUTE FUNCTION keep_collected();
ALTER TABLE payments DROP COLUMN collected_on;
