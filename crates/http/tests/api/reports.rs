//! SPEC §22's reports on both backends, to the cent, on a fixture with two currencies (one of
//! them JPY, without minor units), partial, pending and rejected payments, a credit note, a draft
//! and a cancelled invoice, and invoices due at every bucket's edges.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use chrono::{Datelike, Duration, Utc};
use invoicing_domain::tenant::Environment;
use invoicing_http::build_app;
use serde_json::{json, Value};

fn day(offset: i64) -> String {
    (Utc::now().date_naive() + Duration::days(offset))
        .format("%Y-%m-%d")
        .to_string()
}

async fn fixture<S, B>(app: &S, h: &Harness)
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let sent = |currency: &str, email: &str, due: i64, cents: i64, rate: &str| {
        json!({"customer": {"name": email.split('@').next().unwrap(), "email": email},
            "currency": currency, "issue_date": day(due), "due_date": day(due),
            "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": cents, "tax_rate": rate}]})
    };
    let mut ids = Vec::new();
    for (currency, email, due, cents, rate) in [
        ("EUR", "ada@example.com", 0, 1000, "19"),
        ("EUR", "ada@example.com", -1, 2000, "0"),
        ("EUR", "ada@example.com", -30, 3000, "0"),
        ("EUR", "ada@example.com", -31, 4000, "0"),
        ("EUR", "ada@example.com", -90, 5000, "0"),
        ("EUR", "ada@example.com", -91, 6000, "0"),
        ("JPY", "ken@example.jp", -45, 12345, "0"),
        ("JPY", "ken@example.jp", 10, 500, "0"),
        ("EUR", "ada@example.com", -5, 7777, "0"),
    ] {
        let made = call!(
            app,
            h.req(Method::POST, "/api/v1/invoices"),
            sent(currency, email, due, cents, rate)
        );
        assert_eq!(made.status, 201, "{}", made.body);
        let id = made.body["id"].as_i64().unwrap();
        let r = call!(
            app,
            h.req(Method::POST, &format!("/api/v1/invoices/{id}/send"))
        );
        assert_eq!(r.status, 200, "{}", r.body);
        ids.push(id);
    }
    // A draft and a cancelled invoice count nowhere.
    let draft = call!(
        app,
        h.req(Method::POST, "/api/v1/invoices"),
        sent("EUR", "ada@example.com", -3, 9999, "0")
    );
    assert_eq!(draft.status, 201);
    let r = call!(
        app,
        h.req(Method::PATCH, &format!("/api/v1/invoices/{}", ids[8])),
        json!({"status": "cancelled"})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    // Paid in part (verified), and payments that are no money yet (pending, rejected).
    let pay = |invoice: i64, cents: i64, status: &str| json!({"invoice_id": invoice, "amount_cents": cents, "method": "bank_transfer", "status": status});
    let r = call!(
        app,
        h.req(Method::POST, "/api/v1/payments"),
        pay(ids[3], 1500, "verified")
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let r = call!(
        app,
        h.req(Method::POST, "/api/v1/payments"),
        pay(ids[5], 2000, "pending")
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let rejected = call!(
        app,
        h.req(Method::POST, "/api/v1/payments"),
        pay(ids[5], 1000, "pending")
    );
    let r = call!(
        app,
        h.req(
            Method::POST,
            &format!("/api/v1/payments/{}/reject", rejected.body["id"])
        ),
        json!({"reason": "not received"})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    // A credit note.
    let r = call!(
        app,
        h.req(
            Method::POST,
            &format!("/api/v1/invoices/{}/credit_notes", ids[4])
        ),
        json!({"amount_cents": 1000, "reason": "order_change"})
    );
    assert_eq!(r.status, 201, "{}", r.body);
}

fn amounts(v: &Value) -> [i64; 6] {
    ["current", "1_30", "31_60", "61_90", "over_90", "total"].map(|k| v[k].as_i64().unwrap())
}

async fn every_report_to_the_cent(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    fixture(&app, &h).await;

    let aging = call!(&app, h.req(Method::GET, "/api/v1/reports/aging"));
    assert_eq!(aging.status, 200, "{}", aging.body);
    let currencies = aging.body["currencies"].as_array().unwrap();
    assert_eq!(currencies.len(), 2);
    assert_eq!(currencies[0]["currency"], "EUR");
    assert_eq!(
        amounts(&currencies[0]["amounts"]),
        [1190, 5000, 2500, 4000, 6000, 18690]
    );
    assert_eq!(currencies[1]["currency"], "JPY");
    assert_eq!(
        amounts(&currencies[1]["amounts"]),
        [500, 0, 12345, 0, 0, 12845]
    );
    // The buckets add up to what the open invoices owe.
    let open = call!(&app, h.req(Method::GET, "/api/v1/invoices?per_page=100"));
    let owed: i64 = open.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| {
            i["currency"] == "EUR"
                && ["sent", "viewed", "overdue"].contains(&i["status"].as_str().unwrap())
        })
        .map(|i| i["amount_due_cents"].as_i64().unwrap())
        .sum();
    assert_eq!(owed, 18690);
    let customers = &aging.body["customers"];
    assert_eq!(customers["total"], 2);
    assert_eq!(customers["data"][0]["customer_name"], "ada");
    assert_eq!(customers["data"][0]["amounts"]["total"], 18690);
    assert_eq!(customers["data"][1]["currency"], "JPY");
    let second = call!(
        &app,
        h.req(Method::GET, "/api/v1/reports/aging?per_page=1&page=2")
    );
    assert_eq!(second.body["customers"]["data"][0]["customer_name"], "ken");
    // Aged a month on, the current invoice is 30 days late.
    let later = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/reports/aging?as_of={}", day(30))
        )
    );
    assert_eq!(later.body["currencies"][0]["amounts"]["current"], 0);

    // Every fixture invoice counts on its issue date (from 91 days ago to 10 days ahead); the
    // credit note and the void count today.
    let (from, to) = (day(-91), day(10));
    let tax = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/reports/tax?from={from}&to={to}")
        )
    );
    assert_eq!(tax.status, 200, "{}", tax.body);
    let lines: Vec<(String, String, Value, i64, i64)> = tax.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["currency"].as_str().unwrap().to_string(),
                l["tax_rate"].as_str().unwrap().to_string(),
                l["tax_category"].clone(),
                l["taxable_cents"].as_i64().unwrap(),
                l["tax_cents"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        lines,
        vec![
            ("EUR".into(), "0".into(), Value::Null, 19000, 0),
            ("EUR".into(), "19".into(), json!("S"), 1000, 190),
            ("JPY".into(), "0".into(), Value::Null, 12845, 0),
        ]
    );

    let revenue = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/reports/revenue?from={from}&to={to}&interval=month")
        )
    );
    assert_eq!(revenue.status, 200, "{}", revenue.body);
    let periods = revenue.body["data"].as_array().unwrap().clone();
    let sum = |currency: &str, field: &str| -> i64 {
        periods
            .iter()
            .filter(|p| p["currency"] == currency)
            .map(|p| p[field].as_i64().unwrap())
            .sum()
    };
    let last = |currency: &str| {
        periods
            .iter()
            .rev()
            .find(|p| p["currency"] == currency)
            .unwrap()["outstanding_cents"]
            .clone()
    };
    assert_eq!(sum("EUR", "invoiced_cents"), 20190, "{periods:?}");
    assert_eq!(sum("EUR", "tax_cents"), 190);
    assert_eq!(sum("EUR", "collected_cents"), 1500);
    assert_eq!(last("EUR"), 18690);
    assert_eq!(sum("JPY", "invoiced_cents"), 12845);
    assert_eq!(last("JPY"), 12845);
    // A year is the sum of its months; its outstanding is its last month's.
    let year_start = format!("{}-01-01", Utc::now().year());
    let year_end = format!("{}-12-31", Utc::now().year());
    let months = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/reports/revenue?from={year_start}&to={year_end}")
        )
    );
    let years = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/reports/revenue?from={year_start}&to={year_end}&interval=year")
        )
    );
    let quarters = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/reports/revenue?from={year_start}&to={year_end}&interval=quarter")
        )
    );
    for currency in ["EUR", "JPY"] {
        let of = |r: &Reply, field: &str| -> i64 {
            r.body["data"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|p| p["currency"] == currency)
                .map(|p| p[field].as_i64().unwrap())
                .sum()
        };
        for field in ["invoiced_cents", "tax_cents", "collected_cents"] {
            assert_eq!(of(&years, field), of(&months, field), "{currency} {field}");
            assert_eq!(
                of(&quarters, field),
                of(&months, field),
                "{currency} {field}"
            );
        }
        let last = |r: &Reply| -> i64 {
            r.body["data"]
                .as_array()
                .unwrap()
                .iter()
                .rev()
                .find(|p| p["currency"] == currency)
                .map(|p| p["outstanding_cents"].as_i64().unwrap())
                .unwrap_or(0)
        };
        assert_eq!(last(&years), last(&months), "{currency} outstanding");
    }

    // Other tenants and the other environment are never counted.
    let theirs = h.stranger_key("Other");
    let r = call!(
        &app,
        h.req_as(&theirs, Method::GET, "/api/v1/reports/aging")
    );
    assert_eq!(r.body["currencies"], json!([]));
    let live = h.live_key();
    let r = call!(
        &app,
        h.req_as(
            &live,
            Method::GET,
            &format!("/api/v1/reports/tax?from={from}&to={to}")
        )
    );
    assert_eq!(r.body["data"], json!([]));
    // Scope: invoices:read.
    let narrow = h.make_key(
        h.account,
        Environment::Test,
        "customers:read",
        GENEROUS,
        None,
    );
    let r = call!(
        &app,
        h.req_as(&narrow, Method::GET, "/api/v1/reports/aging")
    );
    assert_error(&r, 403, "insufficient_permissions");
}

/// The dashboard's reports screen shows the same figures, to viewers too.
async fn the_reports_screen_shows_the_figures(h: Harness) {
    use crate::dashboard::{member, sign_in};
    use invoicing_domain::user::Role;
    let app = init_service(build_app(h.state.clone())).await;
    fixture(&app, &h).await;
    member(&h, h.account, "viewer@example.com", Role::Viewer);
    let s = sign_in(&app, "viewer@example.com").await;
    let r = send_raw(&app, s.get("/dashboard/reports")).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let page = r.text();
    for figure in ["€186.90", "¥12,845", "€1.90", "Standard rate"] {
        assert!(page.contains(figure), "{figure} in {page}");
    }
    // Over the fixture's days: each VAT box, the category in words.
    let r = send_raw(
        &app,
        s.get(&format!(
            "/dashboard/reports?from={}&to={}",
            day(-91),
            day(10)
        )),
    )
    .await;
    let page = r.text();
    for figure in ["€190.00", "¥12,845", "not given (0 %)"] {
        assert!(page.contains(figure), "{figure} in {page}");
    }
    assert!(
        page.contains("href=\"/dashboard/customers/"),
        "customers link to themselves"
    );
    let r = send_raw(
        &app,
        s.get("/dashboard/reports?from=2026-99-01&to=2026-01-01"),
    )
    .await;
    assert_eq!(r.status, 400);
    assert!(r.text().contains("class=\"problem\""));
}

async fn the_customer_screen_prints_and_emails_the_statement(h: Harness) {
    use crate::dashboard::{member, sign_in};
    use invoicing_domain::user::Role;
    let h = Harness::mailing(h.db.backend()).unwrap_or(h);
    let app = init_service(build_app(h.state.clone())).await;
    fixture(&app, &h).await;
    let customers = call!(
        &app,
        h.req(Method::GET, "/api/v1/customers?email=ada@example.com")
    );
    let ada = customers.body["data"][0]["id"].as_i64().unwrap();
    member(&h, h.account, "staff@example.com", Role::Staff);
    member(&h, h.account, "viewer@example.com", Role::Viewer);
    let staff = sign_in(&app, "staff@example.com").await;
    let page = send_raw(&app, staff.get(&format!("/dashboard/customers/{ada}"))).await;
    assert_eq!(page.status, 200);
    let html = page.text();
    assert!(
        html.contains(&format!("action=\"/dashboard/customers/{ada}/statement\"")),
        "{html}"
    );
    // One period, two buttons.
    assert_eq!(html.matches("name=\"from\"").count(), 1, "{html}");
    assert!(html.contains("name=\"action\" value=\"email\""), "{html}");
    let posted = send_raw(
        &app,
        staff.post(
            &format!("/dashboard/customers/{ada}/statement"),
            &[
                ("from", day(-200).as_str()),
                ("to", day(0).as_str()),
                ("currency", "EUR"),
                ("action", "pdf"),
            ],
        ),
    )
    .await;
    assert_eq!(posted.status, 200, "{}", posted.text());
    assert_eq!(posted.header("content-type"), "application/pdf");
    assert!(pdf_words(&posted.bytes).contains("€186.90"));
    let pdf = send_raw(
        &app,
        staff.get(&format!(
            "/dashboard/customers/{ada}/statement?from={}&to={}&currency=EUR",
            day(-200),
            day(0)
        )),
    )
    .await;
    assert_eq!(pdf.status, 200);
    assert_eq!(pdf.header("content-type"), "application/pdf");
    let text = pdf_words(&pdf.bytes);
    assert!(text.contains("Closing balance"), "{text}");
    assert!(text.contains("€186.90"), "{text}");
    let bad = send_raw(
        &app,
        staff.get(&format!("/dashboard/customers/{ada}/statement?from=soon")),
    )
    .await;
    assert_eq!(bad.status, 400);
    let from = day(-200);
    let to = day(0);
    let sent = send_raw(
        &app,
        staff.post(
            &format!("/dashboard/customers/{ada}/statement"),
            &[
                ("from", from.as_str()),
                ("to", to.as_str()),
                ("currency", ""),
                ("action", "email"),
            ],
        ),
    )
    .await;
    assert_eq!(sent.status, 303, "{}", sent.text());
    assert_eq!(
        sent.header("location"),
        format!("/dashboard/customers/{ada}?done=statement_emailed")
    );
    let emails = call!(&app, h.req(Method::GET, "/api/v1/emails"));
    assert_eq!(emails.body["data"][0]["kind"], "statement");
    // A viewer may print it, not mail it.
    let viewer = sign_in(&app, "viewer@example.com").await;
    let html = send_raw(&app, viewer.get(&format!("/dashboard/customers/{ada}")))
        .await
        .text();
    assert!(!html.contains("value=\"email\""), "{html}");
    assert!(html.contains("value=\"pdf\""), "{html}");
    let refused = send_raw(
        &app,
        viewer.post(
            &format!("/dashboard/customers/{ada}/statement"),
            &[
                ("from", from.as_str()),
                ("to", to.as_str()),
                ("action", "email"),
            ],
        ),
    )
    .await;
    assert_eq!(refused.status, 403);
    let emails = call!(&app, h.req(Method::GET, "/api/v1/emails"));
    assert_eq!(emails.body["total"], 1);
}

async fn the_dashboard_exports_every_list_it_shows(h: Harness) {
    use crate::dashboard::{member, sign_in};
    use invoicing_domain::user::Role;
    let app = init_service(build_app(h.state.clone())).await;
    fixture(&app, &h).await;
    // A live invoice is never in the test environment's export.
    let live = h.live_key();
    let r = call!(
        &app,
        h.req_as(&live, Method::POST, "/api/v1/invoices"),
        json!({"customer": {"name": "Live", "email": "live@example.com"},
            "line_items": [{"description": "Live", "quantity": 1, "unit_price_cents": 1}]})
    );
    assert_eq!(r.status, 201);
    member(&h, h.account, "owner@example.com", Role::Owner);
    let owner = sign_in(&app, "owner@example.com").await;
    for (what, api) in [
        ("invoices", "invoices"),
        ("quotations", "quotations"),
        ("customers", "customers"),
        ("payments", "payments"),
        ("products", "products"),
        ("credit-notes", "credit_notes"),
        ("recurring", "recurring_invoices"),
        ("emails", "emails"),
        ("events", "events"),
        ("webhooks", "webhooks"),
    ] {
        let r = send_raw(&app, owner.get(&format!("/dashboard/export/{what}"))).await;
        assert_eq!(r.status, 200, "{what}: {}", r.text());
        assert!(r.header("content-type").starts_with("text/csv"), "{what}");
        let (_, rows) = parse_csv(&r);
        let total = call!(&app, h.req(Method::GET, &format!("/api/v1/{api}"))).body["total"]
            .as_i64()
            .unwrap();
        assert_eq!(
            rows.len() as i64,
            total,
            "{what}: the test environment's rows"
        );
    }
    let r = send_raw(
        &app,
        owner.get("/dashboard/export/invoices?status=sent&customer_id="),
    )
    .await;
    let (_, rows) = parse_csv(&r);
    assert_eq!(rows.len(), 8, "the list's filters, blanks dropped");
    let r = send_raw(&app, owner.get("/dashboard/export/invoices?status=nope")).await;
    assert_eq!(r.status, 400);
    let r = send_raw(&app, owner.get("/dashboard/export/keys")).await;
    assert_eq!(r.status, 404);
    let signed_out = crate::dashboard::browser(Method::GET, "/dashboard/export/invoices");
    let r = send_raw(&app, signed_out).await;
    assert_eq!(r.status, 303, "signed out: to the sign-in page");
}

/// Reads a CSV answer back with a real CSV parser: its header and records.
fn parse_csv(r: &Raw) -> (Vec<String>, Vec<Vec<String>>) {
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.header("content-type").starts_with("text/csv"));
    assert!(
        r.bytes.starts_with("\u{feff}".as_bytes()),
        "a byte-order mark"
    );
    let mut reader = csv::Reader::from_reader(&r.bytes[3..]);
    let header = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    let rows = reader
        .records()
        .map(|rec| rec.unwrap().iter().map(str::to_string).collect())
        .collect();
    (header, rows)
}

async fn lists_and_reports_answer_csv(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    fixture(&app, &h).await;
    // Past one page of the largest size, with text a spreadsheet would run or split.
    for n in 0..100 {
        let notes = if n == 0 {
            "=SUM(A1:A9), \"quoted\"\nGrüße"
        } else {
            "plain"
        };
        let r = call!(
            &app,
            h.req(Method::POST, "/api/v1/invoices"),
            json!({"customer": {"name": "Zoë", "email": "zoe@example.com"}, "notes": notes,
                "line_items": [{"description": "Hour", "quantity": 1, "unit_price_cents": 1250}]})
        );
        assert_eq!(r.status, 201);
    }
    // Another tenant's invoice is never exported.
    let theirs = h.stranger_key("Other");
    call!(
        &app,
        h.req_as(&theirs, Method::POST, "/api/v1/invoices"),
        json!({"customer": {"name": "X", "email": "x@example.com"},
            "line_items": [{"description": "Theirs", "quantity": 1, "unit_price_cents": 1}]})
    );
    // And 1,500 more, written directly: an export takes several steps of its walk.
    let first = call!(&app, h.req(Method::GET, "/api/v1/invoices?per_page=1")).body["data"][0]
        ["id"]
        .as_i64()
        .unwrap();
    h.db.execute(&format!(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500) \
         INSERT INTO invoices (account_id, livemode, number, status, customer_id, currency, \
           issue_date, due_date, subtotal_cents, tax_cents, total_cents, amount_paid_cents, \
           metadata, token, created_at, updated_at, amount_credited_cents) \
         SELECT account_id, livemode, number || '-' || i, status, customer_id, currency, \
           issue_date, due_date, subtotal_cents, tax_cents, total_cents, amount_paid_cents, \
           metadata, token || i, created_at, updated_at, amount_credited_cents \
         FROM invoices, n WHERE id = {first}"
    ));
    let json_total = call!(&app, h.req(Method::GET, "/api/v1/invoices")).body["total"]
        .as_i64()
        .unwrap();
    let r = send_raw(
        &app,
        h.req(Method::GET, "/api/v1/invoices")
            .insert_header(("accept", "text/csv")),
    )
    .await;
    let (header, rows) = parse_csv(&r);
    assert_eq!(
        rows.len() as i64,
        json_total,
        "every row, past the first page"
    );
    assert!(json_total > 1600);
    let ids: std::collections::HashSet<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(ids.len(), rows.len(), "each row once");
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let noted = rows
        .iter()
        .find(|r| r[col("notes")].contains("SUM"))
        .unwrap();
    assert_eq!(noted[col("notes")], "'=SUM(A1:A9), \"quoted\"\nGrüße");
    assert_eq!(noted[col("total_cents")], "1250");
    assert_eq!(noted[col("total")], "12.50");
    let yen = rows.iter().find(|r| r[col("currency")] == "JPY").unwrap();
    assert!(!yen[col("total")].contains('.'), "JPY has no minor unit");
    // The same filters as the list's, by ?format=csv too.
    let r = send_raw(
        &app,
        h.req(Method::GET, "/api/v1/invoices?format=csv&status=cancelled"),
    )
    .await;
    let (_, cancelled) = parse_csv(&r);
    assert_eq!(cancelled.len(), 1);
    let r = send_raw(
        &app,
        h.req(Method::GET, "/api/v1/invoices?format=csv&status=nope"),
    )
    .await;
    assert_eq!(
        r.status, 400,
        "a bad filter is still refused before anything is sent"
    );

    // A schedule and an endpoint, so that their lists have rows too.
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/recurring_invoices"),
        json!({"customer": {"name": "Ada", "email": "ada@example.com"}, "interval": "month",
            "line_items": [{"description": "Hosting", "quantity": "1", "unit_price_cents": 2000}],
            "start_date": day(3)})
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/webhooks"),
        json!({"url": "https://hooks.example.com/in", "events": ["invoice.paid"], "description": "@ERP"})
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let hook = r.body["id"].as_i64().unwrap();
    let secret = r.body["secret"].as_str().unwrap().to_string();

    // Every other list: as many rows as the JSON's total, each its own.
    for list in [
        "customers",
        "quotations",
        "payments",
        "products",
        "credit_notes",
        "recurring_invoices",
        "emails",
        "events",
        "webhooks",
        &format!("webhooks/{hook}/deliveries"),
    ] {
        let total = call!(&app, h.req(Method::GET, &format!("/api/v1/{list}"))).body["total"]
            .as_i64()
            .unwrap();
        let r = send_raw(
            &app,
            h.req(Method::GET, &format!("/api/v1/{list}?format=csv")),
        )
        .await;
        let (header, rows) = parse_csv(&r);
        assert_eq!(rows.len() as i64, total, "{list}");
        assert_eq!(header[0], "id", "{list}");
        assert!(
            !r.text().contains(&secret),
            "{list}: never a webhook secret"
        );
    }
    let r = send_raw(&app, h.req(Method::GET, "/api/v1/events?format=csv")).await;
    let (header, rows) = parse_csv(&r);
    assert!(rows.len() > 100, "past one page");
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let made = rows
        .iter()
        .find(|r| {
            r[col("type")] == "webhook_endpoint.created" || r[col("type")] == "invoice.created"
        })
        .unwrap();
    assert_eq!(made[col("actor_type")], "api_key");
    assert!(made[col("object_id")].parse::<i64>().is_ok(), "{made:?}");
    let r = send_raw(&app, h.req(Method::GET, "/api/v1/webhooks?format=csv")).await;
    let (header, rows) = parse_csv(&r);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert_eq!(rows[0][col("description")], "'@ERP", "made inert");
    assert_eq!(rows[0][col("events")], "invoice.paid");
    let r = send_raw(
        &app,
        h.req(Method::GET, "/api/v1/recurring_invoices?format=csv"),
    )
    .await;
    let (header, rows) = parse_csv(&r);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert_eq!(rows[0][col("total")], "20.00");
    assert_eq!(rows[0][col("next_issue_date")], day(3));

    // Reports, the same figures as their JSON.
    let r = send_raw(&app, h.req(Method::GET, "/api/v1/reports/aging?format=csv")).await;
    let (header, rows) = parse_csv(&r);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let eur_all = rows
        .iter()
        .find(|r| r[col("currency")] == "EUR" && r[col("customer_id")].is_empty())
        .unwrap();
    assert_eq!(eur_all[col("total_cents")], "18690");
    assert_eq!(eur_all[col("days_31_60")], "25.00");
    assert!(rows.iter().any(|r| r[col("customer_name")] == "ken"));
    let today = day(0);
    let r = send_raw(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/reports/tax?from={today}&to={today}"),
        )
        .insert_header(("accept", "text/csv")),
    )
    .await;
    let (header, rows) = parse_csv(&r);
    assert_eq!(
        header,
        [
            "currency",
            "tax_rate",
            "tax_category",
            "taxable_cents",
            "taxable",
            "tax_cents",
            "tax"
        ]
    );
    assert!(rows.contains(&vec![
        "EUR".to_string(),
        "19".into(),
        "S".into(),
        "1000".into(),
        "10.00".into(),
        "190".into(),
        "1.90".into()
    ]));
    let r = send_raw(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/reports/revenue?from={today}&to={today}&format=csv"),
        ),
    )
    .await;
    let (_, rows) = parse_csv(&r);
    assert_eq!(rows.len(), 2, "EUR and JPY");

    // Every CSV operation of the document answers what its JSON path answers when asked for
    // CSV, with the same filters (SPEC §22).
    let doc = invoicing_http::route_table::document();
    let customer = call!(&app, h.req(Method::GET, "/api/v1/customers?per_page=1")).body["data"][0]
        ["id"]
        .clone();
    let webhook = call!(&app, h.req(Method::GET, "/api/v1/webhooks?per_page=1")).body["data"][0]
        ["id"]
        .clone();
    let mut csv_paths = 0;
    for path in doc["paths"].as_object().unwrap().keys() {
        let Some(json_path) = path.strip_suffix(".csv") else {
            continue;
        };
        csv_paths += 1;
        let id = if json_path.starts_with("/api/v1/webhooks/") {
            &webhook
        } else {
            &customer
        };
        let json_path = json_path.replace("{id}", &id.to_string());
        let query = match json_path.as_str() {
            p if p.contains("/reports/") && !p.ends_with("/aging") => {
                format!("from={}&to={}", day(-91), day(10))
            }
            "/api/v1/invoices" => "status=sent".to_string(),
            _ => String::new(),
        };
        let own = send_raw(
            &app,
            h.req(Method::GET, &format!("{json_path}.csv?{query}")),
        )
        .await;
        let asked = send_raw(
            &app,
            h.req(Method::GET, &format!("{json_path}?{query}&format=csv")),
        )
        .await;
        assert_eq!(own.status, 200, "{json_path}.csv: {}", own.text());
        assert!(
            own.header("content-type").starts_with("text/csv"),
            "{json_path}.csv"
        );
        assert_eq!(own.text(), asked.text(), "{json_path}.csv");
    }
    assert!(csv_paths >= 14, "every list and report: {csv_paths}");
}

async fn a_customer_statement_runs_to_what_they_owe(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    fixture(&app, &h).await;
    let customers = call!(
        &app,
        h.req(Method::GET, "/api/v1/customers?email=ada@example.com")
    );
    let ada = customers.body["data"][0]["id"].as_i64().unwrap();
    // Marked paid without a payment: what it owed is owed no more.
    let due_today = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/invoices?customer_id={ada}&status=sent&per_page=100")
        )
    )
    .body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["total_cents"] == 1190)
        .unwrap()["id"]
        .clone();
    let r = call!(
        &app,
        h.req(Method::PATCH, &format!("/api/v1/invoices/{due_today}")),
        json!({"status": "paid"})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/customers/{ada}/statement"))
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["currency"], "EUR");
    assert_eq!(r.body["opening_balance_cents"], 0);
    let entries = r.body["entries"].as_array().unwrap();
    let kinds: Vec<&str> = entries
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == "invoice").count(),
        7,
        "every one sent, not the draft"
    );
    assert_eq!(
        kinds.iter().filter(|k| **k == "cancellation").count(),
        1,
        "the cancelled one is taken off again"
    );
    assert_eq!(kinds.iter().filter(|k| **k == "marked_paid").count(), 1);
    assert_eq!(
        kinds.iter().filter(|k| **k == "payment").count(),
        1,
        "verified only"
    );
    assert_eq!(kinds.iter().filter(|k| **k == "credit_note").count(), 1);
    let mut running = 0;
    for e in entries {
        running += e["amount_cents"].as_i64().unwrap();
        assert_eq!(e["balance_cents"], running);
    }
    assert_eq!(r.body["closing_balance_cents"], 17500);
    assert_eq!(r.body["aging"]["total"], 17500, "what they owe now");
    // The revenue report agrees: an invoice marked paid is no longer outstanding.
    let revenue = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/reports/revenue?from={}&to={}", day(0), day(0))
        )
    );
    let eur = revenue.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["currency"] == "EUR")
        .unwrap()
        .clone();
    assert_eq!(eur["outstanding_cents"], 17500, "{eur}");
    // From tomorrow on: nothing happened yet; the opening balance is what they owe.
    let later = call!(
        &app,
        h.req(
            Method::GET,
            &format!(
                "/api/v1/customers/{ada}/statement?from={}&to={}",
                day(1),
                day(5)
            )
        )
    );
    assert_eq!(later.body["opening_balance_cents"], 17500);
    assert_eq!(later.body["entries"], json!([]));
    assert_eq!(later.body["closing_balance_cents"], 17500);
    // Another currency; an unknown customer; bad parameters.
    let yen = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/customers/{ada}/statement?currency=JPY")
        )
    );
    assert_eq!(yen.body["closing_balance_cents"], 0);
    let r = call!(
        &app,
        h.req(Method::GET, "/api/v1/customers/999999/statement")
    );
    assert_error(&r, 404, "resource_missing");
    let r = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/customers/{ada}/statement?currency=XXX")
        )
    );
    assert_error(&r, 400, "invalid_parameter");
    // Without SMTP_URL a statement is not emailed.
    let r = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/customers/{ada}/statement/email")
        )
    );
    assert_error(&r, 422, "email_not_configured");
}

async fn a_statement_prints_in_the_customers_language_and_is_emailed(h: Harness) {
    let h = Harness::mailing(h.db.backend()).unwrap_or(h);
    let app = init_service(build_app(h.state.clone())).await;
    fixture(&app, &h).await;
    let customers = call!(
        &app,
        h.req(Method::GET, "/api/v1/customers?email=ada@example.com")
    );
    let ada = customers.body["data"][0]["id"].as_i64().unwrap();
    let r = call!(
        &app,
        h.req(Method::PATCH, &format!("/api/v1/customers/{ada}")),
        json!({"locale": "de"})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let pdf = send_raw(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/customers/{ada}/statement/pdf"),
        ),
    )
    .await;
    assert_eq!(pdf.status, 200);
    assert_eq!(pdf.header("content-type"), "application/pdf");
    let today = Utc::now().date_naive().format("%Y%m%d");
    let reference = format!("ST-{ada}-{today}");
    assert!(
        pdf.header("content-disposition")
            .contains(&format!("{reference}.pdf")),
        "{}",
        pdf.header("content-disposition")
    );
    let text = pdf_words(&pdf.bytes);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for needle in [
        "Kontoauszug",
        reference.as_str(),
        "Zeitraum",
        "Anfangssaldo",
        "Endsaldo",
        "Zahlung zur Rechnung",
        "Gutschrift",
        "Noch nicht fällig",
        "Über 90 Tage",
        "186,90 €",
        "ada",
    ] {
        assert!(flat.contains(needle), "{needle:?} missing from:\n{text}");
    }
    // Every invoice of the statement is named on it.
    let json_statement = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/customers/{ada}/statement"))
    );
    for e in json_statement.body["entries"].as_array().unwrap() {
        let number = e["number"].as_str().unwrap();
        assert!(flat.contains(number), "{number} missing from:\n{text}");
    }

    // By email: queued as kind `statement`, its subject in German with the reference.
    let r = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/customers/{ada}/statement/email?currency=EUR")
        ),
        json!({"email": {"cc": ["accounts@example.com"]}})
    );
    assert_eq!(r.status, 202, "{}", r.body);
    assert_eq!(r.body["kind"], "statement");
    assert_eq!(r.body["customer_id"], ada);
    assert_eq!(r.body["to"], json!(["ada@example.com"]));
    assert_eq!(r.body["cc"], json!(["accounts@example.com"]));
    assert_eq!(
        r.body["subject"],
        format!("Kontoauszug {reference} von Acme Ltd")
    );
    let r = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/customers/{ada}/statement/email?from=2026-13-01")
        )
    );
    assert_error(&r, 400, "invalid_parameter");
    assert_eq!(r.body["error"]["param"], "from");
    let r = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/customers/{ada}/statement/email")
        ),
        json!({"email": {"to": ["not an address"]}})
    );
    assert_eq!(r.status, 422, "{}", r.body);

    // Scopes: reading invoices is not sending mail; another tenant's key sees nothing.
    let reader = h.make_key(
        h.account,
        Environment::Test,
        "invoices:read,customers:read",
        GENEROUS,
        None,
    );
    let r = call!(
        &app,
        h.req_as(
            &reader,
            Method::POST,
            &format!("/api/v1/customers/{ada}/statement/email")
        )
    );
    assert_error(&r, 403, "insufficient_permissions");
    let r = send_raw(
        &app,
        h.req_as(
            &reader,
            Method::GET,
            &format!("/api/v1/customers/{ada}/statement/pdf"),
        ),
    )
    .await;
    assert_eq!(r.status, 200);
    let foreign = h.stranger_key("Other");
    for (method, path) in [
        (Method::GET, format!("/api/v1/customers/{ada}/statement")),
        (
            Method::GET,
            format!("/api/v1/customers/{ada}/statement/pdf"),
        ),
        (
            Method::POST,
            format!("/api/v1/customers/{ada}/statement/email"),
        ),
    ] {
        let r = call!(&app, h.req_as(&foreign, method, &path));
        assert_error(&r, 403, "resource_forbidden");
    }
    let emails = call!(&app, h.req(Method::GET, "/api/v1/emails"));
    assert_eq!(emails.body["total"], 1, "only the one that was asked right");
}

async fn bad_report_parameters_are_400(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    for (path, param) in [
        ("/api/v1/reports/aging?as_of=yesterday", "as_of"),
        ("/api/v1/reports/aging?since=2026-01-01", "since"),
        ("/api/v1/reports/revenue?to=2026-01-31", "from"),
        (
            "/api/v1/reports/revenue?from=2026-01-01&to=2026-01-31&interval=week",
            "interval",
        ),
        ("/api/v1/reports/tax?from=2026-13-01&to=2026-01-01", "from"),
    ] {
        let r = call!(&app, h.req(Method::GET, path));
        assert_error(&r, 400, "invalid_parameter");
        assert_eq!(r.body["error"]["param"], param, "{path}");
    }
    // A range that ends before it starts is a mistake (400 naming `from`), for every report and
    // the statement; a long one is not.
    let customer = call!(
        &app,
        h.req(Method::POST, "/api/v1/customers"),
        json!({"name": "Range", "email": "range@example.com"})
    )
    .body["id"]
        .clone();
    for path in [
        "/api/v1/reports/tax?from=2026-02-01&to=2026-01-01".to_string(),
        "/api/v1/reports/revenue?from=2026-02-01&to=2026-01-01".to_string(),
        "/api/v1/reports/tax.csv?from=2026-02-01&to=2026-01-01".to_string(),
        format!("/api/v1/customers/{customer}/statement?from=2026-02-01&to=2026-01-01"),
    ] {
        let r = call!(&app, h.req(Method::GET, &path));
        assert_error(&r, 400, "invalid_parameter");
        assert_eq!(r.body["error"]["param"], "from", "{path}");
        assert!(
            r.body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("after"),
            "{path}: {}",
            r.body
        );
    }
    let r = call!(
        &app,
        h.req(
            Method::GET,
            "/api/v1/reports/revenue?from=0001-01-01&to=9999-12-31&format="
        )
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["data"], json!([]));
}

http_tests!(
    every_report_to_the_cent,
    credited_and_voided_invoices_count_once,
    the_reports_screen_shows_the_figures,
    lists_and_reports_answer_csv,
    a_customer_statement_runs_to_what_they_owe,
    a_statement_prints_in_the_customers_language_and_is_emailed,
    the_customer_screen_prints_and_emails_the_statement,
    the_dashboard_exports_every_list_it_shows,
    bad_report_parameters_are_400
);

/// The VAT return of a month with a fully credited invoice, a void after a partial credit, an
/// invoice dated 40 days back but sent today, and exempt and reverse-charge lines: every figure
/// equals the documents', in JSON, in CSV and on the statement (SPEC §22).
async fn credited_and_voided_invoices_count_once(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let invoice = |email: &str, issued: i64, lines: Value| {
        json!({"customer": {"name": email.split('@').next().unwrap(), "email": email},
            "issue_date": day(issued), "due_date": day(issued.max(0)), "line_items": lines})
    };
    let line = |cents: i64, rate: &str| json!({"description": "Work", "quantity": 1, "unit_price_cents": cents, "tax_rate": rate});
    let mut sent = Vec::new();
    for body in [
        // A: 2,000.00 + 19 %, fully credited (it turns cancelled).
        invoice("a@example.com", 0, json!([line(200_000, "19")])),
        // B: the same, credited 1,000.00 gross, then cancelled (a void).
        invoice("b@example.com", 0, json!([line(200_000, "19")])),
        // C: counts as it is.
        invoice("c@example.com", 0, json!([line(100_000, "19")])),
        // D: dated 40 days back, sent today: counts on its issue date.
        invoice("d@example.com", -40, json!([line(50_000, "19")])),
        // E: an exempt and a reverse-charge line: two boxes, not one "0 %".
        invoice(
            "e@example.com",
            0,
            json!([
                {"description": "Training", "quantity": 1, "unit_price_cents": 30_000, "tax_rate": "0",
                 "tax_category": "E", "tax_exemption_reason": "VATEX-EU-132"},
                {"description": "Consulting", "quantity": 1, "unit_price_cents": 40_000, "tax_rate": "0",
                 "tax_category": "AE", "tax_exemption_reason": "VATEX-EU-AE"}
            ]),
        ),
    ] {
        let made = call!(&app, h.req(Method::POST, "/api/v1/invoices"), body);
        assert_eq!(made.status, 201, "{}", made.body);
        let id = made.body["id"].as_i64().unwrap();
        let r = call!(
            &app,
            h.req(Method::POST, &format!("/api/v1/invoices/{id}/send"))
        );
        assert_eq!(r.status, 200, "{}", r.body);
        sent.push(r.body);
    }
    let credit = |id: &Value, body: Value| {
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/credit_notes"))
            .set_json(body)
    };
    let r = call!(&app, credit(&sent[0]["id"], json!({"reason": "duplicate"})));
    assert_eq!(r.status, 201, "{}", r.body);
    let r = call!(
        &app,
        credit(
            &sent[1]["id"],
            json!({"reason": "order_change", "amount_cents": 100_000})
        )
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let a = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/invoices/{}", sent[0]["id"]))
    );
    assert_eq!(a.body["status"], "cancelled", "fully credited: {}", a.body);
    let b = call!(
        &app,
        h.req(
            Method::PATCH,
            &format!("/api/v1/invoices/{}", sent[1]["id"])
        ),
        json!({"status": "cancelled"})
    );
    assert_eq!(b.status, 200, "{}", b.body);

    let (from, to) = (day(-45), day(0));
    let tax = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/reports/tax?from={from}&to={to}")
        )
    );
    assert_eq!(tax.status, 200, "{}", tax.body);
    let boxes: Vec<(String, Value, i64, i64)> = tax.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["tax_rate"].as_str().unwrap().to_string(),
                l["tax_category"].clone(),
                l["taxable_cents"].as_i64().unwrap(),
                l["tax_cents"].as_i64().unwrap(),
            )
        })
        .collect();
    // A and B net to nothing; C and D are the standard box; E's lines are a box each.
    assert_eq!(
        boxes,
        vec![
            ("0".to_string(), json!("AE"), 40_000, 0),
            ("0".to_string(), json!("E"), 30_000, 0),
            ("19".to_string(), json!("S"), 150_000, 28_500),
        ],
        "{}",
        tax.body
    );
    // The same boxes in CSV.
    let r = send_raw(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/reports/tax?from={from}&to={to}&format=csv"),
        ),
    )
    .await;
    let (header, rows) = parse_csv(&r);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let csv: Vec<(String, String, String)> = rows
        .iter()
        .map(|r| {
            (
                r[col("tax_category")].clone(),
                r[col("taxable_cents")].clone(),
                r[col("tax_cents")].clone(),
            )
        })
        .collect();
    assert_eq!(
        csv,
        vec![
            ("AE".to_string(), "40000".to_string(), "0".to_string()),
            ("E".into(), "30000".into(), "0".into()),
            ("S".into(), "150000".into(), "28500".into()),
        ]
    );

    // Revenue over the same days: the documents' gross, once.
    let revenue = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/reports/revenue?from={from}&to={to}&interval=month")
        )
    );
    let periods = revenue.body["data"].as_array().unwrap();
    let sum = |field: &str| -> i64 { periods.iter().map(|p| p[field].as_i64().unwrap()).sum() };
    assert_eq!(
        sum("invoiced_cents"),
        119_000 + 59_500 + 70_000,
        "{}",
        revenue.body
    );
    assert_eq!(sum("tax_cents"), 28_500);
    // D counts in the period of its issue date, not of its sending.
    let d_day = day(-40);
    let d_period = periods
        .iter()
        .find(|p| {
            p["period_start"].as_str().unwrap() <= d_day.as_str()
                && p["period_end"].as_str().unwrap() >= d_day.as_str()
        })
        .expect("D's month");
    assert!(
        d_period["invoiced_cents"].as_i64().unwrap() >= 59_500,
        "{d_period}"
    );

    // D's statement from 30 days back opens with D owed: it was issued before the range.
    let statement = call!(
        &app,
        h.req(
            Method::GET,
            &format!(
                "/api/v1/customers/{}/statement?from={}&to={to}",
                sent[3]["customer_id"],
                day(-30)
            )
        )
    );
    assert_eq!(statement.status, 200, "{}", statement.body);
    assert_eq!(
        statement.body["opening_balance_cents"], 59_500,
        "{}",
        statement.body
    );
    assert_eq!(statement.body["entries"], json!([]));
    assert_eq!(statement.body["closing_balance_cents"], 59_500);
    // Over D's day, it is an entry on its issue date.
    let statement = call!(
        &app,
        h.req(
            Method::GET,
            &format!(
                "/api/v1/customers/{}/statement?from={from}&to={to}",
                sent[3]["customer_id"]
            )
        )
    );
    assert_eq!(statement.body["opening_balance_cents"], 0);
    assert_eq!(statement.body["entries"][0]["date"], d_day.as_str());
    assert_eq!(statement.body["entries"][0]["amount_cents"], 59_500);
    // B's statement: the invoice, its credit note and the void's rest, to zero.
    let statement = call!(
        &app,
        h.req(
            Method::GET,
            &format!(
                "/api/v1/customers/{}/statement?from={from}&to={to}",
                sent[1]["customer_id"]
            )
        )
    );
    let kinds: Vec<&str> = statement.body["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["invoice", "credit_note", "cancellation"],
        "{}",
        statement.body
    );
    assert_eq!(statement.body["closing_balance_cents"], 0);
}
