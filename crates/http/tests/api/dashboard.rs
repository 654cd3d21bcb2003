//! SPEC §21 through the real app on both backends: signing in and out, the session cookie, CSRF
//! and same-origin checks, roles, tenants and environments, and a day's billing done through
//! the dashboard's forms, checked against the API.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::{init_service, TestRequest};
use chrono::Utc;
use invoicing_domain::ports::{InvoiceRepository, UserRepository};
use invoicing_domain::tenant::{AccountId, Environment, Scope};
use invoicing_domain::user::{hash_password, Password, Role, UserEmail};
use invoicing_http::build_app;
use serde_json::json;

pub(crate) const PASSWORD: &str = "correct horse battery staple";

/// A person with a password and `role` in `account`.
pub(crate) fn member(h: &Harness, account: AccountId, email: &str, role: Role) {
    let email = UserEmail::parse(email).unwrap();
    let m = h.db.store.add_member(account, &email, role).unwrap();
    let hash = hash_password(&Password::parse(PASSWORD).unwrap(), &mut rand::rngs::OsRng).unwrap();
    h.db.store
        .set_password(m.user.id, &hash, Utc::now(), None)
        .unwrap();
}

/// A browser request to the dashboard: HTTPS (via the trusted proxy), from its own origin.
pub(crate) fn browser(method: Method, path: &str) -> TestRequest {
    TestRequest::default()
        .method(method)
        .uri(path)
        .peer_addr(PROXY.parse().unwrap())
        .insert_header(("x-forwarded-proto", "https"))
        .insert_header(("origin", PUBLIC_URL))
        .insert_header(("sec-fetch-site", "same-origin"))
}

pub(crate) fn form(req: TestRequest, fields: &[(&str, &str)]) -> TestRequest {
    let body = serde_urlencoded::to_string(fields).unwrap();
    req.insert_header(("content-type", "application/x-www-form-urlencoded"))
        .set_payload(body)
}

/// A signed-in browser: its session cookie and the CSRF token its pages carry.
pub(crate) struct Session {
    pub cookie: String,
    pub csrf: String,
}

impl Session {
    pub fn get(&self, path: &str) -> TestRequest {
        browser(Method::GET, path)
            .insert_header(("cookie", format!("__Host-session={}", self.cookie)))
    }

    pub fn post(&self, path: &str, fields: &[(&str, &str)]) -> TestRequest {
        let mut all = vec![("csrf", self.csrf.as_str())];
        all.extend_from_slice(fields);
        form(
            browser(Method::POST, path)
                .insert_header(("cookie", format!("__Host-session={}", self.cookie))),
            &all,
        )
    }
}

pub(crate) fn cookie_of(r: &Raw) -> Option<String> {
    r.headers
        .get_all("set-cookie")
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("__Host-session="))
        .map(str::to_string)
}

pub(crate) fn csrf_in(page: &str) -> String {
    let at = page
        .find("name=\"csrf\" value=\"")
        .expect("a form with a csrf field")
        + 19;
    page[at..at + page[at..].find('"').unwrap()].to_string()
}

macro_rules! app {
    ($h:expr) => {
        init_service(build_app($h.state.clone())).await
    };
}

pub(crate) async fn sign_in<S, B>(app: &S, email: &str) -> Session
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    sign_in_with(app, email, PASSWORD).await
}

/// Signed in with `password`, on to the home screen.
pub(crate) async fn sign_in_with<S, B>(app: &S, email: &str, password: &str) -> Session
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let mut s = password_step(app, email, password).await;
    let home = send_raw(app, s.get("/dashboard")).await;
    assert_eq!(home.status, 200, "{}", home.text());
    s.csrf = csrf_in(&home.text());
    s
}

/// The session a right password starts, whatever the second factor asks next (no CSRF token
/// read yet).
pub(crate) async fn password_step<S, B>(app: &S, email: &str, password: &str) -> Session
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let r = send_raw(
        app,
        form(
            browser(Method::POST, "/dashboard/login"),
            &[("email", email), ("password", password)],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let set = cookie_of(&r).expect("a session cookie");
    Session {
        cookie: set["__Host-session=".len()..set.find(';').unwrap()].to_string(),
        csrf: String::new(),
    }
}

async fn signing_in_sets_a_host_cookie_and_a_new_token_each_time(h: Harness) {
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    let page = send_raw(&app, browser(Method::GET, "/dashboard/login")).await;
    assert_eq!(page.status, 200);
    assert_eq!(page.header("cache-control"), "no-store");
    let csp = page.header("content-security-policy");
    assert!(
        csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'"),
        "{csp}"
    );
    assert!(
        !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"),
        "{csp}"
    );
    assert_eq!(page.header("x-frame-options"), "DENY");

    // A planted cookie is never adopted: the sign-in answers a new token.
    let planted = "A".repeat(43);
    let r = send_raw(
        &app,
        form(
            browser(Method::POST, "/dashboard/login")
                .insert_header(("cookie", format!("__Host-session={planted}"))),
            &[
                ("email", "Owner@Example.com"),
                ("password", PASSWORD),
                ("next", "/dashboard/invoices"),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 303);
    assert_eq!(r.header("location"), "/dashboard/invoices");
    let set = cookie_of(&r).unwrap();
    for attribute in ["HttpOnly", "SameSite=Lax", "Secure", "Path=/"] {
        assert!(set.contains(attribute), "{set}");
    }
    assert!(!set.contains("Domain"), "{set}");
    assert!(!set.contains(&planted));
    let first = sign_in(&app, "owner@example.com").await;
    let second = sign_in(&app, "owner@example.com").await;
    assert_ne!(first.cookie, second.cookie);
    assert_ne!(first.csrf, second.csrf);

    // Off-site `next` is ignored.
    let r = send_raw(
        &app,
        form(
            browser(Method::POST, "/dashboard/login"),
            &[
                ("email", "owner@example.com"),
                ("password", PASSWORD),
                ("next", "https://evil.example/"),
            ],
        ),
    )
    .await;
    assert_eq!(r.header("location"), "/dashboard");
}

async fn failures_say_one_thing_and_the_pair_is_throttled(h: Harness) {
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    let wrong = send_raw(
        &app,
        form(
            browser(Method::POST, "/dashboard/login"),
            &[
                ("email", "owner@example.com"),
                ("password", "not the password at all"),
            ],
        ),
    )
    .await;
    let unknown = send_raw(
        &app,
        form(
            browser(Method::POST, "/dashboard/login"),
            &[("email", "nobody@example.com"), ("password", PASSWORD)],
        ),
    )
    .await;
    assert_eq!((wrong.status, unknown.status), (401, 401));
    let message = |r: &Raw| {
        let t = r.text();
        let at = t.find("role=\"alert\"").unwrap();
        t[at..at + 80].to_string()
    };
    assert_eq!(message(&wrong), message(&unknown));
    assert!(cookie_of(&wrong).is_none());
    for _ in 0..9 {
        send_raw(
            &app,
            form(
                browser(Method::POST, "/dashboard/login"),
                &[
                    ("email", "owner@example.com"),
                    ("password", "still not the password"),
                ],
            ),
        )
        .await;
    }
    // The tenth failure stops the pair, even with the right password now.
    let r = send_raw(
        &app,
        form(
            browser(Method::POST, "/dashboard/login"),
            &[("email", "owner@example.com"), ("password", PASSWORD)],
        ),
    )
    .await;
    assert_eq!(r.status, 429, "{}", r.text());
    assert!(cookie_of(&r).is_none());
}

async fn pages_need_a_live_session(h: Harness) {
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    let r = send_raw(
        &app,
        browser(Method::GET, "/dashboard/invoices?status=paid"),
    )
    .await;
    assert_eq!(r.status, 303);
    assert_eq!(
        r.header("location"),
        "/dashboard/login?next=%2Fdashboard%2Finvoices%3Fstatus%3Dpaid"
    );
    let s = sign_in(&app, "owner@example.com").await;
    let page = send_raw(&app, s.get("/dashboard/invoices")).await;
    assert_eq!(page.status, 200);
    assert_eq!(page.header("cache-control"), "no-store");
    // A bad or unknown id is a page saying so, in HTML, whatever the screen.
    for path in [
        "/dashboard/invoices/abc",
        "/dashboard/customers/0",
        "/dashboard/quotations/99999",
        "/dashboard/products/-1",
        "/dashboard/credit-notes/1.5",
        "/dashboard/recurring/9223372036854775808",
    ] {
        let r = send_raw(&app, s.get(path)).await;
        assert_eq!(r.status, 404, "{path}");
        assert!(r.header("content-type").starts_with("text/html"), "{path}");
        assert_eq!(r.header("cache-control"), "no-store");
    }
    // Sign out: the same cookie no longer works.
    let r = send_raw(&app, s.post("/dashboard/logout", &[])).await;
    assert_eq!(r.status, 303);
    assert!(cookie_of(&r).unwrap().contains("Max-Age=0"));
    let r = send_raw(&app, s.get("/dashboard")).await;
    assert_eq!(r.status, 303);
}

async fn forged_posts_are_refused_and_change_nothing(h: Harness) {
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    let s = sign_in(&app, "owner@example.com").await;
    let cookie = format!("__Host-session={}", s.cookie);
    let live = |fields: &[(&str, &str)], origin: Option<&str>, site: Option<&str>| {
        let mut req = TestRequest::default()
            .method(Method::POST)
            .uri("/dashboard/environment")
            .peer_addr(PROXY.parse().unwrap())
            .insert_header(("x-forwarded-proto", "https"))
            .insert_header(("x-forwarded-host", "forged.example"))
            .insert_header(("cookie", cookie.clone()));
        if let Some(o) = origin {
            req = req.insert_header(("origin", o));
        }
        if let Some(site) = site {
            req = req.insert_header(("sec-fetch-site", site));
        }
        form(req, fields)
    };
    let good = s.csrf.clone();
    for (fields, origin, site) in [
        (
            vec![("environment", "live")],
            Some(PUBLIC_URL),
            Some("same-origin"),
        ),
        (
            vec![("environment", "live"), ("csrf", "forged")],
            Some(PUBLIC_URL),
            Some("same-origin"),
        ),
        (
            vec![("environment", "live"), ("csrf", good.as_str())],
            Some("https://evil.example"),
            None,
        ),
        (
            vec![("environment", "live"), ("csrf", good.as_str())],
            Some(PUBLIC_URL),
            Some("cross-site"),
        ),
        (
            vec![("environment", "live"), ("csrf", good.as_str())],
            None,
            None,
        ),
        // A forwarded host (any client may send one) is no origin of the dashboard's.
        (
            vec![("environment", "live"), ("csrf", good.as_str())],
            Some("https://forged.example"),
            None,
        ),
    ] {
        let r = send_raw(&app, live(&fields, origin, site)).await;
        assert_eq!(
            r.status,
            403,
            "{fields:?} {origin:?} {site:?}: {}",
            r.text()
        );
        assert!(r.header("content-type").starts_with("text/html"));
    }
    let page = send_raw(&app, s.get("/dashboard")).await.text();
    assert!(page.contains("test-banner"), "still in test");
    let r = send_raw(
        &app,
        live(
            &[("environment", "live"), ("csrf", &good)],
            Some(PUBLIC_URL),
            Some("same-origin"),
        ),
    )
    .await;
    assert_eq!(r.status, 303);
    let page = send_raw(&app, s.get("/dashboard")).await.text();
    assert!(!page.contains("test-banner"), "now live");
}

async fn a_day_of_billing_through_the_forms(h: Harness) {
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    let s = sign_in(&app, "owner@example.com").await;
    // Add a line, then save and send, with a new customer.
    let fields = [
        ("customer.name", "Ada Lovelace"),
        ("customer.email", "ada@example.com"),
        ("currency", "EUR"),
        ("payment_terms", "net_14"),
        ("line_count", "1"),
        ("line_items[0].description", "Consulting"),
        ("line_items[0].quantity", "2"),
        ("line_items[0].unit_price", "150.00"),
        ("line_items[0].tax_rate", "19"),
    ];
    let mut with_action = fields.to_vec();
    with_action.push(("action", "add_line"));
    let r = send_raw(&app, s.post("/dashboard/invoices/new", &with_action)).await;
    assert_eq!(r.status, 200);
    assert!(
        r.text().contains("line_items[1].description"),
        "a second line"
    );
    assert!(
        r.text().contains("value=\"Consulting\""),
        "typed values kept"
    );
    // A price that is not an amount: beside its field, nothing created.
    let mut bad = fields.to_vec();
    bad.retain(|(k, _)| *k != "line_items[0].unit_price");
    bad.extend([
        ("line_items[0].unit_price", "1.505"),
        ("action", "save_send"),
    ]);
    let r = send_raw(&app, s.post("/dashboard/invoices/new", &bad)).await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("aria-invalid=\"true\""));
    let count = |h: &Harness| {
        h.db.store
            .list_invoices(
                Scope::new(h.account, Environment::Test),
                &Default::default(),
                Default::default(),
            )
            .unwrap()
            .total
    };
    assert_eq!(count(&h), 0);
    // A refusal of the lines as a whole stands above them; a bad due date beside its field.
    let mut negative = fields.to_vec();
    negative.retain(|(k, _)| *k != "line_items[0].unit_price");
    negative.push(("line_items[0].unit_price", "-10"));
    let r = send_raw(&app, s.post("/dashboard/invoices/new", &negative)).await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("must not be negative"), "{}", r.text());
    let mut late = fields.to_vec();
    late.push(("due_date", "2026-02-30"));
    let r = send_raw(&app, s.post("/dashboard/invoices/new", &late)).await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("id=\"due_date-error\""), "{}", r.text());
    assert_eq!(count(&h), 0);
    let mut two = fields.to_vec();
    two.retain(|(k, _)| *k != "line_count");
    two.extend([
        ("line_count", "2"),
        ("line_items[1].description", "Travel"),
        ("line_items[1].quantity", "1"),
        ("line_items[1].unit_price", "40"),
        ("line_items[1].tax_rate", "0"),
        ("action", "save_send"),
    ]);
    let r = send_raw(&app, s.post("/dashboard/invoices/new", &two)).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let location = r.header("location").to_string();
    assert!(location.ends_with("?done=sent"), "{location}");
    let path = location.split('?').next().unwrap().to_string();
    let id = path.rsplit('/').next().unwrap().to_string();
    // The API sees the same invoice: 2 × 150 + 19 % and 40.
    let api = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")));
    assert_eq!(api.body["status"], "sent");
    assert_eq!(api.body["total_cents"], 39700);
    assert_eq!(api.body["line_items"].as_array().unwrap().len(), 2);
    // Home counts it in words that agree with the number (issue 54).
    let home = send_raw(&app, s.get("/dashboard")).await.text();
    assert!(home.contains("<p>1 open invoice</p>"), "{home}");
    let page = send_raw(&app, s.get(&path)).await.text();
    assert!(
        page.contains("397,00") || page.contains("397.00"),
        "the total shown"
    );
    assert!(
        page.contains(api.body["payment_link"].as_str().unwrap()),
        "the payment link"
    );
    assert!(
        page.contains("by <span class=\"whole\">owner@example.com</span>"),
        "the timeline names who did it"
    );
    // The customer reports a transfer; the home screen lists it; verify it there.
    let api_pay = call!(
        &app,
        h.req(Method::POST, "/api/v1/payments"),
        json!({"invoice_id": id.parse::<i64>().unwrap(), "amount_cents": 39700, "method": "bank_transfer", "reference": "TRF-1"})
    );
    assert_eq!(api_pay.status, 201, "{}", api_pay.body);
    let home = send_raw(&app, s.get("/dashboard")).await.text();
    let pay = api_pay.body["id"].to_string();
    assert!(
        home.contains(&format!("/dashboard/payments/{pay}/verify")),
        "Verify in place"
    );
    let r = send_raw(
        &app,
        s.post(
            &format!("/dashboard/payments/{pay}/verify"),
            &[("back", "/dashboard")],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    assert_eq!(r.header("location"), "/dashboard?done=payment_verified");
    let api = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")));
    assert_eq!(api.body["status"], "paid");
    let events = call!(
        &app,
        h.req(Method::GET, "/api/v1/events?type=payment.verified")
    );
    assert_eq!(events.body["data"][0]["actor"]["type"], "user");
}

async fn roles_tenants_and_environments_are_kept_apart(h: Harness) {
    let app = app!(h);
    member(&h, h.account, "viewer@example.com", Role::Viewer);
    let other = h.new_account("Other Ltd");
    member(&h, other, "other@example.com", Role::Owner);
    let inv = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        json!({
        "customer": {"name": "Ada", "email": "ada@example.com"},
        "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 1000}]})
    );
    assert_eq!(inv.status, 201);
    let id = inv.body["id"].to_string();
    let viewer = sign_in(&app, "viewer@example.com").await;
    let page = send_raw(&app, viewer.get(&format!("/dashboard/invoices/{id}"))).await;
    assert_eq!(page.status, 200);
    assert!(
        !page.text().contains("/send\""),
        "no Send button for a viewer"
    );
    let r = send_raw(
        &app,
        viewer.post(&format!("/dashboard/invoices/{id}/send"), &[]),
    )
    .await;
    assert_eq!(r.status, 403, "{}", r.text());
    let r = send_raw(
        &app,
        viewer.post(
            "/dashboard/invoices/new",
            &[
                ("customer.name", "X"),
                ("customer.email", "x@example.com"),
                ("line_count", "1"),
                ("line_items[0].description", "Y"),
                ("line_items[0].unit_price", "1"),
                ("action", "save"),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 403);
    let api = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")));
    assert_eq!(api.body["status"], "draft", "nothing changed");
    // Another account's user: 404, never its data.
    let stranger = sign_in(&app, "other@example.com").await;
    let r = send_raw(&app, stranger.get(&format!("/dashboard/invoices/{id}"))).await;
    assert_eq!(r.status, 404);
    assert!(!r.text().contains("Ada"));
    let r = send_raw(
        &app,
        stranger.post(&format!("/dashboard/invoices/{id}/cancel"), &[]),
    )
    .await;
    assert_eq!(r.status, 404);
    // The viewer switches to live: the test invoice is not there.
    let r = send_raw(
        &app,
        viewer.post(
            "/dashboard/environment",
            &[("environment", "live"), ("back", "/dashboard/invoices")],
        ),
    )
    .await;
    assert_eq!(r.status, 303);
    let r = send_raw(&app, viewer.get(&format!("/dashboard/invoices/{id}"))).await;
    assert_eq!(r.status, 404);
    let list = send_raw(&app, viewer.get("/dashboard/invoices"))
        .await
        .text();
    assert!(!list.contains(inv.body["invoice_number"].as_str().unwrap()));
}

/// Data for every screen: a customer, a product, a sent invoice with a pending payment and a
/// credit note, a sent quotation and a schedule. Returns the paths of every screen.
async fn every_screen<S, B>(app: &S, h: &Harness) -> Vec<String>
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let customer = call!(
        app,
        h.req(Method::POST, "/api/v1/customers"),
        json!({"name": "王芳", "email": "wang@example.com"})
    );
    let product = call!(
        app,
        h.req(Method::POST, "/api/v1/products"),
        json!({"name": "Hosting", "unit_price_cents": 2500, "currency": "EUR", "tax_rate": "19"})
    );
    assert_eq!(product.status, 201, "{}", product.body);
    let inv = call!(
        app,
        h.req(Method::POST, "/api/v1/invoices"),
        json!({"customer_id": customer.body["id"],
        "line_items": [{"product_id": product.body["id"], "quantity": 1}, {"description": "Setup", "quantity": 1, "unit_price_cents": 10000}]})
    );
    assert_eq!(inv.status, 201, "{}", inv.body);
    let id = inv.body["id"].as_i64().unwrap();
    assert_eq!(
        call!(
            app,
            h.req(Method::POST, &format!("/api/v1/invoices/{id}/send"))
        )
        .status,
        200
    );
    // A draft's screen reads the live profile and customer for its e-invoice check.
    let draft = call!(
        app,
        h.req(Method::POST, "/api/v1/invoices"),
        json!({"customer_id": customer.body["id"],
        "line_items": [{"description": "Setup", "quantity": 1, "unit_price_cents": 10000}]})
    );
    assert_eq!(draft.status, 201, "{}", draft.body);
    let draft_id = draft.body["id"].as_i64().unwrap();
    let pay = call!(
        app,
        h.req(Method::POST, "/api/v1/payments"),
        json!({"invoice_id": id, "amount_cents": 1000, "method": "bank_transfer"})
    );
    assert_eq!(pay.status, 201, "{}", pay.body);
    let credit = call!(
        app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/credit_notes")),
        json!({"amount_cents": 500, "reason": "order_change"})
    );
    assert_eq!(credit.status, 201, "{}", credit.body);
    let quote = call!(
        app,
        h.req(Method::POST, "/api/v1/quotations"),
        json!({"customer_id": customer.body["id"],
        "line_items": [{"description": "Project", "quantity": 1, "unit_price_cents": 50000}]})
    );
    let qid = quote.body["id"].as_i64().unwrap();
    assert_eq!(
        call!(
            app,
            h.req(Method::POST, &format!("/api/v1/quotations/{qid}/send"))
        )
        .status,
        200
    );
    let schedule = call!(
        app,
        h.req(Method::POST, "/api/v1/recurring_invoices"),
        json!({"customer_id": customer.body["id"],
        "line_items": [{"description": "Hosting", "quantity": "1", "unit_price_cents": 2000}], "interval": "month",
        "start_date": (Utc::now().date_naive() + chrono::Duration::days(3)).format("%Y-%m-%d").to_string()})
    );
    assert_eq!(schedule.status, 201, "{}", schedule.body);
    // An unresolvable test host: created where private and unresolvable targets are allowed.
    let permissive = init_service(build_app(h.permissive())).await;
    let hook = call!(
        &permissive,
        h.req(Method::POST, "/api/v1/webhooks"),
        json!({"url": "https://hooks.example.com/in", "events": ["*"]})
    );
    assert_eq!(hook.status, 201, "{}", hook.body);
    vec![
        "/dashboard".into(),
        "/dashboard/invoices".into(),
        "/dashboard/invoices?status=sent&q=wang&created_after=2020-01-01".into(),
        format!("/dashboard/invoices/{id}"),
        format!("/dashboard/invoices/{draft_id}"),
        "/dashboard/invoices/new".into(),
        format!("/dashboard/invoices/{id}/email"),
        format!("/dashboard/invoices/{draft_id}/email"),
        "/dashboard/quotations".into(),
        format!("/dashboard/quotations/{qid}"),
        format!("/dashboard/quotations/{qid}/email"),
        "/dashboard/quotations/new".into(),
        "/dashboard/customers".into(),
        format!("/dashboard/customers/{}", customer.body["id"]),
        "/dashboard/customers/new".into(),
        format!("/dashboard/customers/{}/edit", customer.body["id"]),
        "/dashboard/payments".into(),
        format!("/dashboard/payments/{}", pay.body["id"]),
        "/dashboard/products".into(),
        format!("/dashboard/products/{}", product.body["id"]),
        "/dashboard/products/new".into(),
        "/dashboard/credit-notes".into(),
        format!("/dashboard/credit-notes/{}", credit.body["id"]),
        "/dashboard/recurring".into(),
        format!("/dashboard/recurring/{}", schedule.body["id"]),
        "/dashboard/recurring/new".into(),
        format!("/dashboard/recurring/{}/edit", schedule.body["id"]),
        "/dashboard/settings".into(),
        "/dashboard/settings/emails".into(),
        "/dashboard/settings/emails?status=failed".into(),
        "/dashboard/settings/keys".into(),
        "/dashboard/settings/webhooks".into(),
        format!("/dashboard/settings/webhooks/{}", hook.body["id"]),
        "/dashboard/settings/people".into(),
        "/dashboard/settings/payments".into(),
        "/dashboard/reports".into(),
        "/dashboard/account".into(),
    ]
}

/// The settings screens only owners open (the email log is readable by everyone: documents show
/// their emails).
pub(crate) fn owners_only(path: &str) -> bool {
    path.starts_with("/dashboard/settings") && !path.starts_with("/dashboard/settings/emails")
}

/// Screens a viewer may not open: the forms that only make, change or send things.
fn is_form(path: &str) -> bool {
    path.ends_with("/new") || path.ends_with("/edit") || path.ends_with("/email")
}

/// What a screen may send: 10 statements, the BEGIN and COMMIT of the reads that must agree (a
/// short list's page and its lines read on one snapshot), and the account's time zone where a
/// screen fills in today's date (SPEC §27: the merchant's day, not the server's), and the
/// refunds of the verified payments a screen lists, read for all of them at once (SPEC §25),
/// and the people and keys a timeline names by their emails and keys' visible parts (one read
/// each, and only when an event names one).
const SCREEN_BUDGET: u64 = 16;

async fn every_screen_renders_within_its_statement_budget_for_every_role(h: Harness) {
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    member(&h, h.account, "staff@example.com", Role::Staff);
    member(&h, h.account, "viewer@example.com", Role::Viewer);
    let screens = every_screen(&app, &h).await;
    for (email, role) in [
        ("owner@example.com", Role::Owner),
        ("staff@example.com", Role::Staff),
        ("viewer@example.com", Role::Viewer),
    ] {
        let s = sign_in(&app, email).await;
        for path in &screens {
            let before = h.db.store.statements_sent();
            let r = send_raw(&app, s.get(path)).await;
            let spent = h.db.store.statements_sent() - before;
            if (role == Role::Viewer && is_form(path)) || (role != Role::Owner && owners_only(path))
            {
                assert_eq!(r.status, 403, "{email} {path}");
                continue;
            }
            assert_eq!(r.status, 200, "{email} {path}: {}", r.text());
            assert!(spent <= SCREEN_BUDGET, "{path} sent {spent} statements");
            let page = r.text();
            assert!(
                page.starts_with("<!doctype html>\n<html lang=\"en\">"),
                "{path}"
            );
            assert!(
                !page.contains("dash."),
                "{path}: a catalogue key shown as text"
            );
            assert_eq!(r.header("cache-control"), "no-store");
            // (Everyone changes their own password on /dashboard/account.)
            if role == Role::Viewer && path.as_str() != "/dashboard/account" {
                assert!(
                    !page.contains("type=\"hidden\" name=\"csrf\"")
                        || !page.contains("class=\"primary\">"),
                    "{path}: a viewer sees only the environment, language and sign-out forms"
                );
            }
        }
    }
    // Home names the invoice each payment to verify is for (issue 54), within the budget.
    let s = sign_in(&app, "owner@example.com").await;
    let pending = call!(&app, h.req(Method::GET, "/api/v1/payments?status=pending"));
    let pending = pending.body["data"].as_array().unwrap().clone();
    assert!(
        !pending.is_empty(),
        "the screens' data has a payment to verify"
    );
    let home = send_raw(&app, s.get("/dashboard")).await.text();
    for p in pending {
        let path = format!("/api/v1/invoices/{}", p["invoice_id"]);
        let invoice = call!(&app, h.req(Method::GET, &path));
        let number = invoice.body["invoice_number"].as_str().unwrap();
        let link = format!(
            "<a href=\"/dashboard/invoices/{}\">{number}</a>",
            p["invoice_id"]
        );
        assert!(home.contains(&link), "{link} in {home}");
    }
    // Another language: the user's choice, kept in a cookie.
    let r = send_raw(
        &app,
        s.post(
            "/dashboard/language",
            &[("language", "de"), ("back", "/dashboard/invoices")],
        ),
    )
    .await;
    assert_eq!(r.status, 303);
    let chosen = r.header("set-cookie").to_string();
    assert!(chosen.starts_with("__Host-language=de"), "{chosen}");
    let page = send_raw(
        &app,
        s.get("/dashboard/invoices").insert_header((
            "cookie",
            format!("__Host-session={}; __Host-language=de", s.cookie),
        )),
    )
    .await
    .text();
    assert!(
        page.contains("<html lang=\"de\">") && page.contains("Rechnungen"),
        "German"
    );
    // Countries and currencies are chosen, named in the user's language (SPEC §27); a customer's
    // address that holds no country code keeps what it holds.
    let german = |path: &str| {
        s.get(path).insert_header((
            "cookie",
            format!("__Host-session={}; __Host-language=de", s.cookie),
        ))
    };
    let settings = send_raw(&app, german("/dashboard/settings")).await.text();
    assert!(
        settings.contains("<select id=\"address.country\" name=\"address.country\""),
        "{settings}"
    );
    assert!(
        settings.contains("<option value=\"AT\">Österreich</option>"),
        "{settings}"
    );
    assert!(
        settings.contains("<option value=\"EUR\" selected>EUR (€)</option>"),
        "the account's currency chosen: {settings}"
    );
    let customer = call!(
        &app,
        h.req(Method::POST, "/api/v1/customers"),
        json!({"name": "Ana", "email": "ana@example.com", "address": {"city": "Port of Spain", "country": "Trinidad"}})
    );
    let form = send_raw(
        &app,
        german(&format!(
            "/dashboard/customers/{}/edit",
            customer.body["id"]
        )),
    )
    .await
    .text();
    assert!(
        form.contains("<option selected>Trinidad</option>"),
        "{form}"
    );
    assert!(
        form.contains("<option value=\"TT\">Trinidad und Tobago</option>"),
        "{form}"
    );
    let invoice_form = send_raw(&app, german("/dashboard/invoices/new"))
        .await
        .text();
    assert!(invoice_form.contains("<select id=\"currency\" name=\"currency\""));
}

async fn quotations_customers_products_credits_and_schedules_through_the_forms(h: Harness) {
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    let s = sign_in(&app, "owner@example.com").await;
    // A customer, with a mistake first: kept and shown beside its field.
    let r = send_raw(
        &app,
        s.post(
            "/dashboard/customers/new",
            &[
                ("name", "Grace Hopper"),
                ("email", "not an email"),
                ("address.city", "Arlington"),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("id=\"email-error\"") && r.text().contains("value=\"Arlington\""));
    let r = send_raw(
        &app,
        s.post(
            "/dashboard/customers/new",
            &[
                ("name", "Grace Hopper"),
                ("email", "grace@example.com"),
                ("address.city", "Arlington"),
                ("address.country", "US"),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let customer = r
        .header("location")
        .split('?')
        .next()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_string();
    let api = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/customers/{customer}"))
    );
    assert_eq!(api.body["address"]["city"], "Arlington");
    // A product priced in the account's currency.
    let r = send_raw(
        &app,
        s.post(
            "/dashboard/products/new",
            &[
                ("name", "Audit"),
                ("unit_price", "1200.50"),
                ("currency", "EUR"),
                ("tax_rate", "21"),
                ("active", "true"),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let products = call!(&app, h.req(Method::GET, "/api/v1/products"));
    assert_eq!(products.body["data"][0]["unit_price_cents"], 120050);
    let product = products.body["data"][0]["id"].to_string();
    // A quotation from the product, sent, accepted on the prospect's behalf, converted.
    let r = send_raw(
        &app,
        s.post(
            "/dashboard/quotations/new",
            &[
                ("customer_id", &customer),
                ("currency", "EUR"),
                ("line_count", "1"),
                ("line_items[0].product_id", &product),
                ("line_items[0].quantity", "2"),
                ("action", "save_send"),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let quote = r.header("location").split('?').next().unwrap().to_string();
    let r = send_raw(
        &app,
        s.post(&format!("{quote}/accept"), &[("name", "Grace Hopper")]),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let r = send_raw(&app, s.post(&format!("{quote}/convert"), &[])).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let invoice = r.header("location").split('?').next().unwrap().to_string();
    assert!(invoice.starts_with("/dashboard/invoices/"), "{invoice}");
    let id = invoice.rsplit('/').next().unwrap();
    let api = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")));
    assert_eq!(api.body["total_cents"], 290521, "2 × 1200.50 + 21 %");
    assert_eq!(api.body["status"], "draft");
    // Send it, then credit part of it.
    assert_eq!(
        send_raw(&app, s.post(&format!("{invoice}/send"), &[]))
            .await
            .status,
        303
    );
    let r = send_raw(
        &app,
        s.post(
            &format!("{invoice}/credit"),
            &[
                ("amount", "100"),
                ("reason", "order_change"),
                ("memo", "Goodwill"),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    assert!(r.header("location").starts_with("/dashboard/credit-notes/"));
    let api = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")));
    assert_eq!(api.body["amount_credited_cents"], 10000);
    // A refused move is a page with its status, and changes nothing.
    let r = send_raw(&app, s.post(&format!("{quote}/convert"), &[])).await;
    assert_eq!(r.status, 409, "{}", r.text());
    // A schedule paused and resumed.
    let schedule = call!(
        &app,
        h.req(Method::POST, "/api/v1/recurring_invoices"),
        json!({"customer_id": customer.parse::<i64>().unwrap(),
        "line_items": [{"description": "Hosting", "quantity": "1", "unit_price_cents": 2000}], "interval": "month",
        "start_date": (Utc::now().date_naive() + chrono::Duration::days(3)).format("%Y-%m-%d").to_string()})
    );
    let rid = schedule.body["id"].to_string();
    let r = send_raw(
        &app,
        s.post(&format!("/dashboard/recurring/{rid}/pause"), &[]),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let api = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/recurring_invoices/{rid}"))
    );
    assert_eq!(api.body["status"], "paused");
    let events = call!(
        &app,
        h.req(Method::GET, "/api/v1/events?type=recurring_invoice.paused")
    );
    assert_eq!(events.body["data"][0]["actor"]["type"], "user");
    // A schedule made and changed through its form.
    let start = (Utc::now().date_naive() + chrono::Duration::days(7))
        .format("%Y-%m-%d")
        .to_string();
    let r = send_raw(
        &app,
        s.post(
            "/dashboard/recurring/new",
            &[
                ("customer_id", &customer),
                ("currency", "EUR"),
                ("payment_terms", "net_14"),
                ("start_date", &start),
                ("interval", "week"),
                ("interval_count", "2"),
                ("line_count", "1"),
                ("line_items[0].description", "Cleaning"),
                ("line_items[0].quantity", "1"),
                ("line_items[0].unit_price", "80"),
                ("auto_send", "true"),
                ("action", "save"),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let made = r.header("location").split('?').next().unwrap().to_string();
    let rid = made.rsplit('/').next().unwrap();
    let api = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/recurring_invoices/{rid}"))
    );
    assert_eq!(
        (
            api.body["interval"].as_str(),
            api.body["interval_count"].as_i64()
        ),
        (Some("week"), Some(2))
    );
    assert_eq!(
        (
            api.body["auto_send"].as_bool(),
            api.body["total_cents"].as_i64()
        ),
        (Some(true), Some(8000))
    );
    let r = send_raw(
        &app,
        s.post(
            &format!("{made}/edit"),
            &[
                ("payment_terms", "net_30"),
                ("line_count", "1"),
                ("line_items[0].description", "Cleaning"),
                ("line_items[0].quantity", "2"),
                ("line_items[0].unit_price", "80"),
                ("action", "save"),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let api = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/recurring_invoices/{rid}"))
    );
    assert_eq!(
        (
            api.body["total_cents"].as_i64(),
            api.body["payment_terms"].as_str()
        ),
        (Some(16000), Some("net_30"))
    );
    assert_eq!(api.body["auto_send"], false, "an unticked box is off");
}

async fn owners_change_the_profile_and_nobody_else_can(h: Harness) {
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    member(&h, h.account, "staff@example.com", Role::Staff);
    let owner = sign_in(&app, "owner@example.com").await;
    let page = send_raw(&app, owner.get("/dashboard/settings")).await;
    assert_eq!(page.status, 200);
    assert!(
        page.text().contains("href=\"/dashboard/settings\""),
        "owners see Settings"
    );
    let fields = [
        ("name", "Acme Ltd"),
        ("legal_name", "Acme Trading Ltd"),
        ("email", "billing@acme.example"),
        ("default_currency", "EUR"),
        ("brand_color", "#AA3300"),
        ("locale", "de"),
        ("address.city", "Berlin"),
        ("address.country", "DE"),
        ("payment_instructions", "IBAN DE89 3704 0044 0532 0130 00"),
        ("reminders", "-3, 0, 7"),
        ("send_receipts", "true"),
    ];
    // A mistake is shown beside its field, and nothing is saved.
    let mut bad = fields.to_vec();
    bad.retain(|(k, _)| *k != "reminders");
    bad.push(("reminders", "soon"));
    let r = send_raw(&app, owner.post("/dashboard/settings", &bad)).await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("id=\"reminders-error\""));
    let before = call!(&app, h.req(Method::GET, "/api/v1/account"));
    assert_eq!(before.body["legal_name"], serde_json::Value::Null);
    let r = send_raw(&app, owner.post("/dashboard/settings", &fields)).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let after = call!(&app, h.req(Method::GET, "/api/v1/account"));
    assert_eq!(after.body["legal_name"], "Acme Trading Ltd");
    assert_eq!(after.body["brand_color"], "#AA3300");
    assert_eq!(after.body["locale"], "de");
    assert_eq!(after.body["reminders"], json!([-3, 0, 7]));
    assert_eq!(after.body["address"]["city"], "Berlin");
    // Staff: no Settings link, and 403 with nothing changed.
    let staff = sign_in(&app, "staff@example.com").await;
    let home = send_raw(&app, staff.get("/dashboard")).await.text();
    assert!(!home.contains("href=\"/dashboard/settings\""));
    assert_eq!(
        send_raw(&app, staff.get("/dashboard/settings"))
            .await
            .status,
        403
    );
    let r = send_raw(
        &app,
        staff.post("/dashboard/settings", &[("name", "Hijacked")]),
    )
    .await;
    assert_eq!(r.status, 403);
    let unchanged = call!(&app, h.req(Method::GET, "/api/v1/account"));
    assert_eq!(unchanged.body["name"], "Acme Ltd");
}

async fn the_email_log_shows_what_was_sent_and_what_failed(h: Harness) {
    let h = Harness::mailing(h.db.backend()).unwrap_or(h);
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    let inv = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        json!({
        "customer": {"name": "Ada", "email": "ada@example.com"},
        "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 1000}]})
    );
    let id = inv.body["id"].as_i64().unwrap();
    let sent = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/send")),
        json!({"email": {}})
    );
    assert_eq!(sent.status, 200, "{}", sent.body);
    let s = sign_in(&app, "owner@example.com").await;
    let log = send_raw(&app, s.get("/dashboard/settings/emails")).await;
    assert_eq!(log.status, 200);
    let page = log.text();
    assert!(page.contains("ada@example.com"), "the recipient");
    assert!(
        page.contains(&format!("href=\"/dashboard/invoices/{id}\"")),
        "a link to the invoice"
    );
    assert!(
        page.contains("status-email-queued"),
        "queued until the worker sends it"
    );
    let failed = send_raw(&app, s.get("/dashboard/settings/emails?status=failed"))
        .await
        .text();
    assert!(!failed.contains("ada@example.com"));
}

async fn a_user_changes_their_password_and_ends_their_sessions(h: Harness) {
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    member(&h, h.account, "staff@example.com", Role::Staff);
    let laptop = sign_in(&app, "owner@example.com").await;
    let phone = sign_in(&app, "owner@example.com").await;
    let colleague = sign_in(&app, "staff@example.com").await;
    let page = send_raw(&app, laptop.get("/dashboard/account")).await;
    assert_eq!(page.status, 200);
    assert_eq!(
        page.text().matches("/end\"").count(),
        2,
        "both of this user's sessions, not the colleague's"
    );
    let new = "a brand new long passphrase";
    // The current password is asked; a wrong one changes nothing.
    let r = send_raw(
        &app,
        laptop.post(
            "/dashboard/account/password",
            &[
                ("current", "not it at all"),
                ("password", new),
                ("confirm", new),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 422);
    assert_eq!(
        send_raw(&app, phone.get("/dashboard")).await.status,
        200,
        "the phone still signed in"
    );
    let r = send_raw(
        &app,
        laptop.post(
            "/dashboard/account/password",
            &[
                ("current", PASSWORD),
                ("password", "short"),
                ("confirm", "short"),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 422);
    let r = send_raw(
        &app,
        laptop.post(
            "/dashboard/account/password",
            &[("current", PASSWORD), ("password", new), ("confirm", new)],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    assert_eq!(
        send_raw(&app, laptop.get("/dashboard")).await.status,
        200,
        "this session goes on"
    );
    assert_eq!(
        send_raw(&app, phone.get("/dashboard")).await.status,
        303,
        "the other one ended"
    );
    let old = send_raw(
        &app,
        form(
            browser(Method::POST, "/dashboard/login"),
            &[("email", "owner@example.com"), ("password", PASSWORD)],
        ),
    )
    .await;
    assert_eq!(old.status, 401, "the old password no longer works");
    let fresh = send_raw(
        &app,
        form(
            browser(Method::POST, "/dashboard/login"),
            &[("email", "owner@example.com"), ("password", new)],
        ),
    )
    .await;
    assert_eq!(fresh.status, 303);
    // Ending a session: one's own, never someone else's.
    let theirs =
        h.db.store
            .list_sessions(
                h.db.store
                    .find_user_by_email(&UserEmail::parse("staff@example.com").unwrap())
                    .unwrap()
                    .unwrap()
                    .id,
                Utc::now(),
            )
            .unwrap()[0]
            .id;
    let r = send_raw(
        &app,
        laptop.post(&format!("/dashboard/account/sessions/{theirs}/end"), &[]),
    )
    .await;
    assert_eq!(r.status, 404);
    assert_eq!(
        send_raw(&app, colleague.get("/dashboard")).await.status,
        200,
        "the colleague is still in"
    );
}

/// "Save and send" is one operation: in live, before the seller's details are in Settings, the
/// form comes back (422) saying what to add, and neither a draft nor its new customer is left
/// behind; the same form in test creates the invoice already sent.
async fn save_and_send_leaves_nothing_behind_when_the_send_is_refused(h: Harness) {
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    let s = sign_in(&app, "owner@example.com").await;
    let fields = [
        ("customer.name", "Ada Lovelace"),
        ("customer.email", "ada@example.com"),
        ("currency", "EUR"),
        ("line_count", "1"),
        ("line_items[0].description", "Consulting"),
        ("line_items[0].quantity", "1"),
        ("line_items[0].unit_price", "150.00"),
        ("action", "save_send"),
    ];
    let r = send_raw(
        &app,
        s.post("/dashboard/environment", &[("environment", "live")]),
    )
    .await;
    assert_eq!(r.status, 303);
    let r = send_raw(&app, s.post("/dashboard/invoices/new", &fields)).await;
    assert_eq!(r.status, 422, "{}", r.text());
    let page = r.text();
    assert!(page.contains("legal name"), "says what to add: {page}");
    assert!(
        page.contains("href=\"/dashboard/settings\">Open Settings</a>"),
        "and where: {page}"
    );
    assert!(!page.contains("Some fields need your attention"), "{page}");
    assert!(
        page.contains("class=\"button\" href=\"/dashboard/settings\""),
        "{page}"
    );
    assert!(page.contains("Consulting"), "what was typed is kept");
    let live = h.live_key();
    for list in ["/api/v1/invoices", "/api/v1/customers"] {
        let found = call!(&app, h.req_as(&live, Method::GET, list));
        assert_eq!(found.body["total"], 0, "{list}: {}", found.body);
    }
    let r = send_raw(
        &app,
        s.post("/dashboard/environment", &[("environment", "test")]),
    )
    .await;
    assert_eq!(r.status, 303);
    let r = send_raw(&app, s.post("/dashboard/invoices/new", &fields)).await;
    assert_eq!(r.status, 303, "{}", r.text());
    assert!(
        r.header("location").ends_with("?done=sent"),
        "{}",
        r.header("location")
    );
    let found = call!(&app, h.req(Method::GET, "/api/v1/invoices"));
    assert_eq!(found.body["total"], 1);
    assert_eq!(found.body["data"][0]["status"], "sent");
}

/// Issue 54: the form shows what its lines come to, computed by the server with the rules
/// saving uses (the account's document-level rounding included), on "Update totals", and the
/// saved invoice's total is the one shown; lines that cannot be priced say why, beside them.
async fn the_form_totals_its_lines_as_saving_does(h: Harness) {
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    let s = sign_in(&app, "owner@example.com").await;
    let r = call!(
        &app,
        h.req(Method::PATCH, "/api/v1/account"),
        json!({"tax_rounding": "document"})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    // Two lines of 0.25 at 10 %: rounded per line the tax would be 0.06, per document 0.05.
    let fields = [
        ("customer.name", "Ada Lovelace"),
        ("customer.email", "ada@example.com"),
        ("currency", "EUR"),
        ("line_count", "2"),
        ("line_items[0].description", "Stamp"),
        ("line_items[0].quantity", "1"),
        ("line_items[0].unit_price", "0.25"),
        ("line_items[0].tax_rate", "10"),
        ("line_items[1].description", "Stamp"),
        ("line_items[1].quantity", "1"),
        ("line_items[1].unit_price", "0.25"),
        ("line_items[1].tax_rate", "10"),
    ];
    // A first day: Home and an empty list lead to a new invoice.
    let home = send_raw(&app, s.get("/dashboard")).await.text();
    assert!(home.contains("id=\"home-new-invoice\" href=\"/dashboard/invoices/new\""));
    let list = send_raw(&app, s.get("/dashboard/invoices")).await.text();
    assert!(
        list.contains("No invoices here yet. <a href=\"/dashboard/invoices/new\">New invoice</a>"),
        "{list}"
    );
    let blank = send_raw(&app, s.get("/dashboard/invoices/new"))
        .await
        .text();
    assert!(
        !blank.contains("id=\"running-totals\""),
        "nothing typed, no totals"
    );
    let mut asked = fields.to_vec();
    asked.push(("action", "totals"));
    let r = send_raw(&app, s.post("/dashboard/invoices/new", &asked)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let page = r.text();
    let shown = page
        .split("id=\"running-total\">")
        .nth(1)
        .and_then(|rest| rest.split('<').next())
        .unwrap_or_else(|| panic!("no running total: {page}"))
        .to_string();
    assert!(shown.contains("0.55"), "{shown}");
    assert!(
        page.contains("Tax (10%)") || page.contains("Tax (10 %)"),
        "{page}"
    );
    assert!(page.contains("value=\"Stamp\""), "typed values kept");
    assert_eq!(
        h.db.store
            .list_invoices(
                Scope::new(h.account, Environment::Test),
                &Default::default(),
                Default::default()
            )
            .unwrap()
            .total,
        0,
        "nothing saved"
    );
    let mut save = fields.to_vec();
    save.push(("action", "save"));
    let r = send_raw(&app, s.post("/dashboard/invoices/new", &save)).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let id = r
        .header("location")
        .split('?')
        .next()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_string();
    let saved = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")));
    assert_eq!(
        saved.body["total_cents"], 55,
        "the total shown is the total saved"
    );
    // Editing the draft shows its totals as they stand.
    let edit = send_raw(&app, s.get(&format!("/dashboard/invoices/{id}/edit")))
        .await
        .text();
    assert!(
        edit.contains("id=\"running-total\">€0.55") || edit.contains("0.55"),
        "{edit}"
    );
    // A price that is no amount: said beside its field, no totals.
    let mut bad = asked.clone();
    bad.retain(|(k, _)| *k != "line_items[1].unit_price");
    bad.push(("line_items[1].unit_price", "0.255"));
    let r = send_raw(&app, s.post("/dashboard/invoices/new", &bad)).await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(!r.text().contains("id=\"running-totals\""));
    assert!(r.text().contains("aria-invalid=\"true\""), "{}", r.text());
}

http_tests!(
    save_and_send_leaves_nothing_behind_when_the_send_is_refused,
    every_screen_switches_environment_and_takes_its_notice,
    status_tabs_have_one_label_each,
    prices_are_typed_and_shown_as_the_users_language_writes_them,
    a_user_changes_their_password_and_ends_their_sessions,
    the_email_log_shows_what_was_sent_and_what_failed,
    owners_change_the_profile_and_nobody_else_can,
    every_screen_renders_within_its_statement_budget_for_every_role,
    quotations_customers_products_credits_and_schedules_through_the_forms,
    signing_in_sets_a_host_cookie_and_a_new_token_each_time,
    failures_say_one_thing_and_the_pair_is_throttled,
    pages_need_a_live_session,
    forged_posts_are_refused_and_change_nothing,
    a_day_of_billing_through_the_forms,
    the_form_totals_its_lines_as_saving_does,
    roles_tenants_and_environments_are_kept_apart,
);

/// "Switch to live/test" from every screen lands on a screen, never on an error: the form goes
/// back to the screen's section with the notice, and every screen accepts `done` beside its
/// own filters.
async fn every_screen_switches_environment_and_takes_its_notice(h: Harness) {
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    let screens = every_screen(&app, &h).await;
    let s = sign_in(&app, "owner@example.com").await;
    for path in &screens {
        let sep = if path.contains('?') { '&' } else { '?' };
        let r = send_raw(&app, s.get(&format!("{path}{sep}done=environment"))).await;
        assert_eq!(r.status, 200, "{path} with a notice: {}", r.text());
        for env in ["live", "test"] {
            let r = send_raw(
                &app,
                s.post(
                    "/dashboard/environment",
                    &[("environment", env), ("back", path)],
                ),
            )
            .await;
            assert_eq!(r.status, 303, "{path} -> {env}: {}", r.text());
            let to = r.header("location").to_string();
            assert!(to.contains("done=environment"), "{to}");
            let landed = send_raw(&app, s.get(&to)).await;
            assert_eq!(
                landed.status,
                200,
                "{path} -> {env} -> {to}: {}",
                landed.text()
            );
            let page = landed.text();
            assert_eq!(page.contains("test-banner"), env == "test", "{to} in {env}");
            assert!(page.contains("class=\"notice\""), "{to}: the notice shows");
        }
    }
}

/// SPEC §27: in German the dashboard reads `1.200,00` and shows prices back that way; in English
/// `1,200.00`.
async fn prices_are_typed_and_shown_as_the_users_language_writes_them(h: Harness) {
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    let s = sign_in(&app, "owner@example.com").await;
    let german = |req: TestRequest| {
        req.insert_header((
            "cookie",
            format!("__Host-session={}; __Host-language=de", s.cookie),
        ))
    };
    let fields = [
        ("csrf", s.csrf.as_str()),
        ("name", "Beratung"),
        ("unit_price", "1.200,00"),
        ("currency", "EUR"),
        ("tax_rate", "19"),
        ("active", "on"),
    ];
    let r = send_raw(
        &app,
        form(
            german(browser(Method::POST, "/dashboard/products/new")),
            &fields,
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let listed = call!(&app, h.req(Method::GET, "/api/v1/products")).body;
    let product = &listed["data"][0];
    assert_eq!(product["unit_price_cents"], 120_000, "{listed}");
    let path = format!("/dashboard/products/{}", product["id"]);
    let page = send_raw(&app, german(browser(Method::GET, &path)))
        .await
        .text();
    assert!(page.contains("value=\"1.200,00\""), "{page}");
    let page = send_raw(&app, s.get(&path)).await.text();
    assert!(page.contains("value=\"1,200.00\""), "in English: {page}");

    // The domain's refusals, coded, are said in the merchant's language beside their fields;
    // the API says the same problems in English.
    let wrong = [
        ("csrf", s.csrf.as_str()),
        ("name", ""),
        ("unit_price", "5"),
        ("currency", "EURO"),
        ("tax_rate", "1x"),
    ];
    let r = send_raw(
        &app,
        form(
            german(browser(Method::POST, "/dashboard/products/new")),
            &wrong,
        ),
    )
    .await;
    assert_eq!(r.status, 422);
    let page = r.text();
    for german in [
        "Bitte ausfüllen.",
        "Bitte geben Sie einen Währungscode wie EUR oder USD ein.",
        "Bitte geben Sie eine Zahl wie 1,5 ein.",
    ] {
        assert!(page.contains(german), "lacks {german:?}: {page}");
    }
    assert!(!page.contains("is required"), "{page}");
    let api = call!(
        &app,
        h.req(Method::POST, "/api/v1/products").set_json(json!({
            "unit_price_cents": 5, "currency": "EURO", "tax_rate": "1x"
        }))
    );
    assert_eq!(api.status, 422);
    let messages: Vec<&str> = api.body["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        [
            "is required",
            "must be a three-letter ISO 4217 currency code",
            "must be a decimal number"
        ]
    );

    // Dates too: a due date before the issue date, in German beside the due date.
    let early = [
        ("csrf", s.csrf.as_str()),
        ("customer.name", "Erika"),
        ("customer.email", "erika@example.com"),
        ("currency", "EUR"),
        ("issue_date", "2026-03-10"),
        ("due_date", "2026-03-01"),
        ("line_count", "1"),
        ("line_items[0].description", "Beratung"),
        ("line_items[0].quantity", "1"),
        ("line_items[0].unit_price", "10"),
        ("action", "save"),
    ];
    let r = send_raw(
        &app,
        form(
            german(browser(Method::POST, "/dashboard/invoices/new")),
            &early,
        ),
    )
    .await;
    assert_eq!(r.status, 422, "{}", r.text());
    let page = r.text();
    let beside = page
        .split("id=\"due_date-error\">")
        .nth(1)
        .unwrap_or_default();
    assert!(
        beside.starts_with("Darf nicht vor dem Ausstellungsdatum liegen."),
        "{page}"
    );
}

/// The lists' status tabs name each status once, in the merchant's words (not "Awaiting
/// payment" for both sent and viewed, nor the prospect's "Awaiting your answer").
async fn status_tabs_have_one_label_each(h: Harness) {
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    let s = sign_in(&app, "owner@example.com").await;
    for path in ["/dashboard/invoices", "/dashboard/quotations"] {
        let page = send_raw(&app, s.get(path)).await.text();
        let tabs: Vec<String> = page
            .split("class=\"tabs\"")
            .nth(1)
            .unwrap_or_default()
            .split("</nav>")
            .next()
            .unwrap_or_default()
            .split("</a>")
            .filter_map(|a| a.rsplit('>').next())
            .map(|label| label.trim().to_string())
            .filter(|label| !label.is_empty())
            .collect();
        assert!(tabs.len() >= 6, "{path}: {tabs:?}");
        let mut unique = tabs.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), tabs.len(), "{path}: {tabs:?}");
        assert!(
            !tabs.iter().any(|t| t == "Awaiting your answer"),
            "{tabs:?}"
        );
    }
}
