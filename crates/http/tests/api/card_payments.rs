//! SPEC §25 through the real app and the repository's Stripe stand-in, on both backends:
//! connecting Stripe (keys checked, sealed, never shown), Pay by card (one checkout per amount,
//! the page's CSP), one payment whatever reports it (the return, the webhook twice, the sweep,
//! two "processes" at once), hostile webhooks, refunds after a credit note, proof files.

#[path = "card_payments/standin.rs"]
pub(crate) mod standin;

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::{init_service, TestRequest};
use actix_web::web;
use invoicing_domain::gateway::Secret;
use invoicing_gateway_stripe::{sign_notification, StripeGateway};
use invoicing_http::ops::gateways::sweep_checkouts;
use invoicing_http::{build_app, AppState};
use serde_json::{json, Value};
use standin::Account;
pub(crate) use standin::StandIn;

const GATEWAY: &str = "/api/v1/account/gateways/stripe";

fn keys(secret: &str, publishable: &str, webhook: Option<&str>) -> Value {
    let mut body = json!({"secret_key": secret, "publishable_key": publishable});
    if let Some(w) = webhook {
        body["webhook_secret"] = json!(w);
    }
    body
}

/// What one merchant set up: the stand-in, its Stripe account connected to the harness's test
/// environment, the endpoint's signing secret and the app over it.
pub(crate) struct Connected {
    pub(crate) stripe: StandIn,
    account: Account,
    webhook_secret: String,
    webhook_path: String,
    pub(crate) state: web::Data<AppState>,
}

/// Connects a Stripe account of a fresh stand-in as a merchant would: keys first, then the
/// endpoint made in Stripe for the URL the answer shows, then its signing secret.
pub(crate) async fn connect(h: &Harness) -> Connected {
    let stripe = StandIn::start();
    let account = stripe.account();
    let state = h.with_stripe(&stripe.base);
    let app = init_service(build_app(state.clone())).await;
    let first = call!(
        &app,
        h.req(Method::PUT, GATEWAY),
        keys(&account.test_secret, &account.test_publishable, None)
    );
    assert_eq!(first.status, 200, "{}", first.body);
    let url = first.body["webhook_url"].as_str().unwrap().to_string();
    assert!(
        url.starts_with(&format!("{PUBLIC_URL}/webhooks/stripe/")),
        "{url}"
    );
    assert_eq!(first.body["webhook_secret_set"], false);
    let webhook_secret = stripe.endpoint(&account.test_secret, &url);
    let second = call!(
        &app,
        h.req(Method::PUT, GATEWAY),
        keys(
            &account.test_secret,
            &account.test_publishable,
            Some(&webhook_secret)
        )
    );
    assert_eq!(second.status, 200, "{}", second.body);
    assert_eq!(second.body["webhook_url"], url.as_str(), "the URL stays");
    Connected {
        webhook_path: url.strip_prefix(PUBLIC_URL).unwrap().to_string(),
        stripe,
        account,
        webhook_secret,
        state,
    }
}

/// "Pay by card" as the customer's browser posts it: where it sends them.
pub(crate) async fn pay_by_card<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    h: &Harness,
    inv: &Value,
) -> String {
    let path = format!("/invoice/{}/card", inv["invoice_number"].as_str().unwrap());
    let r = send_raw(app, form(h, &path, &format!("token={}", token(inv)))).await;
    assert_eq!(r.status, 303, "{}", r.text());
    r.header("location").to_string()
}

async fn payments_of<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    h: &Harness,
    inv: &Value,
) -> Vec<Value> {
    let path = format!("/api/v1/payments?invoice_id={}", inv["id"]);
    call!(app, h.req(Method::GET, &path)).body["data"]
        .as_array()
        .unwrap()
        .clone()
}

async fn invoice_now<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    h: &Harness,
    inv: &Value,
) -> Value {
    call!(
        app,
        h.req(Method::GET, &format!("/api/v1/invoices/{}", inv["id"]))
    )
    .body
}

async fn event_count<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    h: &Harness,
    kind: &str,
) -> usize {
    let path = format!("/api/v1/events?type={kind}&per_page=100");
    call!(app, h.req(Method::GET, &path)).body["data"]
        .as_array()
        .unwrap()
        .len()
}

/// Delivers `event` to the endpoint as Stripe signs it (`at`: its timestamp).
fn delivery(h: &Harness, c: &Connected, payload: &[u8], at: i64) -> TestRequest {
    let signature = sign_notification(&Secret::new(c.webhook_secret.clone()), at, payload);
    h.anonymous(Method::POST, &c.webhook_path)
        .insert_header(("content-type", "application/json; charset=utf-8"))
        .insert_header(("stripe-signature", signature))
        .set_payload(payload.to_vec())
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

async fn connecting_checks_the_keys_and_never_shows_them(h: Harness) {
    let stripe = StandIn::start();
    let account = stripe.account();
    let app = init_service(build_app(h.with_stripe(&stripe.base))).await;
    assert_error(
        &call!(&app, h.req(Method::GET, GATEWAY)),
        404,
        "gateway_not_connected",
    );
    // Live keys in the test environment, test keys in live: refused, field by field.
    let wrong = call!(
        &app,
        h.req(Method::PUT, GATEWAY),
        keys(&account.live_secret, &account.live_publishable, None)
    );
    assert_error(&wrong, 422, "validation_failed");
    let params: Vec<&str> = wrong.body["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["param"].as_str().unwrap())
        .collect();
    assert_eq!(params, ["secret_key", "publishable_key"]);
    let live = h.live_key();
    let wrong_env = call!(
        &app,
        h.req_as(&live, Method::PUT, GATEWAY),
        keys(&account.test_secret, &account.test_publishable, None)
    );
    assert_error(&wrong_env, 422, "validation_failed");
    // A key of the right shape that Stripe does not know.
    let unknown = call!(
        &app,
        h.req(Method::PUT, GATEWAY),
        keys(
            "sk_test_51NotAKeyStripeKnows",
            &account.test_publishable,
            None
        )
    );
    assert_error(&unknown, 422, "validation_failed");
    assert_eq!(unknown.body["error"]["param"], "secret_key");
    // Stripe down: nothing saved, a 502 that says so.
    stripe.control("/_standin/down", json!({"down": true}));
    let down = call!(
        &app,
        h.req(Method::PUT, GATEWAY),
        keys(&account.test_secret, &account.test_publishable, None)
    );
    assert_error(&down, 502, "gateway_unavailable");
    stripe.control("/_standin/down", json!({"down": false}));
    assert_error(
        &call!(&app, h.req(Method::GET, GATEWAY)),
        404,
        "gateway_not_connected",
    );
    // Scopes: account:write; a key without it is refused before Stripe is asked.
    let reader = h.make_key(
        h.account,
        invoicing_domain::tenant::Environment::Test,
        "invoices:write,account:read",
        GENEROUS,
        None,
    );
    let refused = call!(
        &app,
        h.req_as(&reader, Method::PUT, GATEWAY),
        keys(&account.test_secret, &account.test_publishable, None)
    );
    assert_error(&refused, 403, "insufficient_permissions");
    let saved = call!(
        &app,
        h.req(Method::PUT, GATEWAY),
        keys(
            &account.test_secret,
            &account.test_publishable,
            Some("whsec_signing123")
        )
    );
    assert_eq!(saved.status, 200, "{}", saved.body);
    let last4 = &account.test_secret[account.test_secret.len() - 4..];
    assert_eq!(saved.body["secret_key_last4"], last4);
    assert_eq!(
        saved.body["publishable_key"],
        account.test_publishable.as_str()
    );
    assert_eq!(saved.body["livemode"], false);
    assert_eq!(saved.body["check_ok"], true);
    assert!(saved.body["webhook_events"]
        .as_array()
        .unwrap()
        .contains(&json!("checkout.session.completed")));
    let shown = call!(&app, h.req(Method::GET, GATEWAY));
    assert_eq!(shown.status, 200);
    // The secrets appear in no answer and no export.
    let export = send_raw(&app, h.req(Method::GET, "/api/v1/account/export")).await;
    assert_eq!(export.status, 200);
    let secret_tail = &account.test_secret[8..];
    for (what, bytes) in [
        ("PUT", saved.body.to_string().into_bytes()),
        ("GET", shown.body.to_string().into_bytes()),
        ("export", export.bytes.clone()),
    ] {
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(secret_tail), "{what} shows the secret key");
        assert!(
            !text.contains("signing123"),
            "{what} shows the webhook secret"
        );
    }
    // Another account sees none of it; the live environment has its own.
    let stranger = h.stranger_key("Other");
    assert_error(
        &call!(&app, h.req_as(&stranger, Method::GET, GATEWAY)),
        404,
        "gateway_not_connected",
    );
    assert_error(
        &call!(&app, h.req_as(&live, Method::GET, GATEWAY)),
        404,
        "gateway_not_connected",
    );
    let gone = call!(&app, h.req(Method::DELETE, GATEWAY));
    assert_eq!(gone.status, 204);
    assert_error(
        &call!(&app, h.req(Method::DELETE, GATEWAY)),
        404,
        "gateway_not_connected",
    );
}

async fn pay_by_card_opens_one_checkout_per_amount(h: Harness) {
    let c = connect(&h).await;
    let app = init_service(build_app(c.state.clone())).await;
    let inv = sent_invoice(&app, &h, 12_345).await;
    let page = send_raw(&app, h.anonymous(Method::GET, &page_path(&inv))).await;
    assert_eq!(page.status, 200);
    let html = page.text();
    assert!(html.contains("id=\"pay-by-card\""), "the page offers cards");
    assert!(html.contains("Pay €123.45 by card"), "{html}");
    let csp = page.header("content-security-policy");
    assert!(
        csp.contains(&format!("form-action 'self' {};", c.stripe.base)),
        "the form may lead to Stripe's page and nowhere else: {csp}"
    );
    let first = pay_by_card(&app, &h, &inv).await;
    assert!(
        first.starts_with(&format!("{}/c/pay/cs_test_", c.stripe.base)),
        "{first}"
    );
    // A reload or a second tab: the same checkout.
    assert_eq!(pay_by_card(&app, &h, &inv).await, first);
    let session = StandIn::session_of(&first);
    let s = c.stripe.api(
        &c.account.test_secret,
        "GET",
        &format!("/v1/checkout/sessions/{session}"),
        &[],
    );
    assert_eq!(s["amount_total"], 12_345);
    assert_eq!(s["currency"], "eur");
    assert_eq!(s["customer_email"], "ada@example.com");
    assert_eq!(
        s["client_reference_id"],
        format!("acct_{}:test:inv_{}", h.account.0, inv["id"])
    );
    // Part paid by transfer meanwhile: the old checkout expires, a new one asks the rest.
    let paid = call!(
        &app,
        h.req(Method::POST, "/api/v1/payments"),
        json!({"invoice_id": inv["id"], "amount_cents": 2_345, "method": "bank_transfer",
               "reference": "TR-1", "status": "verified"})
    );
    assert_eq!(paid.status, 201, "{}", paid.body);
    let second = pay_by_card(&app, &h, &inv).await;
    assert_ne!(second, first);
    let old = c.stripe.api(
        &c.account.test_secret,
        "GET",
        &format!("/v1/checkout/sessions/{session}"),
        &[],
    );
    assert_eq!(old["status"], "expired");
    let new = c.stripe.api(
        &c.account.test_secret,
        "GET",
        &format!("/v1/checkout/sessions/{}", StandIn::session_of(&second)),
        &[],
    );
    assert_eq!(new["amount_total"], 10_000);
    // Every POST to Stripe carried an idempotency key and the pinned version.
    let ours = c.stripe.requests(None).into_iter().filter(|r| {
        r["user_agent"]
            .as_str()
            .unwrap_or("")
            .starts_with("invoicing-gateway-stripe")
    });
    for r in ours {
        assert_eq!(
            r["stripe_version"],
            invoicing_gateway_stripe::STRIPE_VERSION,
            "{r}"
        );
        if r["method"] == "POST" {
            assert!(r["idempotency_key"].is_string(), "{r}");
        }
    }
    // Stripe down: the button leads back to the page, which says so.
    c.stripe.control("/_standin/down", json!({"down": true}));
    let back = pay_by_card(&app, &h, &inv).await;
    assert!(back.ends_with("&card=unavailable"), "{back}");
    let page = send_raw(&app, h.anonymous(Method::GET, &back)).await;
    assert!(page
        .text()
        .contains("Card payment is unavailable right now"));
}

async fn one_payment_whoever_reports_it(h: Harness) {
    let c = connect(&h).await;
    c.stripe.webhooks("hold");
    let app = init_service(build_app(c.state.clone())).await;
    let receipts = call!(
        &app,
        h.req(Method::PATCH, "/api/v1/account"),
        json!({"send_receipts": true})
    );
    assert_eq!(receipts.status, 200, "{}", receipts.body);
    let inv = sent_invoice(&app, &h, 5_000).await;
    let checkout = pay_by_card(&app, &h, &inv).await;
    let session = StandIn::session_of(&checkout);
    c.stripe
        .control(&format!("/_standin/sessions/{session}/pay"), json!({}));
    // The customer's return records it.
    let number = inv["invoice_number"].as_str().unwrap();
    let back = format!(
        "/invoice/{number}/card?token={}&session_id={session}",
        token(&inv)
    );
    let r = send_raw(&app, h.anonymous(Method::GET, &back)).await;
    assert_eq!(r.status, 303);
    assert!(r.header("location").ends_with("&card=paid"));
    let page = send_raw(&app, h.anonymous(Method::GET, r.header("location"))).await;
    assert!(page.text().contains("Paid, thank you."), "{}", page.text());
    assert!(
        !page.text().contains("id=\"pay-by-card\""),
        "nothing left to pay"
    );
    // The webhook, twice (and a second event for the same payment), finds it recorded.
    let events = c
        .stripe
        .events(&c.account.test_secret, "checkout.session.completed");
    assert_eq!(events.len(), 1);
    let payload = events[0].to_string().into_bytes();
    for _ in 0..2 {
        let r = send_raw(&app, delivery(&h, &c, &payload, now())).await;
        assert_eq!(r.status, 200, "{}", r.text());
    }
    // The sweep too.
    let later = chrono::Utc::now() + chrono::Duration::minutes(5);
    let gateway = StripeGateway::new(&c.stripe.base, std::time::Duration::from_secs(5)).unwrap();
    let store = h.db.store.clone();
    let swept = web::block(move || sweep_checkouts(&store, &gateway, later))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(swept, 0);
    let payments = payments_of(&app, &h, &inv).await;
    assert_eq!(payments.len(), 1, "{payments:?}");
    let p = &payments[0];
    assert_eq!(
        (
            &p["method"],
            &p["status"],
            &p["gateway"],
            &p["amount_cents"]
        ),
        (
            &json!("card"),
            &json!("verified"),
            &json!("stripe"),
            &json!(5_000)
        )
    );
    assert!(p["reference"].as_str().unwrap().starts_with("pi_"));
    let now_inv = invoice_now(&app, &h, &inv).await;
    assert_eq!(
        (&now_inv["status"], &now_inv["amount_due_cents"]),
        (&json!("paid"), &json!(0))
    );
    assert_eq!(event_count(&app, &h, "invoice.paid").await, 1);
    assert_eq!(event_count(&app, &h, "payment.verified").await, 1);
    let receipts = call!(&app, h.req(Method::GET, "/api/v1/emails?per_page=100")).body;
    let kinds: Vec<&Value> = receipts["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["kind"])
        .collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == "receipt").count(),
        1,
        "{kinds:?}"
    );
}

async fn a_lost_webhook_costs_minutes_not_money(h: Harness) {
    let c = connect(&h).await;
    c.stripe.webhooks("fail");
    let app = init_service(build_app(c.state.clone())).await;
    let inv = sent_invoice(&app, &h, 7_700).await;
    let session = StandIn::session_of(&pay_by_card(&app, &h, &inv).await);
    c.stripe
        .control(&format!("/_standin/sessions/{session}/pay"), json!({}));
    // Nobody came back and the webhook was lost: still open here.
    assert_eq!(invoice_now(&app, &h, &inv).await["status"], "sent");
    let gateway = StripeGateway::new(&c.stripe.base, std::time::Duration::from_secs(5)).unwrap();
    let store = h.db.store.clone();
    let later = chrono::Utc::now() + chrono::Duration::minutes(1);
    let swept = web::block(move || sweep_checkouts(&store, &gateway, later))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(swept, 1);
    assert_eq!(invoice_now(&app, &h, &inv).await["status"], "paid");
    // The webhook arrives late: nothing more.
    let events = c
        .stripe
        .events(&c.account.test_secret, "checkout.session.completed");
    let r = send_raw(
        &app,
        delivery(&h, &c, events[0].to_string().as_bytes(), now()),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(payments_of(&app, &h, &inv).await.len(), 1);
}

async fn webhook_and_return_at_once_in_two_processes(h: Harness) {
    let c = connect(&h).await;
    c.stripe.webhooks("hold");
    // Two apps over one database: two servers of a fleet.
    let one = init_service(build_app(c.state.clone())).await;
    let two = init_service(build_app(h.with_stripe(&c.stripe.base))).await;
    let inv = sent_invoice(&one, &h, 9_900).await;
    let session = StandIn::session_of(&pay_by_card(&one, &h, &inv).await);
    c.stripe
        .control(&format!("/_standin/sessions/{session}/pay"), json!({}));
    let events = c
        .stripe
        .events(&c.account.test_secret, "checkout.session.completed");
    let payload = events[0].to_string().into_bytes();
    let number = inv["invoice_number"].as_str().unwrap();
    let back = format!(
        "/invoice/{number}/card?token={}&session_id={session}",
        token(&inv)
    );
    let (webhook, returned) = futures_util::future::join(
        send_raw(&one, delivery(&h, &c, &payload, now())),
        send_raw(&two, h.anonymous(Method::GET, &back)),
    )
    .await;
    assert_eq!((webhook.status, returned.status), (200, 303));
    assert_eq!(payments_of(&one, &h, &inv).await.len(), 1);
    assert_eq!(event_count(&one, &h, "invoice.paid").await, 1);
}

async fn hostile_webhooks_change_nothing(h: Harness) {
    let c = connect(&h).await;
    c.stripe.webhooks("hold");
    let app = init_service(build_app(c.state.clone())).await;
    let inv = sent_invoice(&app, &h, 4_200).await;
    let session = StandIn::session_of(&pay_by_card(&app, &h, &inv).await);
    c.stripe
        .control(&format!("/_standin/sessions/{session}/pay"), json!({}));
    let event = c
        .stripe
        .events(&c.account.test_secret, "checkout.session.completed")[0]
        .clone();
    let payload = event.to_string().into_bytes();
    let mut changed = event.clone();
    changed["data"]["object"]["amount_total"] = json!(1);
    let changed = changed.to_string().into_bytes();
    let signed = sign_notification(&Secret::new(c.webhook_secret.clone()), now(), &payload);
    let attempts: Vec<(&str, TestRequest)> = vec![
        (
            "no signature",
            h.anonymous(Method::POST, &c.webhook_path)
                .insert_header(("content-type", "application/json"))
                .insert_header(("content-type", "application/json"))
                .set_payload(payload.clone()),
        ),
        (
            "a wrong secret",
            h.anonymous(Method::POST, &c.webhook_path)
                .insert_header(("content-type", "application/json"))
                .insert_header((
                    "stripe-signature",
                    sign_notification(&Secret::new("whsec_guess"), now(), &payload),
                ))
                .set_payload(payload.clone()),
        ),
        ("ten minutes old", delivery(&h, &c, &payload, now() - 600)),
        ("from the future", delivery(&h, &c, &payload, now() + 600)),
        (
            "the body changed after signing",
            h.anonymous(Method::POST, &c.webhook_path)
                .insert_header(("content-type", "application/json"))
                .insert_header(("stripe-signature", signed.clone()))
                .set_payload(changed.clone()),
        ),
        (
            "garbage",
            h.anonymous(Method::POST, &c.webhook_path)
                .insert_header(("content-type", "application/json"))
                .insert_header(("stripe-signature", "t=1,v1=zz"))
                .set_payload(payload.clone()),
        ),
    ];
    for (what, req) in attempts {
        let r = send(&app, req).await;
        assert_error(&r, 400, "invalid_signature");
        assert!(
            !r.body.to_string().contains(&c.webhook_secret),
            "{what}: {}",
            r.body
        );
    }
    let unknown = send(
        &app,
        h.anonymous(
            Method::POST,
            "/webhooks/stripe/00000000000000000000000000000000",
        )
        .insert_header(("content-type", "application/json"))
        .set_payload(payload.clone()),
    )
    .await;
    assert_eq!(unknown.status, 404);
    assert!(
        payments_of(&app, &h, &inv).await.is_empty(),
        "nothing recorded"
    );
    // A correctly signed event about an invoice of another account: acknowledged, ignored.
    let stranger = h.stranger_key("Mallory");
    let theirs = sent_invoice_as(&app, &h, &stranger).await;
    let mut forged = event.clone();
    forged["id"] = json!("evt_forged_1");
    forged["data"]["object"]["client_reference_id"] = json!(format!(
        "acct_{}:test:inv_{}",
        h.account.0 + 1,
        theirs["id"]
    ));
    forged["data"]["object"]["metadata"] = json!({});
    let r = send_raw(&app, delivery(&h, &c, forged.to_string().as_bytes(), now())).await;
    assert_eq!(r.status, 200);
    // A session amount that is not what we opened: ignored too.
    let mut other_amount = event.clone();
    other_amount["id"] = json!("evt_forged_2");
    other_amount["data"]["object"]["amount_total"] = json!(1);
    other_amount["data"]["object"]["amount_subtotal"] = json!(1);
    let r = send_raw(
        &app,
        delivery(&h, &c, other_amount.to_string().as_bytes(), now()),
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(payments_of(&app, &h, &inv).await.is_empty());
    assert!(payments_of(&app, &h, &theirs).await.is_empty());
    // The real one, then replayed: one payment.
    for _ in 0..3 {
        let r = send_raw(&app, delivery(&h, &c, &payload, now())).await;
        assert_eq!(r.status, 200);
    }
    assert_eq!(payments_of(&app, &h, &inv).await.len(), 1);
}

async fn sent_invoice_as<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    h: &Harness,
    key: &str,
) -> Value {
    let inv = call!(
        app,
        h.req_as(key, Method::POST, "/api/v1/invoices"),
        json!({
            "customer": {"name": "Eve", "email": "eve@example.com"},
            "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 4_200}]
        })
    )
    .body;
    let path = format!("/api/v1/invoices/{}/send", inv["id"]);
    call!(app, h.req_as(key, Method::POST, &path)).body
}

async fn refunds_come_after_a_credit_note(h: Harness) {
    let c = connect(&h).await;
    c.stripe.webhooks("hold");
    let app = init_service(build_app(c.state.clone())).await;
    let inv = sent_invoice(&app, &h, 10_000).await;
    let session = StandIn::session_of(&pay_by_card(&app, &h, &inv).await);
    c.stripe
        .control(&format!("/_standin/sessions/{session}/pay"), json!({}));
    let number = inv["invoice_number"].as_str().unwrap();
    let back = format!(
        "/invoice/{number}/card?token={}&session_id={session}",
        token(&inv)
    );
    assert_eq!(
        send_raw(&app, h.anonymous(Method::GET, &back)).await.status,
        303
    );
    let payment = payments_of(&app, &h, &inv).await[0].clone();
    let refunds = format!("/api/v1/payments/{}/refunds", payment["id"]);
    // Nothing to refund: the customer owes all they paid.
    let none = call!(&app, h.req(Method::POST, &refunds), json!({}));
    assert_error(&none, 422, "validation_failed");
    assert_eq!(none.body["error"]["param"], "amount_cents");
    // Credit first, then refund (through Stripe, with an idempotency key).
    let note = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/invoices/{}/credit_notes", inv["id"])
        ),
        json!({"reason": "order_change", "amount_cents": 2_500})
    );
    assert_eq!(note.status, 201, "{}", note.body);
    assert_eq!(note.body["refund_due_cents"], 2_500);
    let refunded = call!(&app, h.req(Method::POST, &refunds), json!({}));
    assert_eq!(refunded.status, 200, "{}", refunded.body);
    assert_eq!(refunded.body["amount_refunded_cents"], 2_500);
    assert_eq!(refunded.body["refunds"][0]["status"], "succeeded");
    let asked: Vec<Value> = c
        .stripe
        .requests(None)
        .into_iter()
        .filter(|r| r["path"] == "/v1/refunds")
        .collect();
    assert_eq!(asked.len(), 1);
    assert!(asked[0]["idempotency_key"]
        .as_str()
        .unwrap()
        .starts_with("refund_"));
    // Twice: nothing left.
    assert_error(
        &call!(&app, h.req(Method::POST, &refunds), json!({})),
        422,
        "validation_failed",
    );
    assert_eq!(event_count(&app, &h, "payment.refunded").await, 1);
    // `refund: true` on the credit note refunds at once.
    let note = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/invoices/{}/credit_notes", inv["id"])
        ),
        json!({"reason": "order_change", "amount_cents": 1_000, "refund": true})
    );
    assert_eq!(note.status, 201, "{}", note.body);
    let p = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/payments/{}", payment["id"]))
    )
    .body;
    assert_eq!(p["amount_refunded_cents"], 3_500);
    let inv_now = invoice_now(&app, &h, &inv).await;
    assert_eq!(
        (&inv_now["overpaid_cents"], &inv_now["amount_paid_cents"]),
        (&json!(0), &json!(6_500))
    );
    // Another tenant cannot refund it.
    let stranger = h.stranger_key("Other");
    assert_error(
        &call!(&app, h.req_as(&stranger, Method::POST, &refunds), json!({})),
        403,
        "resource_forbidden",
    );
}

async fn proof_files_are_checked_and_kept_private(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let inv = sent_invoice(&app, &h, 5_000).await;
    // A renamed executable and 5 MiB + 1: the page again, the refusal beside the field.
    let mut big = b"%PDF-1.7".to_vec();
    big.resize(5 * 1024 * 1024 + 1, b' ');
    for (name, bytes, message) in [
        (
            "receipt.pdf",
            b"MZ\x90\x00\x03".to_vec(),
            "must be a PDF, PNG or JPEG file",
        ),
        ("receipt.pdf", big, "must be at most 5 MB"),
    ] {
        let r = send_raw(&app, report_with_file(&h, &inv, "10.00", (name, &bytes))).await;
        assert_eq!(r.status, 422, "{name}");
        let html = r.text();
        assert!(html.contains("id=\"proof-error\""), "{html}");
        assert!(html.contains(message), "{message}");
        assert!(html.contains("value=\"TR-778\""), "what was typed is kept");
    }
    assert!(payments_of(&app, &h, &inv).await.is_empty());
    let png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR".to_vec();
    let r = send_raw(
        &app,
        report_with_file(&h, &inv, "10.00", ("bank <receipt>.png", &png)),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let p = payments_of(&app, &h, &inv).await[0].clone();
    assert_eq!(p["proof"]["content_type"], "image/png");
    assert_eq!(p["proof"]["filename"], "bank__receipt_.png");
    assert_eq!(p["proof"]["bytes"], png.len());
    assert_eq!(event_count(&app, &h, "payment.proof_uploaded").await, 1);
    let path = format!("/api/v1/payments/{}/proof", p["id"]);
    let file = send_raw(&app, h.req(Method::GET, &path)).await;
    assert_eq!(file.status, 200);
    assert_eq!(file.bytes, png);
    assert_eq!(file.header("content-type"), "image/png");
    assert_eq!(file.header("x-content-type-options"), "nosniff");
    assert!(file
        .header("content-disposition")
        .starts_with("attachment;"));
    // Never public, never another tenant's.
    assert_eq!(
        send_raw(&app, h.anonymous(Method::GET, &path)).await.status,
        401
    );
    let stranger = h.stranger_key("Other");
    assert_eq!(
        send_raw(&app, h.req_as(&stranger, Method::GET, &path))
            .await
            .status,
        403
    );
    // PDF and JPEG are taken too; without a file the form works as before.
    let inv2 = sent_invoice(&app, &h, 5_000).await;
    let jpeg = b"\xFF\xD8\xFF\xE0\x00\x10JFIF".to_vec();
    let r = send_raw(
        &app,
        report_with_file(&h, &inv2, "10.00", ("scan.jpeg", &jpeg)),
    )
    .await;
    assert_eq!(r.status, 303);
    let inv3 = sent_invoice(&app, &h, 5_000).await;
    let r = send_raw(&app, report_with_file(&h, &inv3, "10.00", ("", b""))).await;
    assert_eq!(r.status, 303, "an empty file input is no file");
    assert!(payments_of(&app, &h, &inv3).await[0]["proof"].is_null());
}

async fn a_delayed_payment_is_recorded_when_it_succeeds(h: Harness) {
    let c = connect(&h).await;
    c.stripe.webhooks("hold");
    let app = init_service(build_app(c.state.clone())).await;
    let pay_later = |session: &str| {
        c.stripe.control(
            &format!("/_standin/sessions/{session}/pay_later"),
            json!({}),
        );
    };
    let back = |inv: &Value, session: &str| {
        format!(
            "/invoice/{}/card?token={}&session_id={session}",
            inv["invoice_number"].as_str().unwrap(),
            token(inv)
        )
    };
    let inv = sent_invoice(&app, &h, 3_000).await;
    let session = StandIn::session_of(&pay_by_card(&app, &h, &inv).await);
    pay_later(&session);
    let r = send_raw(&app, h.anonymous(Method::GET, &back(&inv, &session))).await;
    assert!(
        r.header("location").ends_with("&card=confirming"),
        "{}",
        r.header("location")
    );
    let page = send_raw(&app, h.anonymous(Method::GET, r.header("location"))).await;
    assert!(page.text().contains("Your payment is being confirmed"));
    assert_eq!(
        invoice_now(&app, &h, &inv).await["status"],
        "viewed",
        "not paid yet"
    );
    // Pay by card again while it is on its way: no second checkout.
    let again = pay_by_card(&app, &h, &inv).await;
    assert!(again.ends_with("&card=confirming"), "{again}");
    c.stripe.control(
        &format!("/_standin/sessions/{session}/async"),
        json!({"result": "succeeded"}),
    );
    let kind = "checkout.session.async_payment_succeeded";
    let event = c.stripe.events(&c.account.test_secret, kind)[0].to_string();
    let r = send_raw(&app, delivery(&h, &c, event.as_bytes(), now())).await;
    assert_eq!(r.status, 200);
    assert_eq!(invoice_now(&app, &h, &inv).await["status"], "paid");
    assert_eq!(payments_of(&app, &h, &inv).await.len(), 1);
    // One that fails: a timeline entry and payment.failed, no payment.
    let other = sent_invoice(&app, &h, 4_000).await;
    let session = StandIn::session_of(&pay_by_card(&app, &h, &other).await);
    pay_later(&session);
    c.stripe.control(
        &format!("/_standin/sessions/{session}/async"),
        json!({"result": "failed"}),
    );
    let kind = "checkout.session.async_payment_failed";
    let event = c.stripe.events(&c.account.test_secret, kind)[0].to_string();
    let r = send_raw(&app, delivery(&h, &c, event.as_bytes(), now())).await;
    assert_eq!(r.status, 200);
    assert_eq!(event_count(&app, &h, "payment.failed").await, 1);
    assert!(payments_of(&app, &h, &other).await.is_empty());
    assert_eq!(invoice_now(&app, &h, &other).await["status"], "sent");
    // The customer may try again: a new checkout.
    let retry = pay_by_card(&app, &h, &other).await;
    assert_ne!(StandIn::session_of(&retry), session, "{retry}");
}

http_tests!(
    a_delayed_payment_is_recorded_when_it_succeeds,
    connecting_checks_the_keys_and_never_shows_them,
    pay_by_card_opens_one_checkout_per_amount,
    one_payment_whoever_reports_it,
    a_lost_webhook_costs_minutes_not_money,
    webhook_and_return_at_once_in_two_processes,
    hostile_webhooks_change_nothing,
    refunds_come_after_a_credit_note,
    proof_files_are_checked_and_kept_private,
);
