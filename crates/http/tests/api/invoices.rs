//! SPEC §9 and §11 through the real app: every invoice, event and page route with its status
//! codes, the transitions, and 403 for another tenant on every route.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use invoicing_domain::tenant::Environment;
use invoicing_http::build_app;
use serde_json::{json, Value};

fn invoice_body(email: &str) -> Value {
    json!({
        "customer": {"name": "Ada", "email": email},
        "line_items": [
            {"description": "Consulting", "quantity": 1.5, "unit_price_cents": 333, "tax_rate": 19},
            {"description": "Hosting", "quantity": "2", "unit_price_cents": 1000}
        ],
        "payment_terms": "net_14",
        "notes": "Thank you"
    })
}

fn token_path(invoice: &Value) -> String {
    let link = invoice["payment_link"].as_str().unwrap();
    assert!(link.starts_with(&format!(
        "{PUBLIC_URL}/invoice/{}?token=",
        invoice["invoice_number"].as_str().unwrap()
    )));
    link.strip_prefix(PUBLIC_URL).unwrap().to_string()
}

async fn create_send_view_pay(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let r = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/invoices"),
            &invoice_body("ada@example.com"),
        ),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    assert_api_headers(&r);
    let inv = r.body;
    assert_eq!(inv["status"], "draft");
    assert_eq!(
        (
            inv["subtotal_cents"].as_i64(),
            inv["tax_cents"].as_i64(),
            inv["total_cents"].as_i64()
        ),
        (Some(2500), Some(95), Some(2595))
    );
    assert_eq!(inv["line_items"][0]["quantity"], "1.5");
    assert_eq!(inv["line_items"][0]["tax_rate"], "19");
    assert_eq!(inv["currency"], "EUR", "the account's currency by default");
    assert_eq!(inv["payment_terms"], "net_14");
    assert_eq!(inv["amount_due_cents"], 2595);
    let number = inv["invoice_number"].as_str().unwrap();
    assert!(
        number.starts_with("INV-") && number.ends_with("-000001"),
        "{number}"
    );
    let id = inv["id"].as_i64().unwrap();
    let page = token_path(&inv);

    let r = send(&app, h.anonymous(Method::GET, &page)).await;
    assert_error(&r, 404, "resource_missing");
    let r = send(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/send")),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["status"], "sent");
    assert!(r.body["sent_at"].is_string());
    let r = send(
        &app,
        h.req(Method::PATCH, &format!("/api/v1/invoices/{id}/send")),
    )
    .await;
    assert_error(&r, 409, "invalid_state_transition");
    assert!(r.body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("sent to sent"));

    let before_view = send(&app, h.anonymous(Method::GET, &page)).await;
    assert_eq!(before_view.status, 200);
    let r = send(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}"))).await;
    assert_eq!(r.body["status"], "viewed");
    send(&app, h.anonymous(Method::GET, &page)).await;
    let viewed = send(
        &app,
        h.req(Method::GET, "/api/v1/events?type=invoice.viewed"),
    )
    .await;
    assert_eq!(viewed.body["total"], 1, "only the first view counts");

    let wrong_token = page.replace("token=", "token=x");
    assert_error(
        &send(&app, h.anonymous(Method::GET, &wrong_token)).await,
        404,
        "resource_missing",
    );
    let no_token = page.split('?').next().unwrap().to_string();
    assert_error(
        &send(&app, h.anonymous(Method::GET, &no_token)).await,
        404,
        "resource_missing",
    );

    let r = send(
        &app,
        json(
            h.req(Method::PATCH, &format!("/api/v1/invoices/{id}")),
            &json!({"status": "paid"}),
        ),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["status"], "paid");
    let r = send(
        &app,
        json(
            h.req(Method::PATCH, &format!("/api/v1/invoices/{id}")),
            &json!({"status": "cancelled"}),
        ),
    )
    .await;
    assert_error(&r, 409, "invalid_state_transition");
    let types: Vec<String> = send(&app, h.req(Method::GET, "/api/v1/events")).await.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        types,
        [
            "invoice.paid",
            "invoice.viewed",
            "invoice.sent",
            "invoice.created",
            "customer.created"
        ]
    );
    let event = send(&app, h.req(Method::GET, "/api/v1/events?type=invoice.paid"))
        .await
        .body["data"][0]
        .clone();
    assert_eq!(event["data"]["object"]["status"], "paid");
    assert_eq!(event["livemode"], false);
    let one = send(
        &app,
        h.req(Method::GET, &format!("/api/v1/events/{}", event["id"])),
    )
    .await;
    assert_eq!(one.body, event);
}

async fn page_shows_what_the_customer_needs(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let body = json!({
        "customer": {"name": "Ada <Lovelace>", "email": "ada@example.com", "company": "Engines & Co", "address": {"line1": "1 Main St", "city": "London", "country": "GB"}},
        "currency": "JPY", "due_date": "2099-01-31",
        "line_items": [{"description": "Widget", "quantity": 3, "unit_price_cents": 1000, "tax_rate": "10"}]
    });
    let inv = send(&app, json(h.req(Method::POST, "/api/v1/invoices"), &body))
        .await
        .body;
    send(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/invoices/{}/send", inv["id"]),
        ),
    )
    .await;
    let res = actix_web::test::call_service(
        &app,
        h.anonymous(Method::GET, &token_path(&inv)).to_request(),
    )
    .await;
    assert_eq!(res.status(), 200);
    let headers = res.headers().clone();
    assert_eq!(
        headers.get("content-type").unwrap(),
        "text/html; charset=utf-8"
    );
    assert_eq!(headers.get("cache-control").unwrap(), "no-store");
    assert_eq!(headers.get("referrer-policy").unwrap(), "no-referrer");
    let html = String::from_utf8(actix_web::test::read_body(res).await.to_vec()).unwrap();
    for expected in [
        "Acme Ltd",
        inv["invoice_number"].as_str().unwrap(),
        "Ada &#60;Lovelace&#62;",
        "Engines &#38; Co",
        "1 Main St",
        "Widget",
        "¥3,000",
        "¥300",
        "¥3,300",
        "Jan 31, 2099",
        "Awaiting payment",
        "@media print",
    ] {
        assert!(html.contains(expected), "page lacks {expected:?}");
    }
    assert!(!html.contains("<Lovelace>"), "customer text is escaped");
    assert!(!html.contains("<script"), "no JavaScript");
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no external assets"
    );
}

/// Addresses name their country in the customer's language (CLDR), on the page and in its PDF;
/// a country that is not an ISO code prints as written.
async fn page_names_countries_in_the_customers_language(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let profile = json!({"legal_name": "Pan Works GmbH",
        "address": {"line1": "Hauptstraße 1", "postal_code": "10115", "city": "Berlin", "country": "DE"}});
    assert_eq!(
        call!(&app, h.req(Method::PATCH, "/api/v1/account"), profile).status,
        200
    );
    let cases = [
        ("en", "TT", ["Trinidad and Tobago", "Germany"]),
        ("de", "TT", ["Trinidad und Tobago", "Deutschland"]),
        ("fr", "Trinidad", ["Trinidad", "Allemagne"]),
    ];
    for (locale, country, expected) in cases {
        let body = json!({
            "customer": {"name": "Ada", "email": format!("ada-{locale}@example.com"), "locale": locale,
                "address": {"line1": "1 Frederick Street", "city": "Port of Spain", "country": country}},
            "line_items": [{"description": "Steelpan tuning", "quantity": 1, "unit_price_cents": 10000}]
        });
        let r = call!(&app, h.req(Method::POST, "/api/v1/invoices"), body);
        assert_eq!(r.status, 201, "{}", r.body);
        let sent = call!(
            &app,
            h.req(
                Method::POST,
                &format!("/api/v1/invoices/{}/send", r.body["id"])
            )
        );
        assert_eq!(sent.status, 200, "{}", sent.body);
        let path = token_path(&sent.body);
        let page = send_raw(&app, h.anonymous(Method::GET, &path)).await;
        assert_eq!(page.status, 200);
        let html = page.text();
        let (at, query) = path.split_once('?').unwrap();
        let pdf = send_raw(&app, h.anonymous(Method::GET, &format!("{at}/pdf?{query}"))).await;
        assert_eq!(pdf.status, 200);
        let words = pdf_words(&pdf.bytes);
        for name in expected {
            assert!(
                html.contains(&format!("<bdi>{name}</bdi><br>")),
                "{locale}: the page lacks {name:?}:\n{html}"
            );
            assert!(
                words.contains(name),
                "{locale}: the PDF lacks {name:?}:\n{words}"
            );
        }
        assert!(!html.contains(">TT<") && !html.contains(">DE<"), "{html}");
    }
}

/// Names and lines in Chinese, Arabic and Hebrew: the page lets each take its own direction, and
/// the PDF prints every character (the render crate's tests look at the shaping itself).
async fn other_scripts_print_on_the_page_and_in_the_pdf(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let body = json!({
        "customer": {"name": "王芳", "email": "wang@example.com", "company": "山田商事"},
        "line_items": [
            {"description": "خدمات استشارية", "quantity": 1, "unit_price_cents": 10000},
            {"description": "שירותי ייעוץ", "quantity": 1, "unit_price_cents": 5000}
        ]
    });
    let r = call!(&app, h.req(Method::POST, "/api/v1/invoices"), body);
    assert_eq!(r.status, 201, "{}", r.body);
    let sent = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/invoices/{}/send", r.body["id"])
        )
    );
    let path = token_path(&sent.body);
    let html = send_raw(&app, h.anonymous(Method::GET, &path)).await.text();
    for needle in [
        "<strong dir=\"auto\">王芳</strong>",
        "<bdi>山田商事</bdi>",
        "<td dir=\"auto\">خدمات استشارية</td>",
        "<td dir=\"auto\">שירותי ייעוץ</td>",
    ] {
        assert!(html.contains(needle), "{needle}:\n{html}");
    }
    let (at, query) = path.split_once('?').unwrap();
    let pdf = send_raw(&app, h.anonymous(Method::GET, &format!("{at}/pdf?{query}"))).await;
    let words = pdf_words(&pdf.bytes);
    for needle in ["王芳", "山田商事", "خدمات", "استشارية", "שירותי", "ייעוץ"]
    {
        assert!(words.contains(needle), "{needle}:\n{words}");
    }
}

async fn validation_and_draft_rules(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let bad = json!({"customer_id": 999999, "currency": "XXX", "issue_date": "2026-02-30", "payment_terms": "net_400",
        "line_items": [{"description": "ok", "quantity": 1, "unit_price_cents": 1}, {"description": "", "quantity": 0, "unit_price_cents": 2000000000000000i64}]});
    let r = send(&app, json(h.req(Method::POST, "/api/v1/invoices"), &bad)).await;
    assert_error(&r, 422, "validation_failed");
    let params: Vec<&str> = r.body["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["param"].as_str().unwrap())
        .collect();
    assert_eq!(
        params,
        [
            "currency",
            "issue_date",
            "payment_terms",
            "line_items[1].description",
            "line_items[1].quantity",
            "line_items[1].unit_price_cents"
        ]
    );
    let r = send(&app, json(h.req(Method::POST, "/api/v1/invoices"), &json!({"customer_id": 999999, "line_items": [{"description": "x", "quantity": 1, "unit_price_cents": 1}]}))).await;
    assert_error(&r, 422, "validation_failed");
    assert_eq!(r.body["error"]["param"], "customer_id");
    let r = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/invoices"),
            &json!({"customer_id": "7"}),
        ),
    )
    .await;
    assert_error(&r, 400, "invalid_parameter");
    let r = send(&app, json(h.req(Method::POST, "/api/v1/invoices"), &json!({"customer_id": 1, "line_items": [{"description": "Refund", "quantity": 1, "unit_price_cents": -5}]}))).await;
    assert_error(&r, 422, "validation_failed");
    assert_eq!(
        send(&app, h.req(Method::GET, "/api/v1/invoices"))
            .await
            .body["total"],
        0,
        "nothing was created"
    );

    let inv = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/invoices"),
            &invoice_body("ada@example.com"),
        ),
    )
    .await
    .body;
    let path = format!("/api/v1/invoices/{}", inv["id"]);
    let r = send(&app, json(h.req(Method::PATCH, &path), &json!({"line_items": [{"description": "Only", "quantity": 1, "unit_price_cents": 700}]}))).await;
    assert_eq!(r.body["total_cents"], 700);
    send(&app, h.req(Method::POST, &format!("{path}/send"))).await;
    let r = send(
        &app,
        json(h.req(Method::PATCH, &path), &json!({"currency": "USD"})),
    )
    .await;
    assert_error(&r, 409, "invalid_state_transition");
    let r = send(
        &app,
        json(
            h.req(Method::PATCH, &path),
            &json!({"due_date": "1999-01-01"}),
        ),
    )
    .await;
    assert_error(&r, 422, "validation_failed");
    let r = send(
        &app,
        json(h.req(Method::PATCH, &path), &json!({"status": "refunded"})),
    )
    .await;
    assert_error(&r, 422, "validation_failed");
    let r = send(
        &app,
        json(h.req(Method::PATCH, &path), &json!({"status": "overdue"})),
    )
    .await;
    assert_eq!(
        r.body["status"], "overdue",
        "a merchant may mark it overdue by hand"
    );
    let r = send(&app, h.req(Method::DELETE, &path)).await;
    assert_error(&r, 405, "method_not_allowed");
    assert_eq!(r.header("allow"), "GET, PATCH");
    let r = send(
        &app,
        h.req(
            Method::DELETE,
            &format!("/api/v1/customers/{}", inv["customer_id"]),
        ),
    )
    .await;
    assert_error(&r, 409, "resource_in_use");
}

async fn lists_filter_and_refuse_bad_values(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let a = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/invoices"),
            &invoice_body("a@example.com"),
        ),
    )
    .await
    .body;
    let b = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/invoices"),
            &invoice_body("b@example.com"),
        ),
    )
    .await
    .body;
    send(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{}/send", b["id"])),
    )
    .await;
    let get = |q: &str| h.req(Method::GET, &format!("/api/v1/invoices?{q}"));
    assert_eq!(
        send(&app, get("status=sent")).await.body["data"][0]["id"],
        b["id"]
    );
    assert_eq!(send(&app, get("status=draft")).await.body["total"], 1);
    assert_eq!(
        send(&app, get(&format!("customer_id={}", a["customer_id"])))
            .await
            .body["data"][0]["id"],
        a["id"]
    );
    let today = chrono::Utc::now().date_naive();
    assert_eq!(
        send(
            &app,
            get(&format!("created_after={today}&created_before={today}"))
        )
        .await
        .body["total"],
        2
    );
    assert_eq!(
        send(
            &app,
            get(&format!("created_before={}", today.pred_opt().unwrap()))
        )
        .await
        .body["total"],
        0
    );
    for bad in [
        "status=void",
        "customer_id=abc",
        "created_after=2026-13-01",
        "created_before=yesterday",
        "per_page=500",
    ] {
        assert_error(&send(&app, get(bad)).await, 400, "invalid_parameter");
    }
    assert_error(
        &send(
            &app,
            h.req(Method::GET, "/api/v1/events?type=invoice.exploded"),
        )
        .await,
        400,
        "invalid_parameter",
    );
    assert_eq!(
        send(&app, h.req(Method::GET, "/api/v1/events?type=invoice.sent"))
            .await
            .body["total"],
        1
    );
}

async fn other_tenants_get_403_on_every_route(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let inv = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/invoices"),
            &invoice_body("ada@example.com"),
        ),
    )
    .await
    .body;
    let event_id =
        send(&app, h.req(Method::GET, "/api/v1/events")).await.body["data"][0]["id"].clone();
    let id = inv["id"].clone();
    let foreign = h.stranger_key("Other");
    let live = h.live_key();
    for key in [&foreign, &live] {
        let routes = [
            (Method::GET, format!("/api/v1/invoices/{id}"), None),
            (
                Method::PATCH,
                format!("/api/v1/invoices/{id}"),
                Some(json!({"notes": "x"})),
            ),
            (Method::POST, format!("/api/v1/invoices/{id}/send"), None),
            (Method::PATCH, format!("/api/v1/invoices/{id}/send"), None),
            (Method::GET, format!("/api/v1/events/{event_id}"), None),
        ];
        for (method, path, body) in routes {
            let req = h.req_as(key, method.clone(), &path);
            let req = match &body {
                Some(b) => json(req, b),
                None => req,
            };
            assert_error(&send(&app, req).await, 403, "resource_forbidden");
        }
        assert_eq!(
            send(&app, h.req_as(key, Method::GET, "/api/v1/invoices"))
                .await
                .body["total"],
            0
        );
        assert_eq!(
            send(&app, h.req_as(key, Method::GET, "/api/v1/events"))
                .await
                .body["total"],
            0
        );
    }
    assert_eq!(
        send(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")))
            .await
            .body["status"],
        "draft",
        "refused writes changed nothing"
    );
    assert_error(
        &send(&app, h.req(Method::GET, "/api/v1/invoices/999999")).await,
        404,
        "resource_missing",
    );
    assert_error(
        &send(&app, h.req(Method::POST, "/api/v1/invoices/999999/send")).await,
        404,
        "resource_missing",
    );
    assert_error(
        &send(&app, h.req(Method::GET, "/api/v1/events/999999")).await,
        404,
        "resource_missing",
    );
    let reader = h.make_key(
        h.account,
        Environment::Test,
        "invoices:read",
        GENEROUS,
        None,
    );
    assert_eq!(
        send(&app, h.req_as(&reader, Method::GET, "/api/v1/invoices"))
            .await
            .status,
        200
    );
    assert_error(
        &send(
            &app,
            h.req_as(
                &reader,
                Method::POST,
                &format!("/api/v1/invoices/{id}/send"),
            ),
        )
        .await,
        403,
        "insufficient_permissions",
    );
    assert_error(
        &send(&app, h.req_as(&reader, Method::GET, "/api/v1/events")).await,
        403,
        "insufficient_permissions",
    );
}

async fn public_pages_are_limited_per_ip(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let from = |ip: &str| {
        h.anonymous(Method::GET, "/invoice/INV-2026-000001?token=nope")
            .insert_header(("x-forwarded-for", ip.to_string()))
    };
    for _ in 0..30 {
        assert_error(
            &send(&app, from("203.0.113.50")).await,
            404,
            "resource_missing",
        );
    }
    let r = send(&app, from("203.0.113.50")).await;
    assert_error(&r, 429, "rate_limited");
    assert!(r.header("retry-after").parse::<u64>().unwrap() >= 1);
    assert_error(
        &send(&app, from("203.0.113.51")).await,
        404,
        "resource_missing",
    );
}

/// Gets of several tenants at the same time (answered together on PostgreSQL, where they wait
/// for the storage threads together) answer each caller as it would be answered alone: its own
/// invoice, 403 for another tenant's, 404 for none.
async fn simultaneous_gets_answer_each_tenant_alone(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let create = |key: String, email: &'static str| {
        let req = json(
            h.req_as(&key, Method::POST, "/api/v1/invoices"),
            &invoice_body(email),
        );
        let app = &app;
        async move { send(app, req).await.body }
    };
    let other = h.stranger_key("Other");
    let live = h.live_key();
    let mine = create(h.key.clone(), "ada@example.com").await;
    let theirs = create(other.clone(), "bob@example.com").await;
    let live_one = create(live.clone(), "eve@example.com").await;
    let missing = live_one["id"].as_i64().unwrap() + 1000;
    let asks = [
        (&h.key, &mine["id"], 200, &mine),
        (&other, &theirs["id"], 200, &theirs),
        (&live, &live_one["id"], 200, &live_one),
        (&other, &mine["id"], 403, &Value::Null),
        (&h.key, &live_one["id"], 403, &Value::Null),
        (&h.key, &json!(missing), 404, &Value::Null),
    ];
    let calls = (0..60).map(|i| {
        let (key, id, _, _) = asks[i % asks.len()];
        send(
            &app,
            h.req_as(key, Method::GET, &format!("/api/v1/invoices/{id}")),
        )
    });
    let replies = futures_util::future::join_all(calls).await;
    for (i, reply) in replies.iter().enumerate() {
        let (_, id, status, expected) = asks[i % asks.len()];
        assert_eq!(reply.status, status, "ask {i} for {id}: {}", reply.body);
        if status == 200 {
            assert_eq!(&reply.body, expected, "ask {i}");
        }
    }
}

http_tests!(
    simultaneous_gets_answer_each_tenant_alone,
    create_send_view_pay,
    page_shows_what_the_customer_needs,
    page_names_countries_in_the_customers_language,
    other_scripts_print_on_the_page_and_in_the_pdf,
    validation_and_draft_rules,
    lists_filter_and_refuse_bad_values,
    other_tenants_get_403_on_every_route,
    public_pages_are_limited_per_ip,
    the_first_view_of_an_overdue_invoice_is_recorded,
);

/// A customer who first opens an overdue invoice (from a reminder) leaves `viewed_at` and one
/// `invoice.viewed`; the invoice stays overdue, and a second view records nothing.
async fn the_first_view_of_an_overdue_invoice_is_recorded(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let inv = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        invoice_body("late@example.com")
    )
    .body;
    let path = format!("/api/v1/invoices/{}", inv["id"]);
    assert_eq!(
        call!(&app, h.req(Method::POST, &format!("{path}/send"))).status,
        200
    );
    let r = call!(
        &app,
        h.req(Method::PATCH, &path),
        json!({"status": "overdue"})
    );
    assert_eq!(r.body["status"], "overdue");
    assert!(r.body["viewed_at"].is_null());
    let viewed = || h.req(Method::GET, "/api/v1/events?type=invoice.viewed");
    assert_eq!(call!(&app, viewed()).body["total"], 0);

    let page = token_path(&inv);
    assert_eq!(call!(&app, h.anonymous(Method::GET, &page)).status, 200);
    let after = call!(&app, h.req(Method::GET, &path)).body;
    assert_eq!(after["status"], "overdue", "it stays overdue");
    let seen = after["viewed_at"]
        .as_str()
        .expect("viewed_at set")
        .to_string();
    let events = call!(&app, viewed()).body;
    assert_eq!(events["total"], 1, "{events}");
    assert_eq!(
        events["data"][0]["data"]["object"]["viewed_at"],
        seen.as_str()
    );
    assert_eq!(events["data"][0]["data"]["object"]["status"], "overdue");

    assert_eq!(call!(&app, h.anonymous(Method::GET, &page)).status, 200);
    assert_eq!(
        call!(&app, viewed()).body["total"],
        1,
        "a second view: none"
    );
    let again = call!(&app, h.req(Method::GET, &path)).body;
    assert_eq!(again["viewed_at"], seen.as_str());
    assert_eq!(again["status"], "overdue");
}
