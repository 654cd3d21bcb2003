//! The dashboard in the merchant's words: the e-invoice panel only where e-invoices concern the
//! invoice, folded to one counted line; units and VAT categories as words with their codes as
//! values, behind a line's "More"; timelines that name people and keys once; the email log in
//! the user's language; figures' headers aligned with their columns.

use crate::common::*;
use crate::dashboard::{member, sign_in};
use actix_web::http::Method;
use actix_web::test::init_service;
use invoicing_domain::user::Role;
use invoicing_http::build_app;
use serde_json::json;

async fn invoices_speak_plainly(h: Harness) {
    let h = Harness::mailing(h.db.backend()).unwrap_or(h);
    let app = init_service(build_app(h.state.clone())).await;
    member(&h, h.account, "owner@example.com", Role::Owner);
    let owner = sign_in(&app, "owner@example.com").await;
    let line =
        json!([{"description": "Brot", "quantity": "1", "unit_price_cents": 350, "tax_rate": "7"}]);

    // A private person: no e-invoice panel.
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        json!({"customer": {"name": "Erika", "email": "erika@example.com"}, "line_items": line})
    );
    let private = r.body["id"].as_i64().unwrap();
    let page = send_raw(&app, owner.get(&format!("/dashboard/invoices/{private}")))
        .await
        .text();
    assert!(!page.contains("id=\"einvoice\""), "{page}");

    // A business: one counted line that opens to the sentences, the terms in small print.
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        json!({"customer": {"name": "Muster GmbH", "email": "einkauf@muster.example", "vat_id": "DE987654321"},
            "line_items": line})
    );
    let business = r.body["id"].as_i64().unwrap();
    let page = send_raw(&app, owner.get(&format!("/dashboard/invoices/{business}")))
        .await
        .text();
    assert!(page.contains("id=\"einvoice\""), "{page}");
    assert!(
        page.contains("<summary>Not yet an e-invoice: 3 things missing</summary>"),
        "{page}"
    );
    assert!(
        page.contains("<small class=\"muted\">(BT-31)</small>"),
        "{page}"
    );
    let german = owner
        .get(&format!("/dashboard/invoices/{business}"))
        .insert_header((
            "cookie",
            format!("__Host-session={}; __Host-language=de", owner.cookie),
        ));
    let page_de = send_raw(&app, german).await.text();
    assert!(
        page_de.contains("<summary>Noch keine E-Rechnung: 3 Angaben fehlen</summary>"),
        "{page_de}"
    );

    // The form: a line's unit and VAT category by name, behind "More" unless the line says more.
    let form = send_raw(
        &app,
        owner.get(&format!("/dashboard/invoices/{business}/edit")),
    )
    .await
    .text();
    assert!(
        form.contains("<option value=\"HUR\">hour</option>"),
        "{form}"
    );
    assert!(
        form.contains("<option value=\"C62\" selected>piece</option>"),
        "{form}"
    );
    assert!(
        form.contains("<option value=\"AE\">Reverse charge"),
        "{form}"
    );
    assert!(!form.contains("S: standard"), "{form}");
    assert!(form.contains("<details class=\"line-more\">"), "{form}");
    let r = call!(
        &app,
        h.req(Method::PATCH, &format!("/api/v1/invoices/{business}")),
        json!({"line_items": [{"description": "Beratung", "quantity": "2", "unit": "HUR",
            "unit_price_cents": 9_000, "tax_rate": "19"}]})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let form = send_raw(
        &app,
        owner.get(&format!("/dashboard/invoices/{business}/edit")),
    )
    .await
    .text();
    assert!(
        form.contains("<details class=\"line-more\" open>"),
        "{form}"
    );
    assert!(
        form.contains("<option value=\"HUR\" selected>hour</option>"),
        "{form}"
    );

    // The timeline names the key and the person once; "viewed" says who by itself.
    let r = send_raw(
        &app,
        owner.post(&format!("/dashboard/invoices/{business}/send"), &[]),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let inv = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/invoices/{business}"))
    );
    let link = inv.body["payment_link"].as_str().unwrap();
    let path = &link[link.find("/invoice/").unwrap()..];
    assert_eq!(
        send_raw(&app, h.anonymous(Method::GET, path)).await.status,
        200
    );
    let page = send_raw(&app, owner.get(&format!("/dashboard/invoices/{business}")))
        .await
        .text();
    assert!(
        page.contains("by <span class=\"whole\">owner@example.com</span>"),
        "{page}"
    );
    assert!(
        page.contains("with API key <span class=\"whole\">sk_test_"),
        "{page}"
    );
    assert!(!page.contains("by user "), "{page}");
    assert!(
        !page.contains("<span class=\"who\">by the customer</span>"),
        "viewed says who: {page}"
    );
    assert!(page.contains("Viewed by the customer"), "{page}");

    // The email log in words.
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{business}/email")),
        json!({})
    );
    assert_eq!(r.status, 202, "{}", r.body);
    let page = send_raw(&app, owner.get(&format!("/dashboard/invoices/{business}")))
        .await
        .text();
    assert!(
        page.contains("Invoice → <bdi>einkauf@muster.example</bdi>"),
        "{page}"
    );
    assert!(
        page.contains("<strong>Waiting to be sent</strong>"),
        "{page}"
    );

    // Figures' headers stand over their right-aligned columns.
    let reports = send_raw(&app, owner.get("/dashboard/reports")).await.text();
    assert!(
        reports.contains("<th scope=\"col\" class=\"num\">Invoiced</th>"),
        "{reports}"
    );
}

/// A new account's lists say what to do, and lead to doing it.
async fn empty_lists_say_what_to_do(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    member(&h, h.account, "owner@example.com", Role::Owner);
    let owner = sign_in(&app, "owner@example.com").await;
    for (path, words, new) in [
        (
            "/dashboard/customers",
            "No customers here yet.",
            Some("/dashboard/customers/new"),
        ),
        (
            "/dashboard/products",
            "No products here yet.",
            Some("/dashboard/products/new"),
        ),
        (
            "/dashboard/recurring",
            "No recurring invoices here yet.",
            Some("/dashboard/recurring/new"),
        ),
        ("/dashboard/payments", "No payments here yet.", None),
        ("/dashboard/credit-notes", "No credit notes here yet.", None),
        (
            "/dashboard/invoices",
            "No invoices here yet.",
            Some("/dashboard/invoices/new"),
        ),
    ] {
        let page = send_raw(&app, owner.get(path)).await.text();
        let empty = page
            .split("<p class=\"empty\" id=\"empty\">")
            .nth(1)
            .and_then(|rest| rest.split("</p>").next())
            .unwrap_or_else(|| panic!("{path}: {page}"));
        assert!(empty.starts_with(words), "{path}: {empty}");
        if let Some(new) = new {
            assert!(
                empty.contains(&format!("href=\"{new}\"")),
                "{path}: {empty}"
            );
        }
    }
}

http_tests!(invoices_speak_plainly, empty_lists_say_what_to_do);
