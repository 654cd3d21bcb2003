//! What the customer's pages are reached and posted with: an invoice's link, its token, a form
//! post as a browser sends it (with a file too), and a sent invoice to open.

use super::{json, send, Harness, TestApp, PUBLIC_URL};
use actix_web::body::MessageBody;
use actix_web::http::Method;
use actix_web::test::TestRequest;
use serde_json::{json as value, Value};

/// The path of a document's page (its payment link without the public base).
pub fn page_path(document: &Value) -> String {
    let link = document["payment_link"].as_str().unwrap();
    link.strip_prefix(PUBLIC_URL).unwrap().to_string()
}

/// The capability token of a document's page.
pub fn token(document: &Value) -> String {
    page_path(document)
        .split("token=")
        .nth(1)
        .unwrap()
        .to_string()
}

/// A form post from a page, as a browser sends it.
pub fn form(h: &Harness, path: &str, fields: &str) -> TestRequest {
    h.anonymous(Method::POST, path)
        .insert_header(("content-type", "application/x-www-form-urlencoded"))
        .set_payload(fields.to_string())
}

/// The invoice page's "I have paid" form with a file, as a browser sends a file input.
pub fn report_with_file(
    h: &Harness,
    inv: &Value,
    amount: &str,
    (name, bytes): (&str, &[u8]),
) -> TestRequest {
    let boundary = "----proof7a3f";
    let mut body = Vec::new();
    for (field, text) in [
        ("token", token(inv)),
        ("amount", amount.to_string()),
        ("reference", "TR-778".to_string()),
    ] {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"\r\n\r\n{text}\r\n"
            )
            .as_bytes(),
        );
    }
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"proof\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let path = format!(
        "/invoice/{}/payments",
        inv["invoice_number"].as_str().unwrap()
    );
    h.anonymous(Method::POST, &path)
        .insert_header((
            "content-type",
            format!("multipart/form-data; boundary={boundary}"),
        ))
        .set_payload(body)
}

/// A sent invoice of one line of `cents` (EUR) to ada@example.com, as the send answered it.
pub async fn sent_invoice<B: MessageBody>(app: &impl TestApp<B>, h: &Harness, cents: i64) -> Value {
    let body = value!({
        "customer": {"name": "Ada", "email": "ada@example.com"},
        "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": cents}]
    });
    let inv = send(app, json(h.req(Method::POST, "/api/v1/invoices"), &body))
        .await
        .body;
    let path = format!("/api/v1/invoices/{}/send", inv["id"]);
    let sent = send(app, h.req(Method::POST, &path)).await;
    assert_eq!(sent.status, 200, "{}", sent.body);
    sent.body
}
