//! SPEC §27, the merchant's day: the profile's `time_zone` (an IANA name, UTC by default) decides
//! "today" for default issue dates, due dates, quotation answers and report defaults, under a
//! clock the tests set.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use chrono::TimeZone as _;
use invoicing_domain::time_zone::SetClock;
use invoicing_http::build_app;
use serde_json::json;

fn invoice() -> serde_json::Value {
    json!({"customer": {"name": "Ana", "email": "ana@example.com"}, "payment_terms": "net_30",
        "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 1000}]})
}

/// 02:30 UTC on 28 November is still the 27th, 22:30, in Port of Spain (UTC−4): documents made
/// then are dated the 27th there and the 28th in a UTC account; at 04:00 UTC both are on the 28th.
async fn documents_and_reports_are_dated_by_the_merchants_day(h: Harness) {
    let clock = SetClock::at(
        chrono::Utc
            .with_ymd_and_hms(2026, 11, 28, 2, 30, 0)
            .unwrap(),
    );
    let app = init_service(build_app(h.clocked(clock.clone()))).await;
    let r = call!(&app, h.req(Method::GET, "/api/v1/account"));
    assert_eq!(r.body["time_zone"], "UTC", "the default");

    for bad in ["Mars/Olympus", "UTC+4", "america/port_of_spain", ""] {
        let r = call!(
            &app,
            h.req(Method::PATCH, "/api/v1/account"),
            json!({"time_zone": bad, "name": "Changed"})
        );
        assert_error(&r, 422, "validation_failed");
        assert_eq!(
            r.body["error"]["details"][0]["param"], "time_zone",
            "{bad:?}"
        );
    }
    let r = call!(
        &app,
        h.req(Method::PATCH, "/api/v1/account"),
        json!({"time_zone": null})
    );
    assert_error(&r, 422, "validation_failed");
    let r = call!(&app, h.req(Method::GET, "/api/v1/account"));
    assert_eq!(
        (r.body["time_zone"].as_str(), r.body["name"].as_str()),
        (Some("UTC"), Some("Acme Ltd")),
        "refusals change nothing"
    );

    let utc_key = h.stranger_key("Elsewhere");
    let r = call!(
        &app,
        h.req(Method::PATCH, "/api/v1/account"),
        json!({"time_zone": "America/Port_of_Spain"})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["time_zone"], "America/Port_of_Spain");

    let made = call!(&app, h.req(Method::POST, "/api/v1/invoices"), invoice());
    assert_eq!(made.status, 201, "{}", made.body);
    assert_eq!(made.body["issue_date"], "2026-11-27");
    assert_eq!(made.body["due_date"], "2026-12-27");
    let quote = call!(
        &app,
        h.req(Method::POST, "/api/v1/quotations"),
        json!({"customer": {"name": "Ana", "email": "ana@example.com"},
            "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 1000}]})
    );
    assert_eq!(quote.body["issue_date"], "2026-11-27", "{}", quote.body);
    let aging = call!(&app, h.req(Method::GET, "/api/v1/reports/aging"));
    assert_eq!(aging.body["as_of"], "2026-11-27", "{}", aging.body);
    let elsewhere = call!(
        &app,
        h.req_as(&utc_key, Method::POST, "/api/v1/invoices"),
        invoice()
    );
    assert_eq!(elsewhere.body["issue_date"], "2026-11-28", "a UTC account");

    clock.set(chrono::Utc.with_ymd_and_hms(2026, 11, 28, 4, 0, 0).unwrap());
    let made = call!(&app, h.req(Method::POST, "/api/v1/invoices"), invoice());
    assert_eq!(made.body["issue_date"], "2026-11-28");
    let aging = call!(&app, h.req(Method::GET, "/api/v1/reports/aging"));
    assert_eq!(aging.body["as_of"], "2026-11-28");
}

/// What a verified payment brought counts on its account's date (SPEC §27). Kiritimati (UTC+14)
/// and Pago Pago (UTC−11) are never both on UTC's date, so at any hour one of them tells a UTC
/// day from the local one: the kept collections are checked against each payment's local day
/// when the test database is dropped, and here against the account's date now.
async fn payments_count_on_the_accounts_day(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    for zone in ["Pacific/Kiritimati", "Pacific/Pago_Pago"] {
        let key = h.stranger_key(zone);
        let r = call!(
            &app,
            h.req_as(&key, Method::PATCH, "/api/v1/account"),
            json!({"time_zone": zone})
        );
        assert_eq!(r.status, 200, "{}", r.body);
        let made = call!(
            &app,
            h.req_as(&key, Method::POST, "/api/v1/invoices"),
            invoice()
        );
        let id = made.body["id"].as_i64().unwrap();
        let sent = format!("/api/v1/invoices/{id}/send");
        assert_eq!(call!(&app, h.req_as(&key, Method::POST, &sent)).status, 200);
        let paid = call!(
            &app,
            h.req_as(&key, Method::POST, "/api/v1/payments"),
            json!({"invoice_id": id, "amount_cents": 400, "method": "bank_transfer", "status": "verified"})
        );
        assert_eq!(paid.status, 201, "{}", paid.body);
        let today = invoicing_domain::time_zone::TimeZone::parse(zone)
            .unwrap()
            .today(chrono::Utc::now());
        let month = today.format("%Y-%m-01").to_string();
        let revenue = call!(
            &app,
            h.req_as(
                &key,
                Method::GET,
                &format!("/api/v1/reports/revenue?from={month}&to={today}&interval=month")
            )
        );
        assert_eq!(revenue.status, 200, "{}", revenue.body);
        assert_eq!(
            revenue.body["data"][0]["collected_cents"], 400,
            "{zone}: collected this local month: {}",
            revenue.body
        );
    }
}

http_tests!(
    documents_and_reports_are_dated_by_the_merchants_day,
    payments_count_on_the_accounts_day,
);
