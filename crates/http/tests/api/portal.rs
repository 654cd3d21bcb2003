//! SPEC §26's customer portal through the real app, on both backends: links made and revoked by
//! the API, one customer's documents that left draft and nobody else's, and a token never made,
//! tampered with, revoked or expired answered alike.

use crate::common::*;
use crate::dashboard::{member, sign_in};
use actix_web::http::Method;
use actix_web::test::init_service;
use chrono::{Duration, Utc};
use invoicing_domain::notice::NoticeKind;
use invoicing_domain::portal::token_hash;
use invoicing_domain::ports::{NoticeQueue, PortalRepository, RepoError};
use invoicing_domain::user::Role;
use invoicing_http::build_app;
use serde_json::{json, Value};

fn invoice(email: &str, cents: i64) -> Value {
    json!({
        "customer": {"name": email, "email": email},
        "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": cents}]
    })
}

/// A document made with `key` for `email` (sent unless `draft`): its answer.
async fn document<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    h: &Harness,
    key: &str,
    kind: &str,
    email: &str,
    cents: i64,
    draft: bool,
) -> Value {
    let made = call!(
        app,
        h.req_as(key, Method::POST, &format!("/api/v1/{kind}")),
        invoice(email, cents)
    );
    assert_eq!(made.status, 201, "{}", made.body);
    if draft {
        return made.body;
    }
    let path = format!("/api/v1/{kind}/{}/send", made.body["id"]);
    let sent = call!(app, h.req_as(key, Method::POST, &path));
    assert_eq!(sent.status, 200, "{}", sent.body);
    sent.body
}

async fn a_customer_sees_their_documents_and_nobody_elses(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let key = h.key.clone();
    let open = document(&app, &h, &key, "invoices", "ada@example.com", 1000, false).await;
    let draft = document(&app, &h, &key, "invoices", "ada@example.com", 2000, true).await;
    let quote = document(&app, &h, &key, "quotations", "ada@example.com", 3000, false).await;
    let cancelled = document(&app, &h, &key, "invoices", "ada@example.com", 4000, false).await;
    let path = format!("/api/v1/invoices/{}", cancelled["id"]);
    let r = call!(
        &app,
        h.req(Method::PATCH, &path),
        json!({"status": "cancelled"})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let other = document(&app, &h, &key, "invoices", "bob@example.com", 5000, false).await;
    let stranger = h.stranger_key("Other shop");
    let foreign = document(
        &app,
        &h,
        &stranger,
        "invoices",
        "ada@example.com",
        6000,
        false,
    )
    .await;
    let live = h.live_key();
    // A live document leaves draft only from a merchant whose details an invoice must show.
    let details = call!(
        &app,
        h.req_as(&live, Method::PATCH, "/api/v1/account"),
        json!({"name": "Muster GmbH", "tax_id": "12/345/67890",
               "address": {"line1": "Hauptstr. 1", "city": "Berlin", "postal_code": "10115", "country": "DE"}})
    );
    assert_eq!(details.status, 200, "{}", details.body);
    let live_one = document(&app, &h, &live, "invoices", "ada@example.com", 7000, false).await;

    let customer = open["customer_id"].clone();
    let link_path = format!("/api/v1/customers/{customer}/portal_link");
    let link = call!(&app, h.req(Method::POST, &link_path));
    assert_eq!(link.status, 201, "{}", link.body);
    assert_eq!(link.body["object"], "portal_link");
    let url = link.body["url"].as_str().unwrap();
    let expires: chrono::DateTime<Utc> = link.body["expires_at"].as_str().unwrap().parse().unwrap();
    assert!(
        (expires - Utc::now() - Duration::days(30))
            .num_minutes()
            .abs()
            < 5
    );
    let page_path = url.strip_prefix(PUBLIC_URL).unwrap().to_string();
    assert!(page_path.starts_with("/portal?token="), "{page_path}");
    let page = send_raw(&app, h.anonymous(Method::GET, &page_path)).await;
    assert_eq!(page.status, 200);
    assert_eq!(page.header("cache-control"), "no-store");
    assert_eq!(page.header("referrer-policy"), "no-referrer");
    assert!(page
        .header("content-security-policy")
        .starts_with("default-src 'none'"));
    let html = page.text();
    let shows = |doc: &Value, field: &str| html.contains(doc[field].as_str().unwrap());
    assert!(shows(&open, "invoice_number") && shows(&cancelled, "invoice_number"));
    assert!(shows(&quote, "quote_number"), "{html}");
    assert!(html.contains(&format!(
        "href=\"{}\"",
        open["payment_link"].as_str().unwrap()
    )));
    // Numbers repeat across tenants; a page's link (its token) never does.
    for (doc, why) in [
        (&draft, "a draft"),
        (&other, "another customer's"),
        (&foreign, "another account's"),
        (&live_one, "the live environment's"),
    ] {
        assert!(
            !html.contains(doc["payment_link"].as_str().unwrap()),
            "{why} is listed"
        );
    }
    assert!(!shows(&draft, "invoice_number"), "a draft's number");
    let invoice_page = open["payment_link"].as_str().unwrap();
    let shown = send_raw(
        &app,
        h.anonymous(Method::GET, invoice_page.strip_prefix(PUBLIC_URL).unwrap()),
    )
    .await
    .text();
    assert!(
        !shown.contains("portal-link"),
        "a service that mails nothing offers no login by email"
    );
    let to_pay = html
        .split("id=\"open\"")
        .nth(1)
        .unwrap()
        .split("</table>")
        .next()
        .unwrap();
    assert!(to_pay.contains(open["invoice_number"].as_str().unwrap()));
    assert!(
        !to_pay.contains(cancelled["invoice_number"].as_str().unwrap()),
        "open first, apart"
    );

    // Another tenant's customer has no link to make; a bad body changes nothing.
    let foreign_customer = format!("/api/v1/customers/{}/portal_link", foreign["customer_id"]);
    assert_error(
        &call!(&app, h.req(Method::POST, &foreign_customer)),
        403,
        "resource_forbidden",
    );
    let past = call!(
        &app,
        h.req(Method::POST, &link_path),
        json!({"expires_at": "2020-01-01T00:00:00Z"})
    );
    assert_error(&past, 422, "validation_failed");

    // Never made, tampered with, expired, revoked: all the same 404.
    let token = page_path
        .strip_prefix("/portal?token=")
        .unwrap()
        .to_string();
    let mut tampered = token.clone();
    let last = if tampered.ends_with('A') { 'B' } else { 'A' };
    tampered.pop();
    tampered.push(last);
    for bad in [
        format!("/portal?token={tampered}"),
        "/portal?token=nothing-like-it".into(),
        "/portal".into(),
    ] {
        let r = send_raw(&app, h.anonymous(Method::GET, &bad)).await;
        assert_eq!(r.status, 404, "{bad}");
        // The customer's name is their email; a random request id may spell "Ada".
        assert!(!r.text().contains("ada@"), "{bad} leaks: {}", r.text());
    }
    let expired =
        h.db.store
            .portal_owner(&token_hash(&token), Utc::now() + Duration::days(31));
    assert!(matches!(expired, Err(RepoError::NotFound)), "{expired:?}");
    let second = call!(&app, h.req(Method::POST, &link_path)).body;
    let revoke = call!(&app, h.req(Method::POST, &format!("{link_path}/revoke")));
    assert_eq!(revoke.status, 200, "{}", revoke.body);
    assert_eq!(revoke.body["revoked"], 2);
    for link in [url, second["url"].as_str().unwrap()] {
        let path = link.strip_prefix(PUBLIC_URL).unwrap();
        assert_eq!(
            send_raw(&app, h.anonymous(Method::GET, path)).await.status,
            404
        );
    }
}

/// The dashboard makes and ends the same links (SPEC §26); a viewer can do neither.
async fn the_dashboard_makes_and_ends_links(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let key = h.key.clone();
    let open = document(&app, &h, &key, "invoices", "ada@example.com", 1000, false).await;
    member(&h, h.account, "owner@example.com", Role::Owner);
    member(&h, h.account, "viewer@example.com", Role::Viewer);
    let s = sign_in(&app, "owner@example.com").await;
    let customer = format!("/dashboard/customers/{}", open["customer_id"]);
    let screen = send_raw(&app, s.get(&customer)).await.text();
    assert!(screen.contains("id=\"portal-make\""), "{screen}");
    let made = send_raw(&app, s.post(&format!("{customer}/portal/link"), &[])).await;
    assert_eq!(made.status, 200, "{}", made.text());
    let html = made.text();
    let url = html
        .split("id=\"portal-url\">")
        .nth(1)
        .and_then(|rest| rest.split('<').next())
        .unwrap()
        .replace("&amp;", "&");
    let path = url.strip_prefix(PUBLIC_URL).unwrap().to_string();
    let portal = send_raw(&app, h.anonymous(Method::GET, &path)).await;
    assert_eq!(portal.status, 200);
    assert!(portal
        .text()
        .contains(open["invoice_number"].as_str().unwrap()));
    let viewer = sign_in(&app, "viewer@example.com").await;
    let refused = send_raw(&app, viewer.post(&format!("{customer}/portal/revoke"), &[])).await;
    assert_eq!(refused.status, 403);
    assert_eq!(
        send_raw(&app, h.anonymous(Method::GET, &path)).await.status,
        200
    );
    let ended = send_raw(&app, s.post(&format!("{customer}/portal/revoke"), &[])).await;
    assert_eq!(ended.status, 303);
    assert_eq!(
        send_raw(&app, h.anonymous(Method::GET, &path)).await.status,
        404
    );
}

/// The notices queued so far (claimed, so each is seen once).
fn mailed(h: &Harness) -> Vec<invoicing_domain::notice::NoticeJob> {
    h.db.store
        .claim_notices(Utc::now(), std::time::Duration::from_secs(60), 50)
        .unwrap()
}

/// SPEC §26's login page: the same answer for a customer's address and any other, a link by
/// email valid 24 hours that opens the portal, at most one a minute.
async fn a_customer_asks_for_a_link_by_email(h: Harness) {
    let quiet = send_raw(
        &init_service(build_app(h.state.clone())).await,
        form(&h, "/portal/login", "email=ada%40example.com"),
    )
    .await;
    assert!(
        quiet.text().contains("id=\"no-mail\""),
        "a server without mail says so"
    );
    let h = Harness::mailing(h.db.backend()).unwrap_or(h);
    let app = init_service(build_app(h.state.clone())).await;
    let key = h.key.clone();
    let open = document(&app, &h, &key, "invoices", "ada@example.com", 1000, false).await;
    // Every document page leads there (a page of a service that mails links).
    let invoice_page = open["payment_link"].as_str().unwrap();
    let shown = send_raw(
        &app,
        h.anonymous(Method::GET, invoice_page.strip_prefix(PUBLIC_URL).unwrap()),
    )
    .await
    .text();
    assert!(
        shown.contains("<a id=\"portal-link\" href=\"/portal/login\">All your documents from"),
        "{shown}"
    );
    let page = send_raw(&app, h.anonymous(Method::GET, "/portal/login")).await;
    assert_eq!(page.status, 200);
    assert!(page.text().contains("name=\"email\""), "{}", page.text());
    let ask = |email: &str| form(&h, "/portal/login", &format!("email={email}"));
    let known = send_raw(&app, ask("ADA%40example.com")).await;
    let unknown = send_raw(&app, ask("nobody%40example.com")).await;
    assert_eq!((known.status, unknown.status), (200, 200));
    assert_eq!(
        known.text().replace("ADA@example.com", ""),
        unknown.text().replace("nobody@example.com", ""),
        "the same answer either way"
    );
    // The link is made after the answer has gone: wait for its email.
    let mut mail = Vec::new();
    for _ in 0..100 {
        mail = mailed(&h);
        if !mail.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(mail.len(), 1, "to the customer only");
    assert_eq!(mail[0].kind, NoticeKind::PortalLink);
    assert_eq!(mail[0].recipient, "ada@example.com");
    let link = mail[0].link.clone().unwrap();
    let path = link.strip_prefix(PUBLIC_URL).unwrap();
    let portal = send_raw(&app, h.anonymous(Method::GET, path)).await;
    assert_eq!(portal.status, 200);
    assert!(portal
        .text()
        .contains(open["invoice_number"].as_str().unwrap()));
    // Asked again at once: no second email.
    send_raw(&app, ask("ada%40example.com")).await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(mailed(&h).is_empty(), "one a minute");
    let bad = send_raw(&app, ask("not-an-address")).await;
    assert_eq!(bad.status, 422);
    assert!(
        bad.text().contains("id=\"email-problem\""),
        "{}",
        bad.text()
    );
}

/// The path of a new portal link (`/portal?token=…`) to the customer `customer_id`, and its token.
async fn portal_of<B: actix_web::body::MessageBody>(
    app: &impl TestApp<B>,
    h: &Harness,
    customer_id: &Value,
) -> (String, String) {
    let made = call!(
        app,
        h.req(
            Method::POST,
            &format!("/api/v1/customers/{customer_id}/portal_link")
        )
    );
    assert_eq!(made.status, 201, "{}", made.body);
    let path = made.body["url"]
        .as_str()
        .unwrap()
        .strip_prefix(PUBLIC_URL)
        .unwrap()
        .to_string();
    let token = path.strip_prefix("/portal?token=").unwrap().to_string();
    (path, token)
}

/// SPEC §26: every PDF and e-invoice of the customer's documents and their statement, from the
/// portal; no other customer's document, no draft, no quotation as an e-invoice, nothing once
/// the links are revoked.
async fn a_customer_downloads_their_files_and_statement(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    let key = h.key.clone();
    let details = call!(
        &app,
        h.req(Method::PATCH, "/api/v1/account"),
        json!({"legal_name": "Muster GmbH", "vat_id": "DE123456789",
               "address": {"line1": "Hauptstr. 1", "city": "Berlin", "postal_code": "10115", "country": "DE"}})
    );
    assert_eq!(details.status, 200, "{}", details.body);
    // A business customer: its documents come as e-invoices too.
    let customer = call!(
        &app,
        h.req(Method::POST, "/api/v1/customers"),
        json!({"name": "Erika", "email": "erika@example.com", "company": "Kunde GmbH", "vat_id": "DE987654321",
               "address": {"line1": "Käuferstr. 2", "city": "München", "postal_code": "80331", "country": "DE"}})
    );
    assert_eq!(customer.status, 201, "{}", customer.body);
    let theirs = |cents: i64| {
        json!({"customer_id": customer.body["id"],
               "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": cents, "tax_rate": "19"}]})
    };
    let made = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        theirs(10_000)
    );
    let id = made.body["id"].clone();
    let sent = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/send"))
    );
    assert_eq!(sent.status, 200, "{}", sent.body);
    let credit = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/credit_notes")),
        json!({"amount_cents": 1190, "reason": "other"})
    );
    assert_eq!(credit.status, 201, "{}", credit.body);
    let draft = call!(&app, h.req(Method::POST, "/api/v1/invoices"), theirs(500));
    let quote = call!(&app, h.req(Method::POST, "/api/v1/quotations"), theirs(700));
    let q = quote.body["id"].clone();
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{q}/send"))
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let other = document(&app, &h, &key, "invoices", "bob@example.com", 5000, false).await;
    let stranger = h.stranger_key("Other shop");
    let foreign = document(
        &app,
        &h,
        &stranger,
        "invoices",
        "x@example.com",
        5000,
        false,
    )
    .await;

    let (page, token) = portal_of(&app, &h, &customer.body["id"]).await;
    let html = send_raw(&app, h.anonymous(Method::GET, &page)).await.text();
    let file = |kind: &str, id: &Value, format: &str| {
        format!("/portal/{kind}/{id}/{format}?token={token}")
    };
    let cn = credit.body["id"].clone();
    for (href, content_type) in [
        (file("invoices", &id, "pdf"), "application/pdf"),
        (file("invoices", &id, "ubl"), "application/xml"),
        (file("credit_notes", &cn, "pdf"), "application/pdf"),
        (file("credit_notes", &cn, "ubl"), "application/xml"),
        (file("quotations", &q, "pdf"), "application/pdf"),
    ] {
        assert!(html.contains(&href), "the page offers {href}: {html}");
        let r = send_raw(&app, h.anonymous(Method::GET, &href)).await;
        assert_eq!(r.status, 200, "{href}: {}", r.text());
        assert_eq!(r.header("content-type"), content_type, "{href}");
    }
    let cii = send_raw(
        &app,
        h.anonymous(Method::GET, &file("invoices", &id, "cii")),
    )
    .await;
    assert_eq!(cii.status, 200);
    assert!(
        cii.text().contains("CrossIndustryInvoice"),
        "{}",
        cii.text()
    );
    for (href, why) in [
        (file("invoices", &other["id"], "pdf"), "another customer's"),
        (file("invoices", &foreign["id"], "pdf"), "another account's"),
        (
            file("invoices", &foreign["id"], "ubl"),
            "another account's e-invoice",
        ),
        (
            format!("/portal/invoices/{id}/pdf?token=x&token={token}"),
            "a second token",
        ),
        (file("invoices", &draft.body["id"], "pdf"), "a draft"),
        (file("quotations", &q, "ubl"), "a quotation as an e-invoice"),
        (file("payments", &id, "pdf"), "no such kind"),
        (file("invoices", &json!("x"), "pdf"), "no such id"),
        (file("invoices", &id, "xml"), "no such format"),
        (format!("/portal/invoices/{id}/pdf"), "no token"),
    ] {
        let r = send_raw(&app, h.anonymous(Method::GET, &href)).await;
        assert_eq!(r.status, 404, "{why}: {href}");
        assert!(!r.text().contains("%PDF"), "{why}");
        assert!(r.text().contains("resource_missing"), "{why}: {}", r.text());
    }
    // Pages are whole numbers from 1, given once.
    for bad in ["0", "-1", "abc", "1.5", "10001", "1&page=2"] {
        let r = send_raw(
            &app,
            h.anonymous(Method::GET, &format!("{page}&page={bad}")),
        )
        .await;
        assert_eq!(r.status, 400, "page={bad}");
        assert!(r.text().contains("invalid_parameter"), "{}", r.text());
    }
    // A person whose link ended reads a page that leads to asking for a new one.
    let ended = send_raw(
        &app,
        h.anonymous(Method::GET, "/portal?token=ended")
            .insert_header(("accept", "text/html")),
    )
    .await;
    assert_eq!(ended.status, 404);
    assert!(
        ended.text().contains("href=\"/portal/login\""),
        "{}",
        ended.text()
    );

    // The statement: the invoice and its credit note with the balance, as a PDF.
    let year = chrono::Utc::now().format("%Y");
    assert!(html.contains("action=\"/portal/statement\""), "{html}");
    let statement = format!("/portal/statement?token={token}&from={year}-01-01&to=");
    let r = send_raw(&app, h.anonymous(Method::GET, &statement)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), "application/pdf");
    let bad = send_raw(
        &app,
        h.anonymous(
            Method::GET,
            &format!("/portal/statement?token={token}&from=someday"),
        ),
    )
    .await;
    assert_eq!(bad.status, 400, "{}", bad.text());

    let revoke = format!(
        "/api/v1/customers/{}/portal_link/revoke",
        customer.body["id"]
    );
    assert_eq!(call!(&app, h.req(Method::POST, &revoke)).status, 200);
    for gone in [file("invoices", &id, "pdf"), statement] {
        let r = send_raw(&app, h.anonymous(Method::GET, &gone)).await;
        assert_eq!(r.status, 404, "{gone}");
    }
}

/// How many statements a portal page may send, however many documents the customer has: the
/// link, the account's day, the open invoices and each kind's page (each with its lines, on a
/// snapshot of its own: BEGIN and COMMIT), the invoices named by credit notes and payments, the
/// customer and the profile.
const PORTAL_PAGE_BUDGET: u64 = 24;

/// A long history comes a page at a time (50 of each kind), older pages linked, each page within
/// the same statement budget.
async fn a_long_history_pages_within_a_budget(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    let key = h.key.clone();
    let first = document(&app, &h, &key, "quotations", "ada@example.com", 100, false).await;
    for cents in 101..152 {
        document(
            &app,
            &h,
            &key,
            "quotations",
            "ada@example.com",
            cents,
            false,
        )
        .await;
    }
    let (page, _) = portal_of(&app, &h, &first["customer_id"]).await;
    let rows = |html: &str| {
        html.split("id=\"quotations\"")
            .nth(1)
            .unwrap()
            .split("</table>")
            .next()
            .unwrap()
            .matches("<tr>")
            .count()
            - 1
    };
    let before = h.db.store.statements_sent();
    let one = send_raw(&app, h.anonymous(Method::GET, &page)).await;
    let cost = h.db.store.statements_sent() - before;
    assert_eq!(one.status, 200);
    assert!(cost <= PORTAL_PAGE_BUDGET, "page 1 took {cost} statements");
    let html = one.text();
    assert_eq!(rows(&html), 50, "the newest 50");
    assert!(!html.contains(first["quote_number"].as_str().unwrap()));
    assert!(!html.contains("id=\"newer\""));
    let older = html
        .split("id=\"older\" href=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .replace("&#38;", "&");
    let before = h.db.store.statements_sent();
    let two = send_raw(&app, h.anonymous(Method::GET, &older)).await;
    let cost = h.db.store.statements_sent() - before;
    assert!(cost <= PORTAL_PAGE_BUDGET, "page 2 took {cost} statements");
    let html = two.text();
    assert_eq!(rows(&html), 2, "the rest");
    assert!(html.contains(first["quote_number"].as_str().unwrap()));
    assert!(html.contains("id=\"newer\"") && !html.contains("id=\"older\""));
}

http_tests!(
    a_customer_sees_their_documents_and_nobody_elses,
    the_dashboard_makes_and_ends_links,
    a_customer_asks_for_a_link_by_email,
    a_customer_downloads_their_files_and_statement,
    a_long_history_pages_within_a_budget,
);
