//! SPEC §17 through the real app: the PDF routes of the API and the public pages, their headers,
//! tenant isolation and scopes, capability tokens, drafts, and the content read back with
//! poppler's `pdftotext` (which `scripts/test` installs).

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use invoicing_domain::tenant::Environment;
use invoicing_http::build_app;
use serde_json::json;

struct Pdf {
    status: u16,
    content_type: String,
    disposition: String,
    bytes: Vec<u8>,
}

async fn fetch<S, B>(app: &S, req: actix_web::test::TestRequest) -> Pdf
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let r = send_raw(app, req).await;
    Pdf {
        status: r.status,
        content_type: r.header("content-type").to_string(),
        disposition: r.header("content-disposition").to_string(),
        bytes: r.bytes,
    }
}

fn public_path(link: &str, suffix: &str) -> String {
    let link = link.strip_prefix(PUBLIC_URL).unwrap();
    let (path, query) = link.split_once('?').unwrap();
    format!("{path}{suffix}?{query}")
}

async fn invoice_pdfs_for_the_merchant_and_the_customer(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let profile = json!({"legal_name": "Musterfirma GmbH", "vat_id": "DE123456789",
        "tax_id": "12/345/67890",
        "payment_instructions": "IBAN DE89 3704 0044 0532 0130 00",
        "address": {"line1": "Hauptstraße 1", "postal_code": "10115", "city": "Berlin", "country": "DE"}});
    assert_eq!(
        call!(&app, h.req(Method::PATCH, "/api/v1/account"), profile).status,
        200
    );
    let body = json!({"customer": {"name": "Jana Kunde", "email": "jana@example.de", "locale": "de"},
        "currency": "EUR", "line_items": [
            {"description": "Beratung", "quantity": "1.5", "unit_price_cents": 82300, "tax_rate": 0},
            {"description": "Lizenz", "quantity": 1, "unit_price_cents": 10000, "tax_rate": 19}]});
    let r = call!(&app, h.req(Method::POST, "/api/v1/invoices"), body);
    assert_eq!(r.status, 201, "{}", r.body);
    let (id, number) = (
        r.body["id"].clone(),
        r.body["invoice_number"].as_str().unwrap().to_string(),
    );
    let api_path = format!("/api/v1/invoices/{id}/pdf");

    // A draft renders for the merchant, marked as a draft; it has no public copy.
    let draft = fetch(&app, h.req(Method::GET, &api_path)).await;
    assert_eq!(draft.status, 200);
    assert_eq!(draft.content_type, "application/pdf");
    assert_eq!(
        draft.disposition,
        format!("inline; filename=\"{number}.pdf\"")
    );
    assert!(draft.bytes.starts_with(b"%PDF-"));
    let draft_link = r.body["payment_link"].as_str().unwrap();
    let public = fetch(
        &app,
        h.anonymous(Method::GET, &public_path(draft_link, "/pdf")),
    )
    .await;
    assert_eq!(public.status, 404, "a draft is not public");

    let sent = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/send"))
    );
    let link = sent.body["payment_link"].as_str().unwrap().to_string();
    let pdf = fetch(&app, h.anonymous(Method::GET, &public_path(&link, "/pdf"))).await;
    assert_eq!(
        (pdf.status, pdf.content_type.as_str()),
        (200, "application/pdf")
    );
    let text = pdf_words(&pdf.bytes);
    for expected in [
        number.as_str(),
        "Musterfirma GmbH",
        "USt-IdNr.: DE123456789",
        "Steuernummer: 12/345/67890",
        "Hauptstraße 1",
        "Jana Kunde",
        "Beratung",
        "Lizenz",
        "1.234,50 €",
        "1.353,50 €",
        "IBAN DE89 3704 0044 0532 0130 00",
        "Rechnung",
    ] {
        assert!(
            text.contains(expected),
            "the PDF lacks {expected:?}:\n{text}"
        );
    }
    let api = fetch(&app, h.req(Method::GET, &api_path)).await;
    assert_eq!(
        api.bytes, pdf.bytes,
        "the API and the customer get the same document"
    );
    let again = fetch(&app, h.anonymous(Method::GET, &public_path(&link, "/pdf"))).await;
    assert_eq!(
        again.bytes, pdf.bytes,
        "the same document renders to the same bytes"
    );
    let r = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")));
    assert_eq!(
        r.body["status"], "sent",
        "opening the PDF is no view of the page"
    );
    // The customer's page labels the two numbers as the PDF does (a view, now).
    let page = fetch(&app, h.anonymous(Method::GET, &public_path(&link, ""))).await;
    let html = String::from_utf8_lossy(&page.bytes);
    for expected in [
        "USt-IdNr.: <span class=\"tax-id\">DE123456789</span>",
        "Steuernummer: <span class=\"tax-id\">12/345/67890</span>",
    ] {
        assert!(
            html.contains(expected),
            "the page lacks {expected:?}:\n{html}"
        );
    }

    // Wrong or missing tokens name nothing.
    let wrong = format!("/invoice/{number}/pdf?token=not-the-token");
    assert_eq!(
        fetch(&app, h.anonymous(Method::GET, &wrong)).await.status,
        404
    );
    let bare = format!("/invoice/{number}/pdf");
    assert_eq!(
        fetch(&app, h.anonymous(Method::GET, &bare)).await.status,
        404
    );

    // The page links to it.
    let page = fetch(
        &app,
        h.anonymous(Method::GET, link.strip_prefix(PUBLIC_URL).unwrap()),
    )
    .await;
    let html = String::from_utf8(page.bytes).unwrap();
    let token = link.split_once("token=").unwrap().1;
    assert!(
        html.contains(&format!("href=\"/invoice/{number}/pdf?token={token}\"")),
        "{html}"
    );
    assert!(html.contains("PDF herunterladen"), "the link speaks German");
}

async fn pdfs_belong_to_their_tenant_and_need_read_scope(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let body = json!({"customer": {"name": "Ada", "email": "ada@example.com"},
        "line_items": [{"description": "Design", "quantity": 1, "unit_price_cents": 5000}]});
    let inv = call!(&app, h.req(Method::POST, "/api/v1/invoices"), body.clone());
    let quo = call!(&app, h.req(Method::POST, "/api/v1/quotations"), body);
    assert_eq!(
        (inv.status.as_u16(), quo.status.as_u16()),
        (201, 201),
        "{}",
        quo.body
    );
    let paths = [
        format!("/api/v1/invoices/{}/pdf", inv.body["id"]),
        format!("/api/v1/quotations/{}/pdf", quo.body["id"]),
    ];
    let other_key = h.stranger_key("Globex");
    let live_key = h.live_key();
    let customers_only = h.make_key(
        h.account,
        Environment::Test,
        "customers:read",
        GENEROUS,
        None,
    );
    for path in &paths {
        assert_eq!(
            fetch(&app, h.req(Method::GET, path)).await.status,
            200,
            "{path}"
        );
        let r = call!(&app, h.req_as(&other_key, Method::GET, path));
        assert_error(&r, 403, "resource_forbidden");
        let r = call!(&app, h.req_as(&live_key, Method::GET, path));
        assert_error(&r, 403, "resource_forbidden");
        let r = call!(&app, h.req_as(&customers_only, Method::GET, path));
        assert_error(&r, 403, "insufficient_permissions");
        let r = call!(&app, h.anonymous(Method::GET, path));
        assert_error(&r, 401, "missing_api_key");
    }
    let reader = h.make_key(
        h.account,
        Environment::Test,
        "invoices:read",
        GENEROUS,
        None,
    );
    assert_eq!(
        fetch(&app, h.req_as(&reader, Method::GET, &paths[0]))
            .await
            .status,
        200
    );
    for missing in [
        "/api/v1/invoices/999999/pdf",
        "/api/v1/quotations/999999/pdf",
    ] {
        let r = call!(&app, h.req(Method::GET, missing));
        assert_error(&r, 404, "resource_missing");
    }
}

async fn quotation_pdfs_for_the_prospect(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let body = json!({"customer": {"name": "Luc", "email": "luc@example.fr", "locale": "fr"},
        "currency": "EUR", "valid_until": "2099-06-30",
        "line_items": [{"description": "Conseil", "quantity": 1, "unit_price_cents": 123450}]});
    let q = call!(&app, h.req(Method::POST, "/api/v1/quotations"), body);
    assert_eq!(q.status, 201, "{}", q.body);
    let url = q.body["public_url"].as_str().unwrap().to_string();
    assert_eq!(
        fetch(&app, h.anonymous(Method::GET, &public_path(&url, "/pdf")))
            .await
            .status,
        404
    );
    let sent = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/quotations/{}/send", q.body["id"])
        )
    );
    assert_eq!(sent.status, 200, "{}", sent.body);
    let pdf = fetch(&app, h.anonymous(Method::GET, &public_path(&url, "/pdf"))).await;
    assert_eq!(pdf.status, 200);
    let number = q.body["quote_number"].as_str().unwrap();
    assert_eq!(
        pdf.disposition,
        format!("inline; filename=\"{number}.pdf\"")
    );
    let text = pdf_words(&pdf.bytes);
    for expected in [number, "Luc", "Conseil", "1 234,50 €", "30/06/2099"] {
        assert!(
            text.contains(expected),
            "the PDF lacks {expected:?}:\n{text}"
        );
    }
    // Its QR code opens the page to answer: nothing to pay yet.
    let words = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    assert!(
        words.contains("scannez pour consulter et répondre"),
        "{text}"
    );
    assert!(!words.contains("scannez pour payer"), "{text}");
    let r = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/quotations/{}", q.body["id"]))
    );
    assert_eq!(
        r.body["status"], "sent",
        "opening the PDF is no view of the page"
    );
}

http_tests!(
    invoice_pdfs_for_the_merchant_and_the_customer,
    pdfs_belong_to_their_tenant_and_need_read_scope,
    quotation_pdfs_for_the_prospect,
);
