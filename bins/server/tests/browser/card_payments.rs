//! Paying an invoice by card on a phone, in headless Chromium against the binary, the repository's
//! Stripe stand-in and a real SMTP server (SPEC §25): the invoice page's "Pay by card" leads to
//! the stand-in's hosted page; Cancel and a declined card change nothing; Pay brings the customer
//! back to the invoice page, which says paid; the API shows one verified card payment,
//! `invoice.paid` once and a receipt in the sink. Our pages pass axe-core and fit the phone.

use crate::common::smtp::{self, Sink};
use crate::common::webdriver::{available, Browser};
use crate::common::*;
use crate::dashboard::{axe_source, check, made};
use invoicing_gateway_stripe::testing::StandIn;
use serde_json::json;

/// A button, activated as a tap would.
fn tap(browser: &Browser, css: &str) {
    browser.execute(&format!(
        "document.querySelector({css:?}).click(); return true;"
    ));
}

#[test]
fn a_customer_pays_an_invoice_by_card_on_a_phone() {
    pays_by_card("card", None);
}

#[test]
fn a_customer_pays_an_invoice_by_card_on_a_phone_on_postgres() {
    if let Some(db) = invoicing_storage::testing::TestDb::new(invoicing_storage::Backend::Postgres)
    {
        pays_by_card("card-pg", Some(&db.url));
    }
}

fn pays_by_card(name: &str, database: Option<&str>) {
    if !available() {
        return;
    }
    let axe_js = axe_source();
    let axe = axe_js.as_deref();
    let dir = data_dir(name);
    let maildir = dir.join("mail");
    let sink = Sink::start(&maildir);
    let smtp_url = sink.plain_url();
    let stripe = StandIn::start();
    let account = stripe.account();
    let mut env = vec![
        ("SMTP_URL", smtp_url.as_str()),
        ("SMTP_ALLOW_PLAINTEXT", "true"),
        ("STRIPE_API_BASE", stripe.base.as_str()),
        ("RATE_LIMIT_BURST", "1000"),
    ];
    if let Some(url) = database {
        env.push(("DATABASE_URL", url));
    }
    let server = start_with(&dir, &env);
    let key = server.printed_key().unwrap();
    let a = agent(&dir);
    let api = format!("{}/api/v1", server.https);
    made(&a, &key, "PATCH", &format!("{api}/account"), Some(json!({"send_receipts": true})));
    let connected = made(
        &a,
        &key,
        "PUT",
        &format!("{api}/account/gateways/stripe"),
        Some(json!({"secret_key": account.test_secret, "publishable_key": account.test_publishable})),
    );
    assert_eq!(connected["check_ok"], true);
    let invoice = made(
        &a,
        &key,
        "POST",
        &format!("{api}/invoices"),
        Some(json!({
            "customer": {"name": "Grace Hopper", "email": "grace@example.com"},
            "line_items": [{"description": "Compiler design", "quantity": 1, "unit_price_cents": 4250}]
        })),
    );
    let id = invoice["id"].as_i64().unwrap();
    made(&a, &key, "POST", &format!("{api}/invoices/{id}/send"), None);
    let link = invoice["payment_link"].as_str().unwrap();
    let page = format!("{}{}", server.https, link.strip_prefix(PUBLIC_URL).unwrap());

    let browser = Browser::start_sized(360, 740);
    browser.goto(&page);
    browser.wait_for("#card-button");
    assert_eq!(browser.text("#card-button"), "Pay €42.50 by card");
    check(&browser, axe, "the invoice page with Pay by card");

    // Cancel on Stripe's page: back on the invoice page, nothing changed.
    tap(&browser, "#card-button");
    browser.wait_for("#pay-form");
    assert!(browser.url().starts_with(&stripe.base), "{}", browser.url());
    assert!(browser.text("h1").contains("Pay"), "{}", browser.text("h1"));
    tap(&browser, "form[action$='/cancel'] button");
    browser.wait_for("#card-button");
    assert!(browser.url().starts_with(&server.https), "{}", browser.url());
    assert_eq!(browser.text("#status"), "Awaiting payment");

    // A declined card: Stripe's page says so, the invoice is as it was.
    tap(&browser, "#card-button");
    browser.wait_for("form[action$='/decline'] button");
    tap(&browser, "form[action$='/decline'] button");
    browser.wait_for("p.error");
    assert!(browser.text("p.error").contains("declined"), "{}", browser.text("p.error"));
    let (_, payments, _) = call(&a, "GET", &format!("{api}/payments?invoice_id={id}"), Some(&key), None);
    assert_eq!(payments["data"], json!([]), "a decline records nothing");

    // Pay: back on the invoice page, which says paid.
    tap(&browser, "#pay-form button");
    browser.wait_for("#card-outcome");
    assert!(browser.url().starts_with(&server.https), "{}", browser.url());
    assert_eq!(browser.text("#status"), "Paid");
    assert!(
        browser.text("#card-outcome").starts_with("Paid, thank you."),
        "{}",
        browser.text("#card-outcome")
    );
    assert!(browser.texts("#pay-by-card").is_empty(), "nothing left to pay");
    check(&browser, axe, "the invoice page after paying");

    let (_, payments, _) = call(&a, "GET", &format!("{api}/payments?invoice_id={id}"), Some(&key), None);
    let list = payments["data"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{payments}");
    assert_eq!(
        (&list[0]["method"], &list[0]["status"], &list[0]["amount_cents"]),
        (&json!("card"), &json!("verified"), &json!(4250))
    );
    let (_, paid, _) = call(&a, "GET", &format!("{api}/events?type=invoice.paid"), Some(&key), None);
    assert_eq!(paid["data"].as_array().unwrap().len(), 1);
    let mails = smtp::wait_for(&maildir, 1, 30);
    let number = invoice["invoice_number"].as_str().unwrap();
    let receipts = mails
        .iter()
        .filter(|m| String::from_utf8_lossy(m).contains(&format!("Receipt for invoice {number}")))
        .count();
    assert_eq!(receipts, 1, "one receipt in the sink");
    drop(browser);
    drop(server);
    sink.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
