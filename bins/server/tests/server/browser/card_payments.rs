//! Paying an invoice by card on a phone, in headless Chromium against the binary, the repository's
//! Stripe stand-in and a real SMTP server (SPEC §25), as a new merchant and their customer would:
//! the merchant connects Stripe in Settings → Payments (the webhook URL shown, the endpoint made
//! in Stripe, its signing secret saved); the invoice page's "Pay by card" leads to the stand-in's
//! hosted page; Cancel and a declined card change nothing; Pay brings the customer back to the
//! invoice page, which says paid; the API shows one verified card payment, `invoice.paid` once and
//! a receipt in the sink; the merchant sees it paid in the dashboard and refunds after a credit
//! note; a customer attaches a transfer receipt that the merchant opens before verifying. Our
//! pages pass axe-core, fit the phone and split no word.

use super::dashboard::{axe_source, check, made, set_password_and_sign_in, tap};
use crate::common::smtp::{self, Sink};
use crate::common::webdriver::{available, Browser};
use crate::common::*;
use invoicing_gateway_stripe::testing::StandIn;
use serde_json::json;

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
    // Stripe sends the customer back to PUBLIC_URL: here, the server's own address.
    let port = smtp::free_port();
    let bind = format!("127.0.0.1:{port}");
    let public = format!("https://localhost:{port}");
    let mut env = vec![
        ("HTTPS_BIND", bind.as_str()),
        ("PUBLIC_URL", public.as_str()),
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
    made(
        &a,
        &key,
        "PATCH",
        &format!("{api}/account"),
        Some(json!({"send_receipts": true})),
    );

    // The merchant connects Stripe in the dashboard, on their phone.
    let merchant = Browser::start_sized(360, 740);
    let link = server
        .printed_link_under(&public)
        .expect("the set-password link");
    set_password_and_sign_in(&merchant, &link, "admin@localhost");
    let settings = format!("{}/dashboard/settings/payments", server.https);
    merchant.goto(&settings);
    merchant.wait_for("#secret_key");
    check(&merchant, axe, "Settings → Payments, not connected");
    let save_keys = |webhook: Option<&str>| {
        merchant.fill("#secret_key", &account.test_secret);
        merchant.clear("#publishable_key");
        merchant.fill("#publishable_key", &account.test_publishable);
        if let Some(w) = webhook {
            merchant.fill("#webhook_secret", w);
        }
        tap(
            &merchant,
            "form[action='/dashboard/settings/payments'] button.primary",
        );
        merchant.wait_for("#webhook-url");
    };
    save_keys(None);
    let webhook_url = merchant
        .execute("return document.getElementById('webhook-url').value;")
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        webhook_url.starts_with(&format!("{public}/webhooks/stripe/")),
        "{webhook_url}"
    );
    // The endpoint is made in Stripe for that URL; its signing secret is saved.
    let signing = stripe.endpoint(&account.test_secret, &webhook_url);
    merchant.goto(&settings);
    merchant.wait_for("#secret_key");
    save_keys(Some(&signing));
    check(&merchant, axe, "Settings → Payments, connected");
    let html = merchant
        .execute("return document.documentElement.outerHTML;")
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        !html.contains(&account.test_secret[8..]),
        "the secret key on the page"
    );
    assert!(
        !html.contains(&signing[6..]),
        "the signing secret on the page"
    );
    let connected = made(
        &a,
        &key,
        "GET",
        &format!("{api}/account/gateways/stripe"),
        None,
    );
    assert_eq!(
        (&connected["check_ok"], &connected["webhook_secret_set"]),
        (&json!(true), &json!(true))
    );
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
    let page = invoice["payment_link"].as_str().unwrap().to_string();
    assert!(page.starts_with(&public), "{page}");

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
    assert!(
        browser.url().starts_with(&server.https),
        "{}",
        browser.url()
    );
    assert_eq!(browser.text("#status"), "Awaiting payment");

    // A declined card: Stripe's page says so, the invoice is as it was.
    tap(&browser, "#card-button");
    browser.wait_for("form[action$='/decline'] button");
    tap(&browser, "form[action$='/decline'] button");
    browser.wait_for("p.error");
    assert!(
        browser.text("p.error").contains("declined"),
        "{}",
        browser.text("p.error")
    );
    let (_, payments, _) = call(
        &a,
        "GET",
        &format!("{api}/payments?invoice_id={id}"),
        Some(&key),
        None,
    );
    assert_eq!(payments["data"], json!([]), "a decline records nothing");

    // Pay: back on the invoice page, which says paid.
    tap(&browser, "#pay-form button");
    browser.wait_for("#card-outcome");
    assert!(
        browser.url().starts_with(&server.https),
        "{}",
        browser.url()
    );
    assert_eq!(browser.text("#status"), "Paid");
    assert!(
        browser
            .text("#card-outcome")
            .starts_with("Paid, thank you."),
        "{}",
        browser.text("#card-outcome")
    );
    assert!(
        browser.texts("#pay-by-card").is_empty(),
        "nothing left to pay"
    );
    check(&browser, axe, "the invoice page after paying");

    let (_, payments, _) = call(
        &a,
        "GET",
        &format!("{api}/payments?invoice_id={id}"),
        Some(&key),
        None,
    );
    let list = payments["data"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{payments}");
    assert_eq!(
        (
            &list[0]["method"],
            &list[0]["status"],
            &list[0]["amount_cents"]
        ),
        (&json!("card"), &json!("verified"), &json!(4250))
    );
    let (_, paid, _) = call(
        &a,
        "GET",
        &format!("{api}/events?type=invoice.paid"),
        Some(&key),
        None,
    );
    assert_eq!(paid["data"].as_array().unwrap().len(), 1);
    let mails = smtp::wait_for(&maildir, 1, 30);
    let number = invoice["invoice_number"].as_str().unwrap();
    let receipts = mails
        .iter()
        .filter(|m| String::from_utf8_lossy(m).contains(&format!("Receipt for invoice {number}")))
        .count();
    assert_eq!(receipts, 1, "one receipt in the sink");

    // The merchant sees it paid, with Stripe's reference, and refunds after a credit note.
    merchant.goto(&format!("{}/dashboard/invoices/{id}", server.https));
    merchant.wait_for("h1 .status");
    let screen = merchant.text("main");
    assert!(
        screen.contains(list[0]["reference"].as_str().unwrap()),
        "{screen}"
    );
    check(&merchant, axe, "the paid invoice in the dashboard");
    made(
        &a,
        &key,
        "POST",
        &format!("{api}/invoices/{id}/credit_notes"),
        Some(json!({"reason": "order_change", "amount_cents": 1000})),
    );
    merchant.goto(&format!(
        "{}/dashboard/payments/{}",
        server.https, list[0]["id"]
    ));
    merchant.wait_for("#refund-amount");
    assert_eq!(
        merchant.execute("return document.getElementById('refund-amount').value;"),
        "10.00"
    );
    check(&merchant, axe, "a card payment with its Refund form");
    tap(&merchant, "form[action$='/refund'] button.primary");
    merchant.wait_for(".notice");
    let refunded = made(
        &a,
        &key,
        "GET",
        &format!("{api}/payments/{}", list[0]["id"]),
        None,
    );
    assert_eq!(refunded["amount_refunded_cents"], 1000);
    assert_eq!(refunded["refunds"][0]["status"], "succeeded");
    let asked = stripe
        .requests(None)
        .into_iter()
        .filter(|r| r["path"] == "/v1/refunds")
        .count();
    assert_eq!(asked, 1, "one refund asked of Stripe");

    // A customer pays another invoice by transfer and attaches the receipt; the merchant opens
    // it from the queue before verifying.
    let second = made(
        &a,
        &key,
        "POST",
        &format!("{api}/invoices"),
        Some(json!({
            "customer": {"name": "Ada", "email": "ada@example.com"},
            "line_items": [{"description": "Hosting", "quantity": 1, "unit_price_cents": 1200}]
        })),
    );
    let second_id = second["id"].as_i64().unwrap();
    made(
        &a,
        &key,
        "POST",
        &format!("{api}/invoices/{second_id}/send"),
        None,
    );
    let receipt = dir.join("transfer.pdf");
    std::fs::write(&receipt, b"%PDF-1.4\n% a bank's transfer receipt\n").unwrap();
    browser.goto(second["payment_link"].as_str().unwrap());
    browser.wait_for("#reference");
    browser.fill("#reference", "TR-2026-11-29");
    browser.fill("#proof", receipt.to_str().unwrap());
    tap(&browser, "#report-button");
    browser.wait_for("#confirmation");
    merchant.goto(&format!("{}/dashboard", server.https));
    merchant.wait_for("a[download]");
    check(&merchant, axe, "home with a proof in the queue");
    // The link is the dashboard's own (its download is checked in the HTTP tests); the file is
    // the customer's, byte for byte.
    let href = merchant
        .execute("return document.querySelector('a[download]').getAttribute('href');")
        .as_str()
        .unwrap()
        .to_string();
    let (_, reported, _) = call(
        &a,
        "GET",
        &format!("{api}/payments?invoice_id={second_id}"),
        Some(&key),
        None,
    );
    let payment = reported["data"][0]["id"].as_i64().unwrap();
    assert_eq!(href, format!("/dashboard/payments/{payment}/proof"));
    let mut res = a
        .get(format!("{api}/payments/{payment}/proof"))
        .header("authorization", format!("Bearer {key}"))
        .call()
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    assert_eq!(res.headers()["content-type"], "application/pdf");
    let bytes = res.body_mut().read_to_vec().unwrap();
    assert_eq!(bytes, std::fs::read(&receipt).unwrap());
    drop(browser);
    drop(merchant);
    drop(server);
    sink.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
