//! SPEC §24 through the real app: the account export holds every object of its account and
//! environment (as many lines as the API's lists have), the PDF of each document that left
//! draft, and never a secret or another tenant's data.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use invoicing_domain::tenant::Environment;
use invoicing_http::build_app;
use serde_json::{json, Value};
use std::io::Read;

/// Every entry of the archive, by name, decompressed.
fn entries(zip: &[u8]) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).expect("a whole ZIP");
    (0..archive.len())
        .map(|i| {
            let mut file = archive.by_index(i).unwrap();
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes).unwrap();
            (file.name().unwrap().to_string(), bytes)
        })
        .collect()
}

fn lines(bytes: &[u8]) -> Vec<Value> {
    String::from_utf8(bytes.to_vec())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

async fn an_account_export_holds_everything_of_its_tenant_and_no_secret(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    // This tenant: customers, a sent and a draft invoice, a credit note, a sent quotation, a
    // product, a webhook endpoint (its secret shown once, here).
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/webhooks"),
        json!({"url": "https://127.0.0.1:9/hook", "events": ["*"]})
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let secret = r.body["secret"].as_str().unwrap().to_string();
    let invoice = |name: &str| {
        json!({"customer": {"name": name, "email": format!("{}@example.com", name.to_lowercase())},
            "line_items": [{"description": "Arbeit", "quantity": 2, "unit_price_cents": 4500, "tax_rate": "19"}]})
    };
    let sent = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        invoice("Zoë")
    );
    assert_eq!(sent.status, 201, "{}", sent.body);
    let id = sent.body["id"].as_i64().unwrap();
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/send"))
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/credit_notes")),
        json!({"reason": "other", "amount_cents": 1000})
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let credit_number = r.body["credit_note_number"].as_str().unwrap().to_string();
    let draft = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        invoice("Draft")
    );
    assert_eq!(draft.status, 201);
    let q = call!(
        &app,
        h.req(Method::POST, "/api/v1/quotations"),
        json!({"customer_id": sent.body["customer_id"],
            "line_items": [{"description": "Angebot", "quantity": 1, "unit_price_cents": 9900}]})
    );
    assert_eq!(q.status, 201, "{}", q.body);
    let qid = q.body["id"].as_i64().unwrap();
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{qid}/send"))
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/products"),
        json!({"name": "Beratung", "unit_price_cents": 12000, "currency": "EUR"})
    );
    assert_eq!(r.status, 201, "{}", r.body);
    // Another account, and this account's live environment, each with a customer of their own.
    let other_key = h.stranger_key("Other GmbH");
    let live_key = h.live_key();
    for (key, email) in [
        (&other_key, "stranger@other.example"),
        (&live_key, "live@acme.example"),
    ] {
        let r = call!(
            &app,
            h.req_as(key, Method::POST, "/api/v1/customers"),
            json!({"name": "Not yours", "email": email})
        );
        assert_eq!(r.status, 201, "{}", r.body);
    }

    let raw = send_raw(&app, h.req(Method::GET, "/api/v1/account/export")).await;
    assert_eq!(raw.status, 200, "{}", raw.text());
    assert_eq!(raw.header("content-type"), "application/zip");
    assert!(raw
        .header("content-disposition")
        .contains("account-export.zip"));
    let files = entries(&raw.bytes);
    // As many lines as each list has.
    for (file, list) in [
        ("customers.jsonl", "/api/v1/customers"),
        ("invoices.jsonl", "/api/v1/invoices"),
        ("quotations.jsonl", "/api/v1/quotations"),
        ("credit_notes.jsonl", "/api/v1/credit_notes"),
        ("products.jsonl", "/api/v1/products"),
        ("payments.jsonl", "/api/v1/payments"),
        ("events.jsonl", "/api/v1/events"),
        ("webhook_endpoints.jsonl", "/api/v1/webhooks"),
        ("emails.jsonl", "/api/v1/emails"),
        ("recurring_invoices.jsonl", "/api/v1/recurring_invoices"),
    ] {
        let listed = call!(&app, h.req(Method::GET, &format!("{list}?per_page=100")));
        assert_eq!(listed.status, 200, "{list}");
        let exported = lines(
            files
                .get(file)
                .unwrap_or_else(|| panic!("{file} in the archive")),
        );
        assert_eq!(
            exported.len() as i64,
            listed.body["total"].as_i64().unwrap(),
            "{file}"
        );
        assert_eq!(
            exported.iter().map(|o| o["id"].clone()).collect::<Vec<_>>(),
            listed.body["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["id"].clone())
                .collect::<Vec<_>>(),
            "{file}: the API's objects, in its order"
        );
    }
    assert!(lines(&files["invoices.jsonl"])
        .iter()
        .any(|i| i["line_items"][0]["description"] == "Arbeit"));
    let profile: Value = serde_json::from_slice(&files["profile.json"]).unwrap();
    assert_eq!(profile["id"], h.account.0);
    let keys = lines(&files["api_keys.jsonl"]);
    assert_eq!(keys.len(), 1, "the test environment's key only: {keys:?}");
    assert!(keys[0].get("key_hash").is_none() && keys[0]["last4"].is_string());
    // A PDF for each document that left draft, none for the draft.
    let sent_number = sent.body["invoice_number"].as_str().unwrap();
    let pdfs: Vec<&String> = files.keys().filter(|n| n.starts_with("pdf/")).collect();
    assert_eq!(pdfs.len(), 3, "{pdfs:?}");
    for name in [
        format!("pdf/invoices/{sent_number}.pdf"),
        format!(
            "pdf/quotations/{}.pdf",
            q.body["quote_number"].as_str().unwrap()
        ),
        format!("pdf/credit_notes/{credit_number}.pdf"),
    ] {
        assert!(files[&name].starts_with(b"%PDF-"), "{name}");
    }
    let manifest: Value = serde_json::from_slice(&files["export.json"]).unwrap();
    assert_eq!(manifest["pdfs"], 3);
    assert_eq!(manifest["files"]["invoices.jsonl"], 2);
    // No secret, no other tenant, anywhere: in the raw bytes and in every entry.
    let everything: Vec<&[u8]> = std::iter::once(raw.bytes.as_slice())
        .chain(files.values().map(Vec::as_slice))
        .collect();
    for needle in [
        secret.as_str(),
        h.key.as_str(),
        &h.key[h.key.len() - 12..],
        "stranger@other.example",
        "live@acme.example",
    ] {
        for hay in &everything {
            assert!(
                !hay.windows(needle.len()).any(|w| w == needle.as_bytes()),
                "{needle:?} is in the export"
            );
        }
    }
    // The live key exports the live environment: its own customer only.
    let live = send_raw(
        &app,
        h.req_as(&live_key, Method::GET, "/api/v1/account/export"),
    )
    .await;
    let live_files = entries(&live.bytes);
    let customers = lines(&live_files["customers.jsonl"]);
    assert_eq!(customers.len(), 1);
    assert_eq!(customers[0]["email"], "live@acme.example");
    // A key that may not read the account may not export it.
    let narrow = h.make_key(
        h.account,
        Environment::Test,
        "invoices:read",
        GENEROUS,
        None,
    );
    let r = call!(
        &app,
        h.req_as(&narrow, Method::GET, "/api/v1/account/export")
    );
    assert_error(&r, 403, "insufficient_permissions");
}

http_tests!(an_account_export_holds_everything_of_its_tenant_and_no_secret);
