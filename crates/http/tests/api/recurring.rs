//! SPEC §20 through the real app: schedules created, listed, paused, resumed and cancelled, the
//! rules of the body, scopes and tenants; the sweep (storage's) issues what the API then shows.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use chrono::{Days, Utc};
use invoicing_domain::ports::RecurringRepository;
use invoicing_domain::tenant::Environment;
use invoicing_http::build_app;
use serde_json::{json, Value};

fn body(extra: Value) -> Value {
    let mut b = json!({
        "customer": {"name": "Ada", "email": "ada@example.com"},
        "line_items": [{"description": "Hosting", "quantity": "1", "unit_price_cents": 2000}],
        "interval": "month",
        "start_date": Utc::now().date_naive().format("%Y-%m-%d").to_string(),
    });
    b.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    b
}

async fn schedules_through_the_api(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/recurring_invoices"),
        body(json!({"auto_send": true}))
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.body["object"], "recurring_invoice");
    assert_eq!(r.body["status"], "active");
    assert_eq!(r.body["invoices_created"], 0);
    assert_eq!(r.body["interval_count"], 1);
    assert_eq!(r.body["payment_terms"], "net_30");
    let today = Utc::now().date_naive();
    assert_eq!(
        r.body["next_issue_date"],
        today.format("%Y-%m-%d").to_string()
    );
    let id = r.body["id"].as_i64().unwrap();

    // The sweep issues today's invoice, sent, naming its schedule.
    assert_eq!(
        h.db.store
            .issue_recurring(invoicing_storage::testing::noon(today))
            .unwrap(),
        1
    );
    let invoices = call!(&app, h.req(Method::GET, "/api/v1/invoices"));
    assert_eq!(invoices.body["data"][0]["recurring_invoice_id"], id);
    assert_eq!(invoices.body["data"][0]["status"], "sent");
    let one = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/recurring_invoices/{id}"))
    );
    assert_eq!(one.body["invoices_created"], 1);

    // Changes apply to the invoices not yet issued.
    let r = call!(
        &app,
        h.req(Method::PATCH, &format!("/api/v1/recurring_invoices/{id}")),
        json!({"notes": "From March", "payment_terms": "net_14", "line_items": [
            {"description": "Hosting+", "quantity": "1", "unit_price_cents": 3000}
        ]})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["payment_terms"], "net_14");
    assert_eq!(r.body["total_cents"], 3000);
    let r = call!(
        &app,
        h.req(Method::PATCH, &format!("/api/v1/recurring_invoices/{id}")),
        json!({"email": true})
    );
    assert_error(&r, 422, "email_not_configured");
    let r = call!(
        &app,
        h.req(Method::PATCH, &format!("/api/v1/recurring_invoices/{id}")),
        json!({"occurrences": 1})
    );
    assert_eq!(
        r.body["status"], "completed",
        "one invoice issued already: {}",
        r.body
    );
    let r = call!(
        &app,
        h.req(Method::PATCH, &format!("/api/v1/recurring_invoices/{id}")),
        json!({"notes": null})
    );
    assert_error(&r, 409, "invalid_state_transition");
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/recurring_invoices"),
        body(json!({"auto_send": true}))
    );
    let id = r.body["id"].as_i64().unwrap();
    let path = |action: &str| format!("/api/v1/recurring_invoices/{id}/{action}");
    let r = call!(&app, h.req(Method::POST, &path("resume")));
    assert_error(&r, 409, "invalid_state_transition");
    let r = call!(&app, h.req(Method::POST, &path("pause")));
    assert_eq!(r.body["status"], "paused", "{}", r.body);
    let r = call!(&app, h.req(Method::POST, &path("resume")));
    assert_eq!(r.body["status"], "active", "{}", r.body);
    let r = call!(&app, h.req(Method::POST, &path("cancel")));
    assert_eq!(r.body["status"], "cancelled");
    assert_eq!(r.body["next_issue_date"], Value::Null);
    let r = call!(&app, h.req(Method::POST, &path("cancel")));
    assert_error(&r, 409, "invalid_state_transition");
    let list = call!(
        &app,
        h.req(Method::GET, "/api/v1/recurring_invoices?status=cancelled")
    );
    assert_eq!(list.body["total"], 1);
    let r = call!(
        &app,
        h.req(Method::GET, "/api/v1/recurring_invoices/999999")
    );
    assert_error(&r, 404, "resource_missing");
    let events = call!(
        &app,
        h.req(
            Method::GET,
            "/api/v1/events?type=recurring_invoice.cancelled"
        )
    );
    assert_eq!(events.body["total"], 1);
}

async fn the_rules_of_the_body(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let yesterday = (Utc::now().date_naive() - Days::new(1))
        .format("%Y-%m-%d")
        .to_string();
    let cases = [
        (json!({"start_date": yesterday}), "start_date"),
        (
            json!({"end_date": "2099-01-01", "occurrences": 3}),
            "occurrences",
        ),
        (json!({"email": true}), "email"),
        (json!({"interval": "fortnight"}), "interval"),
        (json!({"interval_count": 53}), "interval_count"),
        (json!({"occurrences": 0}), "occurrences"),
        (json!({"end_date": "2000-01-01"}), "end_date"),
    ];
    for (extra, param) in cases {
        let r = call!(
            &app,
            h.req(Method::POST, "/api/v1/recurring_invoices"),
            body(extra)
        );
        assert_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["details"][0]["param"], param, "{}", r.body);
    }
    // Email is asked for, and this server sends none.
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/recurring_invoices"),
        body(json!({"auto_send": true, "email": true}))
    );
    assert_error(&r, 422, "email_not_configured");
    let r = call!(&app, h.req(Method::GET, "/api/v1/recurring_invoices"));
    assert_eq!(r.body["total"], 0, "nothing was created");
}

async fn scopes_and_tenants(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/recurring_invoices"),
        body(json!({}))
    );
    let id = r.body["id"].as_i64().unwrap();
    let reader = h.make_key(
        h.account,
        Environment::Test,
        "recurring_invoices:read",
        GENEROUS,
        None,
    );
    let r = call!(
        &app,
        h.req_as(
            &reader,
            Method::POST,
            &format!("/api/v1/recurring_invoices/{id}/pause")
        )
    );
    assert_error(&r, 403, "insufficient_permissions");
    let r = call!(
        &app,
        h.req_as(
            &reader,
            Method::GET,
            &format!("/api/v1/recurring_invoices/{id}")
        )
    );
    assert_eq!(r.status, 200);
    let stranger = h.stranger_key("Other");
    let live = h.live_key();
    for key in [&stranger, &live] {
        let r = call!(
            &app,
            h.req_as(
                key,
                Method::GET,
                &format!("/api/v1/recurring_invoices/{id}")
            )
        );
        assert_error(&r, 403, "resource_forbidden");
        let r = call!(
            &app,
            h.req_as(
                key,
                Method::POST,
                &format!("/api/v1/recurring_invoices/{id}/cancel")
            )
        );
        assert_error(&r, 403, "resource_forbidden");
        let r = call!(
            &app,
            h.req_as(key, Method::GET, "/api/v1/recurring_invoices")
        );
        assert_eq!(r.body["total"], 0);
    }
}

http_tests!(
    schedules_through_the_api,
    the_rules_of_the_body,
    scopes_and_tenants
);
