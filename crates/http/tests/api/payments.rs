//! SPEC §13 through the real app: every payment route and payment-request route with its status
//! codes, the customer's report on the invoice page, the walk-through of a partial payment
//! until the invoice is paid, and 403 for another tenant on every route.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::{init_service, TestRequest};
use invoicing_domain::tenant::Environment;
use invoicing_http::build_app;
use serde_json::{json, Value};

/// An invoice of 2595 cents (EUR), sent unless `send` is false.
fn invoice_body(email: &str) -> Value {
    json!({
        "customer": {"name": "Ada", "email": email},
        "line_items": [
            {"description": "Consulting", "quantity": 1.5, "unit_price_cents": 333, "tax_rate": 19},
            {"description": "Hosting", "quantity": "2", "unit_price_cents": 1000}
        ]
    })
}

async fn html<S, B>(app: &S, req: TestRequest) -> (u16, String, String)
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let r = send_raw(app, req).await;
    (r.status, r.text(), r.header("location").to_string())
}

macro_rules! sent_invoice {
    ($app:expr, $h:expr, $email:expr) => {{
        let inv = call!(
            $app,
            $h.req(Method::POST, "/api/v1/invoices"),
            invoice_body($email)
        )
        .body;
        let path = format!("/api/v1/invoices/{}/send", inv["id"]);
        assert_eq!(call!($app, $h.req(Method::POST, &path)).status, 200);
        inv
    }};
}

/// The issue's "done means": send an invoice, report a partial payment on its page, verify it
/// through the API, record and verify the rest, and see the invoice paid with `invoice.paid`.
async fn partial_report_then_verified_rest_pays_the_invoice(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let inv = sent_invoice!(&app, h, "ada@example.com");
    let id = inv["id"].as_i64().unwrap();
    let page = page_path(&inv);
    let number = inv["invoice_number"].as_str().unwrap();
    let (status, body, _) = html(&app, h.anonymous(Method::GET, &page)).await;
    assert_eq!(status, 200);
    assert!(body.contains("id=\"report-payment\""), "the form is shown");
    assert!(
        body.contains("value=\"25.95\""),
        "the amount defaults to the amount due"
    );

    let fields = format!("token={}&amount=10.00&reference=TRX+1001", token(&inv));
    let (status, _, location) = html(
        &app,
        form(&h, &format!("/invoice/{number}/payments"), &fields),
    )
    .await;
    assert_eq!(status, 303);
    assert_eq!(location, format!("{page}&reported=1"));
    let (_, thanked, _) = html(&app, h.anonymous(Method::GET, &location)).await;
    assert!(
        thanked.contains("Thank you: your payment report was received."),
        "{thanked}"
    );
    assert!(thanked.contains("TRX 1001") && thanked.contains("Reported, awaiting confirmation"));
    assert!(thanked.contains("€10.00"));

    let r = call!(&app, h.req(Method::GET, "/api/v1/payments?status=pending"));
    assert_eq!(r.status, 200);
    assert_eq!(r.body["total"], 1);
    let reported = r.body["data"][0].clone();
    assert_eq!(
        (
            reported["amount_cents"].as_i64(),
            reported["invoice_id"].as_i64()
        ),
        (Some(1000), Some(id))
    );
    assert_eq!(reported["reference"], "TRX 1001");
    assert_eq!(reported["method"], "bank_transfer");
    let r = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")));
    assert_eq!(
        (
            r.body["amount_paid_cents"].as_i64(),
            r.body["status"].as_str()
        ),
        (Some(0), Some("viewed"))
    );

    let r = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/payments/{}/verify", reported["id"])
        )
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["status"], "verified");
    assert!(r.body["verified_at"].is_string());
    let r = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")));
    assert_eq!(
        (
            r.body["amount_paid_cents"].as_i64(),
            r.body["amount_due_cents"].as_i64()
        ),
        (Some(1000), Some(1595))
    );

    let rest = call!(
        &app,
        h.req(Method::POST, "/api/v1/payments"),
        json!({"invoice_id": id, "amount_cents": 1595, "method": "card", "reference": "ch_1"})
    );
    assert_eq!(rest.status, 201, "{}", rest.body);
    assert_eq!(rest.body["status"], "pending");
    let r = call!(
        &app,
        h.req(
            Method::PATCH,
            &format!("/api/v1/payments/{}", rest.body["id"])
        ),
        json!({"status": "verified"})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")));
    assert_eq!(r.body["status"], "paid");
    assert_eq!(
        (
            r.body["amount_paid_cents"].as_i64(),
            r.body["amount_due_cents"].as_i64()
        ),
        (Some(2595), Some(0))
    );
    let events = call!(&app, h.req(Method::GET, "/api/v1/events?type=invoice.paid"));
    assert_eq!(events.body["total"], 1);
    assert_eq!(
        events.body["data"][0]["data"]["object"]["amount_paid_cents"],
        2595
    );
    for (t, n) in [
        ("payment.created", 2),
        ("payment.verified", 2),
        ("payment.rejected", 0),
    ] {
        let r = call!(
            &app,
            h.req(Method::GET, &format!("/api/v1/events?type={t}"))
        );
        assert_eq!(r.body["total"], n, "{t}");
    }
    let (_, paid_page, _) = html(&app, h.anonymous(Method::GET, &page)).await;
    assert!(paid_page.contains(">Paid<") && !paid_page.contains("id=\"report-payment\""));
    assert!(paid_page.contains("Received"));
}

async fn payment_routes_answer_every_status(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let inv = sent_invoice!(&app, h, "ada@example.com");
    let id = inv["id"].as_i64().unwrap();
    let post = || h.req(Method::POST, "/api/v1/payments");
    let r = call!(
        &app,
        post(),
        json!({"invoice_id": id, "amount_cents": 500, "method": "cash"})
    );
    assert_eq!(r.status, 201);
    assert_api_headers(&r);
    let pid = r.body["id"].as_i64().unwrap();
    assert_error(
        &call!(&app, post(), json!({"invoice_id": "1"})),
        400,
        "invalid_parameter",
    );
    assert_error(
        &call!(&app, post(), json!({"invoice_id": id, "amount": 1})),
        400,
        "invalid_parameter",
    );
    assert_error(
        &call!(&app, post().set_payload("{}")),
        415,
        "unsupported_media_type",
    );
    let r = call!(
        &app,
        post(),
        json!({"method": "cheque", "status": "rejected"})
    );
    assert_error(&r, 422, "validation_failed");
    let params: Vec<&str> = r.body["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["param"].as_str().unwrap())
        .collect();
    assert_eq!(params, ["invoice_id", "amount_cents", "method", "status"]);
    let r = call!(
        &app,
        post(),
        json!({"invoice_id": id, "amount_cents": 2596, "method": "cash"})
    );
    assert_error(&r, 422, "validation_failed");
    assert_eq!(r.body["error"]["param"], "amount_cents");
    let r = call!(
        &app,
        post(),
        json!({"invoice_id": 999999, "amount_cents": 1, "method": "cash"})
    );
    assert_error(&r, 404, "resource_missing");
    assert_eq!(r.body["error"]["param"], "invoice_id");
    let draft = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        invoice_body("d@example.com")
    )
    .body;
    let r = call!(
        &app,
        post(),
        json!({"invoice_id": draft["id"], "amount_cents": 1, "method": "cash"})
    );
    assert_error(&r, 409, "invalid_state_transition");
    assert_error(
        &call!(&app, h.anonymous(Method::POST, "/api/v1/payments")),
        401,
        "missing_api_key",
    );
    let reader = h.make_key(
        h.account,
        Environment::Test,
        "payments:read",
        GENEROUS,
        None,
    );
    let r = call!(
        &app,
        h.req_as(&reader, Method::POST, "/api/v1/payments"),
        json!({"invoice_id": id, "amount_cents": 1, "method": "cash"})
    );
    assert_error(&r, 403, "insufficient_permissions");

    let one = format!("/api/v1/payments/{pid}");
    assert_eq!(
        call!(&app, h.req_as(&reader, Method::GET, &one)).body["id"],
        pid
    );
    for bad in ["/api/v1/payments/999999", "/api/v1/payments/abc"] {
        assert_error(
            &call!(&app, h.req(Method::GET, bad)),
            404,
            "resource_missing",
        );
    }
    for bad in [
        "status=paid",
        "amount_min=abc",
        "amount_min=2000000000000000",
        "invoice_id=0",
        "customer_id=x",
        "per_page=500",
        "sort=asc",
    ] {
        let r = call!(&app, h.req(Method::GET, &format!("/api/v1/payments?{bad}")));
        assert_error(&r, 400, "invalid_parameter");
    }
    let r = call!(
        &app,
        h.req(
            Method::GET,
            &format!(
                "/api/v1/payments?invoice_id={id}&amount_min=500&status=pending&customer_id={}",
                inv["customer_id"]
            )
        )
    );
    assert_eq!(
        (r.status.as_u16(), r.body["total"].as_i64()),
        (200, Some(1))
    );
    assert_eq!(
        call!(&app, h.req(Method::GET, "/api/v1/payments?amount_min=501")).body["total"],
        0
    );

    // verify / reject / PATCH: 422 for bodies, 409 once final, 404 for unknown ids.
    let reject = format!("{one}/reject");
    let r = call!(
        &app,
        h.req(Method::POST, &reject),
        json!({"reason": "x".repeat(1001)})
    );
    assert_error(&r, 422, "validation_failed");
    assert_error(
        &call!(&app, h.req(Method::PATCH, &one), json!({})),
        422,
        "validation_failed",
    );
    assert_error(
        &call!(&app, h.req(Method::PATCH, &one), json!({"status": "paid"})),
        422,
        "validation_failed",
    );
    assert_error(
        &call!(
            &app,
            h.req(Method::PATCH, &one),
            json!({"status": "verified", "reason": "r"})
        ),
        422,
        "validation_failed",
    );
    assert_error(
        &call!(
            &app,
            h.req(Method::PATCH, &one),
            json!({"state": "verified"})
        ),
        400,
        "invalid_parameter",
    );
    let r = call!(
        &app,
        h.req(Method::PATCH, &one),
        json!({"status": "pending"})
    );
    assert_error(&r, 409, "invalid_state_transition");
    assert!(r.body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("pending to pending"));
    let r = call!(
        &app,
        h.req(Method::POST, &reject),
        json!({"reason": "bounced"})
    );
    assert_eq!(
        (r.status.as_u16(), r.body["status"].as_str()),
        (200, Some("rejected"))
    );
    assert_eq!(r.body["rejection_reason"], "bounced");
    for (method, path) in [
        (Method::POST, format!("{one}/verify")),
        (Method::POST, reject.clone()),
    ] {
        let r = call!(&app, h.req(method, &path));
        assert_error(&r, 409, "invalid_state_transition");
        assert!(r.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("from rejected to"));
    }
    assert_error(
        &call!(
            &app,
            h.req(Method::PATCH, &one),
            json!({"status": "verified"})
        ),
        409,
        "invalid_state_transition",
    );
    for path in [
        "/api/v1/payments/999999/verify",
        "/api/v1/payments/999999/reject",
    ] {
        assert_error(
            &call!(&app, h.req(Method::POST, path)),
            404,
            "resource_missing",
        );
    }
    assert_error(
        &call!(
            &app,
            h.req(Method::PATCH, "/api/v1/payments/999999"),
            json!({"status": "verified"})
        ),
        404,
        "resource_missing",
    );
    assert_error(
        &call!(
            &app,
            h.req_as(&reader, Method::POST, &format!("{one}/verify"))
        ),
        403,
        "insufficient_permissions",
    );
    let r = call!(&app, h.req(Method::DELETE, &one));
    assert_error(&r, 405, "method_not_allowed");
    assert_eq!(r.header("allow"), "GET, PATCH");

    // Pending payments may exceed the total together; verifying the second is 422 and it stays
    // pending (then it can be rejected); a reject without a body works too.
    let a = call!(
        &app,
        post(),
        json!({"invoice_id": id, "amount_cents": 2000, "method": "cash"})
    )
    .body;
    let b = call!(
        &app,
        post(),
        json!({"invoice_id": id, "amount_cents": 2000, "method": "cash"})
    )
    .body;
    assert_eq!(
        call!(
            &app,
            h.req(
                Method::POST,
                &format!("/api/v1/payments/{}/verify", a["id"])
            )
        )
        .status,
        200
    );
    let r = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/payments/{}/verify", b["id"])
        )
    );
    assert_error(&r, 422, "validation_failed");
    assert_eq!(r.body["error"]["param"], "amount_cents");
    let r = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/payments/{}/reject", b["id"])
        )
    );
    assert_eq!(
        (r.status.as_u16(), r.body["status"].as_str()),
        (200, Some("rejected"))
    );
    // Cancelled invoices take no verification (409) nor new payments.
    let c = call!(
        &app,
        post(),
        json!({"invoice_id": id, "amount_cents": 1, "method": "other"})
    )
    .body;
    call!(
        &app,
        h.req(Method::PATCH, &format!("/api/v1/invoices/{id}")),
        json!({"status": "cancelled"})
    );
    assert_error(
        &call!(
            &app,
            h.req(
                Method::POST,
                &format!("/api/v1/payments/{}/verify", c["id"])
            )
        ),
        409,
        "invalid_state_transition",
    );
    assert_error(
        &call!(
            &app,
            post(),
            json!({"invoice_id": id, "amount_cents": 1, "method": "cash"})
        ),
        409,
        "invalid_state_transition",
    );
}

async fn payment_requests_check_the_key(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let open = sent_invoice!(&app, h, "ada@example.com");
    call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        invoice_body("draft@example.com")
    );
    for path in ["/v1/payment-requests", "/api/v1/payment-requests"] {
        let r = call!(&app, h.req(Method::GET, path));
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        assert_api_headers(&r);
        assert_eq!(
            (r.body["page"].as_i64(), r.body["per_page"].as_i64()),
            (Some(1), Some(20))
        );
        assert_eq!(
            (r.body["total"].as_i64(), r.body["has_more"].as_bool()),
            (Some(1), Some(false))
        );
        let item = &r.body["data"][0];
        assert_eq!(item["invoice_id"], open["id"]);
        assert_eq!(item["invoice_number"], open["invoice_number"]);
        assert_eq!(item["amount_due_cents"], 2595);
        assert_eq!(
            (item["currency"].as_str(), item["status"].as_str()),
            (Some("EUR"), Some("sent"))
        );
        assert_eq!(item["due_date"], open["due_date"]);
        assert_eq!(item["payment_link"], open["payment_link"]);
        assert_error(
            &call!(&app, h.anonymous(Method::GET, path)),
            401,
            "missing_api_key",
        );
        let bad_key = h
            .anonymous(Method::GET, path)
            .insert_header(("authorization", "Bearer sk_test_nope"));
        assert_error(&call!(&app, bad_key), 401, "invalid_api_key");
        assert_error(
            &call!(&app, h.req(Method::GET, &format!("{path}?per_page=0"))),
            400,
            "invalid_parameter",
        );
        assert_error(
            &call!(&app, h.req(Method::GET, &format!("{path}?status=sent"))),
            400,
            "invalid_parameter",
        );
        let invoices_only = h.make_key(
            h.account,
            Environment::Test,
            "invoices:read",
            GENEROUS,
            None,
        );
        assert_error(
            &call!(&app, h.req_as(&invoices_only, Method::GET, path)),
            403,
            "insufficient_permissions",
        );
        let other = h.stranger_key("Other");
        assert_eq!(
            call!(&app, h.req_as(&other, Method::GET, path)).body["total"],
            0
        );
        // A POST makes one (SPEC §26): its body must be JSON.
        let r = call!(&app, h.req(Method::POST, path));
        assert_error(&r, 415, "unsupported_media_type");
        let r = call!(&app, h.req(Method::PUT, path));
        assert_error(&r, 405, "method_not_allowed");
    }
}

async fn the_page_form_is_checked_and_never_pays(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let inv = sent_invoice!(&app, h, "ada@example.com");
    let number = inv["invoice_number"].as_str().unwrap().to_string();
    let action = format!("/invoice/{number}/payments");
    let t = token(&inv);
    let post = |fields: String| form(&h, &action, &fields);
    for (fields, expected) in [
        (
            format!("token={t}&amount=30.00&reference=R"),
            "The amount must not exceed the amount due (€25.95).",
        ),
        (
            format!("token={t}&amount=12.505&reference=R"),
            "EUR amounts have at most 2 decimals.",
        ),
        (
            format!("token={t}&amount=twelve&reference=R"),
            "Please enter an amount such as 1,453.00.",
        ),
        (
            format!("token={t}&amount=5&reference=+"),
            "Please enter the transfer reference.",
        ),
        (
            format!("token={t}&amount=&reference=R"),
            "Please enter the amount you paid.",
        ),
    ] {
        let (status, body, _) = html(&app, post(fields.clone())).await;
        assert_eq!(status, 422, "{fields}");
        assert!(body.contains(expected), "{fields}: lacks {expected:?}");
        assert!(body.contains("id=\"report-error\""));
    }
    let (_, body, _) = html(
        &app,
        post(format!("token={t}&amount=99&reference=Kept+ref")),
    )
    .await;
    assert!(
        body.contains("value=\"99\"") && body.contains("value=\"Kept ref\""),
        "typed values are kept"
    );
    let wrong = form(&h, &action, "token=forged&amount=1&reference=R");
    assert_error(&send(&app, wrong).await, 404, "resource_missing");
    assert_error(
        &send(&app, form(&h, &action, "amount=1&reference=R")).await,
        404,
        "resource_missing",
    );
    let not_a_form = h
        .anonymous(Method::POST, &action)
        .insert_header(("content-type", "application/json"))
        .set_payload(format!("{{\"token\": \"{t}\"}}"));
    assert_error(&send(&app, not_a_form).await, 415, "unsupported_media_type");
    let r = call!(&app, h.req(Method::GET, "/api/v1/payments"));
    assert_eq!(r.body["total"], 0, "refused reports recorded nothing");

    // The full amount, reported twice: the second is refused (the same transfer is not
    // reported twice), the first stays pending and the invoice open.
    for (reference, expected) in [("A", 303), ("B", 422)] {
        let (status, _, _) = html(
            &app,
            post(format!("token={t}&amount=25,95&reference={reference}")),
        )
        .await;
        assert_eq!(status, expected, "{reference}");
    }
    let inv_now = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/invoices/{}", inv["id"]))
    )
    .body;
    // Viewed (the refused reports showed the page again), never paid by a report.
    assert_eq!(
        (
            inv_now["status"].as_str(),
            inv_now["amount_paid_cents"].as_i64()
        ),
        (Some("viewed"), Some(0))
    );
    assert_eq!(
        call!(&app, h.req(Method::GET, "/api/v1/events?type=invoice.paid")).body["total"],
        0
    );
    assert_eq!(
        call!(&app, h.req(Method::GET, "/api/v1/payments?status=pending")).body["total"],
        1
    );

    // Cancelled: the form is gone and a late post goes back to the page without a thank-you.
    call!(
        &app,
        h.req(Method::PATCH, &format!("/api/v1/invoices/{}", inv["id"])),
        json!({"status": "cancelled"})
    );
    let (status, _, location) = html(&app, post(format!("token={t}&amount=1&reference=C"))).await;
    assert_eq!((status, location.contains("reported")), (303, false));
    let (_, page, _) = html(&app, h.anonymous(Method::GET, &page_path(&inv))).await;
    assert!(!page.contains("id=\"report-payment\""));
    let draft = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        invoice_body("d@example.com")
    )
    .body;
    let draft_action = format!(
        "/invoice/{}/payments",
        draft["invoice_number"].as_str().unwrap()
    );
    let r = send(
        &app,
        form(
            &h,
            &draft_action,
            &format!("token={}&amount=1&reference=R", token(&draft)),
        ),
    )
    .await;
    assert_error(&r, 404, "resource_missing");
}

async fn other_tenants_get_403_on_every_route(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let inv = sent_invoice!(&app, h, "ada@example.com");
    let p = call!(
        &app,
        h.req(Method::POST, "/api/v1/payments"),
        json!({"invoice_id": inv["id"], "amount_cents": 100, "method": "cash"})
    )
    .body;
    let id = p["id"].clone();
    let foreign = h.stranger_key("Other");
    let live = h.live_key();
    for key in [&foreign, &live] {
        let routes = [
            (Method::GET, format!("/api/v1/payments/{id}"), None),
            (
                Method::PATCH,
                format!("/api/v1/payments/{id}"),
                Some(json!({"status": "verified"})),
            ),
            (Method::POST, format!("/api/v1/payments/{id}/verify"), None),
            (
                Method::POST,
                format!("/api/v1/payments/{id}/reject"),
                Some(json!({"reason": "x"})),
            ),
            (
                Method::POST,
                "/api/v1/payments".to_string(),
                Some(json!({"invoice_id": inv["id"], "amount_cents": 1, "method": "cash"})),
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
        for path in [
            "/api/v1/payments",
            "/api/v1/payment-requests",
            "/v1/payment-requests",
        ] {
            let r = call!(&app, h.req_as(key, Method::GET, path));
            assert_eq!(
                (r.status.as_u16(), r.body["total"].as_i64()),
                (200, Some(0)),
                "{path}"
            );
        }
    }
    let mine = call!(&app, h.req(Method::GET, &format!("/api/v1/payments/{id}"))).body;
    assert_eq!(mine, p, "refused calls changed nothing");
    assert_eq!(
        call!(&app, h.req(Method::GET, "/api/v1/payments")).body["total"],
        1
    );
}

http_tests!(
    amounts_are_read_as_the_page_writes_them,
    a_reported_transfer_is_not_reported_twice,
    partial_report_then_verified_rest_pays_the_invoice,
    payment_routes_answer_every_status,
    payment_requests_check_the_key,
    the_page_form_is_checked_and_never_pays,
    other_tenants_get_403_on_every_route,
);

/// After a report, the page says it has it and is checking it, and offers the form (prefilled)
/// only for what is neither paid nor reported; reporting more is refused on the page, and once
/// everything is reported the form is gone.
async fn a_reported_transfer_is_not_reported_twice(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let inv = sent_invoice!(&app, h, "twice@example.com");
    let page = page_path(&inv);
    let number = inv["invoice_number"].as_str().unwrap();
    let post = |amount: &str, reference: &str| {
        form(
            &h,
            &format!("/invoice/{number}/payments"),
            &format!(
                "token={}&amount={amount}&reference={reference}",
                token(&inv)
            ),
        )
    };
    let (status, _, _) = html(&app, post("10.00", "TRX-1")).await;
    assert_eq!(status, 303);
    let (_, body, _) = html(&app, h.anonymous(Method::GET, &page)).await;
    assert!(
        body.contains("We have your report of €10.00 from ")
            && body.contains("it is being checked"),
        "{body}"
    );
    assert!(
        body.contains("id=\"report-payment\""),
        "the rest may be reported"
    );
    assert!(
        body.contains("value=\"15.95\""),
        "prefilled with the rest: {body}"
    );
    // The same transfer again: refused, beside the form, nothing recorded.
    let (status, refused, _) = html(&app, post("25.95", "TRX-1")).await;
    assert_eq!(status, 422);
    assert!(
        refused.contains("more than what is neither paid nor reported yet (€15.95)"),
        "{refused}"
    );
    let pending = call!(&app, h.req(Method::GET, "/api/v1/payments?status=pending"));
    assert_eq!(pending.body["total"], 1);
    // The rest: then nothing is left to report, and the form is gone.
    let (status, _, _) = html(&app, post("15.95", "TRX-2")).await;
    assert_eq!(status, 303);
    let (_, body, _) = html(&app, h.anonymous(Method::GET, &page)).await;
    assert!(!body.contains("id=\"report-payment\""), "{body}");
    assert_eq!(body.matches("We have your report of").count(), 2, "{body}");
    let (status, refused, _) = html(&app, post("1", "TRX-3")).await;
    assert_eq!(status, 422);
    assert!(
        refused.contains("reported already and is being checked"),
        "{refused}"
    );
    // A rejected report frees its amount again.
    let first = pending.body["data"][0]["id"].clone();
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/payments/{first}/reject"))
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let (_, body, _) = html(&app, h.anonymous(Method::GET, &page)).await;
    assert!(body.contains("value=\"10.00\""), "{body}");
}

/// SPEC §27: a German page shows and reads `1.453,00`, a French one `1 453,00`; an amount the
/// page's locale could read two ways is refused with an example in its own writing.
async fn amounts_are_read_as_the_page_writes_them(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let mut ids = Vec::new();
    for (email, locale) in [("de@example.com", "de"), ("fr@example.com", "fr")] {
        let inv = call!(
            &app,
            h.req(Method::POST, "/api/v1/invoices"),
            json!({"customer": {"name": "Kunde", "email": email, "locale": locale},
                "line_items": [{"description": "Arbeit", "quantity": 1, "unit_price_cents": 145_300}]})
        )
        .body;
        let path = format!("/api/v1/invoices/{}/send", inv["id"]);
        assert_eq!(call!(&app, h.req(Method::POST, &path)).status, 200);
        ids.push(inv);
    }
    let (de, fr) = (&ids[0], &ids[1]);
    let (_, page, _) = html(&app, h.anonymous(Method::GET, &page_path(de))).await;
    assert!(
        page.contains("value=\"1.453,00\""),
        "prefilled as German writes it: {page}"
    );
    let post = |inv: &Value, amount: &str| {
        form(
            &h,
            &format!(
                "/invoice/{}/payments",
                inv["invoice_number"].as_str().unwrap()
            ),
            &format!(
                "token={}&amount={}&reference=SEPA-1",
                token(inv),
                form_urlencoded::byte_serialize(amount.as_bytes()).collect::<String>()
            ),
        )
    };
    let (status, body, _) = html(&app, post(de, "1.453,00 €")).await;
    assert_eq!(status, 303, "{body}");
    let (_, page, _) = html(&app, h.anonymous(Method::GET, &page_path(fr))).await;
    assert!(
        page.contains("value=\"1\u{202f}453,00\""),
        "prefilled as French writes it"
    );
    let (status, refused, _) = html(&app, post(fr, "1.453")).await;
    assert_eq!(status, 422);
    assert!(
        refused.contains("1\u{202f}453,00"),
        "an example in French: {refused}"
    );
    let (status, _, _) = html(&app, post(fr, "1 453,00")).await;
    assert_eq!(status, 303);
    let pending = call!(&app, h.req(Method::GET, "/api/v1/payments?status=pending"));
    let amounts: Vec<i64> = pending.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["amount_cents"].as_i64().unwrap())
        .collect();
    assert_eq!(amounts, [145_300, 145_300], "{}", pending.body);
}
