//! Setting up the business in headless Chromium against the binary, with a real SMTP server
//! (SPEC §21): from the printed first-owner link, the owner fills in the profile and uploads the
//! logo, sends a test email, creates an API key (used on the API) and a webhook endpoint (its
//! deliveries shown), and invites a colleague by email; the colleague opens the emailed link,
//! sets a password, signs in as staff and sees no settings; the owner then forgets their password
//! and resets it from the emailed link; two-step sign-in turned on and asked after the password.
//! axe-core on every settings screen; nothing scrolls sideways at 360 px.

use super::dashboard::{axe_source, check, made};
use crate::common::smtp::{self, Sink};
use crate::common::webdriver::{available, Browser};
use crate::common::*;
use invoicing_domain::user::TotpSecret;
use mail_parser::MessageParser;
use serde_json::json;
use std::path::Path;

const PASSWORD: &str = "a long and quiet harbour";

/// The link in the text of message `n` (from 1) that the sink received, at this server.
fn link_in(maildir: &Path, n: usize, server: &Server) -> (String, String) {
    let raw = &smtp::wait_for(maildir, n, 30)[n - 1];
    let message = MessageParser::default().parse(raw).expect("a message");
    let to = message
        .to()
        .and_then(|a| a.first())
        .and_then(|a| a.address())
        .unwrap_or_default()
        .to_string();
    let text = message.body_text(0).expect("a text part").to_string();
    let at = text
        .find(&format!("{PUBLIC_URL}/dashboard/set-password?token="))
        .unwrap_or_else(|| panic!("a link in {text}"));
    let link: String = text[at..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    (to, link.replace(PUBLIC_URL, &server.https))
}

/// A 4×2 PNG, drawn here.
fn tiny_png() -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, 4, 2);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().unwrap();
        writer.write_image_data(&[0x33; 4 * 2 * 3]).unwrap();
    }
    out
}

fn sign_in(browser: &Browser, server: &Server, email: &str, password: &str) {
    browser.goto(&format!("{}/dashboard/login", server.https));
    browser.wait_for("#email");
    browser.fill("#email", email);
    browser.fill("#password", password);
    browser.execute("document.querySelector('form button.primary').click(); return true;");
    browser.wait_for("nav[aria-label] ul");
}

fn sign_out(browser: &Browser) {
    browser.execute(
        "document.querySelector('form[action=\"/dashboard/logout\"]').submit(); return true;",
    );
    browser.wait_for("#email");
}

/// A form's button, pressed as a tap would (the element's own click).
fn press(browser: &Browser, css: &str) {
    browser.execute(&format!(
        "document.querySelector({css:?}).click(); return true;"
    ));
}

/// The API-keys form's scope grid: a resource's read and write stay on one line, and on a desktop
/// on the resource's own line (a choice that wraps away reads as the next resource's).
fn assert_grants_on_their_lines(browser: &Browser, desktop: bool) {
    let rows = browser.execute(
        "const box = e => e.getBoundingClientRect();
         const beside = (a, b) => a.top < b.bottom && b.top < a.bottom;
         return [...document.querySelectorAll('.grants > div')].map(row => {
           const [name, ...choices] = [...row.querySelectorAll('.grant-name, input, label')].map(box);
           return {resource: row.querySelector('.grant-name').textContent,
                   together: choices.every(c => beside(c, choices[0])),
                   beside_name: choices.every(c => beside(c, name))};
         });",
    );
    let rows = rows.as_array().expect("the scope grid's rows");
    assert!(!rows.is_empty(), "a scope grid");
    for row in rows {
        assert_eq!(row["together"], true, "read and write apart: {row}");
        if desktop {
            assert_eq!(
                row["beside_name"], true,
                "choices off their resource's line: {row}"
            );
        }
    }
}

fn setting_up(width: u32, height: u32, name: &str) {
    if !available() {
        return;
    }
    let axe_js = axe_source();
    let axe = axe_js.as_deref();
    let dir = data_dir(name);
    let maildir = dir.join("mail");
    let sink = Sink::start(&maildir);
    let smtp_url = sink.plain_url();
    let hook_port = smtp::free_port().to_string();
    let server = start_with(
        &dir,
        &[
            ("SMTP_URL", smtp_url.as_str()),
            ("SMTP_ALLOW_PLAINTEXT", "true"),
            ("MAIL_FROM", "Billing <billing@mailer.example.com>"),
            ("WEBHOOK_ALLOW_PRIVATE_TARGETS", "true"),
            ("WEBHOOK_RETRY_SCHEDULE", "1h"),
        ],
    );
    let browser = Browser::start_sized(width, height);
    let shot = |file: &str| browser.screenshot(&dir.join(format!("{file}.png")));
    let goto = |path: &str, ready: &str| {
        browser.goto(&format!("{}{path}", server.https));
        browser.wait_for(ready);
    };

    // The first owner's password, from the printed link.
    browser.goto(&server.printed_link().unwrap());
    browser.wait_for("#password");
    browser.fill("#password", PASSWORD);
    browser.fill("#confirm", PASSWORD);
    press(&browser, "button.primary");
    browser.wait_for("#email");
    sign_in(&browser, &server, "admin@localhost", PASSWORD);

    // The profile and the logo.
    goto("/dashboard/settings", "#name");
    check(&browser, axe, "settings");
    browser.clear("#name");
    browser.fill("#name", "Lovelace Analytics");
    browser.fill("[id='address.city']", "London");
    press(
        &browser,
        "form[action='/dashboard/settings'] button.primary",
    );
    browser.wait_for(".notice");
    let logo = dir.join("logo.png");
    std::fs::write(&logo, tiny_png()).unwrap();
    browser.fill("#logo-file", logo.to_str().unwrap());
    press(&browser, "form[action='/dashboard/settings/logo'] button");
    browser.wait_for("img.logo-preview");
    let loaded = browser.execute("return document.querySelector('img.logo-preview').naturalWidth;");
    assert!(
        loaded.as_u64().unwrap_or(0) > 0,
        "the preview shows the logo"
    );

    // A test email reaches the SMTP server.
    browser.clear("#test-to");
    browser.fill("#test-to", "owner@lovelace.example");
    press(
        &browser,
        "form[action='/dashboard/settings/test-email'] button",
    );
    browser.wait_for(".notice");
    let got = smtp::wait_for(&maildir, 1, 30);
    let test = MessageParser::default().parse(&got[0]).unwrap();
    assert!(test
        .subject()
        .unwrap_or_default()
        .contains("Lovelace Analytics"));
    check(&browser, axe, "settings after the test email");
    shot("settings");

    // An invoice emailed (with the key the first start printed): the email log gets its row.
    let a = agent(&dir);
    let api = format!("{}/api/v1", server.https);
    let printed = server.printed_key().unwrap();
    let invoice = json!({"customer": {"name": "Mary Somerville", "email": "mary@example.com"},
        "line_items": [{"description": "Difference engine maintenance", "quantity": 1, "unit_price_cents": 12000}]});
    let invoice = made(
        &a,
        &printed,
        "POST",
        &format!("{api}/invoices"),
        Some(invoice),
    );
    let sent = format!("{api}/invoices/{}/send", invoice["id"]);
    made(&a, &printed, "POST", &sent, Some(json!({"email": {}})));
    smtp::wait_for(&maildir, 2, 30);
    goto("/dashboard/settings/emails", "main table");
    check(&browser, axe, "the email log");

    // An API key, shown once, that works on the API.
    goto("/dashboard/settings/keys", "#all");
    check(&browser, axe, "API keys");
    // A desktop window: webdriver.rs emulates a phone below 500 px.
    assert_grants_on_their_lines(&browser, width >= 500);
    press(
        &browser,
        "form[action='/dashboard/settings/keys'] button.primary",
    );
    browser.wait_for("#issued-secret");
    let key = browser
        .execute("return document.getElementById('issued-secret').value;")
        .as_str()
        .unwrap()
        .to_string();
    check(&browser, axe, "a new API key");
    shot("key");
    let (status, _, _) = call(&a, "GET", &format!("{api}/invoices"), Some(&key), None);
    assert_eq!(status, 200, "the new key works");

    // A webhook endpoint and its deliveries (nobody listens there: the attempt is logged).
    goto("/dashboard/settings/webhooks", "#url");
    check(&browser, axe, "webhooks");
    browser.fill("#url", &format!("http://127.0.0.1:{hook_port}/hook"));
    press(
        &browser,
        "form[action='/dashboard/settings/webhooks'] button.primary",
    );
    browser.wait_for("#hook-secret");
    check(&browser, axe, "a new webhook endpoint");
    let (status, _, _) = call(
        &a,
        "POST",
        &format!("{api}/customers"),
        Some(&key),
        Some(json!({"name": "Charles Babbage", "email": "charles@example.com"})),
    );
    assert_eq!(status, 201);
    press(&browser, "a[href^='/dashboard/settings/webhooks/']");
    browser.wait_for("#url");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while browser.texts("form[action$='/redeliver']").is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "no delivery attempt shown"
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
        browser.execute("location.reload(); return true;");
        browser.wait_for("#url");
    }
    check(&browser, axe, "a webhook endpoint's deliveries");
    shot("webhook");

    // A colleague, invited by email, joins as staff and sees no settings.
    goto("/dashboard/settings/people", "#email");
    check(&browser, axe, "people");
    browser.fill("#email", "ada@lovelace.example");
    press(
        &browser,
        "form[action='/dashboard/settings/people/invite'] button.primary",
    );
    browser.wait_for(".notice");
    check(&browser, axe, "people with an invitation");
    shot("people");
    let (to, invitation) = link_in(&maildir, 3, &server);
    assert_eq!(to, "ada@lovelace.example");
    sign_out(&browser);
    browser.goto(&invitation);
    browser.wait_for("#confirm");
    check(&browser, axe, "an invitation's page");
    let theirs = "ada's own passphrase, long enough";
    browser.fill("#password", theirs);
    browser.fill("#confirm", theirs);
    press(&browser, "button.primary");
    browser.wait_for("#email");
    sign_in(&browser, &server, "ada@lovelace.example", theirs);
    assert!(
        browser.texts("a[href='/dashboard/settings']").is_empty(),
        "staff see no settings"
    );
    goto("/dashboard/settings/keys", "main h1");
    assert!(
        browser.text("main").contains("role"),
        "refused: {}",
        browser.text("main")
    );
    goto("/dashboard", "main h1");
    sign_out(&browser);

    // Two-step sign-in for the owner: scan (here: read) the key, type the app's code.
    sign_in(&browser, &server, "admin@localhost", PASSWORD);
    goto("/dashboard/account/two-step", "#secret");
    check(&browser, axe, "setting up two-step sign-in");
    let secret = TotpSecret::parse(&browser.text("#secret")).expect("a key to type");
    browser.fill("#code", &secret.code_at(chrono::Utc::now()));
    press(
        &browser,
        "form[action='/dashboard/account/two-step/enable'] button",
    );
    browser.wait_for("ul.codes");
    check(&browser, axe, "recovery codes");
    shot("recovery-codes");
    assert_eq!(browser.texts("ul.codes li").len(), 10);
    sign_out(&browser);
    browser.goto(&format!("{}/dashboard/login", server.https));
    browser.wait_for("#email");
    browser.fill("#email", "admin@localhost");
    browser.fill("#password", PASSWORD);
    press(&browser, "form button.primary");
    browser.wait_for("#code");
    check(&browser, axe, "the code after the password");
    let next = secret.code_at(chrono::Utc::now() + chrono::Duration::seconds(30));
    browser.fill("#code", &next);
    press(
        &browser,
        "form[action='/dashboard/login/code'] button.primary",
    );
    browser.wait_for("nav[aria-label] ul");
    assert!(browser.url().ends_with("/dashboard"), "{}", browser.url());
    sign_out(&browser);

    // The owner forgot their password: a reset link by email.
    goto("/dashboard/forgot-password", "#email");
    check(&browser, axe, "forgot password");
    browser.fill("#email", "admin@localhost");
    press(&browser, "button.primary");
    browser.wait_for(".notice");
    let (to, reset) = link_in(&maildir, 4, &server);
    assert_eq!(to, "admin@localhost");
    browser.goto(&reset);
    browser.wait_for("#confirm");
    let renewed = "a renewed long passphrase";
    browser.fill("#password", renewed);
    browser.fill("#confirm", renewed);
    press(&browser, "button.primary");
    browser.wait_for("#email");
    browser.goto(&format!("{}/dashboard/login", server.https));
    browser.wait_for("#email");
    browser.fill("#email", "admin@localhost");
    browser.fill("#password", renewed);
    press(&browser, "form button.primary");
    browser.wait_for("#code");
    assert!(
        browser.url().contains("/dashboard/login/code"),
        "the code is still asked"
    );

    drop(browser);
    assert!(server.stop().success());
    sink.stop();
    if std::env::var_os("KEEP_SCREENSHOTS").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_merchant_sets_up_the_business_in_the_browser() {
    setting_up(1280, 900, "settings-desktop");
}

#[test]
fn a_merchant_sets_up_the_business_on_a_phone() {
    setting_up(360, 740, "settings-phone");
}
