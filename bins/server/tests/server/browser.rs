//! Headless Chromium against the running binary: what a customer sees on a payment link.

mod card_payments;
mod dashboard;
mod going_live;
mod settings;

use crate::common;

use common::webdriver::{available, Browser};
use common::*;
use dashboard::axe_source;
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
    assert_eq!(browser.text("#due-date"), "Jun 30, 2099");
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
    dashboard::check(&browser, axe_source().as_deref(), "a sent invoice");
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

/// Creates and sends a quotation through the API; returns it and the page's local address.
fn sent_quotation(
    server: &Server,
    a: &ureq::Agent,
    key: &str,
    email: &str,
) -> (serde_json::Value, String) {
    let base = format!("{}/api/v1", server.https);
    let body = json!({
        "customer": {"name": "Katherine Johnson", "email": email},
        "currency": "JPY", "valid_until": "2099-12-31",
        "line_items": [{"description": "Trajectory analysis", "quantity": 2, "unit_price_cents": 150000, "tax_rate": "10"}]
    });
    let (status, quote, _) = call(
        a,
        "POST",
        &format!("{base}/quotations"),
        Some(key),
        Some(body),
    );
    assert_eq!(status, 201, "{quote}");
    let id = quote["id"].as_i64().unwrap();
    let (status, sent, _) = call(
        a,
        "PATCH",
        &format!("{base}/quotations/{id}/send"),
        Some(key),
        None,
    );
    assert_eq!(
        (status, sent["status"].as_str()),
        (200, Some("sent")),
        "{sent}"
    );
    let url = quote["public_url"].as_str().unwrap();
    let page = format!("{}{}", server.https, url.strip_prefix(PUBLIC_URL).unwrap());
    (quote, page)
}

#[test]
fn prospect_accepts_a_quotation_in_the_browser() {
    if !available() {
        return;
    }
    let dir = data_dir("browser-accept");
    let server = start(&dir);
    let key = server.printed_key().unwrap();
    let a = agent(&dir);
    let (quote, page) = sent_quotation(&server, &a, &key, "katherine@example.com");
    let id = quote["id"].as_i64().unwrap();

    let browser = Browser::start();
    browser.goto(&page);
    let number = quote["quote_number"].as_str().unwrap();
    assert_eq!(browser.title(), format!("Quotation {number} from Default"));
    assert_eq!(browser.text("#status"), "Awaiting your answer");
    assert_eq!(browser.text("#total"), "¥330,000");
    assert_eq!(browser.text("#valid-until"), "Dec 31, 2099");
    browser.fill("#name", "Katherine Johnson");
    let axe = axe_source();
    dashboard::check(&browser, axe.as_deref(), "a sent quotation");
    browser.screenshot(&dir.join("quote.png"));
    browser.click("#accept-button");
    browser.wait_for("#confirmation");
    assert!(
        browser
            .text("#confirmation")
            .contains("You accepted this quotation as Katherine Johnson"),
        "{}",
        browser.text("#confirmation")
    );
    assert_eq!(browser.text("#status"), "Accepted");
    assert!(
        browser.texts("#accept-button").is_empty(),
        "no buttons once answered"
    );
    dashboard::check(&browser, axe.as_deref(), "an accepted quotation");
    browser.screenshot(&dir.join("quote-accepted.png"));
    if let Ok(out) = std::env::var("SCREENSHOT_OUT") {
        let _ = std::fs::copy(dir.join("quote-accepted.png"), out);
    }
    drop(browser);

    let base = format!("{}/api/v1", server.https);
    let (_, seen, _) = call(
        &a,
        "GET",
        &format!("{base}/quotations/{id}"),
        Some(&key),
        None,
    );
    assert_eq!(seen["status"], "accepted");
    assert_eq!(seen["accepted_by_name"], "Katherine Johnson");
    assert!(
        seen["accepted_user_agent"]
            .as_str()
            .unwrap()
            .contains("Chrome"),
        "{seen}"
    );
    assert_eq!(seen["accepted_from_ip"], "127.0.0.1");
    // The merchant converts it, and the customer's payment link opens.
    let (status, converted, _) = call(
        &a,
        "POST",
        &format!("{base}/quotations/{id}/convert"),
        Some(&key),
        None,
    );
    assert_eq!(status, 201, "{converted}");
    let invoice_id = converted["invoice_id"].as_i64().unwrap();
    call(
        &a,
        "POST",
        &format!("{base}/invoices/{invoice_id}/send"),
        Some(&key),
        None,
    );
    let link = converted["invoice_url"].as_str().unwrap();
    let (status, _, _) = call(
        &a,
        "GET",
        &format!("{}{}", server.https, link.strip_prefix(PUBLIC_URL).unwrap()),
        None,
        None,
    );
    assert_eq!(status, 200);
    assert!(server.stop().success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn prospect_declines_a_quotation_in_the_browser() {
    if !available() {
        return;
    }
    let dir = data_dir("browser-decline");
    let server = start(&dir);
    let key = server.printed_key().unwrap();
    let a = agent(&dir);
    let (quote, page) = sent_quotation(&server, &a, &key, "dorothy@example.com");
    let id = quote["id"].as_i64().unwrap();

    let browser = Browser::start();
    browser.goto(&page);
    browser.fill("#reason", "We chose another supplier");
    browser.click("#decline-button");
    browser.wait_for("#confirmation");
    assert!(
        browser
            .text("#confirmation")
            .contains("You declined this quotation"),
        "{}",
        browser.text("#confirmation")
    );
    assert_eq!(browser.text("#status"), "Declined");
    dashboard::check(&browser, axe_source().as_deref(), "a declined quotation");
    drop(browser);

    let (_, seen, _) = call(
        &a,
        "GET",
        &format!("{}/api/v1/quotations/{id}", server.https),
        Some(&key),
        None,
    );
    assert_eq!(seen["status"], "rejected");
    assert_eq!(seen["rejection_reason"], "We chose another supplier");
    assert!(server.stop().success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn customer_reports_a_payment_in_the_browser() {
    if !available() {
        return;
    }
    let dir = data_dir("browser-payment");
    let server = start(&dir);
    let key = server.printed_key().unwrap();
    let a = agent(&dir);
    let base = format!("{}/api/v1", server.https);
    let body = json!({
        "customer": {"name": "Mary Jackson", "email": "mary@example.com"},
        "currency": "EUR", "due_date": "2099-06-30",
        "line_items": [{"description": "Wind tunnel time", "quantity": 2, "unit_price_cents": 1250}]
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
    let (status, _, _) = call(
        &a,
        "POST",
        &format!("{base}/invoices/{id}/send"),
        Some(&key),
        None,
    );
    assert_eq!(status, 200);
    let link = invoice["payment_link"].as_str().unwrap();
    let page = format!("{}{}", server.https, link.strip_prefix(PUBLIC_URL).unwrap());

    let browser = Browser::start();
    browser.goto(&page);
    assert_eq!(browser.text("#amount-due"), "€25.00");
    // A partial payment, typed the way a customer writes it.
    browser.clear("#amount");
    browser.fill("#amount", "10,50");
    browser.fill("#reference", "SEPA 2099-0042");
    browser.screenshot(&dir.join("report.png"));
    browser.click("#report-button");
    browser.wait_for("#confirmation");
    assert!(
        browser.text("#confirmation").contains("Thank you"),
        "{}",
        browser.text("#confirmation")
    );
    let rows = browser.texts("#payments tbody tr");
    assert_eq!(rows.len(), 1);
    assert!(
        rows[0].contains("€10.50")
            && rows[0].contains("SEPA 2099-0042")
            && rows[0].contains("awaiting confirmation"),
        "{}",
        rows[0]
    );
    assert_eq!(
        browser.text("#status"),
        "Awaiting payment",
        "a report never pays"
    );
    assert_eq!(browser.text("#amount-due"), "€25.00");
    // The page says it has the report, and offers the form for the rest only.
    assert!(
        browser
            .text("#reports-checked")
            .contains("We have your report of €10.50 from"),
        "{}",
        browser.text("#reports-checked")
    );
    assert_eq!(
        browser.execute("return document.querySelector('#amount').value;"),
        serde_json::json!("14.50")
    );
    dashboard::check(&browser, axe_source().as_deref(), "a reported payment");
    browser.screenshot(&dir.join("reported.png"));
    drop(browser);

    let (status, pending, _) = call(
        &a,
        "GET",
        &format!("{base}/payments?status=pending&invoice_id={id}"),
        Some(&key),
        None,
    );
    assert_eq!(status, 200);
    assert_eq!(pending["total"], 1, "{pending}");
    let payment = &pending["data"][0];
    assert_eq!(payment["amount_cents"], 1050);
    assert_eq!(payment["reference"], "SEPA 2099-0042");
    assert_eq!(payment["status"], "pending");
    let (_, seen, _) = call(
        &a,
        "GET",
        &format!("{base}/invoices/{id}"),
        Some(&key),
        None,
    );
    assert_eq!(seen["amount_paid_cents"], 0);
    assert_eq!(seen["status"], "viewed");
    assert!(server.stop().success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// What must hold of a page at any width: nothing scrolls sideways and the total is on screen
/// (within the viewport's width, not zero-sized).
fn fits(browser: &Browser) -> (bool, serde_json::Value) {
    let m = browser.execute(
        "const d = document.documentElement; const t = document.querySelector('#total').getBoundingClientRect();\
         return {scroll: d.scrollWidth, client: d.clientWidth, left: t.left, right: t.right, width: t.width};",
    );
    let ok = m["scroll"].as_f64() <= m["client"].as_f64()
        && m["left"].as_f64() >= Some(0.0)
        && m["right"].as_f64() <= m["client"].as_f64()
        && m["width"].as_f64() > Some(0.0);
    (ok, m)
}

#[test]
fn customer_reads_a_german_invoice_on_a_phone() {
    if !available() {
        return;
    }
    let dir = data_dir("browser-phone");
    let server = start(&dir);
    let key = server.printed_key().unwrap();
    let a = agent(&dir);
    let base = format!("{}/api/v1", server.https);
    let profile = json!({"legal_name": "Musterfirma Handels GmbH", "tax_id": "DE123456789",
        "payment_instructions": "IBAN DE89 3704 0044 0532 0130 00\nBIC COBADEFFXXX",
        "address": {"line1": "Hauptstraße 1", "postal_code": "10115", "city": "Berlin", "country": "DE"}});
    let (status, _, _) = call(
        &a,
        "PATCH",
        &format!("{base}/account"),
        Some(&key),
        Some(profile),
    );
    assert_eq!(status, 200);
    let body = json!({
        "customer": {"name": "Jana Kunde", "email": "jana@example.de", "locale": "de",
            "company": "Kunde & Söhne KG", "tax_id": "DE987654321"},
        "currency": "EUR", "due_date": "2099-12-31",
        "line_items": [
            {"description": "Beratung Systemarchitektur, Workshop mit Vorbereitung und Dokumentation",
             "quantity": "1.5", "unit_price_cents": 82300, "tax_rate": 0},
            // A total in the hundreds of billions: the widest figures must still fit a phone.
            {"description": "Softwarelizenz", "quantity": 3, "unit_price_cents": 100000000000000i64, "tax_rate": 21}
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
    let (status, _, _) = call(
        &a,
        "POST",
        &format!("{base}/invoices/{id}/send"),
        Some(&key),
        None,
    );
    assert_eq!(status, 200);
    let link = invoice["payment_link"].as_str().unwrap();
    let page = format!("{}{}", server.https, link.strip_prefix(PUBLIC_URL).unwrap());
    let number = invoice["invoice_number"].as_str().unwrap();
    let plain = |s: String| s.replace(['\u{a0}', '\u{202f}'], " ");

    let axe = axe_source();
    let phone = Browser::start_sized(360, 740);
    phone.goto(&page);
    assert!(
        phone.title().starts_with(&format!("Rechnung {number}")),
        "{}",
        phone.title()
    );
    assert_eq!(phone.text("#status"), "Zahlung ausstehend");
    assert_eq!(phone.text("#due-date"), "31.12.2099");
    assert_eq!(plain(phone.text("#total")), "3.630.000.001.234,50 €");
    assert!(phone
        .text("#merchant-details")
        .contains("Musterfirma Handels GmbH"));
    assert!(phone
        .text("#payment-instructions")
        .contains("IBAN DE89 3704 0044 0532 0130 00"));
    assert!(phone.text("#customer").contains("DE987654321"));
    let width = phone.execute("return window.innerWidth;");
    assert_eq!(width.as_f64(), Some(360.0), "the window is a phone's");
    let (ok, m) = fits(&phone);
    assert!(
        ok,
        "at 360 px nothing scrolls sideways and the total is on screen: {m}"
    );
    dashboard::check(&phone, axe.as_deref(), "a German invoice at 360 px");
    phone.screenshot(&dir.join("phone.png"));

    // The PDF link downloads the PDF of this invoice.
    let href = phone.execute("return document.querySelector('#pdf-link').href;");
    let href = href.as_str().unwrap().to_string();
    assert!(
        href.contains(&format!("/invoice/{number}/pdf?token=")),
        "{href}"
    );
    let mut res = a.get(&href).call().unwrap();
    assert_eq!(res.status().as_u16(), 200);
    assert_eq!(
        res.headers().get("content-type").unwrap(),
        "application/pdf"
    );
    let bytes = res.body_mut().read_to_vec().unwrap();
    assert!(bytes.starts_with(b"%PDF-"));
    drop(phone);

    let desktop = Browser::start_sized(1280, 900);
    desktop.goto(&page);
    let (ok, m) = fits(&desktop);
    assert!(ok, "at 1280 px too: {m}");
    dashboard::check(&desktop, axe.as_deref(), "a German invoice at 1280 px");
    drop(desktop);
    assert!(server.stop().success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// SPEC §27: people never get JSON. `/` leads to the dashboard's sign-in; a payment link that
/// lost a character opens a page that says so, with a way on, readable and accessible on a
/// desktop and on a phone.
/// SPEC §26: a customer opens their portal on a phone, in German: open invoices first, each
/// leading to its page; axe-clean, nothing scrolls sideways, no word split.
#[test]
fn customer_opens_their_portal_on_a_phone() {
    if !available() {
        return;
    }
    let dir = data_dir("browser-portal");
    let server = start(&dir);
    let key = server.printed_key().unwrap();
    let a = agent(&dir);
    let base = format!("{}/api/v1", server.https);
    let send = |body: serde_json::Value, kind: &str| {
        let (status, doc, _) = call(
            &a,
            "POST",
            &format!("{base}/{kind}"),
            Some(&key),
            Some(body),
        );
        assert_eq!(status, 201, "{doc}");
        let path = format!("{base}/{kind}/{}/send", doc["id"]);
        let (status, sent, _) = call(&a, "POST", &path, Some(&key), None);
        assert_eq!(status, 200, "{sent}");
        sent
    };
    let customer = json!({"name": "Jana Kunde", "email": "jana@example.de", "locale": "de",
        "company": "Kunde GmbH", "vat_id": "DE987654321"});
    let line = json!([{"description": "Beratung", "quantity": 1, "unit_price_cents": 123_456_789, "tax_rate": 19}]);
    let open = send(
        json!({"customer": customer, "currency": "EUR", "line_items": line}),
        "invoices",
    );
    let quote = send(
        json!({"customer": customer, "currency": "EUR", "line_items": line}),
        "quotations",
    );
    let (status, link, _) = call(
        &a,
        "POST",
        &format!("{base}/customers/{}/portal_link", open["customer_id"]),
        Some(&key),
        None,
    );
    assert_eq!(status, 201, "{link}");
    let url = link["url"].as_str().unwrap();
    let page = format!("{}{}", server.https, url.strip_prefix(PUBLIC_URL).unwrap());

    let browser = Browser::start_sized(360, 780);
    browser.goto(&page);
    assert_eq!(browser.title(), "Ihre Dokumente von Default");
    let to_pay = browser.texts("#open tbody tr");
    assert_eq!(to_pay.len(), 1);
    assert!(
        to_pay[0].contains(open["invoice_number"].as_str().unwrap()),
        "{}",
        to_pay[0]
    );
    assert!(to_pay[0].contains("1.469.135,79 €"), "{}", to_pay[0]);
    let quotes = browser.texts("#quotations tbody tr");
    assert!(quotes[0].contains(quote["quote_number"].as_str().unwrap()));
    // Each document's files, and the statement, in the customer's words.
    let files = browser.texts("#open td.actions");
    assert!(
        files[0].contains("PDF") && files[0].contains("E-Rechnung (XML)"),
        "{files:?}"
    );
    let statement = browser.texts("#statement button");
    assert_eq!(statement, ["Kontoauszug herunterladen (PDF)"]);
    dashboard::check(&browser, axe_source().as_deref(), "the portal on a phone");
    browser.screenshot(&dir.join("portal-360.png"));
    let desktop = Browser::start_sized(1280, 900);
    desktop.goto(&page);
    desktop.wait_for("#statement");
    dashboard::check(&desktop, axe_source().as_deref(), "the portal on a desktop");
    desktop.screenshot(&dir.join("portal-1280.png"));
    drop(desktop);
    browser.goto(&format!("{}/portal/login", server.https));
    browser.wait_for("h1");
    browser.wait_for("#no-mail");
    dashboard::check(
        &browser,
        axe_source().as_deref(),
        "the portal's login on a phone",
    );
    browser.goto(&page);
    let href = browser.execute("return document.querySelector('#open a').href;");
    assert_eq!(href, open["payment_link"]);
    let link = open["payment_link"].as_str().unwrap();
    browser.goto(&format!(
        "{}{}",
        server.https,
        link.strip_prefix(PUBLIC_URL).unwrap()
    ));
    browser.wait_for("#status");
    assert!(
        browser.title().starts_with("Rechnung"),
        "{}",
        browser.title()
    );
    drop(browser);
    assert!(server.stop().success());
    // KEEP_SCREENSHOTS=1 keeps the pictures (and the data) to look at.
    if std::env::var_os("KEEP_SCREENSHOTS").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn people_who_reach_no_page_get_a_page() {
    pages_for_people("browser-people", None);
}

#[test]
fn people_who_reach_no_page_get_a_page_on_postgres() {
    if let Some(db) = invoicing_storage::testing::TestDb::new(invoicing_storage::Backend::Postgres)
    {
        pages_for_people("browser-people-pg", Some(&db.url));
    }
}

/// On SQLite in the data directory, or on the PostgreSQL `database`.
fn pages_for_people(name: &str, database: Option<&str>) {
    if !available() {
        return;
    }
    let axe_js = axe_source();
    let dir = data_dir(name);
    let server = match database {
        Some(url) => start_with(&dir, &[("DATABASE_URL", url)]),
        None => start(&dir),
    };
    let key = server.printed_key().unwrap();
    let a = agent(&dir);
    let base = format!("{}/api/v1", server.https);
    let (status, invoice, _) = call(
        &a,
        "POST",
        &format!("{base}/invoices"),
        Some(&key),
        Some(
            json!({"customer": {"name": "Ada", "email": "ada@example.com"},
            "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 1000}]}),
        ),
    );
    assert_eq!(status, 201, "{invoice}");
    let id = invoice["id"].as_i64().unwrap();
    let (status, sent, _) = call(
        &a,
        "POST",
        &format!("{base}/invoices/{id}/send"),
        Some(&key),
        None,
    );
    assert_eq!(status, 200, "{sent}");
    let link = sent["payment_link"].as_str().unwrap();
    let broken = format!("{}{}", server.https, link.strip_prefix(PUBLIC_URL).unwrap());
    let broken = &broken[..broken.len() - 1];
    for (width, height) in [(1000, 1200), (390, 844)] {
        let browser = Browser::start_sized(width, height);
        browser.goto(&format!("{}/", server.https));
        assert!(
            browser.url().ends_with("/dashboard/login"),
            "/ leads to signing in: {}",
            browser.url()
        );
        browser.goto(broken);
        assert_eq!(browser.title(), "This page does not exist");
        assert!(
            browser.text("main").contains("The link may be incomplete"),
            "{}",
            browser.text("main")
        );
        assert!(!browser.text("body").contains("\"error\""), "no JSON");
        dashboard::check(&browser, axe_js.as_deref(), "a broken payment link");
        browser.goto(&format!("{}/dashboard/invoices/", server.https));
        assert!(
            browser.url().contains("/dashboard/login"),
            "a trailing slash leads on: {}",
            browser.url()
        );
    }
    assert!(server.stop().success());
    let _ = std::fs::remove_dir_all(&dir);
}
