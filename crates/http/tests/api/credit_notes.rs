//! SPEC §19 through the real app: credit notes by amount, by lines and in full, the invoice's
//! figures and status afterwards, 405 for changes, the PDF, scopes and tenants.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use invoicing_domain::tenant::Environment;
use invoicing_http::build_app;
use serde_json::{json, Value};

fn invoice_body() -> Value {
    json!({
        "customer": {"name": "Ada", "email": "ada@example.com"},
        "line_items": [
            {"description": "Design", "quantity": "1", "unit_price_cents": 10000, "tax_rate": "19"},
            {"description": "Books", "quantity": "1", "unit_price_cents": 10000, "tax_rate": "7"}
        ]
    })
}

async fn credit_notes_through_the_api(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let inv = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        invoice_body()
    );
    let id = inv.body["id"].as_i64().unwrap();
    let number = inv.body["invoice_number"].as_str().unwrap().to_string();
    let path = format!("/api/v1/invoices/{id}/credit_notes");
    let r = call!(&app, h.req(Method::POST, &path), json!({"reason": "other"}));
    assert_error(&r, 409, "invalid_state_transition");
    call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/send"))
    );

    let r = call!(
        &app,
        h.req(Method::POST, &path),
        json!({"reason": "order_change", "amount_cents": 10000})
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let note = r.body.clone();
    assert_eq!(note["object"], "credit_note");
    assert_eq!(note["invoice_id"], id);
    assert_eq!(note["reason"], "order_change");
    assert_eq!(note["total_cents"], 10000);
    assert_eq!(note["refund_due_cents"], 0);
    assert_eq!(note["line_items"].as_array().unwrap().len(), 2);
    assert!(note["credit_note_number"]
        .as_str()
        .unwrap()
        .starts_with("CN-"));
    let inv = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")));
    assert_eq!(inv.body["amount_credited_cents"], 10000);
    assert_eq!(inv.body["amount_due_cents"], 12600);
    // The invoice's page and PDF list it.
    let cn = note["credit_note_number"].as_str().unwrap().to_string();
    let link = inv.body["payment_link"].as_str().unwrap();
    let page_path = link.strip_prefix(PUBLIC_URL).unwrap().to_string();
    let page = send_raw(&app, h.anonymous(Method::GET, &page_path)).await;
    assert_eq!(page.status, 200);
    let html = page.text();
    assert!(
        html.contains("id=\"credit-notes\"") && html.contains(&cn),
        "{html}"
    );
    assert!(html.contains("id=\"amount-credited\""), "{html}");
    let inv_pdf = send_raw(
        &app,
        h.req(Method::GET, &format!("/api/v1/invoices/{id}/pdf")),
    )
    .await;
    let words = pdf_words(&inv_pdf.bytes);
    assert!(words.contains("Amount credited"), "{words}");
    assert!(words.contains(&format!("Credit note {cn}")), "{words}");

    // Refusals: both forms at once, an unknown reason, more than is left, a missing invoice.
    let cases = [
        (
            json!({"reason": "other", "amount_cents": 1, "line_items": [{"description": "x", "quantity": "1", "unit_price_cents": 1}]}),
            422,
            "validation_failed",
        ),
        (json!({"reason": "whim"}), 422, "validation_failed"),
        (json!({"amount_cents": 5}), 422, "validation_failed"),
        (
            json!({"reason": "other", "amount_cents": 12601}),
            422,
            "validation_failed",
        ),
        (
            json!({"reason": "other", "amount_cents": 0}),
            422,
            "validation_failed",
        ),
        (
            json!({"reason": "other", "refund_now": true}),
            400,
            "invalid_parameter",
        ),
    ];
    for (body, status, code) in cases {
        let r = call!(&app, h.req(Method::POST, &path), body);
        assert_error(&r, status, code);
    }
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices/999999/credit_notes"),
        json!({"reason": "other"})
    );
    assert_error(&r, 404, "resource_missing");
    // Without SMTP, asking for mail changes nothing.
    let r = call!(
        &app,
        h.req(Method::POST, &path),
        json!({"reason": "other", "email": {}})
    );
    assert_error(&r, 422, "email_not_configured");

    // The rest, with nothing paid: the invoice is cancelled.
    let r = call!(
        &app,
        h.req(Method::POST, &path),
        json!({"reason": "duplicate"})
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.body["total_cents"], 12600);
    let inv = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")));
    assert_eq!(inv.body["status"], "cancelled");
    assert_eq!(inv.body["amount_due_cents"], 0);

    let list = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/credit_notes?invoice_id={id}")
        )
    );
    assert_eq!(list.body["total"], 2);
    let nid = note["id"].as_i64().unwrap();
    let one = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/credit_notes/{nid}"))
    );
    assert_eq!(one.body, note);
    for method in [Method::PATCH, Method::PUT, Method::DELETE] {
        let r = call!(
            &app,
            h.req(method, &format!("/api/v1/credit_notes/{nid}")),
            json!({})
        );
        assert_error(&r, 405, "method_not_allowed");
    }
    let r = call!(&app, h.req(Method::GET, "/api/v1/credit_notes/999999"));
    assert_error(&r, 404, "resource_missing");
    let events = call!(
        &app,
        h.req(Method::GET, "/api/v1/events?type=credit_note.created")
    );
    assert_eq!(events.body["total"], 2);

    let pdf = send_raw(
        &app,
        h.req(Method::GET, &format!("/api/v1/credit_notes/{nid}/pdf")),
    )
    .await;
    assert_eq!(pdf.status, 200);
    assert_eq!(pdf.header("content-type"), "application/pdf");
    let cn = note["credit_note_number"].as_str().unwrap();
    assert_eq!(
        pdf.header("content-disposition"),
        format!("inline; filename=\"{cn}.pdf\"")
    );
    let text = pdf_words(&pdf.bytes);
    assert!(text.contains(cn), "{text}");
    assert!(
        text.contains(&format!("Credit note for invoice {number}")),
        "{text}"
    );
}

async fn scopes_and_tenants(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let inv = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        invoice_body()
    );
    let id = inv.body["id"].as_i64().unwrap();
    call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/send"))
    );
    let path = format!("/api/v1/invoices/{id}/credit_notes");
    let reader = h.make_key(
        h.account,
        Environment::Test,
        "credit_notes:read",
        GENEROUS,
        None,
    );
    let r = call!(
        &app,
        h.req_as(&reader, Method::POST, &path),
        json!({"reason": "other"})
    );
    assert_error(&r, 403, "insufficient_permissions");
    let r = call!(
        &app,
        h.req(Method::POST, &path),
        json!({"reason": "other", "amount_cents": 100})
    );
    let nid = r.body["id"].as_i64().unwrap();
    let r = call!(
        &app,
        h.req_as(&reader, Method::GET, &format!("/api/v1/credit_notes/{nid}"))
    );
    assert_eq!(r.status, 200);

    let stranger = h.stranger_key("Other");
    let live = h.live_key();
    for key in [&stranger, &live] {
        for (method, p) in [
            (Method::GET, format!("/api/v1/credit_notes/{nid}")),
            (Method::GET, format!("/api/v1/credit_notes/{nid}/pdf")),
        ] {
            let r = call!(&app, h.req_as(key, method, &p));
            assert_error(&r, 403, "resource_forbidden");
        }
        let r = call!(
            &app,
            h.req_as(key, Method::POST, &path),
            json!({"reason": "other"})
        );
        assert_error(&r, 403, "resource_forbidden");
        let r = call!(&app, h.req_as(key, Method::GET, "/api/v1/credit_notes"));
        assert_eq!(r.body["total"], 0);
    }
}

http_tests!(credit_notes_through_the_api, scopes_and_tenants);
