//! Going live as a German merchant on a phone (SPEC §27), in headless Chromium against the binary
//! with a real SMTP server: the business set up in test (country and time zone chosen, not typed),
//! Home's go-live steps in live, the test profile copied to live, a live invoice with a service
//! period and an exempt line composed and checked before it is emailed, and the customer
//! reporting "1.453,00" once. axe-core, no sideways scrolling and no split word on every screen.

use super::dashboard::{axe_source, check, set_password_and_sign_in, tap};
use crate::common::smtp::{self, Sink};
use crate::common::webdriver::{available, Browser};
use crate::common::*;
use mail_parser::MessageParser;

/// A select's choice (or a date field's day), as a person picks it.
fn choose(browser: &Browser, css: &str, value: &str) {
    browser.execute(&format!(
        "const s = document.querySelector({css:?}); s.value = {value:?}; return s.value;"
    ));
}

fn steps_done(browser: &Browser) -> Vec<bool> {
    browser
        .execute(
            "return [...document.querySelectorAll('#go-live-steps li')] \
             .map(li => li.classList.contains('done'));",
        )
        .as_array()
        .map(|a| a.iter().map(|v| v.as_bool().unwrap_or(false)).collect())
        .unwrap_or_default()
}

#[test]
fn a_german_merchant_goes_live_on_a_phone() {
    going_live("going-live", None);
}

#[test]
fn a_german_merchant_goes_live_on_a_phone_on_postgres() {
    if let Some(db) = invoicing_storage::testing::TestDb::new(invoicing_storage::Backend::Postgres)
    {
        going_live("going-live-pg", Some(&db.url));
    }
}

/// The whole way, on SQLite in the data directory or on the PostgreSQL `database`.
fn going_live(name: &str, database: Option<&str>) {
    if !available() {
        return;
    }
    let axe_js = axe_source();
    let axe = axe_js.as_deref();
    let dir = data_dir(name);
    let maildir = dir.join("mail");
    let sink = Sink::start(&maildir);
    let smtp_url = sink.plain_url();
    let mut env = vec![
        ("SMTP_URL", smtp_url.as_str()),
        ("SMTP_ALLOW_PLAINTEXT", "true"),
        ("OWNER_EMAIL", "inhaber@muster.example"),
    ];
    if let Some(url) = database {
        env.push(("DATABASE_URL", url));
    }
    let server = start_with(&dir, &env);
    let browser = Browser::start_sized(360, 740);
    let goto = |path: &str, ready: &str| {
        browser.goto(&format!("{}{path}", server.https));
        browser.wait_for(ready);
    };

    // The first owner, named by OWNER_EMAIL, sets a password and signs in; German from then on.
    let link = server.printed_link().unwrap();
    set_password_and_sign_in(&browser, &link, "inhaber@muster.example");
    choose(&browser, "#language", "de");
    tap(&browser, "form[action='/dashboard/language'] button");
    browser.wait_for("html[lang='de']");

    // The business, in test: the country and the time zone are chosen from lists.
    goto("/dashboard/settings", "#name");
    browser.clear("#name");
    browser.fill("#name", "Muster Praxis");
    browser.fill("#legal_name", "Muster Praxis GmbH");
    browser.fill("[id='address.line1']", "Hauptstraße 1");
    browser.fill("[id='address.postal_code']", "10115");
    browser.fill("[id='address.city']", "Berlin");
    choose(&browser, "[id='address.country']", "DE");
    choose(&browser, "#locale", "de");
    choose(&browser, "#time_zone", "America/Port_of_Spain");
    tap(
        &browser,
        "form[action='/dashboard/settings'] button.primary",
    );
    browser.wait_for(".notice");
    assert_eq!(
        browser
            .execute("return document.getElementById('address.country').selectedOptions[0].text;"),
        "Deutschland"
    );
    check(&browser, axe, "settings in German");

    // Live starts blank, and Home says what going live takes.
    tap(&browser, "form.env button[value='live']");
    browser.wait_for(".notice");
    goto("/dashboard", "#go-live-steps");
    check(&browser, axe, "home in live");
    let before = steps_done(&browser);
    assert_eq!(before.first(), Some(&false), "no seller yet: {before:?}");
    goto("/dashboard/settings", "#copy-to-live button");
    tap(&browser, "#copy-to-live button");
    browser.wait_for(".notice");
    assert_eq!(
        browser.execute("return document.getElementById('legal_name').value;"),
        "Muster Praxis GmbH",
        "the test profile, copied"
    );
    goto("/dashboard", "#go-live-steps");
    assert_eq!(
        steps_done(&browser).first(),
        Some(&true),
        "the seller's step is ticked"
    );

    // A live invoice with a service period and an exempt line, checked before it is emailed.
    goto(
        "/dashboard/invoices/new",
        "[id='line_items[0].description']",
    );
    browser.fill("[id='customer.name']", "Erika Musterfrau");
    browser.fill("[id='customer.email']", "erika@kunde.example");
    // A date field takes what its calendar picks, in ISO form underneath.
    choose(&browser, "[id='service_period.start']", "2026-11-01");
    choose(&browser, "[id='service_period.end']", "2026-11-30");
    browser.fill(
        "[id='line_items[0].description']",
        "Heilbehandlung November",
    );
    browser.fill("[id='line_items[0].unit_price']", "1.453,00");
    browser.clear("[id='line_items[0].tax_rate']");
    browser.fill("[id='line_items[0].tax_rate']", "0");
    // The VAT category and its reason are under the line's "More".
    tap(&browser, ".line-more summary");
    choose(&browser, "[id='line_items[0].tax_category']", "E");
    browser.fill(
        "[id='line_items[0].tax_exemption_reason']",
        "Steuerfrei nach § 4 Nr. 14 UStG",
    );
    check(&browser, axe, "new invoice with its supply");
    tap(&browser, "button[value='save_email']");
    browser.wait_for("main h1");
    assert!(
        browser.url().contains("/email"),
        "the email to check: {:?}",
        browser.execute(
            "return [...document.querySelectorAll('.field-error')].map(e => e.id + ': ' + e.textContent);"
        )
    );
    check(&browser, axe, "the email before it leaves");
    assert_eq!(
        browser.execute("return document.getElementById('email.to').value;"),
        "erika@kunde.example"
    );
    let subject = browser
        .execute("return document.getElementById('email.subject').value;")
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(subject.starts_with("Rechnung"), "{subject}");
    browser.fill("[id='email.cc']", "buchhaltung@muster.example");
    browser.fill("[id='email.message']", "Vielen Dank für Ihren Besuch.");
    tap(&browser, "main form button.primary");
    browser.wait_for("#payment-link");
    check(&browser, axe, "the live invoice, sent");
    assert!(
        browser.text("main").contains("Leistungszeitraum"),
        "the invoice's screen shows its period"
    );
    let mail = smtp::wait_for(&maildir, 1, 30);
    let message = MessageParser::default().parse(&mail[0]).unwrap();
    assert_eq!(message.subject(), Some(subject.as_str()));
    let text = message.body_text(0).unwrap().to_string();
    assert!(text.starts_with("Vielen Dank für Ihren Besuch."), "{text}");

    // The customer's page: the period, the exemption, and "1.453,00" reported once.
    let public = browser
        .text("#payment-link")
        .replace(PUBLIC_URL, &server.https);
    browser.goto(&public);
    browser.wait_for("#amount");
    check(&browser, axe, "the customer's German invoice page");
    let page = browser.text("main");
    assert!(page.contains("Leistungszeitraum"), "{page}");
    assert!(page.contains("Steuerfrei nach § 4 Nr. 14 UStG"), "{page}");
    assert_eq!(
        browser.execute("return document.getElementById('amount').value;"),
        "1.453,00"
    );
    browser.fill("#reference", "Überweisung 4711");
    tap(&browser, "#report-button");
    browser.wait_for("#confirmation");
    browser.goto(&public);
    browser.wait_for("#reports-checked");
    assert!(
        browser.texts("#amount").is_empty(),
        "nothing left to report: no form"
    );
    assert!(browser.text("#reports-checked").contains("1.453,00"));
    check(&browser, axe, "the page with the report being checked");

    drop(browser);
    assert!(server.stop().success());
    if std::env::var_os("KEEP_SCREENSHOTS").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
