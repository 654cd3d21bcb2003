//! The merchant dashboard in headless Chromium against the binary (SPEC §21): the first owner
//! sets a password from the printed link, signs in from the keyboard, creates a customer and an
//! invoice with two lines, sends it; the customer reports a transfer on the public page; the
//! owner verifies it from the home screen and the invoice is paid. The same on a 360 px phone,
//! with nothing scrolling sideways; axe-core finds no WCAG 2.2 A/AA violation on any screen.

use crate::common::webdriver::{available, Browser};
use crate::common::*;
use serde_json::json;

const PASSWORD: &str = "a long and quiet harbour";
const TAB: &str = "\u{E004}";
const ENTER: &str = "\u{E007}";

/// axe-core's source, installed by scripts/test (AXE_JS); under CI it must be there.
pub(crate) fn axe_source() -> Option<String> {
    let path = std::env::var("AXE_JS").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../target/axe/node_modules/axe-core/axe.min.js"
        )
        .to_string()
    });
    match std::fs::read_to_string(&path) {
        Ok(source) => Some(source),
        Err(_) => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "axe-core is required under CI (scripts/test installs it): {path}"
            );
            eprintln!("skipping the accessibility checks: no axe-core at {path}");
            None
        }
    }
}

/// Runs axe-core on the page: no violation of WCAG 2.x A or AA (2.2 included) is allowed.
fn assert_accessible(browser: &Browser, axe: Option<&str>, what: &str) {
    let Some(axe) = axe else { return };
    browser.execute(&format!("{axe}\n;return true;"));
    let found = browser.execute_async(
        "const done = arguments[0];
         axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']}})
           .then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))))
           .catch(e => done([{id: 'axe-error', help: String(e)}]));",
    );
    assert_eq!(found, json!([]), "{what}: accessibility violations");
}

/// Nothing scrolls sideways.
fn assert_fits(browser: &Browser, what: &str) {
    let widths =
        browser.execute("return [document.documentElement.scrollWidth, window.innerWidth];");
    let (scroll, inner) = (widths[0].as_f64().unwrap(), widths[1].as_f64().unwrap());
    assert!(
        scroll <= inner,
        "{what}: {scroll} px of content in a {inner} px window"
    );
}

/// No visible word is split across lines (bins/server/tests/server/browser/split_words.js says
/// how that is seen): a table squeezed on a phone or a desktop wraps between words, never inside
/// one.
pub(crate) fn assert_no_split_words(browser: &Browser, what: &str) {
    let split = browser.execute(include_str!("split_words.js"));
    assert_eq!(split, json!([]), "{what}: words split across lines");
}

/// An API call that sets up a screen: it must succeed, or the screen shows less than it should.
pub(crate) fn made(
    a: &ureq::Agent,
    key: &str,
    method: &str,
    url: &str,
    body: Option<serde_json::Value>,
) -> serde_json::Value {
    let (status, value, _) = call(a, method, url, Some(key), body);
    assert!(
        (200..300).contains(&status),
        "{method} {url}: {status} {value}"
    );
    value
}

/// The status badge of the document shown.
fn status_of(browser: &Browser) -> String {
    browser
        .execute("return document.querySelector('h1 .status').className;")
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A button or link, activated as a tap would (the element's own click).
pub(crate) fn tap(browser: &Browser, css: &str) {
    browser.execute(&format!(
        "document.querySelector({css:?}).click(); return true;"
    ));
}

/// The first owner chooses a password on the printed `link`, then signs in as `email`.
pub(crate) fn set_password_and_sign_in(browser: &Browser, link: &str, email: &str) {
    browser.goto(link);
    browser.wait_for("#password");
    browser.fill("#password", PASSWORD);
    browser.fill("#confirm", PASSWORD);
    tap(browser, "button.primary");
    browser.wait_for("#email");
    browser.fill("#email", email);
    browser.fill("#password", PASSWORD);
    tap(browser, "form button.primary");
    browser.wait_for("nav[aria-label] ul");
}

pub(crate) fn check(browser: &Browser, axe: Option<&str>, what: &str) {
    assert_fits(browser, what);
    assert_no_split_words(browser, what);
    assert_accessible(browser, axe, what);
}

/// Chooses the dashboard's language from the account menu, as a person would.
fn choose_language(browser: &Browser, code: &str) {
    browser.execute(&format!(
        "const s = document.getElementById('language'); s.value = '{code}'; s.form.submit(); \
         return true;"
    ));
    for _ in 0..100 {
        if browser.execute("return document.documentElement.lang;") == code {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("the dashboard did not switch to {code}");
}

/// Switches to live and back to test from the screen shown (SPEC §21): each switch lands on the
/// screen's section (a document's list: the document is the other environment's) with its
/// notice, never on an error page.
fn switch_and_back(browser: &Browser, path: &str) {
    let plain = path.split('?').next().unwrap_or(path);
    let screen = plain.splitn(4, '/').take(3).collect::<Vec<_>>().join("/");
    for to in ["live", "test"] {
        browser.execute(&format!(
            "document.querySelector(\"form.env button[value='{to}']\").click(); return true;"
        ));
        browser.wait_for(".notice");
        let url = browser.url();
        assert!(
            url.split('?').next().unwrap_or_default().ends_with(&screen),
            "{path}: switching to {to} went to {url}"
        );
        assert_eq!(
            browser.texts(".test-banner").is_empty(),
            to == "live",
            "{path}: now in {to}"
        );
    }
}

/// The whole day, at one window size, on SQLite; `dir` keeps the screenshots.
fn a_day_of_billing(width: u32, height: u32, name: &str) {
    a_day_of_billing_on(width, height, name, None);
}

/// The whole day on SQLite in the data directory, or on the PostgreSQL `database`.
fn a_day_of_billing_on(width: u32, height: u32, name: &str, database: Option<&str>) {
    if !available() {
        return;
    }
    let axe_js = axe_source();
    let axe = axe_js.as_deref();
    let dir = data_dir(name);
    let server = match database {
        Some(url) => start_with(&dir, &[("DATABASE_URL", url)]),
        None => start(&dir),
    };
    let link = server
        .printed_link()
        .expect("the first start prints a set-password link");
    let browser = Browser::start_sized(width, height);
    let shot = |file: &str| browser.screenshot(&dir.join(format!("{file}.png")));
    // Chromium's phone emulation misplaces WebDriver's pointer after a scroll, so on a phone
    // the button is activated as a tap would: the element's own click.
    let click = |css: &str| {
        if width < 500 {
            let script = format!("document.querySelector({css:?}).click(); return true;");
            browser.execute(&script);
        } else {
            browser.click(css);
        }
    };

    // The printed link: choose a password.
    browser.goto(&link);
    browser.wait_for("#password");
    check(&browser, axe, "set password");
    browser.fill("#password", PASSWORD);
    browser.fill("#confirm", PASSWORD);
    click("button.primary");
    browser.wait_for("#email");
    check(&browser, axe, "sign in");
    shot("login");

    // Sign in from the keyboard alone.
    browser.execute("document.getElementById('email').focus(); return true;");
    browser.press(&format!("admin@localhost{TAB}{PASSWORD}{ENTER}"));
    browser.wait_for("main h1");
    assert!(browser.url().ends_with("/dashboard"), "{}", browser.url());
    assert!(
        !browser.texts(".test-banner").is_empty(),
        "a new session shows test data"
    );
    check(&browser, axe, "home");

    // A customer.
    browser.goto(&format!("{}/dashboard/customers/new", server.https));
    browser.wait_for("#name");
    check(&browser, axe, "new customer");
    browser.fill("#name", "Katherine Johnson");
    browser.fill("#email", "katherine@example.com");
    browser.fill("[id='address.city']", "Hampton");
    click("form button.primary");
    browser.wait_for("a[href^='/dashboard/invoices/new?customer_id=']");
    check(&browser, axe, "customer");

    // An invoice with two lines (the second added without JavaScript), sent.
    click("a[href^='/dashboard/invoices/new?customer_id=']");
    browser.wait_for("[id='line_items[0].description']");
    check(&browser, axe, "new invoice");
    if width < 500 {
        // A select cannot wrap its choice: on a phone the VAT category (under the line's
        // "More") gets the line's width.
        let widths = browser.execute(
            "document.querySelector('.line-more').open = true; \
             const w = id => document.getElementById(id).getBoundingClientRect().width; \
             return [w('line_items[0].tax_category'), w('line_items[0].description')];",
        );
        assert_eq!(widths[0], widths[1], "{widths}");
    }
    browser.fill("[id='line_items[0].description']", "Orbital calculations");
    browser.clear("[id='line_items[0].quantity']");
    browser.fill("[id='line_items[0].quantity']", "3");
    browser.fill("[id='line_items[0].unit_price']", "120.00");
    browser.fill("[id='line_items[0].tax_rate']", "20");
    // The totals follow the typing (3 × 120.00 plus 20 %), without pressing "Update totals".
    let mut shown = serde_json::Value::Null;
    for _ in 0..100 {
        shown = browser.execute(
            "const t = document.getElementById('running-total'); return t ? t.textContent : '';",
        );
        if shown.as_str().is_some_and(|t| t.contains("432.00")) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(
        shown.as_str().is_some_and(|t| t.contains("432.00")),
        "running total: {shown}"
    );
    click("button[value='add_line']");
    browser.wait_for("[id='line_items[1].description']");
    assert_eq!(
        browser.execute("return document.getElementById('line_items[0].unit_price').value;"),
        "120.00",
        "typed values are kept"
    );
    browser.fill("[id='line_items[1].description']", "Travel");
    browser.fill("[id='line_items[1].unit_price']", "55.5");
    shot("new-invoice");
    click("button[value='save_send']");
    browser.wait_for("#payment-link");
    assert_eq!(status_of(&browser), "status status-sent");
    check(&browser, axe, "invoice");
    shot("invoice");
    let invoice_page = browser.url();
    let public = browser.text("#payment-link");
    let public = public.replace(PUBLIC_URL, &server.https);

    // The customer reports the transfer on the public page.
    browser.goto(&public);
    browser.wait_for("#amount");
    browser.clear("#amount");
    browser.fill("#amount", "487,50");
    browser.fill("#reference", "NASA-1962");
    click("#report-button");
    browser.wait_for("#confirmation");

    // The owner verifies it from the home screen.
    browser.goto(&format!("{}/dashboard", server.https));
    browser.wait_for("form[action$='/verify'] button");
    assert!(browser
        .text("#to-verify ~ table, section[aria-labelledby='to-verify']")
        .contains("NASA-1962"));
    check(&browser, axe, "home with a payment to verify");
    shot("home");
    // On a phone the sections fold into a menu; a wide screen lists them (issue 54).
    let shown = |css: &str| {
        browser.execute(&format!(
            "return getComputedStyle(document.querySelector({css:?})).display !== 'none';"
        ))
    };
    let phone = width < 500;
    assert_eq!(shown(".sections-menu"), serde_json::Value::Bool(phone));
    assert_eq!(shown("nav.sections"), serde_json::Value::Bool(!phone));
    if phone {
        click(".sections-menu summary");
        assert!(browser.text(".sections-menu").contains("Invoices"));
        check(&browser, axe, "home with the menu open");
        shot("home-menu");
        click(".sections-menu summary");
    }
    click("form[action$='/verify'] button");
    browser.wait_for(".notice");
    browser.goto(&invoice_page);
    browser.wait_for(".status");
    assert_eq!(status_of(&browser), "status status-paid");

    // Every other screen, with data on it.
    let key = server.printed_key().unwrap();
    let a = agent(&dir);
    let api = |method: &str, path: &str, body: Option<serde_json::Value>| {
        made(
            &a,
            &key,
            method,
            &format!("{}/api/v1{path}", server.https),
            body,
        )
    };
    let customers = api("GET", "/customers", None);
    let customer = customers["data"][0]["id"].as_i64().unwrap();
    let product = api(
        "POST",
        "/products",
        Some(
            json!({"name": "Consulting day", "unit_price_cents": 90000, "currency": "EUR", "tax_rate": "20"}),
        ),
    );
    let quote = api(
        "POST",
        "/quotations",
        Some(
            json!({"customer_id": customer, "line_items": [{"product_id": product["id"], "quantity": 2}]}),
        ),
    );
    api("POST", &format!("/quotations/{}/send", quote["id"]), None);
    let schedule = api(
        "POST",
        "/recurring_invoices",
        Some(
            json!({"customer_id": customer, "interval": "month", "start_date": "2099-01-01",
            "line_items": [{"description": "Support", "quantity": 1, "unit_price_cents": 5000}]}),
        ),
    );
    // An invoice long overdue: the home screen's and the aging report's tables get a row.
    let overdue = api(
        "POST",
        "/invoices",
        Some(
            json!({"customer_id": customer, "issue_date": "2020-01-01", "due_date": "2020-01-31",
            "line_items": [{"description": "Orbit review", "quantity": 1, "unit_price_cents": 20000}]}),
        ),
    );
    api("POST", &format!("/invoices/{}/send", overdue["id"]), None);
    let invoice = invoice_page.rsplit('/').next().unwrap();
    let invoice = invoice.split('?').next().unwrap();
    let credit = api(
        "POST",
        &format!("/invoices/{invoice}/credit_notes"),
        Some(json!({"amount_cents": 1000, "reason": "order_change"})),
    );
    // The customer's page again, now with a payment and a credit note in its tables.
    let public_page = public.strip_prefix(&server.https).unwrap().to_string();
    let screens = [
        public_page,
        "/dashboard".to_string(),
        "/dashboard/invoices".into(),
        "/dashboard/invoices?status=paid".into(),
        "/dashboard/quotations".into(),
        format!("/dashboard/quotations/{}", quote["id"]),
        "/dashboard/quotations/new".into(),
        "/dashboard/customers".into(),
        format!("/dashboard/customers/{customer}"),
        format!("/dashboard/customers/{customer}/edit"),
        "/dashboard/payments".into(),
        "/dashboard/products".into(),
        format!("/dashboard/products/{}", product["id"]),
        "/dashboard/products/new".into(),
        "/dashboard/credit-notes".into(),
        format!("/dashboard/credit-notes/{}", credit["id"]),
        "/dashboard/recurring".into(),
        format!("/dashboard/recurring/{}", schedule["id"]),
        "/dashboard/settings".into(),
        "/dashboard/settings/emails".into(),
        "/dashboard/reports".into(),
        "/dashboard/account".into(),
        "/dashboard/invoices/999999".into(),
    ];
    for path in &screens {
        browser.goto(&format!("{}{path}", server.https));
        browser.wait_for("main h1");
        check(&browser, axe, path);
        shot(&path.trim_start_matches('/').replace(['/', '?', '='], "-"));
        if path.starts_with("/dashboard") && !path.ends_with("999999") {
            switch_and_back(&browser, path);
        }
    }
    shot("recurring");

    // Every screen again in German, whose words run longest: still no sideways scrolling, no
    // split word, nothing axe-core finds.
    browser.goto(&format!("{}/dashboard", server.https));
    browser.wait_for("main h1");
    choose_language(&browser, "de");
    for path in screens.iter().filter(|p| p.starts_with("/dashboard")) {
        browser.goto(&format!("{}{path}", server.https));
        browser.wait_for("main h1");
        assert_eq!(
            browser.execute("return document.documentElement.lang;"),
            "de",
            "{path}"
        );
        check(&browser, axe, &format!("{path} (de)"));
        shot(&format!(
            "de-{}",
            path.trim_start_matches('/').replace(['/', '?', '='], "-")
        ));
    }
    browser.goto(&format!("{}/dashboard", server.https));
    browser.wait_for("main h1");
    choose_language(&browser, "en");

    // The keyboard reaches the new-invoice form's fields and saves it with Enter.
    browser.goto(&format!(
        "{}/dashboard/invoices/new?customer_id={customer}",
        server.https
    ));
    browser.wait_for("[id='line_items[0].description']");
    browser.execute("document.getElementById('line_items[0].description').focus(); return true;");
    browser.press(&format!("Keyboard work{TAB}"));
    let focused = browser.execute("return document.activeElement.id;");
    assert_eq!(
        focused, "line_items[0].product_id",
        "Tab moves to the next field"
    );
    browser.execute("document.getElementById('line_items[0].unit_price').focus(); return true;");
    browser.press(&format!("10{ENTER}"));
    browser.wait_for(".notice");
    assert_eq!(
        status_of(&browser),
        "status status-draft",
        "Enter saves a draft"
    );

    drop(browser);
    assert!(server.stop().success());
    // KEEP_SCREENSHOTS=1 keeps the pictures (and the data) to look at.
    if std::env::var_os("KEEP_SCREENSHOTS").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_merchant_gets_paid_through_the_dashboard() {
    a_day_of_billing(1280, 900, "dashboard-desktop");
}

#[test]
fn a_merchant_gets_paid_through_the_dashboard_on_a_phone() {
    a_day_of_billing(360, 740, "dashboard-phone");
}

#[test]
fn a_merchant_gets_paid_through_the_dashboard_on_a_phone_on_postgres() {
    if let Some(db) = invoicing_storage::testing::TestDb::new(invoicing_storage::Backend::Postgres)
    {
        a_day_of_billing_on(360, 740, "dashboard-phone-pg", Some(&db.url));
    }
}
