//! The adapter against the Python Stripe stand-in (`scripts/stripe_standin/standin.py`), each
//! checking the other: keys, a checkout opened, read, paid through the stand-in's control API,
//! read again, refunded, expired; and the webhooks the stand-in signs and delivers, verified
//! and read by the adapter.
// Tests panic to fail and print to report; helpers outside `#[test]` functions too.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

use chrono::Utc;
use invoicing_domain::currency::Currency;
use invoicing_domain::gateway::{
    CheckoutOwner, CheckoutRequest, CheckoutStatus, GatewayError, GatewayEvent, GatewayKeys,
    Notification, PaymentGateway, RefundRequest, RefundStatus, Secret,
};
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::money::Money;
use invoicing_domain::tenant::{AccountId, Environment};
use invoicing_gateway_stripe::testing::StandIn;
use invoicing_gateway_stripe::{StripeGateway, STRIPE_VERSION, USER_AGENT};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;

use std::sync::mpsc;
use std::time::Duration;

/// A webhook receiver on 127.0.0.1: every delivery answered 200 and passed on as
/// `(Stripe-Signature, body)`.
fn receiver() -> (String, mpsc::Receiver<(String, Vec<u8>)>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://127.0.0.1:{}/webhooks/stripe",
        listener.local_addr().unwrap().port()
    );
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut reader = BufReader::new(&stream);
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            let (mut length, mut signature) = (0, String::new());
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).is_err() {
                    break;
                }
                let header = header.trim_end();
                if header.is_empty() {
                    break;
                }
                if let Some((k, v)) = header.split_once(':') {
                    if k.eq_ignore_ascii_case("content-length") {
                        length = v.trim().parse().unwrap_or(0);
                    } else if k.eq_ignore_ascii_case("stripe-signature") {
                        signature = v.trim().to_string();
                    }
                }
            }
            let mut body = vec![0; length];
            if reader.read_exact(&mut body).is_err() {
                continue;
            }
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
            if tx.send((signature, body)).is_err() {
                break;
            }
        }
    });
    (url, rx)
}

fn owner(invoice: i64) -> CheckoutOwner {
    CheckoutOwner {
        account_id: AccountId(42),
        environment: Environment::Test,
        invoice_id: InvoiceId(invoice),
    }
}

fn checkout_request(invoice: i64, minor: i64, currency: &str) -> CheckoutRequest {
    let owner = owner(invoice);
    let amount = Money::new(minor).unwrap();
    CheckoutRequest {
        owner,
        amount,
        currency: Currency::parse(currency).unwrap(),
        description: format!("Invoice 2026-{invoice:04} – Müller & Söhne"),
        customer_email: Some("ada@example.com".into()),
        success_url: "https://pay.example.com/i/tok?session={CHECKOUT_SESSION_ID}".into(),
        cancel_url: "https://pay.example.com/i/tok".into(),
        idempotency_key: owner.checkout_key(amount, 0),
    }
}

#[test]
fn the_adapter_and_the_stand_in_agree() {
    let Some(standin) = python3().then(StandIn::start) else {
        return;
    };
    let account = standin.control("/_standin/accounts", json!({}));
    let account_id = account["account"].as_str().unwrap().to_string();
    let keys = GatewayKeys {
        secret_key: Secret::new(account["test"]["secret_key"].as_str().unwrap()),
        publishable_key: account["test"]["publishable_key"]
            .as_str()
            .unwrap()
            .to_string(),
        webhook_secret: None,
    };
    let gateway = StripeGateway::new(&standin.base, Duration::from_secs(10)).unwrap();
    let (hook_url, deliveries) = receiver();
    let webhook_secret = Secret::new(standin.endpoint(keys.secret_key.expose(), &hook_url));

    // Keys: the account's own, then one the stand-in never issued, then a publishable one.
    gateway.check_keys(&keys).unwrap();
    let unknown = "sk_test_51NeverIssuedByTheStandIn000000000000000000000000";
    for secret in [unknown, keys.publishable_key.as_str()] {
        let mut wrong = keys.clone();
        wrong.secret_key = Secret::new(secret);
        let e = gateway.check_keys(&wrong).unwrap_err();
        assert!(matches!(e, GatewayError::Unauthorized(_)), "{e:?}");
        assert!(!format!("{e} {e:?}").contains(secret), "{e:?}");
    }

    // A checkout, opened twice with the same key: one session.
    let request = checkout_request(7, 1250, "EUR");
    let opened = gateway.create_checkout(&keys, &request).unwrap();
    assert_eq!(opened.status, CheckoutStatus::Open);
    assert!(!opened.paid);
    assert_eq!(opened.payment_reference, None);
    assert_eq!(opened.owner, Some(request.owner));
    assert_eq!(
        (opened.amount, opened.currency),
        (request.amount, request.currency)
    );
    let url = opened.url.clone().unwrap();
    assert!(url.starts_with(&gateway.checkout_origin()), "{url}");
    let again = gateway.create_checkout(&keys, &request).unwrap();
    assert_eq!(again.id, opened.id);

    let read = gateway.checkout(&keys, &opened.id).unwrap();
    assert_eq!(read, opened);

    // Paid through the control API, read again.
    standin.control(&format!("/_standin/sessions/{}/pay", opened.id), json!({}));
    let paid = gateway.checkout(&keys, &opened.id).unwrap();
    assert_eq!(paid.status, CheckoutStatus::Complete);
    assert!(paid.paid);
    assert_eq!(paid.url, None);
    let intent = paid.payment_reference.clone().expect("a payment reference");
    assert!(intent.starts_with("pi_"), "{intent}");
    assert_eq!(paid.owner, Some(request.owner));

    // Expiring it now answers the paid session.
    let late = gateway.expire_checkout(&keys, &opened.id).unwrap();
    assert!(late.paid && late.status == CheckoutStatus::Complete);

    // A partial refund, then more than is left.
    let refund = |minor: i64, key: &str| RefundRequest {
        payment_reference: intent.clone(),
        amount: Money::new(minor).unwrap(),
        currency: request.currency,
        reason: Some("Overpaid: 5 € back".into()),
        idempotency_key: key.into(),
    };
    let first = gateway.refund(&keys, &refund(500, "refund-1")).unwrap();
    assert_eq!(first.status, RefundStatus::Succeeded);
    assert_eq!(first.payment_reference.as_deref(), Some(intent.as_str()));
    assert_eq!(first.amount.minor(), 500);
    let too_much = gateway.refund(&keys, &refund(800, "refund-2")).unwrap_err();
    assert!(
        matches!(too_much, GatewayError::Refused { ref param, .. } if param.as_deref() == Some("amount")),
        "{too_much:?}"
    );
    // A refund the gateway finishes later, and fails.
    standin.control("/_standin/refund_mode", json!({"status": "pending"}));
    let pending = gateway.refund(&keys, &refund(250, "refund-3")).unwrap();
    assert_eq!(pending.status, RefundStatus::Pending);
    standin.control(
        &format!("/_standin/refunds/{}", pending.id),
        json!({"status": "failed"}),
    );

    // Another checkout, expired; expiring it again answers it as it is.
    let other = gateway
        .create_checkout(&keys, &checkout_request(8, 500, "JPY"))
        .unwrap();
    assert_eq!((other.amount.minor(), other.currency.code()), (500, "JPY"));
    let expired = gateway.expire_checkout(&keys, &other.id).unwrap();
    assert_eq!(expired.status, CheckoutStatus::Expired);
    assert_eq!(expired.url, None);
    let twice = gateway.expire_checkout(&keys, &other.id).unwrap();
    assert_eq!(twice.status, CheckoutStatus::Expired);

    // A delayed payment: completed unpaid, then settled.
    let delayed = gateway
        .create_checkout(&keys, &checkout_request(9, 5120, "KWD"))
        .unwrap();
    assert_eq!(delayed.amount.minor(), 5120);
    standin.control(
        &format!("/_standin/sessions/{}/pay_later", delayed.id),
        json!({}),
    );
    let processing = gateway.checkout(&keys, &delayed.id).unwrap();
    assert_eq!(processing.status, CheckoutStatus::Complete);
    assert!(!processing.paid);
    standin.control(
        &format!("/_standin/sessions/{}/async", delayed.id),
        json!({"result": "succeeded"}),
    );
    assert!(gateway.checkout(&keys, &delayed.id).unwrap().paid);

    // An unknown session is Stripe's refusal, not a crash.
    let missing = gateway.checkout(&keys, "cs_test_doesnotexist").unwrap_err();
    assert!(
        matches!(missing, GatewayError::Refused { .. }),
        "{missing:?}"
    );

    // What went over the wire, as the stand-in saw it.
    let requests = standin.requests(Some(&account_id));
    let ours: Vec<&Value> = requests
        .iter()
        .filter(|r| r["user_agent"] == USER_AGENT)
        .collect();
    assert!(ours.len() >= 15, "{}", ours.len());
    for r in &ours {
        assert_eq!(r["stripe_version"], STRIPE_VERSION, "{r}");
        if r["method"] == "POST" {
            assert!(
                r["idempotency_key"].as_str().is_some_and(|k| !k.is_empty()),
                "{r}"
            );
            assert_eq!(
                r["content_type"], "application/x-www-form-urlencoded",
                "{r}"
            );
        } else {
            assert!(r["idempotency_key"].is_null(), "{r}");
        }
    }
    let create = ours
        .iter()
        .find(|r| r["path"] == "/v1/checkout/sessions")
        .unwrap();
    let params = &create["params"];
    assert_eq!(params["mode"], "payment");
    assert_eq!(params["line_items"][0]["price_data"]["currency"], "eur");
    assert_eq!(params["line_items"][0]["price_data"]["unit_amount"], "1250");
    assert_eq!(
        params["line_items"][0]["price_data"]["product_data"]["name"],
        "Invoice 2026-0007 – Müller & Söhne"
    );
    assert_eq!(params["payment_intent_data"]["metadata"]["invoice_id"], "7");
    assert_eq!(params["client_reference_id"], "acct_42:test:inv_7");
    assert!(ours.iter().any(
        |r| r["path"] == format!("/v1/checkout/sessions/{}/expire", other.id)
            && r["idempotency_key"] == format!("expire-{}", other.id)
    ));

    // The webhooks it signed, verified and read here.
    let idle = standin.control("/_standin/webhooks/wait", json!({"timeout": 20}));
    assert_eq!(idle["idle"], true);
    let mut notifications: Vec<Notification> = Vec::new();
    while let Ok((signature, body)) = deliveries.recv_timeout(Duration::from_millis(500)) {
        let n = gateway
            .verify_notification(&webhook_secret, &signature, &body, Utc::now())
            .unwrap_or_else(|e| panic!("{e:?}: {signature} {}", String::from_utf8_lossy(&body)));
        assert!(!n.livemode);
        // The same body changed by a byte is refused.
        let mut changed = body.clone();
        changed.push(b' ');
        assert!(matches!(
            gateway.verify_notification(&webhook_secret, &signature, &changed, Utc::now()),
            Err(GatewayError::BadSignature(_))
        ));
        notifications.push(n);
    }
    let paid_events: Vec<_> = notifications
        .iter()
        .filter_map(|n| match &n.event {
            GatewayEvent::CheckoutPaid(c) => Some(c),
            _ => None,
        })
        .collect();
    assert!(paid_events
        .iter()
        .any(|c| c.id == opened.id && c.payment_reference.as_deref() == Some(intent.as_str())));
    assert!(paid_events.iter().any(|c| c.id == delayed.id));
    assert!(notifications.iter().any(|n| matches!(&n.event,
        GatewayEvent::CheckoutPending(c) if c.id == delayed.id)));
    let refund_states: Vec<_> = notifications
        .iter()
        .filter_map(|n| match &n.event {
            GatewayEvent::RefundChanged(r) => Some((r.id.clone(), r.status)),
            _ => None,
        })
        .collect();
    assert!(refund_states.contains(&(first.id.clone(), RefundStatus::Succeeded)));
    assert!(refund_states.contains(&(pending.id.clone(), RefundStatus::Pending)));
    assert!(refund_states.contains(&(pending.id.clone(), RefundStatus::Failed)));
    assert!(notifications
        .iter()
        .any(|n| n.event == GatewayEvent::Other("charge.refunded".into())));
    assert!(notifications
        .iter()
        .any(|n| n.event == GatewayEvent::Other("checkout.session.expired".into())));
    // Each event once.
    let mut ids: Vec<_> = notifications.iter().map(|n| n.id.clone()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), notifications.len());
}

/// Whether `python3` runs here (the stand-in needs nothing else); said when not.
fn python3() -> bool {
    let ok = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok();
    if !ok {
        eprintln!("skipped: python3 is not installed, so the Stripe stand-in cannot run");
    }
    ok
}
