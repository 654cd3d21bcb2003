//! SPEC §27, what an EU invoice must show: `delivery_date` or `service_period` on invoices and
//! credit notes (never both, never backwards), kept through edits of a draft, inherited by a
//! credit note unless it names its own, printed on the page and the PDF with each line's
//! exemption reason, and written to UBL (BT-72, BG-14).

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use invoicing_http::build_app;
use serde_json::{json, Value};

fn body(extra: Value) -> Value {
    let mut b = json!({"customer": {"name": "Erika", "email": "erika@example.com"},
    "line_items": [
        {"description": "Beratung", "quantity": 1, "unit_price_cents": 10_000, "tax_rate": "19"},
        {"description": "Heilbehandlung", "quantity": 1, "unit_price_cents": 5_000, "tax_rate": "0",
         "tax_category": "E", "tax_exemption_reason": "Steuerfrei nach § 4 Nr. 14 UStG"}
    ]});
    for (k, v) in extra.as_object().unwrap() {
        b[k] = v.clone();
    }
    b
}

/// The fields a refusal names: its details', or the one `param` of a 400.
fn params(r: &Reply) -> Vec<String> {
    match r.body["error"]["details"].as_array() {
        Some(details) => details
            .iter()
            .map(|d| d["param"].as_str().unwrap().to_string())
            .collect(),
        None => vec![r.body["error"]["param"]
            .as_str()
            .unwrap_or_default()
            .to_string()],
    }
}

async fn invoices_and_credit_notes_say_when_the_supply_was_made(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let before = call!(&app, h.req(Method::GET, "/api/v1/invoices"));
    for (extra, param) in [
        (
            json!({"delivery_date": "2026-11-02", "service_period": {"start": "2026-11-01", "end": "2026-11-30"}}),
            "service_period",
        ),
        (
            json!({"service_period": {"start": "2026-11-30", "end": "2026-11-01"}}),
            "service_period.end",
        ),
        (
            json!({"service_period": {"end": "2026-11-01"}}),
            "service_period.start",
        ),
        (json!({"delivery_date": "02.11.2026"}), "delivery_date"),
        (
            json!({"service_period": {"start": "2026-11-01", "end": "2026-11-30", "days": 30}}),
            "service_period",
        ),
    ] {
        let r = call!(&app, h.req(Method::POST, "/api/v1/invoices"), body(extra));
        assert!(
            r.status == 422 || r.status == 400,
            "{}: {}",
            r.status,
            r.body
        );
        let named = params(&r);
        assert!(
            named.iter().any(|p| p.starts_with(param)),
            "{param}: {named:?}"
        );
    }
    let after = call!(&app, h.req(Method::GET, "/api/v1/invoices"));
    assert_eq!(
        before.body["total_count"], after.body["total_count"],
        "nothing made"
    );

    let made = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        body(json!({"delivery_date": "2026-11-02"}))
    );
    assert_eq!(made.status, 201, "{}", made.body);
    assert_eq!(made.body["delivery_date"], "2026-11-02");
    assert_eq!(made.body["service_period"], Value::Null);
    let id = made.body["id"].as_i64().unwrap();
    let path = format!("/api/v1/invoices/{id}");
    // A draft's supply changes as a whole: a period replaces the delivery date.
    let r = call!(
        &app,
        h.req(Method::PATCH, &path),
        json!({"service_period": {"start": "2026-10-01", "end": "2026-10-31"}})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["delivery_date"], Value::Null);
    assert_eq!(
        r.body["service_period"],
        json!({"start": "2026-10-01", "end": "2026-10-31"})
    );
    let r = call!(&app, h.req(Method::PATCH, &path), json!({"notes": "Danke"}));
    assert_eq!(r.body["service_period"]["start"], "2026-10-01", "kept");
    let r = call!(&app, h.req(Method::POST, &format!("{path}/send")));
    assert_eq!(r.status, 200, "{}", r.body);
    let r = call!(
        &app,
        h.req(Method::PATCH, &path),
        json!({"delivery_date": "2026-11-02"})
    );
    assert_error(&r, 409, "invalid_state_transition");

    // The page and the PDF show it, and the exemption reason beside its line.
    let link = r.body["payment_link"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let link = if link.is_empty() {
        call!(&app, h.req(Method::GET, &path)).body["payment_link"]
            .as_str()
            .unwrap()
            .to_string()
    } else {
        link
    };
    let page = send_raw(
        &app,
        h.anonymous(Method::GET, link.strip_prefix(PUBLIC_URL).unwrap()),
    )
    .await
    .text();
    assert!(page.contains("Service period"), "{page}");
    assert!(page.contains("Oct 1, 2026 – Oct 31, 2026"), "{page}");
    assert!(
        page.contains("VAT exemption: Steuerfrei nach § 4 Nr. 14 UStG"),
        "{page}"
    );
    let pdf = send_raw(&app, h.req(Method::GET, &format!("{path}/pdf"))).await;
    let words = pdf_words(&pdf.bytes);
    assert!(words.contains("Service period"), "{words}");
    assert!(words.contains("Oct 1, 2026 – Oct 31, 2026"), "{words}");
    assert!(
        words.contains("VAT exemption: Steuerfrei nach § 4 Nr. 14"),
        "{words}"
    );

    // A credit note takes the invoice's period, or names its own day.
    let credit = format!("{path}/credit_notes");
    let r = call!(
        &app,
        h.req(Method::POST, &credit),
        json!({"reason": "order_change", "amount_cents": 1_000})
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(
        r.body["service_period"],
        json!({"start": "2026-10-01", "end": "2026-10-31"})
    );
    let r = call!(
        &app,
        h.req(Method::POST, &credit),
        json!({"reason": "order_change", "amount_cents": 1_000, "delivery_date": "2026-10-15",
            "service_period": {"start": "2026-10-01", "end": "2026-10-31"}})
    );
    assert_error(&r, 422, "validation_failed");
    assert_eq!(params(&r), ["service_period"]);
    let r = call!(
        &app,
        h.req(Method::POST, &credit),
        json!({"reason": "order_change", "amount_cents": 1_000, "delivery_date": "2026-10-15"})
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.body["delivery_date"], "2026-10-15");
    assert_eq!(r.body["service_period"], Value::Null);
    let note = r.body["id"].as_i64().unwrap();
    let pdf = send_raw(
        &app,
        h.req(Method::GET, &format!("/api/v1/credit_notes/{note}/pdf")),
    )
    .await;
    assert!(pdf_words(&pdf.bytes).contains("Delivery date"));
}

/// The e-invoice carries what the document says: BG-14 for a period, BT-72 for a day.
async fn the_e_invoice_carries_the_delivery_date_or_the_period(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let seller = json!({"legal_name": "Muster GmbH", "vat_id": "DE123456789",
        "address": {"line1": "Hauptstraße 1", "city": "Berlin", "postal_code": "10115", "country": "DE"},
        "electronic_address": {"scheme": "EM", "id": "rechnung@muster.example"}});
    let r = call!(&app, h.req(Method::PATCH, "/api/v1/account"), seller);
    assert_eq!(r.status, 200, "{}", r.body);
    for (extra, needles) in [
        (
            json!({"delivery_date": "2026-11-02"}),
            vec!["<cbc:ActualDeliveryDate>2026-11-02</cbc:ActualDeliveryDate>"],
        ),
        (
            json!({"service_period": {"start": "2026-10-01", "end": "2026-10-31"}}),
            vec![
                "<cac:InvoicePeriod><cbc:StartDate>2026-10-01</cbc:StartDate><cbc:EndDate>2026-10-31</cbc:EndDate></cac:InvoicePeriod>",
            ],
        ),
    ] {
        let mut b = body(extra);
        b["customer"] = json!({"name": "Erika", "email": "erika@example.com",
            "address": {"line1": "Käuferstraße 2", "city": "München", "postal_code": "80331", "country": "DE"},
            "electronic_address": {"scheme": "EM", "id": "erika@example.com"}});
        let made = call!(&app, h.req(Method::POST, "/api/v1/invoices"), b);
        let id = made.body["id"].as_i64().unwrap();
        let r = call!(&app, h.req(Method::POST, &format!("/api/v1/invoices/{id}/send")));
        assert_eq!(r.status, 200, "{}", r.body);
        let ubl = send_raw(
            &app,
            h.req(
                Method::GET,
                &format!("/api/v1/invoices/{id}/einvoice?syntax=ubl"),
            ),
        )
        .await;
        assert_eq!(ubl.status, 200, "{}", String::from_utf8_lossy(&ubl.bytes));
        let xml = String::from_utf8(ubl.bytes.to_vec()).unwrap();
        let flat: String = xml.split_whitespace().collect::<Vec<_>>().join("");
        for n in needles {
            let n: String = n.split_whitespace().collect::<Vec<_>>().join("");
            assert!(flat.contains(&n), "{n} in {xml}");
        }
    }
}

http_tests!(
    invoices_and_credit_notes_say_when_the_supply_was_made,
    the_e_invoice_carries_the_delivery_date_or_the_period,
);
