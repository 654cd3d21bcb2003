//! SPEC §21 "Audit" through the real app: every event names who caused it, in
//! `GET /api/v1/events` and in the webhook payloads: the API key that made the request, the
//! customer on a public page, the system for the scheduler's sweeps and recurring invoices.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use chrono::{Duration, NaiveDate, Utc};
use invoicing_domain::api_key::hash_key;
use invoicing_domain::ports::{
    ApiKeyRepository, DeliveryQueue, InvoiceRepository, RecurringRepository,
};
use invoicing_domain::tenant::Environment;
use invoicing_http::build_app;
use serde_json::{json, Value};

/// The id of the key `plain`, as `invoicing-server keys` shows it.
fn key_id(h: &Harness, plain: &str) -> i64 {
    h.db.store
        .find_key_by_hash(&hash_key(plain))
        .unwrap()
        .unwrap()
        .id
        .0
}

fn invoice_body(email: &str) -> Value {
    json!({
        "customer": {"name": "Ada", "email": email},
        "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 2000}]
    })
}

/// The events of `event_type`, newest first, as the API lists them.
async fn events<S, B>(app: &S, h: &Harness, event_type: &str) -> Vec<Value>
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let r = call!(
        app,
        h.req(Method::GET, &format!("/api/v1/events?type={event_type}"))
    );
    assert_eq!(r.status, 200, "{}", r.body);
    r.body["data"].as_array().unwrap().clone()
}

/// The actor of the only event of `event_type`, which the single event's route agrees with.
async fn actor_of<S, B>(app: &S, h: &Harness, event_type: &str) -> Value
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let listed = events(app, h, event_type).await;
    assert_eq!(listed.len(), 1, "one {event_type}: {listed:?}");
    let one = call!(
        app,
        h.req(Method::GET, &format!("/api/v1/events/{}", listed[0]["id"]))
    );
    assert_eq!(one.body, listed[0]);
    listed[0]["actor"].clone()
}

fn api_key(id: i64) -> Value {
    json!({"type": "api_key", "id": id})
}

/// An invoice created with a key names that key, in the event log and in the payload every
/// webhook endpoint receives; another key of the account is told apart.
async fn events_name_the_key_that_caused_them(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/webhooks"),
        json!({"url": "https://hooks.example.com/in", "events": ["invoice.created"]})
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let other = h.make_key(h.account, Environment::Test, "*", GENEROUS, None);
    let (default_id, other_id) = (key_id(&h, &h.key), key_id(&h, &other));
    assert_ne!(default_id, other_id);

    // Through an idempotency key too: the request's own transaction records the same actor.
    let r = call!(
        &app,
        h.req_as(&other, Method::POST, "/api/v1/invoices")
            .insert_header(("idempotency-key", "order-1")),
        invoice_body("ada@example.com")
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let invoice_id = r.body["id"].clone();
    let created = events(&app, &h, "invoice.created").await;
    assert_eq!(created.len(), 1);
    assert_eq!(created[0]["actor"], api_key(other_id));
    assert_eq!(created[0]["data"]["object"]["id"], invoice_id);
    assert_eq!(
        actor_of(&app, &h, "customer.created").await,
        api_key(other_id),
        "the inline customer, created by the same request"
    );
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{invoice_id}/send"))
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        actor_of(&app, &h, "invoice.sent").await,
        api_key(default_id)
    );

    // The webhook payload is the event as listed, actor included.
    let jobs =
        h.db.store
            .claim_deliveries(
                Utc::now() + Duration::seconds(5),
                std::time::Duration::from_secs(60),
                100,
            )
            .unwrap();
    assert_eq!(jobs.len(), 1, "only invoice.created is subscribed");
    let payload: Value = serde_json::from_str(&jobs[0].payload).unwrap();
    assert_eq!(payload["actor"], api_key(other_id));
    assert_eq!(payload, created[0]);
}

/// What a customer does on a public page is the customer's: opening the invoice, reporting a
/// payment with "I have paid", accepting a quotation.
async fn public_pages_act_as_the_customer(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let customer = json!({"type": "customer", "id": null});
    let inv = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        invoice_body("ada@example.com")
    )
    .body;
    let r = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/invoices/{}/send", inv["id"])
        )
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let page = inv["payment_link"]
        .as_str()
        .unwrap()
        .strip_prefix(PUBLIC_URL)
        .unwrap()
        .to_string();
    let token = page.split("token=").nth(1).unwrap().to_string();
    let number = inv["invoice_number"].as_str().unwrap();
    assert_eq!(
        send_raw(&app, h.anonymous(Method::GET, &page)).await.status,
        200
    );
    let r = send_raw(
        &app,
        h.anonymous(Method::POST, &format!("/invoice/{number}/payments"))
            .insert_header(("content-type", "application/x-www-form-urlencoded"))
            .set_payload(format!("token={token}&amount=5.00&reference=TRX+1")),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    assert_eq!(actor_of(&app, &h, "invoice.viewed").await, customer);
    assert_eq!(actor_of(&app, &h, "payment.created").await, customer);
    let key = api_key(key_id(&h, &h.key));
    assert_eq!(actor_of(&app, &h, "invoice.sent").await, key);

    let q = call!(
        &app,
        h.req(Method::POST, "/api/v1/quotations"),
        invoice_body("pat@example.com")
    )
    .body;
    let r = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/quotations/{}/send", q["id"])
        )
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let url = q["public_url"].as_str().unwrap();
    let q_token = url.split("token=").nth(1).unwrap();
    let number = q["quote_number"].as_str().unwrap();
    let r = send_raw(
        &app,
        h.anonymous(Method::POST, &format!("/quote/{number}/accept"))
            .insert_header(("content-type", "application/x-www-form-urlencoded"))
            .set_payload(format!("token={q_token}&name=Grace+Hopper")),
    )
    .await;
    assert!(r.status < 400, "{} {}", r.status, r.text());
    assert_eq!(actor_of(&app, &h, "quotation.accepted").await, customer);
    assert_eq!(actor_of(&app, &h, "quotation.sent").await, key);
}

/// The scheduler's overdue sweep and the recurring invoices it issues are the system's.
async fn workers_act_as_the_system(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let system = json!({"type": "system", "id": null});
    let key = api_key(key_id(&h, &h.key));
    let inv = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        invoice_body("ada@example.com")
    )
    .body;
    call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/invoices/{}/send", inv["id"])
        )
    );
    let due: NaiveDate = inv["due_date"].as_str().unwrap().parse().unwrap();
    assert_eq!(
        h.db.store
            .mark_overdue_invoices(invoicing_storage::testing::noon(due + Duration::days(1)))
            .unwrap(),
        1
    );
    assert_eq!(actor_of(&app, &h, "invoice.overdue").await, system);

    let today = Utc::now().date_naive();
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/recurring_invoices"),
        json!({
            "customer": {"name": "Bob", "email": "bob@example.com"},
            "line_items": [{"description": "Hosting", "quantity": 1, "unit_price_cents": 900}],
            "interval": "month",
            "start_date": today.format("%Y-%m-%d").to_string(),
            "auto_send": true,
        })
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(actor_of(&app, &h, "recurring_invoice.created").await, key);
    assert_eq!(
        h.db.store
            .issue_recurring(invoicing_storage::testing::noon(today))
            .unwrap(),
        1
    );
    let issued: Vec<Value> = events(&app, &h, "invoice.created")
        .await
        .into_iter()
        .filter(|e| e["data"]["object"]["recurring_invoice_id"] == r.body["id"])
        .collect();
    assert_eq!(issued.len(), 1);
    assert_eq!(issued[0]["actor"], system);
    let sent = events(&app, &h, "invoice.sent").await;
    assert_eq!(
        sent.iter().map(|e| e["actor"].clone()).collect::<Vec<_>>(),
        [system.clone(), key.clone()],
        "the schedule's auto-sent invoice, then the one sent through the API"
    );
}

http_tests!(
    events_name_the_key_that_caused_them,
    public_pages_act_as_the_customer,
    workers_act_as_the_system,
);
