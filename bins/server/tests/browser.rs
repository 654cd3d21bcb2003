//! Headless Chromium against the running binary: what a customer sees on a payment link.

mod common;

use common::webdriver::{available, Browser};
use common::*;
use serde_json::json;

#[test]
fn customer_opens_a_sent_invoice() {
    if !available() {
        return;
    }
    let dir = data_dir("browser");
    let server = start(&dir);
    let key = server.printed_key().unwrap();
    let a = agent(&dir);
    let base = format!("{}/api/v1", server.https);
    let body = json!({
        "customer": {"name": "Grace Hopper", "email": "grace@example.com", "company": "Navy Labs"},
        "currency": "EUR", "due_date": "2099-06-30",
        "line_items": [
            {"description": "Compiler design", "quantity": "1.5", "unit_price_cents": 333, "tax_rate": "19"},
            {"description": "Support", "quantity": 2, "unit_price_cents": 500}
        ]
    });
    let (status, invoice, _) = call(
        &a,
        "POST",
        &format!("{base}/invoices"),
        Some(&key),
        Some(body),
    );
    assert_eq!(status, 201, "{invoice}");
    let id = invoice["id"].as_i64().unwrap();
    assert_eq!(
        call(
            &a,
            "POST",
            &format!("{base}/invoices/{id}/send"),
            Some(&key),
            None
        )
        .0,
        200
    );
    let link = invoice["payment_link"].as_str().unwrap();
    let page = format!("{}{}", server.https, link.strip_prefix(PUBLIC_URL).unwrap());

    let browser = Browser::start();
    browser.goto(&page);
    assert_eq!(
        browser.title(),
        format!(
            "Invoice {} from Default",
            invoice["invoice_number"].as_str().unwrap()
        )
    );
    assert_eq!(browser.text("#status"), "Awaiting payment");
    assert!(browser.text("#customer").contains("Grace Hopper"));
    assert!(browser.text("#customer").contains("Navy Labs"));
    assert_eq!(browser.text("#due-date"), "2099-06-30");
    let rows = browser.texts("#lines tbody tr");
    assert_eq!(rows.len(), 2);
    assert!(
        rows[0].contains("Compiler design") && rows[0].contains("€5.00"),
        "{}",
        rows[0]
    );
    assert_eq!(browser.text("#subtotal"), "€15.00");
    assert_eq!(browser.text("#tax"), "€0.95");
    assert_eq!(browser.text("#total"), "€15.95");
    assert_eq!(browser.text("#amount-due"), "€15.95");
    browser.screenshot(&dir.join("invoice.png"));
    if let Ok(out) = std::env::var("SCREENSHOT_OUT") {
        let _ = std::fs::copy(dir.join("invoice.png"), out);
    }

    let (_, seen, _) = call(
        &a,
        "GET",
        &format!("{base}/invoices/{id}"),
        Some(&key),
        None,
    );
    assert_eq!(
        seen["status"], "viewed",
        "opening the link marked it viewed"
    );
    let (_, events, _) = call(
        &a,
        "GET",
        &format!("{base}/events?type=invoice.viewed"),
        Some(&key),
        None,
    );
    assert_eq!(events["total"], 1);

    browser.goto(&page.replace("token=", "token=forged"));
    assert!(
        browser.texts("#status").is_empty(),
        "a wrong token shows nothing of the invoice"
    );
    drop(browser);
    assert!(server.stop().success());
    let _ = std::fs::remove_dir_all(&dir);
}
