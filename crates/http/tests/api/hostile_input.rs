//! Requests built to break the transport contract (SPEC §3, §4, §5): control characters in paths
//! and query values, integers outside their range. Each must get a contract answer, never a 500.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::{init_service, TestRequest};
use invoicing_http::build_app;
use serde_json::{json, Value};

const HOSTILE_PAGE: &str = "/invoice/x%0d%0aSet-Cookie:%20a=b?token=1";

async fn crlf_in_a_page_path_never_reaches_a_header(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    // The plain listener: redirected with the path exactly as sent, still percent-encoded.
    for page in [HOSTILE_PAGE, "/quote/x%0aX:%20y%7f%00?token=a%0d%0ab"] {
        let plain = TestRequest::get()
            .uri(page)
            .peer_addr("198.51.100.4:5000".parse().unwrap());
        let r = send(&app, plain).await;
        assert_eq!(r.status, 301, "{page}: {}", r.body);
        assert_eq!(r.header("location"), format!("{PUBLIC_URL}{page}"));
        assert!(!r.headers.contains_key("set-cookie"));
        assert!(!r.headers.contains_key("x"));
    }
    // HTTPS: the page does not exist, and says so with the §4 body.
    let r = send(&app, h.anonymous(Method::GET, HOSTILE_PAGE)).await;
    assert_error(&r, 404, "resource_missing");
    assert!(!r.headers.contains_key("set-cookie"));
}

/// Every integer query parameter of every list, with values outside any range it takes.
async fn integer_query_values_out_of_range_are_400(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let lists = [
        "/api/v1/customers",
        "/api/v1/invoices",
        "/api/v1/quotations",
        "/api/v1/payments",
        "/api/v1/events",
        "/api/v1/products",
        "/api/v1/webhooks",
        "/api/v1/webhooks/1/deliveries",
        "/api/v1/payment-requests",
        "/v1/payment-requests",
    ];
    let mut cases: Vec<(&str, &str)> = Vec::new();
    for list in lists {
        cases.push((list, "page"));
        cases.push((list, "per_page"));
    }
    for list in ["/api/v1/invoices", "/api/v1/quotations", "/api/v1/payments"] {
        cases.push((list, "customer_id"));
    }
    cases.push(("/api/v1/payments", "invoice_id"));
    cases.push(("/api/v1/payments", "amount_min"));
    let beyond_every_range = [
        "-9223372036854775808",
        "-9223372036854775809",
        "9223372036854775808",
        "18446744073709551616",
        "99999999999999999999999999999999",
        "-99999999999999999999999999999999",
    ];
    for (list, param) in cases {
        let mut bad: Vec<&str> = beyond_every_range.to_vec();
        if param == "amount_min" {
            bad.extend([
                "9223372036854775807",
                "1000000000000001",
                "-1000000000000001",
            ]);
        } else {
            bad.extend(["-1", "0"]);
        }
        if param == "page" || param == "per_page" {
            bad.push("4294967296");
        }
        for value in bad {
            let r = send(&app, h.req(Method::GET, &format!("{list}?{param}={value}"))).await;
            assert_error(&r, 400, "invalid_parameter");
            assert_eq!(r.body["error"]["param"], param, "{list}?{param}={value}");
        }
    }
    for ok in [
        "/api/v1/payments?amount_min=-1000000000000000",
        "/api/v1/payments?amount_min=1000000000000000",
        "/api/v1/payments?customer_id=9223372036854775807&invoice_id=9223372036854775807",
        "/api/v1/invoices?customer_id=9223372036854775807",
    ] {
        let r = send(&app, h.req(Method::GET, ok)).await;
        assert_eq!(r.status, 200, "{ok}: {}", r.body);
    }
    // A path id outside the positive 64-bit integers names nothing.
    for resource in [
        "customers",
        "invoices",
        "quotations",
        "payments",
        "events",
        "products",
        "webhooks",
    ] {
        for id in [
            "-9223372036854775808",
            "9223372036854775808",
            "9223372036854775807",
            "0",
            "-1",
            "99999999999999999999999999",
        ] {
            let r = send(
                &app,
                h.req(Method::GET, &format!("/api/v1/{resource}/{id}")),
            )
            .await;
            assert_error(&r, 404, "resource_missing");
        }
    }
}

/// PostgreSQL refuses NUL in text: it must be refused before it gets there, on both backends.
async fn nul_in_query_values_and_tokens(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    for (path, param) in [
        ("/api/v1/customers?email=a%00b@example.com", "email"),
        ("/api/v1/customers?email=a%0ab@example.com", "email"),
        ("/api/v1/invoices?status=sent%00", "status"),
        ("/api/v1/events?type=%00", "type"),
    ] {
        let r = send(&app, h.req(Method::GET, path)).await;
        assert_error(&r, 400, "invalid_parameter");
        assert_eq!(r.body["error"]["param"], param, "{path}");
    }
    for page in [
        "/invoice/INV-2026-000001?token=a%00b",
        "/quote/QUO-2026-000001?token=a%00b",
        "/invoice/INV%00?token=abc",
    ] {
        let r = send(&app, h.anonymous(Method::GET, page)).await;
        assert_error(&r, 404, "resource_missing");
    }
    for action in [
        "/invoice/INV-2026-000001/payments",
        "/quote/QUO-2026-000001/accept",
        "/quote/QUO-2026-000001/decline",
    ] {
        let post = h
            .anonymous(Method::POST, action)
            .insert_header(("content-type", "application/x-www-form-urlencoded"))
            .set_payload("token=a%00b&amount=1&reference=x");
        let r = send(&app, post).await;
        assert_error(&r, 404, "resource_missing");
    }
}

/// SPEC §3: the pages' forms take at most 16 KiB (they are read with the stall deadline too).
async fn page_forms_are_bounded(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let big = format!("token=abc&reason={}", "x".repeat(16 * 1024));
    let post = h
        .anonymous(Method::POST, "/quote/QUO-2026-000001/decline")
        .insert_header(("content-type", "application/x-www-form-urlencoded"))
        .set_payload(big);
    assert_error(&send(&app, post).await, 413, "payload_too_large");
}

/// Control characters and bidirectional overrides are refused in every text of a body, keys
/// included, naming the field; line breaks and tabs are text. Nothing refused is stored.
async fn control_and_bidi_characters_are_refused_in_bodies(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let create = |body: Value| json(h.req(Method::POST, "/api/v1/customers"), &body);
    let cases = [
        (
            json!({"name": "Ada\u{202e}fdp.exe", "email": "a@example.com"}),
            "name",
        ),
        (
            json!({"name": "Ada", "email": "a@example.com", "address": {"line1": "x\u{85}"}}),
            "address.line1",
        ),
        (
            json!({"name": "Ada", "email": "a@example.com", "metadata": {"k\u{7}": "v"}}),
            "metadata.k\u{7}",
        ),
        (
            json!({"name": "Ada", "email": "a@example.com", "metadata": {"k": "\u{1b}[31m"}}),
            "metadata.k",
        ),
    ];
    for (body, param) in cases {
        let r = send(&app, create(body)).await;
        assert_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["details"][0]["param"], param, "{}", r.body);
        assert_eq!(
            r.body["error"]["details"][0]["message"],
            "must not contain control characters"
        );
    }
    let list = send(&app, h.req(Method::GET, "/api/v1/customers")).await;
    assert_eq!(list.body["total"], 0, "nothing refused was stored");
    let kept = "Rue de l'\u{c9}glise 1\r\n\tB\u{e2}timent \u{5d0}";
    let body = json!({"name": "Ada", "email": "a@example.com", "address": {"line1": kept}});
    let r = send(&app, create(body)).await;
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.body["address"]["line1"], kept);
}

/// Wide characters where a VAT ID's country prefix goes are a 422 naming the field, not a
/// panic (the first two bytes end inside a character); as a `tax_id`, which documents also
/// read as a possible VAT ID, they are stored and the invoice's PDF renders.
async fn wide_characters_in_tax_identifiers(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    for vat_id in ["\u{cffca}x", "é123456789"] {
        let body = json!({"name": "Ada", "email": "a@example.com", "vat_id": vat_id});
        let r = send(&app, json(h.req(Method::POST, "/api/v1/customers"), &body)).await;
        assert_error(&r, 422, "validation_failed");
        assert_eq!(
            r.body["error"]["details"][0]["param"], "vat_id",
            "{}",
            r.body
        );
        let r = send(&app, json(h.req(Method::PATCH, "/api/v1/account"), &body)).await;
        assert_error(&r, 422, "validation_failed");
    }
    let body = json!({"tax_id": "\u{cffca}x"});
    let r = send(&app, json(h.req(Method::PATCH, "/api/v1/account"), &body)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let invoice = json!({"customer": {"name": "Ada", "email": "a@example.com", "tax_id": "é1"},
        "currency": "EUR", "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 100}]});
    let r = send(
        &app,
        json(h.req(Method::POST, "/api/v1/invoices"), &invoice),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let pdf = send(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/invoices/{}/pdf", r.body["id"]),
        ),
    )
    .await;
    assert_eq!(pdf.status, 200);
}

http_tests!(
    wide_characters_in_tax_identifiers,
    control_and_bidi_characters_are_refused_in_bodies,
    page_forms_are_bounded,
    crlf_in_a_page_path_never_reaches_a_header,
    integer_query_values_out_of_range_are_400,
    nul_in_query_values_and_tokens,
);
