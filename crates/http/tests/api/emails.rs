//! SPEC §18 through the real app: sends and resends that ask for email, with and without
//! `SMTP_URL`, the email log and its filters, the request's limits, scopes and tenants. What
//! reaches an SMTP server is tested against the binary (bins/server/tests/server/mail.rs).

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use invoicing_domain::tenant::Environment;
use invoicing_http::build_app;
use serde_json::{json, Value};

fn invoice_body() -> Value {
    json!({
        "customer": {"name": "Jürgen", "email": "juergen@example.de", "locale": "de"},
        "line_items": [{"description": "Beratung", "quantity": "1", "unit_price_cents": 10000}]
    })
}

fn quotation_body() -> Value {
    json!({
        "customer": {"name": "Pat", "email": "pat@example.com"},
        "line_items": [{"description": "Plan", "quantity": "1", "unit_price_cents": 500}]
    })
}

async fn without_smtp_asking_for_mail_is_422_and_changes_nothing(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let inv = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        invoice_body()
    );
    let id = inv.body["id"].as_i64().unwrap();
    for method in [Method::POST, Method::PATCH] {
        let r = call!(
            &app,
            h.req(method, &format!("/api/v1/invoices/{id}/send")),
            json!({"email": {}})
        );
        assert_error(&r, 422, "email_not_configured");
        assert_eq!(r.body["error"]["param"], "email");
    }
    let r = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")));
    assert_eq!(r.body["status"], "draft", "still a draft");
    let r = call!(&app, h.req(Method::GET, "/api/v1/events?type=invoice.sent"));
    assert_eq!(r.body["total"], 0, "no event");
    let r = call!(&app, h.req(Method::GET, "/api/v1/emails"));
    assert_eq!(r.body["total"], 0);

    // A send without `email` still works, and a resend then is refused the same way.
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/send"))
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/email"))
    );
    assert_error(&r, 422, "email_not_configured");

    let q = call!(
        &app,
        h.req(Method::POST, "/api/v1/quotations"),
        quotation_body()
    );
    let qid = q.body["id"].as_i64().unwrap();
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{qid}/send")),
        json!({"email": {"to": ["x@example.com"]}})
    );
    assert_error(&r, 422, "email_not_configured");
    let r = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/quotations/{qid}"))
    );
    assert_eq!(r.body["status"], "draft");
}

async fn a_send_with_email_queues_it_and_the_log_shows_it(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let inv = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        invoice_body()
    );
    let id = inv.body["id"].as_i64().unwrap();
    let number = inv.body["invoice_number"].as_str().unwrap().to_string();

    // A draft has nothing to resend yet.
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/email"))
    );
    assert_error(&r, 409, "invalid_state_transition");

    let r = call!(
        &app,
        h.req(Method::PATCH, &format!("/api/v1/invoices/{id}/send")),
        json!({"email": {"cc": ["boss@example.com"], "message": "Thanks!\nSee you."}})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["status"], "sent");
    let list = call!(&app, h.req(Method::GET, "/api/v1/emails"));
    assert_eq!(list.body["total"], 1, "{}", list.body);
    let e = &list.body["data"][0];
    assert_eq!(e["object"], "email");
    assert_eq!(e["kind"], "invoice");
    assert_eq!(e["invoice_id"], id);
    assert_eq!(e["quotation_id"], Value::Null);
    assert_eq!(e["credit_note_id"], Value::Null);
    assert_eq!(e["to"], json!(["juergen@example.de"]));
    assert_eq!(e["cc"], json!(["boss@example.com"]));
    assert_eq!(e["status"], "queued");
    assert_eq!(e["attempts"], 0);
    assert_eq!(e["subject"], format!("Rechnung {number} von Acme Ltd"));
    let eid = e["id"].as_i64().unwrap();
    let one = call!(&app, h.req(Method::GET, &format!("/api/v1/emails/{eid}")));
    assert_eq!(&one.body, e);

    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/email")),
        json!({"email": {"to": ["accounts@example.org"], "subject": "Copy of {number}"}})
    );
    assert_eq!(r.status, 202, "{}", r.body);
    assert_eq!(r.body["to"], json!(["accounts@example.org"]));
    assert_eq!(
        r.body["subject"],
        format!("Copy of {{number}} ({number})"),
        "as written, with the number the subject must name"
    );
    // With no body at all, a resend goes to the customer.
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/email"))
    );
    assert_eq!(r.status, 202, "{}", r.body);
    assert_eq!(r.body["to"], json!(["juergen@example.de"]));

    let filtered = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/emails?invoice_id={id}&status=queued")
        )
    );
    assert_eq!(filtered.body["total"], 3);
    let none = call!(&app, h.req(Method::GET, "/api/v1/emails?status=sent"));
    assert_eq!(none.body["total"], 0);
    let bad = call!(&app, h.req(Method::GET, "/api/v1/emails?status=lost"));
    assert_error(&bad, 400, "invalid_parameter");
    let missing = call!(&app, h.req(Method::GET, "/api/v1/emails/999999"));
    assert_error(&missing, 404, "resource_missing");

    // Quotations: send with email, then resend.
    let q = call!(
        &app,
        h.req(Method::POST, "/api/v1/quotations"),
        quotation_body()
    );
    let qid = q.body["id"].as_i64().unwrap();
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{qid}/send")),
        json!({"email": {}})
    );
    assert_eq!(r.body["status"], "sent", "{}", r.body);
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{qid}/email"))
    );
    assert_eq!(r.status, 202);
    assert_eq!(r.body["kind"], "quotation");
    let mine = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/emails?quotation_id={qid}"))
    );
    assert_eq!(mine.body["total"], 2);
}

async fn email_requests_are_checked_before_anything_changes(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let inv = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        invoice_body()
    );
    let id = inv.body["id"].as_i64().unwrap();
    let path = format!("/api/v1/invoices/{id}/send");
    let eleven: Vec<String> = (0..11).map(|i| format!("p{i}@example.com")).collect();
    let cases = [
        (json!({"email": {"to": eleven}}), "email.to"),
        (
            json!({"email": {"to": ["a@example.com"], "cc": (0..10).map(|i| format!("c{i}@example.com")).collect::<Vec<_>>()}}),
            "email.to",
        ),
        (json!({"email": {"to": ["not an address"]}}), "email.to[0]"),
        (
            json!({"email": {"cc": ["ok@example.com", "bad@"]}}),
            "email.cc[1]",
        ),
        (json!({"email": {"to": []}}), "email.to"),
        (
            json!({"email": {"subject": "Hi\r\nBcc: victim@example.com"}}),
            "email.subject",
        ),
        (
            json!({"email": {"subject": "x".repeat(201)}}),
            "email.subject",
        ),
        (
            json!({"email": {"message": "m".repeat(2001)}}),
            "email.message",
        ),
        (json!({"email": {"message": "bell\u{7}"}}), "email.message"),
    ];
    for (body, param) in cases {
        let r = call!(&app, h.req(Method::POST, &path), body);
        assert_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["details"][0]["param"], param, "{}", r.body);
    }
    let r = call!(
        &app,
        h.req(Method::POST, &path),
        json!({"email": {"bcc": ["x@example.com"]}})
    );
    assert_error(&r, 400, "invalid_parameter");
    let r = call!(&app, h.req(Method::POST, &path), json!({"mail": {}}));
    assert_error(&r, 400, "invalid_parameter");
    // An action's body holds no null, PATCH included (found by schemathesis).
    let r = call!(&app, h.req(Method::PATCH, &path), json!({"email": null}));
    assert_error(&r, 422, "validation_failed");
    let r = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")));
    assert_eq!(r.body["status"], "draft", "nothing changed");
    let r = call!(&app, h.req(Method::GET, "/api/v1/emails"));
    assert_eq!(r.body["total"], 0);
    // At the limits exactly, it goes.
    let ten: Vec<String> = (0..10).map(|i| format!("p{i}@example.com")).collect();
    let r = call!(
        &app,
        h.req(Method::POST, &path),
        json!({"email": {"to": ten, "subject": "s".repeat(200), "message": "m".repeat(2000)}})
    );
    assert_eq!(r.status, 200, "{}", r.body);
}

async fn scopes_and_tenants(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let inv = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        invoice_body()
    );
    let id = inv.body["id"].as_i64().unwrap();
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/send")),
        json!({"email": {}})
    );
    assert_eq!(r.status, 200);
    let eid = call!(&app, h.req(Method::GET, "/api/v1/emails")).body["data"][0]["id"]
        .as_i64()
        .unwrap();

    let reader = h.make_key(
        h.account,
        Environment::Test,
        "invoices:read,emails:read",
        GENEROUS,
        None,
    );
    let r = call!(&app, h.req_as(&reader, Method::GET, "/api/v1/emails"));
    assert_eq!(r.status, 200);
    let r = call!(
        &app,
        h.req_as(
            &reader,
            Method::POST,
            &format!("/api/v1/invoices/{id}/email")
        )
    );
    assert_error(&r, 403, "insufficient_permissions");
    let writer = h.make_key(
        h.account,
        Environment::Test,
        "invoices:write",
        GENEROUS,
        None,
    );
    let r = call!(&app, h.req_as(&writer, Method::GET, "/api/v1/emails"));
    assert_error(&r, 403, "insufficient_permissions");
    let r = call!(
        &app,
        h.req_as(
            &writer,
            Method::POST,
            &format!("/api/v1/invoices/{id}/email")
        )
    );
    assert_eq!(
        r.status, 202,
        "sending needs the document's write: {}",
        r.body
    );

    let stranger = h.stranger_key("Other");
    let live = h.live_key();
    for key in [&stranger, &live] {
        let r = call!(
            &app,
            h.req_as(key, Method::GET, &format!("/api/v1/emails/{eid}"))
        );
        assert_error(&r, 403, "resource_forbidden");
        let r = call!(
            &app,
            h.req_as(key, Method::POST, &format!("/api/v1/invoices/{id}/email"))
        );
        assert_error(&r, 403, "resource_forbidden");
        let r = call!(&app, h.req_as(key, Method::GET, "/api/v1/emails"));
        assert_eq!(r.body["total"], 0);
    }
}

mod off {
    use super::*;
    http_tests!(without_smtp_asking_for_mail_is_422_and_changes_nothing);
}

macro_rules! mailing_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $( #[actix_web::test] async fn $name() {
                super::$name($crate::common::Harness::mailing(invoicing_storage::Backend::Sqlite).unwrap()).await
            } )*
        }
        mod postgres {
            $( #[actix_web::test] async fn $name() {
                if let Some(h) = $crate::common::Harness::mailing(invoicing_storage::Backend::Postgres) { super::$name(h).await }
            } )*
        }
    };
}

mailing_tests!(
    a_send_with_email_queues_it_and_the_log_shows_it,
    email_requests_are_checked_before_anything_changes,
    scopes_and_tenants,
    the_dashboard_shows_the_email_before_it_leaves,
);

/// SPEC §27: "Send by email" shows the email first (recipients, the subject in the customer's
/// language, a message, the attachment's name), all editable; sending a draft sends and emails
/// it at once; a mistake is shown beside its field with nothing sent; a viewer may not send.
async fn the_dashboard_shows_the_email_before_it_leaves(h: Harness) {
    use crate::dashboard::{member, sign_in};
    use invoicing_domain::user::Role;
    let app = init_service(build_app(h.state.clone())).await;
    member(&h, h.account, "owner@example.com", Role::Owner);
    member(&h, h.account, "viewer@example.com", Role::Viewer);
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        json!({"customer": {"name": "Erika", "email": "erika@example.com", "locale": "de"},
            "line_items": [{"description": "Beratung", "quantity": 1, "unit_price_cents": 10_000}]})
    );
    let (id, number) = (
        r.body["id"].as_i64().unwrap(),
        r.body["invoice_number"].as_str().unwrap().to_string(),
    );
    let owner = sign_in(&app, "owner@example.com").await;
    let path = format!("/dashboard/invoices/{id}/email");
    let page = send_raw(&app, owner.get(&path)).await;
    assert_eq!(page.status, 200);
    let html = page.text();
    assert!(html.contains("value=\"erika@example.com\""), "{html}");
    assert!(
        html.contains(&format!("Rechnung {number}")),
        "the subject in German: {html}"
    );
    assert!(html.contains(&format!("{number}.pdf")), "{html}");
    let emails = || async {
        call!(&app, h.req(Method::GET, "/api/v1/emails")).body["data"]
            .as_array()
            .unwrap()
            .len()
    };

    let r = send_raw(
        &app,
        owner.post(
            &path,
            &[
                ("email.to", "erika@example.com, not an address"),
                ("email.subject", "Ihre Rechnung"),
                ("email.message", ""),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 422);
    assert!(r.text().contains("id=\"email.to-error\""), "{}", r.text());
    assert!(r.text().contains("not an address"), "what was typed stays");
    assert_eq!(emails().await, 0, "nothing sent");
    let viewer = sign_in(&app, "viewer@example.com").await;
    assert_eq!(
        send_raw(
            &app,
            viewer.post(&path, &[("email.to", "erika@example.com")])
        )
        .await
        .status,
        403
    );

    let r = send_raw(
        &app,
        owner.post(
            &path,
            &[
                ("email.to", "erika@example.com; buchhaltung@example.com"),
                ("email.cc", "chef@example.com"),
                ("email.subject", "Ihre Rechnung für November"),
                ("email.message", "Vielen Dank!"),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    assert_eq!(
        r.header("location"),
        format!("/dashboard/invoices/{id}?done=emailed")
    );
    let inv = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")));
    assert_eq!(
        inv.body["status"], "sent",
        "the draft was sent with its email"
    );
    let list = call!(&app, h.req(Method::GET, "/api/v1/emails"));
    let sent = &list.body["data"][0];
    assert_eq!(
        sent["to"],
        json!(["erika@example.com", "buchhaltung@example.com"])
    );
    assert_eq!(sent["cc"], json!(["chef@example.com"]));
    assert_eq!(
        sent["subject"],
        format!("Ihre Rechnung für November ({number})"),
        "a subject always carries the number"
    );
    // A sent invoice's screen offers it again, through the same page.
    let again = send_raw(&app, owner.get(&path)).await.text();
    assert!(again.contains("emailed again"), "{again}");
    let r = send_raw(
        &app,
        owner.post(&path, &[("email.to", "erika@example.com")]),
    )
    .await;
    assert_eq!(r.status, 303);
    assert_eq!(emails().await, 2);
}
