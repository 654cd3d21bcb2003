//! SPEC §10 through the real app: every quotation route with its status codes, the public page
//! with its Accept and Decline forms, expiry on a late accept, conversion (also concurrent), and
//! 403 for another tenant on every route.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use invoicing_domain::tenant::Environment;
use invoicing_http::build_app;
use serde_json::{json, Value};

fn quote_body(email: &str) -> Value {
    json!({
        "customer": {"name": "Grace", "email": email},
        "line_items": [
            {"description": "Design", "quantity": "1.5", "unit_price_cents": 333, "tax_rate": "19"},
            {"description": "Build", "quantity": 2, "unit_price_cents": 1000}
        ],
        "notes": "Valid for a month"
    })
}

fn page_path(q: &Value) -> String {
    let url = q["public_url"].as_str().unwrap();
    let number = q["quote_number"].as_str().unwrap();
    assert!(
        url.starts_with(&format!("{PUBLIC_URL}/quote/{number}?token=")),
        "{url}"
    );
    url.strip_prefix(PUBLIC_URL).unwrap().to_string()
}

fn token_of(q: &Value) -> String {
    page_path(q).split("token=").nth(1).unwrap().to_string()
}

/// A form post from the page, as a browser sends it.
fn form(h: &Harness, path: &str, fields: &str) -> actix_web::test::TestRequest {
    h.anonymous(Method::POST, path)
        .insert_header(("content-type", "application/x-www-form-urlencoded"))
        .insert_header(("user-agent", "TestBrowser/1.0"))
        .set_payload(fields.to_string())
}

async fn page_html<S, B>(app: &S, h: &Harness, path: &str) -> (u16, String)
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let r = send_raw(app, h.anonymous(Method::GET, path)).await;
    (r.status, r.text())
}

async fn create_send_accept_convert(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let r = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/quotations"),
            &quote_body("grace@example.com"),
        ),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    assert_api_headers(&r);
    let q = r.body;
    assert_eq!(q["status"], "draft");
    assert_eq!(q["livemode"], false);
    assert_eq!(
        (
            q["subtotal_cents"].as_i64(),
            q["tax_cents"].as_i64(),
            q["total_cents"].as_i64()
        ),
        (Some(2500), Some(95), Some(2595))
    );
    let number = q["quote_number"].as_str().unwrap();
    assert!(
        number.starts_with("QUO-") && number.ends_with("-000001"),
        "{number}"
    );
    let issue =
        chrono::NaiveDate::parse_from_str(q["issue_date"].as_str().unwrap(), "%Y-%m-%d").unwrap();
    assert_eq!(
        q["valid_until"].as_str().unwrap(),
        (issue + chrono::Duration::days(30)).to_string(),
        "valid for 30 days by default"
    );
    page_path(&q);
    let id = q["id"].as_i64().unwrap();
    let customer_id = q["customer_id"].as_i64().unwrap();

    // Drafts may change their lines; totals follow.
    let r = send(
        &app,
        json(
            h.req(Method::PATCH, &format!("/api/v1/quotations/{id}")),
            &json!({"line_items": [{"description": "Design", "quantity": 3, "unit_price_cents": 1000, "tax_rate": 10}]}),
        ),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["total_cents"], 3300);

    let r = send(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/quotations?status=draft&customer_id={customer_id}"),
        ),
    )
    .await;
    assert_eq!(
        (r.body["total"].as_i64(), r.body["data"][0]["id"].as_i64()),
        (Some(1), Some(id))
    );
    assert_eq!(
        send(&app, h.req(Method::GET, "/api/v1/quotations?status=sent"))
            .await
            .body["total"],
        0
    );

    // The interface's PATCH form of send.
    let r = send(
        &app,
        h.req(Method::PATCH, &format!("/api/v1/quotations/{id}/send")),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["status"], "sent");
    assert!(r.body["sent_at"].is_string());
    assert_error(
        &send(
            &app,
            h.req(Method::POST, &format!("/api/v1/quotations/{id}/send")),
        )
        .await,
        409,
        "invalid_state_transition",
    );
    assert_error(
        &send(
            &app,
            json(
                h.req(Method::PATCH, &format!("/api/v1/quotations/{id}")),
                &json!({"currency": "USD"}),
            ),
        )
        .await,
        409,
        "invalid_state_transition",
    );
    let r = send(
        &app,
        json(
            h.req(Method::PATCH, &format!("/api/v1/quotations/{id}")),
            &json!({"notes": "Updated"}),
        ),
    )
    .await;
    assert_eq!(
        (r.status.as_u16(), r.body["notes"].as_str()),
        (200, Some("Updated"))
    );
    assert_error(
        &send(
            &app,
            h.req(Method::POST, &format!("/api/v1/quotations/{id}/convert")),
        )
        .await,
        409,
        "invalid_state_transition",
    );
    assert_error(
        &send(
            &app,
            h.req(Method::DELETE, &format!("/api/v1/quotations/{id}")),
        )
        .await,
        409,
        "invalid_state_transition",
    );

    // Accept on the prospect's behalf, with no body at all.
    let r = send(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{id}/accept")),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["status"], "accepted");
    assert!(r.body["accepted_at"].is_string());
    assert_eq!(r.body["accepted_from_ip"], "127.0.0.1");
    assert_error(
        &send(
            &app,
            h.req(Method::POST, &format!("/api/v1/quotations/{id}/reject")),
        )
        .await,
        409,
        "invalid_state_transition",
    );

    let r = send(
        &app,
        json(
            h.req(Method::POST, &format!("/api/v1/quotations/{id}/convert")),
            &json!({"payment_terms": "net_14"}),
        ),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let result = r.body;
    let keys: Vec<&String> = result.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "invoice_id",
            "invoice_number",
            "invoice_url",
            "object",
            "quotation_id",
            "status"
        ],
        "exactly the interface's conversion result, with its `object` (SPEC §4)"
    );
    assert_eq!(result["object"], "quotation_conversion");
    assert_eq!(
        (result["quotation_id"].as_i64(), result["status"].as_str()),
        (Some(id), Some("converted"))
    );
    let invoice_id = result["invoice_id"].as_i64().unwrap();
    let inv = send(
        &app,
        h.req(Method::GET, &format!("/api/v1/invoices/{invoice_id}")),
    )
    .await
    .body;
    assert_eq!(inv["status"], "draft");
    assert_eq!(inv["quotation_id"], id);
    assert_eq!(inv["customer_id"], customer_id);
    assert_eq!(inv["total_cents"], 3300);
    assert_eq!(inv["line_items"][0]["description"], "Design");
    assert_eq!(inv["payment_terms"], "net_14");
    assert_eq!(inv["invoice_number"], result["invoice_number"]);
    assert_eq!(result["invoice_url"], inv["payment_link"]);
    let r = send(
        &app,
        h.req(Method::GET, &format!("/api/v1/quotations/{id}")),
    )
    .await;
    assert_eq!(
        (r.body["status"].as_str(), r.body["invoice_id"].as_i64()),
        (Some("converted"), Some(invoice_id))
    );

    assert_error(
        &send(
            &app,
            h.req(Method::POST, &format!("/api/v1/quotations/{id}/convert")),
        )
        .await,
        409,
        "invalid_state_transition",
    );
    assert_eq!(
        send(&app, h.req(Method::GET, "/api/v1/invoices"))
            .await
            .body["total"],
        1
    );
    for (t, n) in [
        ("quotation.created", 1),
        ("quotation.updated", 2),
        ("quotation.sent", 1),
        ("quotation.accepted", 1),
        ("quotation.converted", 1),
        ("invoice.created", 1),
    ] {
        let r = send(
            &app,
            h.req(Method::GET, &format!("/api/v1/events?type={t}")),
        )
        .await;
        assert_eq!(r.body["total"], n, "{t}");
    }
    let converted = send(
        &app,
        h.req(Method::GET, "/api/v1/events?type=quotation.converted"),
    )
    .await
    .body;
    assert_eq!(
        converted["data"][0]["data"]["object"]["status"],
        "converted"
    );
}

async fn reject_delete_and_bodies(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let create = |email: &'static str| {
        json(
            h.req(Method::POST, "/api/v1/quotations"),
            &quote_body(email),
        )
    };
    let a = send(&app, create("a@example.com")).await.body;
    let b = send(&app, create("b@example.com")).await.body;
    let (a_id, b_id) = (a["id"].as_i64().unwrap(), b["id"].as_i64().unwrap());
    assert!(b["quote_number"].as_str().unwrap().ends_with("-000002"));

    // A draft can be deleted; then it is gone.
    let r = send(
        &app,
        h.req(Method::DELETE, &format!("/api/v1/quotations/{b_id}")),
    )
    .await;
    assert_eq!(r.status, 204);
    assert_error(
        &send(
            &app,
            h.req(Method::GET, &format!("/api/v1/quotations/{b_id}")),
        )
        .await,
        404,
        "resource_missing",
    );
    assert_eq!(
        send(
            &app,
            h.req(Method::GET, "/api/v1/events?type=quotation.deleted")
        )
        .await
        .body["total"],
        1
    );

    assert_error(
        &send(
            &app,
            h.req(Method::POST, &format!("/api/v1/quotations/{a_id}/accept")),
        )
        .await,
        409,
        "invalid_state_transition",
    );
    assert_eq!(
        send(
            &app,
            h.req(Method::POST, &format!("/api/v1/quotations/{a_id}/send"))
        )
        .await
        .status,
        200
    );
    // A body that is sent must be JSON and well-formed.
    let r = send(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{a_id}/reject"))
            .insert_header(("content-type", "text/plain"))
            .set_payload("no"),
    )
    .await;
    assert_error(&r, 415, "unsupported_media_type");
    assert_error(
        &send(
            &app,
            json(
                h.req(Method::POST, &format!("/api/v1/quotations/{a_id}/reject")),
                &json!({"why": "x"}),
            ),
        )
        .await,
        400,
        "invalid_parameter",
    );
    let r = send(
        &app,
        json(
            h.req(Method::POST, &format!("/api/v1/quotations/{a_id}/reject")),
            &json!({"reason": "x".repeat(1001)}),
        ),
    )
    .await;
    assert_error(&r, 422, "validation_failed");
    assert_eq!(r.body["error"]["param"], "reason");
    let r = send(
        &app,
        json(
            h.req(Method::POST, &format!("/api/v1/quotations/{a_id}/reject")),
            &json!({"reason": "Too expensive"}),
        ),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        (
            r.body["status"].as_str(),
            r.body["rejection_reason"].as_str()
        ),
        (Some("rejected"), Some("Too expensive"))
    );
    assert!(r.body["rejected_at"].is_string());
    for action in ["accept", "convert", "send"] {
        assert_error(
            &send(
                &app,
                h.req(Method::POST, &format!("/api/v1/quotations/{a_id}/{action}")),
            )
            .await,
            409,
            "invalid_state_transition",
        );
    }
    assert_error(
        &send(
            &app,
            h.req(Method::DELETE, &format!("/api/v1/quotations/{a_id}")),
        )
        .await,
        409,
        "invalid_state_transition",
    );
    for missing in ["GET", "DELETE"] {
        let m = Method::from_bytes(missing.as_bytes()).unwrap();
        assert_error(
            &send(&app, h.req(m, "/api/v1/quotations/999999")).await,
            404,
            "resource_missing",
        );
    }
    for action in ["send", "accept", "reject", "convert"] {
        assert_error(
            &send(
                &app,
                h.req(Method::POST, &format!("/api/v1/quotations/999999/{action}")),
            )
            .await,
            404,
            "resource_missing",
        );
    }
    assert_error(
        &send(&app, h.req(Method::GET, "/api/v1/quotations/abc")).await,
        404,
        "resource_missing",
    );
    assert_error(
        &send(
            &app,
            h.req(Method::PUT, &format!("/api/v1/quotations/{a_id}")),
        )
        .await,
        405,
        "method_not_allowed",
    );
}

async fn validation_is_reported_field_by_field(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let r = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/quotations"),
            &json!({"customer_id": 424242, "issue_date": "2026-03-10", "valid_until": "2026-03-01",
                    "currency": "EURO", "line_items": [{"description": "", "quantity": 0, "unit_price_cents": 1}]}),
        ),
    )
    .await;
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
            "valid_until",
            "line_items[0].description",
            "line_items[0].quantity"
        ]
    );
    let r = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/quotations"),
            &json!({"customer_id": 424242, "line_items": [{"description": "x", "quantity": 1, "unit_price_cents": 1}]}),
        ),
    )
    .await;
    assert_error(&r, 422, "validation_failed");
    assert_eq!(r.body["error"]["param"], "customer_id");
    assert_error(
        &send(&app, h.req(Method::GET, "/api/v1/quotations?status=won")).await,
        400,
        "invalid_parameter",
    );
    assert_error(
        &send(&app, h.req(Method::GET, "/api/v1/quotations?per_page=101")).await,
        400,
        "invalid_parameter",
    );
    assert_error(
        &send(
            &app,
            h.req(Method::GET, "/api/v1/quotations?created_after=2026-01-01"),
        )
        .await,
        400,
        "invalid_parameter",
    );
    let q = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/quotations"),
            &quote_body("v@example.com"),
        ),
    )
    .await
    .body;
    let id = q["id"].as_i64().unwrap();
    send(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{id}/send")),
    )
    .await;
    send(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{id}/accept")),
    )
    .await;
    let r = send(
        &app,
        json(
            h.req(Method::POST, &format!("/api/v1/quotations/{id}/convert")),
            &json!({"due_date": "2000-01-01"}),
        ),
    )
    .await;
    assert_error(&r, 422, "validation_failed");
    assert_eq!(
        send(
            &app,
            h.req(Method::GET, &format!("/api/v1/quotations/{id}"))
        )
        .await
        .body["status"],
        "accepted",
        "a refused convert changed nothing"
    );
    assert_eq!(
        send(&app, h.req(Method::GET, "/api/v1/invoices"))
            .await
            .body["total"],
        0
    );
}

async fn a_late_accept_expires_the_quotation(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let mut body = quote_body("late@example.com");
    body["issue_date"] = json!("2020-01-01");
    body["valid_until"] = json!("2020-01-31");
    let q = send(&app, json(h.req(Method::POST, "/api/v1/quotations"), &body))
        .await
        .body;
    let id = q["id"].as_i64().unwrap();
    send(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{id}/send")),
    )
    .await;
    // Before any sweep, the page already offers no answer: it says the quotation has lapsed.
    let (status, html) = page_html(&app, &h, &page_path(&q)).await;
    assert_eq!(status, 200);
    assert!(
        html.contains("has expired") && !html.contains("id=\"accept\""),
        "{html}"
    );
    let r = send(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{id}/accept")),
    )
    .await;
    assert_error(&r, 409, "invalid_state_transition");
    assert!(
        r.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2020-01-31"),
        "{}",
        r.body
    );
    let r = send(
        &app,
        h.req(Method::GET, &format!("/api/v1/quotations/{id}")),
    )
    .await;
    assert_eq!(r.body["status"], "expired");
    assert!(r.body["expired_at"].is_string());
    assert_eq!(
        send(
            &app,
            h.req(Method::GET, "/api/v1/events?type=quotation.expired")
        )
        .await
        .body["total"],
        1
    );
    // On the page, the prospect learns why.
    let (status, html) = page_html(&app, &h, &page_path(&q)).await;
    assert_eq!(status, 200);
    assert!(
        html.contains("has expired") && !html.contains("id=\"accept\""),
        "{html}"
    );
}

async fn the_page_accepts_and_declines(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let q = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/quotations"),
            &quote_body("p@example.com"),
        ),
    )
    .await
    .body;
    let id = q["id"].as_i64().unwrap();
    let path = page_path(&q);
    let number = q["quote_number"].as_str().unwrap().to_string();
    let token = token_of(&q);
    assert_error(
        &send(&app, h.anonymous(Method::GET, &path)).await,
        404,
        "resource_missing",
    );
    assert_error(
        &send(
            &app,
            form(
                &h,
                &format!("/quote/{number}/accept"),
                &format!("token={token}"),
            ),
        )
        .await,
        404,
        "resource_missing",
    );
    send(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{id}/send")),
    )
    .await;

    let (status, html) = page_html(&app, &h, &path).await;
    assert_eq!(status, 200);
    assert!(html.contains(&format!("Quotation {number}")), "{html}");
    assert!(html.contains("€25.95"), "totals formatted for EUR: {html}");
    assert!(
        html.contains("id=\"accept\"") && html.contains("id=\"decline\""),
        "both forms while it awaits an answer"
    );
    assert!(!html.contains("<script"), "no JavaScript needed");
    assert_eq!(
        send(
            &app,
            h.req(Method::GET, &format!("/api/v1/quotations/{id}"))
        )
        .await
        .body["status"],
        "viewed"
    );
    page_html(&app, &h, &path).await;
    assert_eq!(
        send(
            &app,
            h.req(Method::GET, "/api/v1/events?type=quotation.viewed")
        )
        .await
        .body["total"],
        1,
        "only the first view"
    );

    for bad in [
        format!("/quote/{number}?token=forged"),
        format!("/quote/{number}"),
        format!("/quote/QUO-1999-000001?token={token}"),
    ] {
        assert_error(
            &send(&app, h.anonymous(Method::GET, &bad)).await,
            404,
            "resource_missing",
        );
    }
    assert_error(
        &send(
            &app,
            form(
                &h,
                &format!("/quote/{number}/accept"),
                "token=forged&name=Mallory",
            ),
        )
        .await,
        404,
        "resource_missing",
    );
    assert_error(
        &send(
            &app,
            form(&h, &format!("/quote/{number}/accept"), "name=Mallory"),
        )
        .await,
        404,
        "resource_missing",
    );
    // Text from a form follows the API's rules: no NUL characters.
    for (action, field) in [("accept", "name"), ("decline", "reason")] {
        let r = send(
            &app,
            form(
                &h,
                &format!("/quote/{number}/{action}"),
                &format!("token={token}&{field}=a%00b"),
            ),
        )
        .await;
        assert_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["param"], field);
    }
    let r = send(
        &app,
        h.anonymous(Method::POST, &format!("/quote/{number}/accept"))
            .insert_header(("content-type", "application/json"))
            .set_payload("{}"),
    )
    .await;
    assert_error(&r, 415, "unsupported_media_type");
    assert!(
        r.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("x-www-form-urlencoded"),
        "{}",
        r.body
    );
    assert_eq!(
        send(
            &app,
            h.req(Method::GET, &format!("/api/v1/quotations/{id}"))
        )
        .await
        .body["status"],
        "viewed",
        "refused posts changed nothing"
    );

    let r = send(
        &app,
        form(
            &h,
            &format!("/quote/{number}/accept"),
            &format!("token={token}&name=Grace+Hopper"),
        ),
    )
    .await;
    assert_eq!(r.status, 303);
    assert_eq!(r.header("location"), path, "back to the page");
    let got = send(
        &app,
        h.req(Method::GET, &format!("/api/v1/quotations/{id}")),
    )
    .await
    .body;
    assert_eq!(got["status"], "accepted");
    assert_eq!(got["accepted_by_name"], "Grace Hopper");
    assert_eq!(got["accepted_user_agent"], "TestBrowser/1.0");
    assert_eq!(got["accepted_from_ip"], "127.0.0.1");
    let (_, html) = page_html(&app, &h, &path).await;
    assert!(
        html.contains("id=\"confirmation\"")
            && html.contains("You accepted this quotation as Grace Hopper"),
        "{html}"
    );
    assert!(!html.contains("id=\"accept\""), "no buttons once answered");
    // Posting again (a reload, a second tab) changes nothing and lands on the page.
    let r = send(
        &app,
        form(
            &h,
            &format!("/quote/{number}/decline"),
            &format!("token={token}&reason=changed+my+mind"),
        ),
    )
    .await;
    assert_eq!(r.status, 303);
    assert_eq!(
        send(
            &app,
            h.req(Method::GET, &format!("/api/v1/quotations/{id}"))
        )
        .await
        .body["status"],
        "accepted"
    );

    let q2 = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/quotations"),
            &quote_body("p2@example.com"),
        ),
    )
    .await
    .body;
    let id2 = q2["id"].as_i64().unwrap();
    send(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{id2}/send")),
    )
    .await;
    let number2 = q2["quote_number"].as_str().unwrap();
    let r = send(
        &app,
        form(
            &h,
            &format!("/quote/{number2}/decline"),
            &format!("token={}&reason=Too+slow", token_of(&q2)),
        ),
    )
    .await;
    assert_eq!(r.status, 303);
    let got = send(
        &app,
        h.req(Method::GET, &format!("/api/v1/quotations/{id2}")),
    )
    .await
    .body;
    assert_eq!(
        (got["status"].as_str(), got["rejection_reason"].as_str()),
        (Some("rejected"), Some("Too slow"))
    );
    let (_, html) = page_html(&app, &h, &page_path(&q2)).await;
    assert!(html.contains("You declined this quotation"), "{html}");
}

async fn concurrent_converts_make_one_invoice(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let q = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/quotations"),
            &quote_body("c@example.com"),
        ),
    )
    .await
    .body;
    let id = q["id"].as_i64().unwrap();
    send(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{id}/send")),
    )
    .await;
    send(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{id}/accept")),
    )
    .await;
    let path = format!("/api/v1/quotations/{id}/convert");
    let replies =
        futures_util::future::join_all((0..6).map(|_| send(&app, h.req(Method::POST, &path))))
            .await;
    let mut statuses: Vec<u16> = replies.iter().map(|r| r.status.as_u16()).collect();
    statuses.sort();
    assert_eq!(
        statuses,
        [201, 409, 409, 409, 409, 409],
        "{:?}",
        replies.iter().map(|r| &r.body).collect::<Vec<_>>()
    );
    let invoices = send(&app, h.req(Method::GET, "/api/v1/invoices"))
        .await
        .body;
    assert_eq!(invoices["total"], 1);
    assert_eq!(invoices["data"][0]["quotation_id"], id);
}

async fn other_tenants_get_403_on_every_route(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let q = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/quotations"),
            &quote_body("t@example.com"),
        ),
    )
    .await
    .body;
    let id = q["id"].as_i64().unwrap();
    let foreign = h.stranger_key("Other");
    let live = h.live_key();
    for key in [&foreign, &live] {
        let routes = [
            (Method::GET, format!("/api/v1/quotations/{id}"), None),
            (
                Method::PATCH,
                format!("/api/v1/quotations/{id}"),
                Some(json!({"notes": "x"})),
            ),
            (Method::DELETE, format!("/api/v1/quotations/{id}"), None),
            (Method::PATCH, format!("/api/v1/quotations/{id}/send"), None),
            (Method::POST, format!("/api/v1/quotations/{id}/send"), None),
            (
                Method::POST,
                format!("/api/v1/quotations/{id}/accept"),
                None,
            ),
            (
                Method::POST,
                format!("/api/v1/quotations/{id}/reject"),
                None,
            ),
            (
                Method::POST,
                format!("/api/v1/quotations/{id}/convert"),
                None,
            ),
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
            send(&app, h.req_as(key, Method::GET, "/api/v1/quotations"))
                .await
                .body["total"],
            0
        );
        // A customer of another tenant cannot be named either.
        let r = send(
            &app,
            json(
                h.req_as(key, Method::POST, "/api/v1/quotations"),
                &json!({"customer_id": q["customer_id"], "line_items": [{"description": "x", "quantity": 1, "unit_price_cents": 1}]}),
            ),
        )
        .await;
        assert_error(&r, 422, "validation_failed");
    }
    let r = send(
        &app,
        h.req(Method::GET, &format!("/api/v1/quotations/{id}")),
    )
    .await;
    assert_eq!(
        (r.body["status"].as_str(), r.body["notes"].as_str()),
        (Some("draft"), Some("Valid for a month")),
        "refused writes changed nothing"
    );

    let reader = h.make_key(
        h.account,
        Environment::Test,
        "quotations:read",
        GENEROUS,
        None,
    );
    assert_eq!(
        send(&app, h.req_as(&reader, Method::GET, "/api/v1/quotations"))
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
                &format!("/api/v1/quotations/{id}/send"),
            ),
        )
        .await,
        403,
        "insufficient_permissions",
    );
    // Converting creates an invoice, which a quotations-only key may not do.
    let quoter = h.make_key(
        h.account,
        Environment::Test,
        "quotations:write",
        GENEROUS,
        None,
    );
    send(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{id}/send")),
    )
    .await;
    send(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{id}/accept")),
    )
    .await;
    assert_error(
        &send(
            &app,
            h.req_as(
                &quoter,
                Method::POST,
                &format!("/api/v1/quotations/{id}/convert"),
            ),
        )
        .await,
        403,
        "insufficient_permissions",
    );
}

http_tests!(
    create_send_accept_convert,
    reject_delete_and_bodies,
    validation_is_reported_field_by_field,
    a_late_accept_expires_the_quotation,
    the_page_accepts_and_declines,
    concurrent_converts_make_one_invoice,
    other_tenants_get_403_on_every_route,
    the_first_view_of_an_expired_quotation_is_recorded,
);

/// A prospect who first opens a quotation after it expired unseen leaves `viewed_at` and one
/// `quotation.viewed`; it stays expired, and a second view records nothing.
async fn the_first_view_of_an_expired_quotation_is_recorded(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let mut body = quote_body("unseen@example.com");
    body["issue_date"] = json!("2020-01-01");
    body["valid_until"] = json!("2020-01-31");
    let q = call!(&app, h.req(Method::POST, "/api/v1/quotations"), body).body;
    let path = format!("/api/v1/quotations/{}", q["id"]);
    assert_eq!(
        call!(&app, h.req(Method::POST, &format!("{path}/send"))).status,
        200
    );
    // A late accept (here by the API) expires it before anyone opened it.
    let r = call!(&app, h.req(Method::POST, &format!("{path}/accept")));
    assert_error(&r, 409, "invalid_state_transition");
    let expired = call!(&app, h.req(Method::GET, &path)).body;
    assert_eq!(expired["status"], "expired");
    assert!(expired["viewed_at"].is_null());
    let viewed = || h.req(Method::GET, "/api/v1/events?type=quotation.viewed");
    assert_eq!(call!(&app, viewed()).body["total"], 0);

    assert_eq!(page_html(&app, &h, &page_path(&q)).await.0, 200);
    let after = call!(&app, h.req(Method::GET, &path)).body;
    assert_eq!(after["status"], "expired", "it stays expired");
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

    assert_eq!(page_html(&app, &h, &page_path(&q)).await.0, 200);
    assert_eq!(
        call!(&app, viewed()).body["total"],
        1,
        "a second view: none"
    );
}
