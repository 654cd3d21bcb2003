//! SPEC §26's payment requests through the real app, on both backends: a sent one-line invoice
//! for the customer found or created by email, every refusal at once, scopes and tenants,
//! idempotent retries, expiry by the scheduler's sweep, the page's way back to the shop and,
//! through the Stripe stand-in, the return to `success_url` after a card payment.

use crate::card_payments::{connect, pay_by_card};
use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use chrono::{Duration, Utc};
use invoicing_domain::ports::PaymentRequestRepository;
use invoicing_domain::tenant::Environment;
use invoicing_http::build_app;
use serde_json::{json, Value};

const PATH: &str = "/api/v1/payment-requests";

fn request(email: &str) -> Value {
    json!({
        "amount_cents": 4999, "currency": "EUR", "description": "Order 1042: two tickets",
        "customer_name": "Ada Lovelace", "customer_email": email,
        "success_url": "https://shop.example/thanks", "cancel_url": "https://shop.example/cart",
    })
}

async fn count<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    h: &Harness,
    path: &str,
) -> i64 {
    call!(app, h.req(Method::GET, path)).body["total"]
        .as_i64()
        .unwrap_or(-1)
}

/// The invoice a payment request made, as the API shows it.
async fn invoice_of<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    h: &Harness,
    made: &Value,
) -> Value {
    let path = format!("/api/v1/invoices/{}", made["invoice_id"]);
    call!(app, h.req(Method::GET, &path)).body
}

async fn a_request_is_a_sent_invoice_with_a_way_back(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let r = call!(&app, h.req(Method::POST, PATH), request("ada@example.com"));
    assert_eq!(r.status, 201, "{}", r.body);
    let made = r.body;
    assert_eq!(made["object"], "payment_request");
    assert_eq!(made["status"], "sent");
    assert_eq!(made["amount_due_cents"], 4999);
    assert_eq!(made["currency"], "EUR");
    assert_eq!(made["checkout_url"], made["payment_link"]);
    assert_eq!(made["success_url"], "https://shop.example/thanks");
    assert_eq!(made["cancel_url"], "https://shop.example/cart");
    assert_eq!(made["expires_at"], Value::Null);
    // The invoice is any invoice: one line, due on receipt, its events.
    let inv = invoice_of(&app, &h, &made).await;
    assert_eq!(inv["total_cents"], 4999);
    assert_eq!(
        inv["line_items"][0]["description"],
        "Order 1042: two tickets"
    );
    assert_eq!(inv["due_date"], inv["issue_date"]);
    for kind in ["invoice.created", "invoice.sent", "customer.created"] {
        let path = format!("/api/v1/events?type={kind}");
        assert_eq!(count(&app, &h, &path).await, 1, "{kind}");
    }
    // At the interface's path too; the same customer, found by email in any case.
    let again = call!(
        &app,
        h.req(Method::POST, "/v1/payment-requests"),
        request("ADA@example.com")
    );
    assert_eq!(again.status, 201, "{}", again.body);
    assert_eq!(again.body["customer_id"], made["customer_id"]);
    assert_eq!(count(&app, &h, "/api/v1/customers").await, 1);
    assert_eq!(count(&app, &h, "/v1/payment-requests").await, 2);
    // With tax: the amount split into net and tax that add up to it.
    let mut taxed = request("ada@example.com");
    taxed["amount_cents"] = json!(11900);
    taxed["tax_rate"] = json!("19");
    let taxed = call!(&app, h.req(Method::POST, PATH), taxed).body;
    let inv = invoice_of(&app, &h, &taxed).await;
    assert_eq!(
        (
            &inv["subtotal_cents"],
            &inv["tax_cents"],
            &inv["total_cents"]
        ),
        (&json!(10000), &json!(1900), &json!(11900))
    );
    // The page offers the way back to the shop, without giving it the page's address.
    let page = send_raw(&app, h.anonymous(Method::GET, &page_path(&made))).await;
    assert_eq!(page.status, 200);
    assert!(
        page.text().contains(
            "<a id=\"back-to-shop\" href=\"https://shop.example/cart\" rel=\"noreferrer\">Back to the shop</a>"
        ),
        "{}",
        page.text()
    );
}

async fn every_refusal_is_said_at_once_and_nothing_is_made(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let r = call!(
        &app,
        h.req(Method::POST, PATH),
        json!({"amount_cents": 0, "currency": "EURO", "description": "",
               "customer_email": "nobody", "success_url": "http://shop.example/",
               "cancel_url": "javascript:alert(1)", "expires_at": "yesterday",
               "tax_rate": "101"})
    );
    assert_error(&r, 422, "validation_failed");
    let mut params: Vec<&str> = r.body["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["param"].as_str().unwrap())
        .collect();
    params.sort();
    assert_eq!(
        params,
        [
            "amount_cents",
            "cancel_url",
            "currency",
            "customer_email",
            "customer_name",
            "description",
            "expires_at",
            "success_url",
            "tax_rate"
        ]
    );
    let r = call!(&app, h.req(Method::POST, PATH), json!({"amount": 5}));
    assert_error(&r, 400, "invalid_parameter");
    let past = Utc::now() - Duration::minutes(1);
    let mut late = request("ada@example.com");
    late["expires_at"] = json!(past.to_rfc3339());
    let r = call!(&app, h.req(Method::POST, PATH), late);
    assert_eq!(r.body["error"]["details"][0]["param"], "expires_at");
    assert_eq!(count(&app, &h, "/api/v1/invoices").await, 0);
    assert_eq!(count(&app, &h, "/api/v1/customers").await, 0);
}

async fn invoices_write_is_enough_and_tenants_stay_apart(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let writer = h.make_key(
        h.account,
        Environment::Test,
        "invoices:write",
        GENEROUS,
        None,
    );
    let r = call!(
        &app,
        h.req_as(&writer, Method::POST, PATH),
        request("ada@example.com")
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let reader = h.make_key(
        h.account,
        Environment::Test,
        "invoices:read",
        GENEROUS,
        None,
    );
    let r = call!(
        &app,
        h.req_as(&reader, Method::POST, PATH),
        request("bob@example.com")
    );
    assert_error(&r, 403, "insufficient_permissions");
    let r = call!(
        &app,
        h.anonymous(Method::POST, PATH),
        request("c@example.com")
    );
    assert_eq!(r.status, 401);
    // Another account and the live environment see none of it.
    let id = call!(&app, h.req(Method::GET, "/v1/payment-requests")).body["data"][0]["invoice_id"]
        .clone();
    for key in [h.stranger_key("Other shop"), h.live_key()] {
        let listed = call!(&app, h.req_as(&key, Method::GET, "/v1/payment-requests"));
        assert_eq!(listed.body["total"], 0, "{}", listed.body);
        let path = format!("/api/v1/invoices/{id}");
        let foreign = call!(&app, h.req_as(&key, Method::GET, &path));
        assert_error(&foreign, 403, "resource_forbidden");
    }
    // http back to this machine only in test mode.
    let mut local = request("ada@example.com");
    local["success_url"] = json!("http://127.0.0.1:8000/thanks");
    let r = call!(&app, h.req(Method::POST, PATH), local.clone());
    assert_eq!(r.status, 201, "{}", r.body);
    let r = call!(&app, h.req_as(&h.live_key(), Method::POST, PATH), local);
    assert_eq!(r.body["error"]["details"][0]["param"], "success_url");
}

async fn a_retry_replays_the_request(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let post = || {
        json(h.req(Method::POST, PATH), &request("ada@example.com"))
            .insert_header(("idempotency-key", "order-1042"))
    };
    let first = send(&app, post()).await;
    assert_eq!(first.status, 201, "{}", first.body);
    let retry = send(&app, post()).await;
    assert_eq!(retry.status, 201);
    assert_eq!(retry.header("idempotent-replayed"), "true");
    assert_eq!(retry.body, first.body);
    assert_eq!(count(&app, &h, "/api/v1/invoices").await, 1);
}

async fn an_unpaid_request_lapses_and_its_page_says_so(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let soon = Utc::now() + Duration::seconds(2);
    let mut lapsing = request("ada@example.com");
    lapsing["expires_at"] = json!(soon.to_rfc3339());
    let lapsing = call!(&app, h.req(Method::POST, PATH), lapsing.clone()).body;
    assert!(lapsing["expires_at"].is_string(), "{lapsing}");
    // One whose customer reported a payment waits for the merchant; one without an end stays.
    let mut reported = request("bob@example.com");
    reported["expires_at"] = json!(soon.to_rfc3339());
    let reported = call!(&app, h.req(Method::POST, PATH), reported).body;
    let report = send_raw(
        &app,
        form(
            &h,
            &format!(
                "/invoice/{}/payments",
                reported["invoice_number"].as_str().unwrap()
            ),
            &format!(
                "token={}&amount=49.99&reference=Transfer+1",
                token(&reported)
            ),
        ),
    )
    .await;
    assert!(report.status < 400, "{}", report.text());
    let lasting = call!(&app, h.req(Method::POST, PATH), request("cy@example.com")).body;

    let store = &h.db.store;
    assert_eq!(
        store.expire_payment_requests(Utc::now()).unwrap(),
        0,
        "not yet"
    );
    // The scheduler's sweep, once the time is up.
    let at: chrono::DateTime<Utc> = lapsing["expires_at"].as_str().unwrap().parse().unwrap();
    let wait = (at - Utc::now()).to_std().unwrap_or_default();
    tokio::time::sleep(wait + std::time::Duration::from_millis(100)).await;
    assert_eq!(store.expire_payment_requests(Utc::now()).unwrap(), 1);
    assert_eq!(
        store.expire_payment_requests(Utc::now()).unwrap(),
        0,
        "once"
    );
    for (request, expected) in [
        (&lapsing, "cancelled"),
        (&reported, "sent"),
        (&lasting, "sent"),
    ] {
        let path = format!("/api/v1/invoices/{}", request["invoice_id"]);
        let status = call!(&app, h.req(Method::GET, &path)).body["status"].clone();
        assert_eq!(status, expected, "{request}");
    }
    assert_eq!(
        count(&app, &h, "/api/v1/events?type=invoice.cancelled").await,
        1
    );
    let page = send_raw(&app, h.anonymous(Method::GET, &page_path(&lapsing))).await;
    assert!(
        page.text().contains("This payment request expired on"),
        "{}",
        page.text()
    );
    assert!(
        !page.text().contains("back-to-shop"),
        "nothing to go back to"
    );
}

async fn a_card_payment_returns_the_customer_to_the_shop(h: Harness) {
    let c = connect(&h).await;
    let app = init_service(build_app(c.state.clone())).await;
    let made = call!(&app, h.req(Method::POST, PATH), request("ada@example.com")).body;
    let checkout = pay_by_card(&app, &h, &made).await;
    let session = crate::card_payments::StandIn::session_of(&checkout);
    c.stripe
        .control(&format!("/_standin/sessions/{session}/pay"), json!({}));
    let number = made["invoice_number"].as_str().unwrap();
    let back = format!(
        "/invoice/{number}/card?token={}&session_id={session}",
        token(&made)
    );
    let r = send_raw(&app, h.anonymous(Method::GET, &back)).await;
    assert_eq!(r.status, 303);
    assert_eq!(
        r.header("location"),
        format!("https://shop.example/thanks?invoice={number}")
    );
    let inv = invoice_of(&app, &h, &made).await;
    assert_eq!(inv["status"], "paid");
    // An unpaid return (the customer left the checkout) goes back to the invoice page.
    let other = call!(&app, h.req(Method::POST, PATH), request("bob@example.com")).body;
    let checkout = pay_by_card(&app, &h, &other).await;
    let session = crate::card_payments::StandIn::session_of(&checkout);
    let number = other["invoice_number"].as_str().unwrap();
    let back = format!(
        "/invoice/{number}/card?token={}&session_id={session}",
        token(&other)
    );
    let r = send_raw(&app, h.anonymous(Method::GET, &back)).await;
    assert!(r
        .header("location")
        .starts_with(&format!("/invoice/{number}")));
}

http_tests!(
    a_request_is_a_sent_invoice_with_a_way_back,
    every_refusal_is_said_at_once_and_nothing_is_made,
    invoices_write_is_enough_and_tenants_stay_apart,
    a_retry_replays_the_request,
    an_unpaid_request_lapses_and_its_page_says_so,
    a_card_payment_returns_the_customer_to_the_shop,
);
