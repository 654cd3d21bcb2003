//! SPEC §8 and §5 through the real app: the customer lifecycle, lists and validation.

use crate::common::*;
use crate::dashboard::{member, sign_in};
use actix_web::http::Method;
use actix_web::test::init_service;
use invoicing_domain::user::Role;
use invoicing_http::build_app;
use serde_json::json;

async fn lifecycle(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let body = json!({
        "name": "Ada Lovelace", "email": "  Ada@Example.com ", "phone": "+44 20 7946 0000",
        "company": "Analytical Engines", "metadata": {"crm_id": "42"},
        "address": {"line1": "12 St James's Square", "city": "London", "postal_code": "SW1Y 4JH", "country": "GB"}
    });
    let created = send(&app, json(h.req(Method::POST, "/api/v1/customers"), &body)).await;
    assert_eq!(created.status, 201, "{}", created.body);
    assert_api_headers(&created);
    let c = &created.body;
    assert_eq!(c["email"], "Ada@Example.com", "trimmed");
    assert_eq!(c["address"]["city"], "London");
    assert_eq!(c["address"]["line2"], serde_json::Value::Null);
    assert_eq!(c["metadata"]["crm_id"], "42");
    assert_eq!(c["livemode"], false);
    let created_at = c["created_at"].as_str().unwrap();
    assert!(
        created_at.ends_with('Z') && created_at.len() == 20,
        "{created_at}"
    );
    let id = c["id"].as_i64().unwrap();
    assert!(id > 0);

    let again = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/customers"),
            &json!({"name": "Someone else", "email": "ADA@example.COM"}),
        ),
    )
    .await;
    assert_eq!(again.status, 200);
    assert_eq!(&again.body, c, "the existing record, unchanged");

    let path = format!("/api/v1/customers/{id}");
    assert_eq!(&send(&app, h.req(Method::GET, &path)).await.body, c);
    let found = send(
        &app,
        h.req(Method::GET, "/api/v1/customers?email=ada%40EXAMPLE.com"),
    )
    .await;
    assert_eq!(found.body["total"], 1);
    assert_eq!(found.body["data"][0]["id"], id);

    let patched = send(
        &app,
        json(
            h.req(Method::PATCH, &path),
            &json!({"phone": null, "name": "Ada King"}),
        ),
    )
    .await;
    assert_eq!(patched.status, 200, "{}", patched.body);
    assert_eq!(patched.body["name"], "Ada King");
    assert_eq!(patched.body["phone"], serde_json::Value::Null);
    assert_eq!(patched.body["company"], "Analytical Engines");

    send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/customers"),
            &json!({"name": "Bob", "email": "bob@example.com"}),
        ),
    )
    .await;
    let clash = send(
        &app,
        json(
            h.req(Method::PATCH, &path),
            &json!({"email": "Bob@Example.com"}),
        ),
    )
    .await;
    assert_error(&clash, 409, "resource_in_use");

    let deleted = send(&app, h.req(Method::DELETE, &path)).await;
    assert_eq!(deleted.status, 204);
    assert_api_headers(&deleted);
    assert_error(
        &send(&app, h.req(Method::GET, &path)).await,
        404,
        "resource_missing",
    );
    assert_error(
        &send(&app, h.req(Method::DELETE, &path)).await,
        404,
        "resource_missing",
    );
}

async fn lists_page_newest_first(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    for i in 0..7 {
        let body = json!({"name": format!("C{i}"), "email": format!("c{i}@example.com")});
        assert_eq!(
            send(&app, json(h.req(Method::POST, "/api/v1/customers"), &body))
                .await
                .status,
            201
        );
    }
    let r = send(
        &app,
        h.req(Method::GET, "/api/v1/customers?per_page=3&page=2"),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["page"], 2);
    assert_eq!(r.body["per_page"], 3);
    assert_eq!(r.body["total"], 7);
    assert_eq!(r.body["has_more"], true);
    let names: Vec<_> = r.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["C3", "C2", "C1"]);
    let last = send(
        &app,
        h.req(Method::GET, "/api/v1/customers?per_page=3&page=3"),
    )
    .await;
    assert_eq!(last.body["has_more"], false);
    let default = send(&app, h.req(Method::GET, "/api/v1/customers")).await;
    assert_eq!(
        (
            default.body["page"].as_i64(),
            default.body["per_page"].as_i64()
        ),
        (Some(1), Some(20))
    );
    for bad in [
        "page=0",
        "per_page=0",
        "per_page=101",
        "page=abc",
        "per_page=-5",
        "color=red",
        "email=",
    ] {
        let r = send(
            &app,
            h.req(Method::GET, &format!("/api/v1/customers?{bad}")),
        )
        .await;
        assert_error(&r, 400, "invalid_parameter");
        assert_api_headers(&r);
    }
}

async fn validation_reports_every_field_and_changes_nothing(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let long_key = "k".repeat(41);
    let body = json!({"email": "not-an-email", "phone": "call me", "address": {"city": "x".repeat(201)}, "metadata": {long_key.clone(): "v"}});
    let r = send(&app, json(h.req(Method::POST, "/api/v1/customers"), &body)).await;
    assert_error(&r, 422, "validation_failed");
    let params: Vec<_> = r.body["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["param"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        params,
        [
            "name",
            "email",
            "phone",
            "address.city",
            &format!("metadata.{long_key}")
        ]
    );
    assert_eq!(r.body["error"]["param"], "name");
    let too_many: serde_json::Map<_, _> = (0..51).map(|i| (format!("k{i}"), json!("v"))).collect();
    let r = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/customers"),
            &json!({"name": "A", "email": "a@example.com", "metadata": too_many}),
        ),
    )
    .await;
    assert_error(&r, 422, "validation_failed");
    let nul = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/customers"),
            &json!({"name": "A\u{0}B", "email": "a@example.com"}),
        ),
    )
    .await;
    assert_error(&nul, 422, "validation_failed");
    assert_eq!(nul.body["error"]["details"][0]["param"], "name");
    let null_name = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/customers"),
            &json!({"name": "A", "email": "a@example.com"}),
        ),
    )
    .await;
    let path = format!("/api/v1/customers/{}", null_name.body["id"]);
    let r = send(
        &app,
        json(
            h.req(Method::PATCH, &path),
            &json!({"name": null, "email": "bad"}),
        ),
    )
    .await;
    assert_error(&r, 422, "validation_failed");
    assert_eq!(r.body["error"]["details"].as_array().unwrap().len(), 2);
    let list = send(&app, h.req(Method::GET, "/api/v1/customers")).await;
    assert_eq!(
        list.body["total"], 1,
        "only the valid create stored anything"
    );
    assert_eq!(list.body["data"][0]["name"], "A");
}

/// SPEC §26: a phone is kept as written and as E.164, from its `+` or the customer's country, or
/// else the account's; one that cannot be dialled is 422; the dashboard shares documents by it.
async fn phones_are_dialled_and_documents_shared(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let account = call!(
        &app,
        h.req(Method::PATCH, "/api/v1/account"),
        json!({"name": "Muster GmbH", "address": {"city": "Berlin", "country": "DE"}})
    );
    assert_eq!(account.status, 200, "{}", account.body);
    let create = |body: serde_json::Value| json(h.req(Method::POST, "/api/v1/customers"), &body);
    let home = send(
        &app,
        create(json!({"name": "Erika", "email": "erika@example.com",
        "phone": "030 1234567", "locale": "de"})),
    )
    .await;
    assert_eq!(home.status, 201, "{}", home.body);
    assert_eq!(home.body["phone"], "030 1234567", "as written");
    assert_eq!(
        home.body["phone_e164"], "+49301234567",
        "in the account's country"
    );
    let abroad = send(
        &app,
        create(json!({"name": "Jean", "email": "jean@example.com",
        "phone": "01 23 45 67 89", "address": {"country": "FR"}})),
    )
    .await;
    assert_eq!(
        abroad.body["phone_e164"], "+33123456789",
        "in the customer's country"
    );
    let plus = send(
        &app,
        create(json!({"name": "Ann", "email": "ann@example.com",
        "phone": "+1 (868) 620-1234"})),
    )
    .await;
    assert_eq!(plus.body["phone_e164"], "+18686201234");
    let impossible = send(
        &app,
        create(json!({"name": "X", "email": "x@example.com",
        "phone": "+49 123"})),
    )
    .await;
    assert_error(&impossible, 422, "validation_failed");
    assert_eq!(impossible.body["error"]["details"][0]["param"], "phone");
    let path = format!("/api/v1/customers/{}", home.body["id"]);
    let patched = call!(
        &app,
        h.req(Method::PATCH, &path),
        json!({"phone": "0000 0"})
    );
    assert_error(&patched, 422, "validation_failed");
    assert_eq!(patched.body["error"]["details"][0]["param"], "phone");
    let same = call!(&app, h.req(Method::GET, &path));
    assert_eq!(same.body["phone_e164"], "+49301234567", "unchanged");

    // The invoice's screen offers WhatsApp and SMS, the message in the customer's language.
    member(&h, h.account, "owner@example.com", Role::Owner);
    let s = sign_in(&app, "owner@example.com").await;
    let inv = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        json!({"customer_id": home.body["id"], "currency": "EUR",
               "line_items": [{"description": "Beratung", "quantity": 1, "unit_price_cents": 12000}]})
    );
    let draft = format!("/dashboard/invoices/{}", inv.body["id"]);
    assert!(
        !send_raw(&app, s.get(&draft))
            .await
            .text()
            .contains("share-whatsapp"),
        "a draft is not shared"
    );
    let sent = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/invoices/{}/send", inv.body["id"])
        )
    );
    let page = send_raw(&app, s.get(&draft)).await.text();
    let href = page
        .split("id=\"share-whatsapp\" href=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no WhatsApp link: {page}"))
        .replace("&amp;", "&");
    let query = href
        .strip_prefix("https://wa.me/49301234567?")
        .unwrap_or_else(|| panic!("{href}"));
    let text = serde_urlencoded::from_str::<Vec<(String, String)>>(query)
        .unwrap()
        .into_iter()
        .find(|(k, _)| k == "text")
        .unwrap_or_else(|| panic!("no text: {href}"))
        .1;
    let number = sent.body["invoice_number"].as_str().unwrap();
    assert!(
        text.starts_with(&format!("Rechnung {number} von Muster GmbH: 120,00")),
        "{text}"
    );
    assert!(
        text.ends_with(sent.body["payment_link"].as_str().unwrap()),
        "{text}"
    );
    assert!(
        page.contains("href=\"sms:+49301234567?body=Rechnung%20"),
        "{page}"
    );
    // A quotation awaiting its answer too.
    let quote = call!(
        &app,
        h.req(Method::POST, "/api/v1/quotations"),
        json!({"customer_id": home.body["id"], "currency": "EUR",
               "line_items": [{"description": "Beratung", "quantity": 1, "unit_price_cents": 5000}]})
    );
    let sent = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/quotations/{}/send", quote.body["id"])
        )
    );
    assert_eq!(sent.status, 200, "{}", sent.body);
    let page = send_raw(
        &app,
        s.get(&format!("/dashboard/quotations/{}", quote.body["id"])),
    )
    .await
    .text();
    assert!(
        page.contains("href=\"https://wa.me/49301234567?text=Angebot%20"),
        "{page}"
    );
}

http_tests!(
    phones_are_dialled_and_documents_shared,
    lifecycle,
    lists_page_newest_first,
    validation_reports_every_field_and_changes_nothing
);
