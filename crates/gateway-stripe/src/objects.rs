//! Stripe's objects read into the port's types: Checkout Sessions, Refunds and Events. Only the
//! fields used are read; fields Stripe adds are ignored (it adds them without a new API
//! version), while a missing field, an unknown status or an amount that does not fit is
//! `Malformed`, never a panic or a guess.

use crate::units::from_stripe_units;
use invoicing_domain::currency::Currency;
use invoicing_domain::gateway::{
    Checkout, CheckoutOwner, CheckoutStatus, GatewayError, GatewayEvent, GatewayRefund,
    Notification, RefundStatus,
};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

fn malformed(what: &str, detail: impl std::fmt::Display) -> GatewayError {
    GatewayError::Malformed(format!("{what}: {detail}"))
}

fn read<T: DeserializeOwned>(what: &str, value: Value) -> Result<T, GatewayError> {
    serde_json::from_value(value).map_err(|e| malformed(what, e))
}

/// A field Stripe can expand: the id, or the object carrying it.
#[derive(Deserialize)]
#[serde(untagged)]
enum Expandable {
    Id(String),
    Object { id: String },
}

impl Expandable {
    fn id(self) -> String {
        match self {
            Expandable::Id(id) | Expandable::Object { id } => id,
        }
    }
}

fn expect_object(what: &str, object: Option<&str>, expected: &str) -> Result<(), GatewayError> {
    match object {
        Some(o) if o != expected => Err(malformed(what, format!("is a {o}, not a {expected}"))),
        _ => Ok(()),
    }
}

fn currency(what: &str, code: Option<String>) -> Result<Currency, GatewayError> {
    let code = code.ok_or_else(|| malformed(what, "no currency"))?;
    Currency::parse(&code).map_err(|_| malformed(what, format!("unknown currency {code:?}")))
}

fn amount(
    what: &str,
    units: Option<i64>,
    currency: Currency,
) -> Result<invoicing_domain::money::Money, GatewayError> {
    let units = units.ok_or_else(|| malformed(what, "no amount"))?;
    from_stripe_units(units, currency).ok_or_else(|| {
        malformed(
            what,
            format!("{units} in Stripe's units of {currency} is no amount of ours"),
        )
    })
}

#[derive(Deserialize)]
struct SessionJson {
    id: String,
    object: Option<String>,
    url: Option<String>,
    status: Option<String>,
    payment_status: Option<String>,
    payment_intent: Option<Expandable>,
    amount_total: Option<i64>,
    currency: Option<String>,
    client_reference_id: Option<String>,
    metadata: Option<Map<String, Value>>,
}

/// A Checkout Session (`object: "checkout.session"`).
pub(crate) fn session(value: Value) -> Result<Checkout, GatewayError> {
    const WHAT: &str = "a Checkout Session";
    let s: SessionJson = read(WHAT, value)?;
    expect_object(WHAT, s.object.as_deref(), "checkout.session")?;
    let status = match s.status.as_deref() {
        Some(status) => CheckoutStatus::parse(status)
            .ok_or_else(|| malformed(WHAT, format!("unknown status {status:?}")))?,
        None => return Err(malformed(WHAT, "no status")),
    };
    let paid = match s.payment_status.as_deref() {
        Some("paid") => true,
        Some("unpaid" | "no_payment_required") => false,
        Some(other) => return Err(malformed(WHAT, format!("unknown payment_status {other:?}"))),
        None => return Err(malformed(WHAT, "no payment_status")),
    };
    let currency = currency(WHAT, s.currency)?;
    let amount = amount(WHAT, s.amount_total, currency)?;
    let owner = owner(
        &s.id,
        s.client_reference_id.as_deref(),
        s.metadata.unwrap_or_default(),
    );
    Ok(Checkout {
        id: s.id,
        url: s.url,
        status,
        paid,
        payment_reference: s.payment_intent.map(Expandable::id),
        amount,
        currency,
        owner,
    })
}

/// The invoice a session names: its `client_reference_id`, which the `metadata` we also wrote
/// must not contradict (a session without our metadata is read by the reference alone).
fn owner(
    session_id: &str,
    reference: Option<&str>,
    metadata: Map<String, Value>,
) -> Option<CheckoutOwner> {
    let owner = CheckoutOwner::parse_reference(reference?)?;
    let ours = [
        ("account_id", owner.account_id.0.to_string()),
        ("environment", owner.environment.as_str().to_string()),
        ("invoice_id", owner.invoice_id.0.to_string()),
    ];
    for (key, expected) in ours {
        match metadata.get(key) {
            None => {}
            Some(Value::String(v)) if *v == expected => {}
            Some(_) => {
                log::warn!(
                    "stripe: session {session_id}: metadata[{key}] disagrees with its \
                     client_reference_id; it names no invoice of ours"
                );
                return None;
            }
        }
    }
    Some(owner)
}

#[derive(Deserialize)]
struct RefundJson {
    id: String,
    object: Option<String>,
    amount: Option<i64>,
    currency: Option<String>,
    payment_intent: Option<Expandable>,
    status: Option<String>,
}

/// A Refund (`object: "refund"`), with the currency its amount is in.
pub(crate) fn refund(value: Value) -> Result<(GatewayRefund, Currency), GatewayError> {
    const WHAT: &str = "a Refund";
    let r: RefundJson = read(WHAT, value)?;
    expect_object(WHAT, r.object.as_deref(), "refund")?;
    let status = match r.status.as_deref() {
        Some("succeeded") => RefundStatus::Succeeded,
        Some("pending" | "requires_action") => RefundStatus::Pending,
        Some("failed" | "canceled") => RefundStatus::Failed,
        Some(other) => return Err(malformed(WHAT, format!("unknown status {other:?}"))),
        None => return Err(malformed(WHAT, "no status")),
    };
    let currency = currency(WHAT, r.currency)?;
    let amount = amount(WHAT, r.amount, currency)?;
    Ok((
        GatewayRefund {
            id: r.id,
            payment_reference: r.payment_intent.map(Expandable::id),
            amount,
            status,
        },
        currency,
    ))
}

#[derive(Deserialize)]
struct EventJson {
    id: String,
    object: Option<String>,
    livemode: bool,
    #[serde(rename = "type")]
    kind: String,
    data: EventData,
}

#[derive(Deserialize)]
struct EventData {
    object: Value,
}

/// An Event (`object: "event"`), the body of a webhook.
///
/// Refunds are read from the events that carry a Refund: `refund.created`, `refund.updated`,
/// `refund.failed` and the older `charge.refund.updated`. `charge.refunded` carries the Charge,
/// whose `refunds` list Stripe no longer includes (API 2022-11-15 on) and which may hold several
/// refunds besides, so it is acknowledged as `Other`.
pub(crate) fn event(payload: &[u8]) -> Result<Notification, GatewayError> {
    const WHAT: &str = "an Event";
    let e: EventJson = serde_json::from_slice(payload).map_err(|e| malformed(WHAT, e))?;
    expect_object(WHAT, e.object.as_deref(), "event")?;
    let event = match e.kind.as_str() {
        "checkout.session.completed" => {
            let checkout = session(e.data.object)?;
            if checkout.paid {
                GatewayEvent::CheckoutPaid(checkout)
            } else {
                GatewayEvent::CheckoutPending(checkout)
            }
        }
        "checkout.session.async_payment_succeeded" => {
            let checkout = session(e.data.object)?;
            if !checkout.paid {
                return Err(malformed(
                    WHAT,
                    "async_payment_succeeded for a session that is not paid",
                ));
            }
            GatewayEvent::CheckoutPaid(checkout)
        }
        "checkout.session.async_payment_failed" => {
            GatewayEvent::CheckoutFailed(session(e.data.object)?)
        }
        "refund.created" | "refund.updated" | "refund.failed" | "charge.refund.updated" => {
            GatewayEvent::RefundChanged(refund(e.data.object)?.0)
        }
        other => GatewayEvent::Other(other.to_string()),
    };
    Ok(Notification {
        id: e.id,
        livemode: e.livemode,
        event,
    })
}

/// Stripe's error body: `{"error": {"type", "code", "message", "param", …}}`.
#[derive(Debug, Deserialize, PartialEq, Eq)]
pub(crate) struct StripeError {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub code: Option<String>,
    pub message: Option<String>,
    pub param: Option<String>,
}

#[derive(Deserialize)]
struct ErrorBody {
    error: StripeError,
}

pub(crate) fn stripe_error(body: &[u8]) -> Option<StripeError> {
    serde_json::from_slice::<ErrorBody>(body)
        .ok()
        .map(|b| b.error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use invoicing_domain::invoice::InvoiceId;
    use invoicing_domain::money::Money;
    use invoicing_domain::tenant::{AccountId, Environment};
    use serde_json::json;

    fn owner42() -> CheckoutOwner {
        CheckoutOwner {
            account_id: AccountId(42),
            environment: Environment::Test,
            invoice_id: InvoiceId(7),
        }
    }

    /// Shaped as Stripe's API reference shows a Checkout Session (trimmed).
    fn session_json() -> Value {
        json!({
            "id": "cs_test_a1b2c3",
            "object": "checkout.session",
            "after_expiration": null,
            "amount_subtotal": 1250,
            "amount_total": 1250,
            "client_reference_id": "acct_42:test:inv_7",
            "created": 1_700_000_000,
            "currency": "eur",
            "customer_email": "ada@example.com",
            "expires_at": 1_700_086_400,
            "livemode": false,
            "metadata": {"account_id": "42", "environment": "test", "invoice_id": "7"},
            "mode": "payment",
            "payment_intent": null,
            "payment_status": "unpaid",
            "status": "open",
            "success_url": "https://example.com/paid",
            "url": "https://checkout.stripe.com/c/pay/cs_test_a1b2c3",
            "some_field_stripe_adds_next_year": {"nested": [1, 2]}
        })
    }

    fn with(mut value: Value, key: &str, v: Value) -> Value {
        value[key] = v;
        value
    }

    fn without(mut value: Value, key: &str) -> Value {
        value.as_object_mut().unwrap().remove(key);
        value
    }

    fn is_malformed<T: std::fmt::Debug>(r: Result<T, GatewayError>) -> String {
        match r {
            Err(GatewayError::Malformed(m)) => m,
            other => panic!("expected Malformed, got {other:?}"),
        }
    }

    #[test]
    fn an_open_session() {
        let c = session(session_json()).unwrap();
        assert_eq!(
            c,
            Checkout {
                id: "cs_test_a1b2c3".into(),
                url: Some("https://checkout.stripe.com/c/pay/cs_test_a1b2c3".into()),
                status: CheckoutStatus::Open,
                paid: false,
                payment_reference: None,
                amount: Money::new(1250).unwrap(),
                currency: Currency::parse("EUR").unwrap(),
                owner: Some(owner42()),
            }
        );
    }

    #[test]
    fn the_payment_intent_as_an_id_or_expanded() {
        let paid = with(
            with(session_json(), "payment_status", json!("paid")),
            "status",
            json!("complete"),
        );
        let as_id = with(paid.clone(), "payment_intent", json!("pi_3Abc"));
        let c = session(as_id).unwrap();
        assert!(c.paid);
        assert_eq!(c.status, CheckoutStatus::Complete);
        assert_eq!(c.payment_reference.as_deref(), Some("pi_3Abc"));
        let expanded = with(
            paid,
            "payment_intent",
            json!({"id": "pi_3Abc", "object": "payment_intent", "amount": 1250, "status": "succeeded"}),
        );
        assert_eq!(
            session(expanded).unwrap().payment_reference.as_deref(),
            Some("pi_3Abc")
        );
        let missing = without(session_json(), "payment_intent");
        assert_eq!(session(missing).unwrap().payment_reference, None);
        let odd = with(session_json(), "payment_intent", json!(12));
        is_malformed(session(odd));
    }

    #[test]
    fn statuses() {
        for (status, expected) in [
            ("open", CheckoutStatus::Open),
            ("complete", CheckoutStatus::Complete),
            ("expired", CheckoutStatus::Expired),
        ] {
            let c = session(with(session_json(), "status", json!(status))).unwrap();
            assert_eq!(c.status, expected);
        }
        for (payment_status, paid) in [
            ("paid", true),
            ("unpaid", false),
            ("no_payment_required", false),
        ] {
            let c = session(with(
                session_json(),
                "payment_status",
                json!(payment_status),
            ))
            .unwrap();
            assert_eq!(c.paid, paid, "{payment_status}");
        }
        let m = is_malformed(session(with(session_json(), "status", json!("abandoned"))));
        assert!(m.contains("abandoned"), "{m}");
        is_malformed(session(with(session_json(), "status", Value::Null)));
        is_malformed(session(with(
            session_json(),
            "payment_status",
            json!("maybe"),
        )));
        is_malformed(session(without(session_json(), "payment_status")));
    }

    #[test]
    fn amounts_come_back_in_our_minor_units() {
        let isk = with(
            with(session_json(), "currency", json!("isk")),
            "amount_total",
            json!(500),
        );
        let c = session(isk).unwrap();
        assert_eq!((c.amount.minor(), c.currency.code()), (5, "ISK"));
        let jpy = with(session_json(), "currency", json!("jpy"));
        assert_eq!(session(jpy).unwrap().amount.minor(), 1250);
        let kwd = with(session_json(), "currency", json!("kwd"));
        assert_eq!(session(kwd).unwrap().amount.minor(), 1250);
        // Half a krona does not exist here.
        let fraction = with(
            with(session_json(), "currency", json!("isk")),
            "amount_total",
            json!(1050),
        );
        is_malformed(session(fraction));
    }

    #[test]
    fn missing_or_unreadable_fields_are_malformed() {
        for key in ["id", "amount_total", "currency", "status"] {
            let m = is_malformed(session(without(session_json(), key)));
            assert!(m.starts_with("a Checkout Session"), "{m}");
        }
        is_malformed(session(with(session_json(), "currency", json!("zzz"))));
        is_malformed(session(with(session_json(), "amount_total", json!("1250"))));
        is_malformed(session(with(session_json(), "amount_total", json!(12.5))));
        is_malformed(session(with(
            session_json(),
            "object",
            json!("payment_intent"),
        )));
        is_malformed(session(json!([])));
        is_malformed(session(json!("cs_test_1")));
        is_malformed(session(Value::Null));
    }

    #[test]
    fn the_owner_is_the_reference_unless_the_metadata_disagrees() {
        // No metadata (a session made elsewhere): the reference alone.
        let c = session(with(session_json(), "metadata", json!({}))).unwrap();
        assert_eq!(c.owner, Some(owner42()));
        let c = session(with(session_json(), "metadata", Value::Null)).unwrap();
        assert_eq!(c.owner, Some(owner42()));
        // Unrelated metadata is no disagreement.
        let c = session(with(session_json(), "metadata", json!({"order": "x"}))).unwrap();
        assert_eq!(c.owner, Some(owner42()));
        for metadata in [
            json!({"account_id": "43", "environment": "test", "invoice_id": "7"}),
            json!({"account_id": "42", "environment": "live", "invoice_id": "7"}),
            json!({"invoice_id": "8"}),
            json!({"account_id": 42}),
        ] {
            let c = session(with(session_json(), "metadata", metadata.clone())).unwrap();
            assert_eq!(c.owner, None, "{metadata}");
        }
        for reference in [json!(null), json!("order-7"), json!("acct_42:test:inv_7:x")] {
            let c = session(with(session_json(), "client_reference_id", reference)).unwrap();
            assert_eq!(c.owner, None);
        }
    }

    fn refund_json() -> Value {
        json!({
            "id": "re_1Abc",
            "object": "refund",
            "amount": 500,
            "balance_transaction": null,
            "charge": "ch_1Abc",
            "created": 1_700_000_000,
            "currency": "eur",
            "metadata": {"reason": "overpaid"},
            "payment_intent": "pi_3Abc",
            "reason": "requested_by_customer",
            "status": "succeeded"
        })
    }

    #[test]
    fn refunds_and_their_statuses() {
        let (r, currency) = refund(refund_json()).unwrap();
        assert_eq!(
            r,
            GatewayRefund {
                id: "re_1Abc".into(),
                payment_reference: Some("pi_3Abc".into()),
                amount: Money::new(500).unwrap(),
                status: RefundStatus::Succeeded,
            }
        );
        assert_eq!(currency.code(), "EUR");
        for (status, expected) in [
            ("succeeded", RefundStatus::Succeeded),
            ("pending", RefundStatus::Pending),
            ("requires_action", RefundStatus::Pending),
            ("failed", RefundStatus::Failed),
            ("canceled", RefundStatus::Failed),
        ] {
            let (r, _) = refund(with(refund_json(), "status", json!(status))).unwrap();
            assert_eq!(r.status, expected, "{status}");
        }
        is_malformed(refund(with(refund_json(), "status", json!("reversed"))));
        is_malformed(refund(with(refund_json(), "status", Value::Null)));
        is_malformed(refund(without(refund_json(), "amount")));
        is_malformed(refund(with(refund_json(), "object", json!("charge"))));
        let expanded = with(refund_json(), "payment_intent", json!({"id": "pi_9"}));
        assert_eq!(
            refund(expanded).unwrap().0.payment_reference.as_deref(),
            Some("pi_9")
        );
        let no_intent = with(refund_json(), "payment_intent", Value::Null);
        assert_eq!(refund(no_intent).unwrap().0.payment_reference, None);
        let yen = with(refund_json(), "currency", json!("jpy"));
        assert_eq!(refund(yen).unwrap().0.amount.minor(), 500);
    }

    fn event_json(kind: &str, object: Value) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "id": "evt_1Abc",
            "object": "event",
            "api_version": "2024-06-20",
            "created": 1_700_000_000,
            "data": {"object": object},
            "livemode": false,
            "pending_webhooks": 1,
            "request": {"id": null, "idempotency_key": null},
            "type": kind
        }))
        .unwrap()
    }

    fn paid_session() -> Value {
        with(
            with(
                with(session_json(), "payment_status", json!("paid")),
                "status",
                json!("complete"),
            ),
            "payment_intent",
            json!("pi_3Abc"),
        )
    }

    fn unpaid_complete_session() -> Value {
        with(session_json(), "status", json!("complete"))
    }

    #[test]
    fn checkout_events() {
        let n = event(&event_json("checkout.session.completed", paid_session())).unwrap();
        assert_eq!(n.id, "evt_1Abc");
        assert!(!n.livemode);
        let GatewayEvent::CheckoutPaid(c) = n.event else {
            panic!("{:?}", n.event)
        };
        assert_eq!(c.payment_reference.as_deref(), Some("pi_3Abc"));
        assert_eq!(c.owner, Some(owner42()));

        let n = event(&event_json(
            "checkout.session.completed",
            unpaid_complete_session(),
        ))
        .unwrap();
        assert!(matches!(n.event, GatewayEvent::CheckoutPending(ref c) if !c.paid));

        let n = event(&event_json(
            "checkout.session.async_payment_succeeded",
            paid_session(),
        ))
        .unwrap();
        assert!(matches!(n.event, GatewayEvent::CheckoutPaid(ref c) if c.paid));
        is_malformed(event(&event_json(
            "checkout.session.async_payment_succeeded",
            unpaid_complete_session(),
        )));

        let n = event(&event_json(
            "checkout.session.async_payment_failed",
            unpaid_complete_session(),
        ))
        .unwrap();
        assert!(matches!(n.event, GatewayEvent::CheckoutFailed(ref c) if !c.paid));
    }

    #[test]
    fn refund_events() {
        for kind in [
            "refund.created",
            "refund.updated",
            "refund.failed",
            "charge.refund.updated",
        ] {
            let pending = with(refund_json(), "status", json!("pending"));
            let n = event(&event_json(kind, pending)).unwrap();
            let GatewayEvent::RefundChanged(r) = n.event else {
                panic!("{kind}: {:?}", n.event)
            };
            assert_eq!(r.id, "re_1Abc");
            assert_eq!(r.status, RefundStatus::Pending);
        }
        // A Charge, not a Refund: acknowledged and left alone.
        let charge =
            json!({"id": "ch_1Abc", "object": "charge", "amount_refunded": 500, "refunded": false});
        let n = event(&event_json("charge.refunded", charge)).unwrap();
        assert_eq!(n.event, GatewayEvent::Other("charge.refunded".into()));
    }

    #[test]
    fn other_events_and_broken_ones() {
        let n = event(&event_json(
            "customer.created",
            json!({"id": "cus_1", "object": "customer"}),
        ))
        .unwrap();
        assert_eq!(n.event, GatewayEvent::Other("customer.created".into()));
        let mut live: Value =
            serde_json::from_slice(&event_json("payout.paid", json!({}))).unwrap();
        live["livemode"] = json!(true);
        assert!(event(&serde_json::to_vec(&live).unwrap()).unwrap().livemode);

        is_malformed(event(b""));
        is_malformed(event(b"not json"));
        is_malformed(event(b"[]"));
        is_malformed(event(
            br#"{"id":"evt_1","object":"event","type":"x","livemode":false}"#,
        ));
        is_malformed(event(
            br#"{"id":"evt_1","object":"event","data":{"object":{}},"livemode":false}"#,
        ));
        is_malformed(event(
            br#"{"id":"evt_1","object":"charge","type":"x","data":{"object":{}},"livemode":false}"#,
        ));
        // A type we act on with a body we cannot read.
        is_malformed(event(&event_json(
            "checkout.session.completed",
            json!({"id": "cs_1"}),
        )));
        is_malformed(event(&event_json("refund.updated", json!({"id": "re_1"}))));
    }

    #[test]
    fn stripe_error_bodies() {
        let body = br#"{"error":{"code":"parameter_invalid_integer","doc_url":"https://docs.stripe.com/error-codes/parameter-invalid-integer","message":"Invalid integer: abc","param":"amount","request_log_url":"https://dashboard.stripe.com/test/logs/req_1","type":"invalid_request_error"}}"#;
        assert_eq!(
            stripe_error(body),
            Some(StripeError {
                kind: Some("invalid_request_error".into()),
                code: Some("parameter_invalid_integer".into()),
                message: Some("Invalid integer: abc".into()),
                param: Some("amount".into()),
            })
        );
        let minimal = br#"{"error":{"type":"api_error"}}"#;
        assert_eq!(stripe_error(minimal).unwrap().message, None);
        assert_eq!(stripe_error(b"<html>Bad gateway</html>"), None);
        assert_eq!(stripe_error(br#"{"message":"no"}"#), None);
    }
}
