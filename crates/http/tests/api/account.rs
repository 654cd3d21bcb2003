//! SPEC §16 through the real app: the merchant's profile per account and environment, its
//! validation and scopes, the logo (decoded, size-checked, served back as uploaded), and the
//! customers' own locale and tax id.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::{self, init_service};
use image::{ImageBuffer, ImageFormat, Rgb};
use invoicing_domain::tenant::Environment;
use invoicing_http::build_app;
use serde_json::json;
use std::io::Cursor;

fn image(format: ImageFormat, width: u32, height: u32) -> Vec<u8> {
    let img = ImageBuffer::from_fn(width, height, |x, y| {
        Rgb([(x * 7) as u8, (y * 5) as u8, 90])
    });
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, format).unwrap();
    out.into_inner()
}

/// A PNG that claims `width`×`height` in its header (checksum fixed), whatever its pixels are.
fn png_claiming(width: u32, height: u32) -> Vec<u8> {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for b in bytes {
            crc ^= u32::from(*b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
    let mut png = image(ImageFormat::Png, 1, 1);
    // The IHDR chunk follows the 8-byte signature: length (4), type (4), width, height, …
    png[16..20].copy_from_slice(&width.to_be_bytes());
    png[20..24].copy_from_slice(&height.to_be_bytes());
    let crc = crc32(&png[12..29]);
    png[29..33].copy_from_slice(&crc.to_be_bytes());
    png
}

fn profile_body() -> serde_json::Value {
    json!({
        "name": "Acme", "legal_name": "Acme Handels GmbH", "email": "billing@acme.example",
        "phone": "+49 30 1234567", "website": "https://acme.example",
        "address": {"line1": "Hauptstraße 1", "city": "Berlin", "postal_code": "10115", "country": "DE"},
        "tax_id": "DE123456789",
        "payment_instructions": "IBAN DE89 3704 0044 0532 0130 00 · BIC COBADEFFXXX",
        "invoice_footer": "Acme Handels GmbH · Amtsgericht Berlin HRB 12345",
        "locale": "de", "brand_color": "#1f6feb", "default_currency": "EUR",
        "reminders": [7, -3, 0], "send_receipts": true,
    })
}

async fn the_profile_starts_from_the_account_and_takes_every_field(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let r = call!(&app, h.req(Method::GET, "/api/v1/account"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_api_headers(&r);
    let p = &r.body;
    assert_eq!(p["object"], "account");
    assert_eq!(p["id"], h.account.0);
    assert_eq!(
        (p["name"].as_str(), p["legal_name"].is_null()),
        (Some("Acme Ltd"), true)
    );
    assert_eq!(
        (p["locale"].as_str(), p["default_currency"].as_str()),
        (Some("en"), Some("EUR"))
    );
    assert_eq!(
        (p["reminders"].clone(), p["send_receipts"].clone()),
        (json!([]), json!(false))
    );
    assert_eq!(
        (p["livemode"].clone(), p["has_logo"].clone()),
        (json!(false), json!(false))
    );

    let r = call!(
        &app,
        h.req(Method::PATCH, "/api/v1/account"),
        profile_body()
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let p = &r.body;
    assert_eq!(p["legal_name"], "Acme Handels GmbH");
    assert_eq!(p["address"]["country"], "DE");
    assert_eq!(p["brand_color"], "#1F6FEB");
    assert_eq!(p["reminders"], json!([-3, 0, 7]));
    assert_eq!(p["locale"], "de");
    assert_eq!(p["send_receipts"], true);
    let again = call!(&app, h.req(Method::GET, "/api/v1/account"));
    assert_eq!(&again.body, p, "what PATCH answered is what GET reads");

    // Absent fields stay; null clears an optional one.
    let r = call!(
        &app,
        h.req(Method::PATCH, "/api/v1/account"),
        json!({"legal_name": null, "brand_color": null})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body["legal_name"].is_null() && r.body["brand_color"].is_null());
    assert_eq!(r.body["tax_id"], "DE123456789");
}

async fn bad_profile_values_are_refused_and_change_nothing(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let path = "/api/v1/account";
    for (body, param) in [
        (
            json!({"address": {"country": "Germany"}}),
            "address.country",
        ),
        (json!({"address": {"country": "XX"}}), "address.country"),
        (json!({"brand_color": "blue"}), "brand_color"),
        (json!({"brand_color": "#12345G"}), "brand_color"),
        (json!({"locale": "it"}), "locale"),
        (json!({"name": null}), "name"),
        (json!({"name": "   "}), "name"),
        (json!({"website": "javascript:alert(1)"}), "website"),
        (json!({"reminders": [400]}), "reminders[0]"),
        (
            json!({"payment_instructions": "x".repeat(2001)}),
            "payment_instructions",
        ),
        (json!({"invoice_footer": "x".repeat(501)}), "invoice_footer"),
        (json!({"default_currency": "XYZ"}), "default_currency"),
    ] {
        let r = call!(&app, h.req(Method::PATCH, path), body);
        assert_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["param"], param, "{}", r.body);
    }
    let r = call!(&app, h.req(Method::PATCH, path), json!({"iban": "DE89"}));
    assert_error(&r, 400, "invalid_parameter");
    let r = call!(
        &app,
        h.req(Method::PATCH, path),
        json!({"address": {"country": null}})
    );
    assert_error(&r, 422, "validation_failed");
    let r = call!(&app, h.req(Method::GET, path));
    assert_eq!(r.body["name"], "Acme Ltd", "nothing was changed");
    assert!(r.body["address"].is_null());
}

async fn scopes_and_environments_keep_profiles_apart(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let path = "/api/v1/account";
    let key = |scopes: &str| h.make_key(h.account, Environment::Test, scopes, GENEROUS, None);
    let customers_only = key("customers:write");
    let r = call!(&app, h.req_as(&customers_only, Method::GET, path));
    assert_error(&r, 403, "insufficient_permissions");
    let reader = key("account:read");
    assert_eq!(
        call!(&app, h.req_as(&reader, Method::GET, path)).status,
        200
    );
    let r = call!(
        &app,
        h.req_as(&reader, Method::PATCH, path),
        json!({"name": "X"})
    );
    assert_error(&r, 403, "insufficient_permissions");
    let r = call!(
        &app,
        h.req_as(&reader, Method::DELETE, "/api/v1/account/logo")
    );
    assert_error(&r, 403, "insufficient_permissions");
    let writer = key("account:write");
    let r = call!(
        &app,
        h.req_as(&writer, Method::PATCH, path),
        json!({"tax_id": "T-1"})
    );
    assert_eq!(r.status, 200, "{}", r.body);

    // A live key changes the live profile only, and another account sees its own.
    let live = h.live_key();
    let r = call!(
        &app,
        h.req_as(&live, Method::PATCH, path),
        json!({"name": "Live Co"})
    );
    assert_eq!(
        (r.status.as_u16(), r.body["livemode"].clone()),
        (200, json!(true))
    );
    assert!(
        r.body["tax_id"].is_null(),
        "the test profile's tax id stays in test"
    );
    let test_view = call!(&app, h.req(Method::GET, path));
    assert_eq!(
        (
            test_view.body["name"].as_str(),
            test_view.body["tax_id"].as_str()
        ),
        (Some("Acme Ltd"), Some("T-1"))
    );
    let other = h.new_account("Globex");
    let other_key = h.make_key(other, Environment::Test, "*", GENEROUS, None);
    let r = call!(&app, h.req_as(&other_key, Method::GET, path));
    assert_eq!(
        (r.body["name"].as_str(), r.body["id"].as_i64()),
        (Some("Globex"), Some(other.0))
    );
}

async fn logo_is_decoded_bounded_and_served_back(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let path = "/api/v1/account/logo";
    let put = |content_type: &str, bytes: Vec<u8>| {
        h.req(Method::PUT, path)
            .insert_header(("content-type", content_type.to_string()))
            .set_payload(bytes)
    };
    let r = call!(&app, h.req(Method::GET, path));
    assert_error(&r, 404, "resource_missing");

    let png = image(ImageFormat::Png, 40, 20);
    let r = call!(&app, put("image/png", png.clone()));
    assert_eq!(r.status, 204, "{}", r.body);
    let res = test::call_service(&app, h.req(Method::GET, path).to_request()).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers().get("content-type").unwrap(), "image/png");
    assert_eq!(
        res.headers().get("x-content-type-options").unwrap(),
        "nosniff",
        "a browser must not guess another type for the logo"
    );
    assert_eq!(
        test::read_body(res).await.to_vec(),
        png,
        "served byte for byte"
    );
    let r = call!(&app, h.req(Method::GET, "/api/v1/account"));
    assert_eq!(r.body["has_logo"], true);

    let jpeg = image(ImageFormat::Jpeg, 30, 30);
    assert_eq!(call!(&app, put("image/jpeg", jpeg.clone())).status, 204);
    let res = test::call_service(&app, h.req(Method::GET, path).to_request()).await;
    assert_eq!(res.headers().get("content-type").unwrap(), "image/jpeg");

    let gif = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;".to_vec();
    let truncated = png[..png.len() / 2].to_vec();
    for (content_type, bytes) in [
        ("image/gif", gif.clone()),
        ("text/plain", png.clone()),
        ("image/png", gif),
        ("image/png", truncated),
        ("image/png", vec![0x89; 600 * 1024]),
        ("image/png", image(ImageFormat::Png, 2001, 1)),
        ("image/png", png_claiming(0, 0)),
        ("image/png", png_claiming(100_000, 100_000)),
        ("application/octet-stream", png.clone()),
    ] {
        let r = call!(&app, put(content_type, bytes));
        assert_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["param"], "logo");
    }
    let res = test::call_service(&app, h.req(Method::GET, path).to_request()).await;
    assert_eq!(
        test::read_body(res).await.to_vec(),
        jpeg,
        "a refused upload changes nothing"
    );

    assert_eq!(call!(&app, h.req(Method::DELETE, path)).status, 204);
    assert_error(
        &call!(&app, h.req(Method::GET, path)),
        404,
        "resource_missing",
    );
    assert_eq!(call!(&app, h.req(Method::DELETE, path)).status, 204);
    // Another environment has no logo of its own.
    let live = h.live_key();
    assert_eq!(call!(&app, put("image/png", png)).status, 204);
    let r = call!(&app, h.req_as(&live, Method::GET, path));
    assert_error(&r, 404, "resource_missing");
}

async fn customers_carry_their_locale_and_tax_id(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/customers"),
        json!({"name": "Jan", "email": "jan@example.nl", "locale": "nl", "tax_id": "NL001"})
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(
        (r.body["locale"].as_str(), r.body["tax_id"].as_str()),
        (Some("nl"), Some("NL001"))
    );
    let path = format!("/api/v1/customers/{}", r.body["id"]);
    let r = call!(&app, h.req(Method::PATCH, &path), json!({"locale": null}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.body["locale"].is_null(),
        "null goes back to the account's locale"
    );
    let r = call!(&app, h.req(Method::PATCH, &path), json!({"locale": "xx"}));
    assert_error(&r, 422, "validation_failed");
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/customers"),
        json!({"name": "Ana", "email": "ana@example.pt", "locale": "PT"})
    );
    assert_error(&r, 422, "validation_failed");
}

async fn page_html<S, B>(app: &S, h: &Harness, link: &str) -> String
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let path = link.strip_prefix(PUBLIC_URL).unwrap();
    let r = send_raw(app, h.anonymous(Method::GET, path)).await;
    assert_eq!(r.status, 200);
    let csp = r.header("content-security-policy");
    assert!(csp.contains("img-src 'self' data:"), "{csp}");
    r.text()
}

async fn sent_documents_keep_the_profile_and_customer_they_were_sent_with(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let before = json!({"legal_name": "Old Name GmbH", "payment_instructions": "IBAN OLD 0001",
        "tax_id": "DE111", "invoice_footer": "Registered in Berlin",
        "address": {"line1": "Alte Straße 1", "city": "Berlin", "postal_code": "10115", "country": "DE"}});
    assert_eq!(
        call!(&app, h.req(Method::PATCH, "/api/v1/account"), before).status,
        200
    );
    let png = image(ImageFormat::Png, 8, 8);
    let logo = h
        .req(Method::PUT, "/api/v1/account/logo")
        .insert_header(("content-type", "image/png"))
        .set_payload(png);
    assert_eq!(call!(&app, logo).status, 204);
    let invoice = |email: &str| {
        json!({"customer": {"name": "Ada", "email": email, "tax_id": "GB-ADA", "company": "Engines Ltd"},
            "line_items": [{"description": "Design", "quantity": 1, "unit_price_cents": 10000}]})
    };
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        invoice("ada@example.com")
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let (id, customer) = (r.body["id"].clone(), r.body["customer_id"].clone());
    let sent = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/send"))
    );
    assert_eq!(sent.status, 200, "{}", sent.body);
    let link = sent.body["payment_link"].as_str().unwrap().to_string();

    let after = json!({"legal_name": "New Name AG", "payment_instructions": "IBAN NEW 0002",
        "tax_id": "DE222", "invoice_footer": null});
    assert_eq!(
        call!(&app, h.req(Method::PATCH, "/api/v1/account"), after).status,
        200
    );
    assert_eq!(
        call!(&app, h.req(Method::DELETE, "/api/v1/account/logo")).status,
        204
    );
    let renamed = call!(
        &app,
        h.req(Method::PATCH, &format!("/api/v1/customers/{customer}")),
        json!({"name": "Ada Renamed", "tax_id": null})
    );
    assert_eq!(renamed.status, 200, "{}", renamed.body);

    let html = page_html(&app, &h, &link).await;
    for kept in [
        "Old Name GmbH",
        "IBAN OLD 0001",
        "DE111",
        "Alte Straße 1",
        "Registered in Berlin",
        "GB-ADA",
        "Engines Ltd",
        "data:image/png;base64,",
    ] {
        assert!(html.contains(kept), "the sent invoice still shows {kept:?}");
    }
    for changed in ["New Name AG", "IBAN NEW 0002", "DE222", "Ada Renamed"] {
        assert!(
            !html.contains(changed),
            "the sent invoice must not show {changed:?}"
        );
    }

    // A document sent after the change shows the new profile.
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        invoice("grace@example.com")
    );
    let sent = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/invoices/{}/send", r.body["id"])
        )
    );
    let html = page_html(&app, &h, sent.body["payment_link"].as_str().unwrap()).await;
    assert!(html.contains("New Name AG") && html.contains("IBAN NEW 0002"));
    assert!(!html.contains("Old Name GmbH") && !html.contains("data:image/png"));
}

async fn the_customers_locale_sets_the_pages_language(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let body = json!({"customer": {"name": "Jana", "email": "jana@example.de", "locale": "de"},
        "currency": "EUR", "issue_date": "2026-12-01", "due_date": "2026-12-31",
        "line_items": [{"description": "Beratung", "quantity": "1.5", "unit_price_cents": 82300, "tax_rate": 0}]});
    let r = call!(&app, h.req(Method::POST, "/api/v1/invoices"), body);
    assert_eq!(r.status, 201, "{}", r.body);
    let sent = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/invoices/{}/send", r.body["id"])
        )
    );
    let html = page_html(&app, &h, sent.body["payment_link"].as_str().unwrap()).await;
    for german in [
        "lang=\"de\"",
        "Rechnung INV-",
        "Fälligkeitsdatum",
        "31.12.2026",
        "1.234,50\u{a0}€",
        "Menge",
        "Zahlung melden",
    ] {
        assert!(html.contains(german), "the German page lacks {german:?}");
    }
    assert!(!html.contains("Due date") && !html.contains("€1,234.50"));

    // The report form's reasons are German too.
    let link = sent.body["payment_link"].as_str().unwrap();
    let token = link.split_once("token=").unwrap().1;
    let number = sent.body["invoice_number"].as_str().unwrap();
    let report = h
        .anonymous(Method::POST, &format!("/invoice/{number}/payments"))
        .insert_header(("content-type", "application/x-www-form-urlencoded"))
        .set_payload(format!("token={token}&amount=9999&reference="));
    let r = send_raw(&app, report).await;
    assert_eq!(r.status, 422);
    let html = r.text();
    for german in [
        "Der Betrag darf den offenen Betrag (1.234,50\u{a0}€) nicht übersteigen.",
        "Bitte geben Sie den Verwendungszweck der Überweisung ein.",
    ] {
        assert!(html.contains(german), "the German form lacks {german:?}");
    }

    // The account's locale when the customer has none.
    let r = call!(
        &app,
        h.req(Method::PATCH, "/api/v1/account"),
        json!({"locale": "fr"})
    );
    assert_eq!(r.status, 200);
    let body = json!({"customer": {"name": "Luc", "email": "luc@example.fr"}, "currency": "EUR",
        "line_items": [{"description": "Conseil", "quantity": 1, "unit_price_cents": 123450}]});
    let r = call!(&app, h.req(Method::POST, "/api/v1/invoices"), body);
    let sent = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/invoices/{}/send", r.body["id"])
        )
    );
    let html = page_html(&app, &h, sent.body["payment_link"].as_str().unwrap()).await;
    assert!(
        html.contains("Facture INV-") && html.contains("1\u{202f}234,50\u{a0}€"),
        "French page"
    );
}

http_tests!(
    going_live_copies_the_test_profile_and_needs_a_seller,
    the_customers_locale_sets_the_pages_language,
    sent_documents_keep_the_profile_and_customer_they_were_sent_with,
    the_profile_starts_from_the_account_and_takes_every_field,
    bad_profile_values_are_refused_and_change_nothing,
    scopes_and_environments_keep_profiles_apart,
    logo_is_decoded_bounded_and_served_back,
    customers_carry_their_locale_and_tax_id,
);

/// SPEC §27: a live document is not sent while the live profile lacks a seller (422 naming the
/// `account.*` fields, nothing changed); a test key copies the test profile and logo into live
/// (a live key may not), and then the live invoice goes out with them. Test documents are never
/// held back, and another account's live profile is untouched.
async fn going_live_copies_the_test_profile_and_needs_a_seller(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let live = h.live_key();
    let invoice = json!({"customer": {"name": "Ana", "email": "ana@example.com"},
        "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 1000}]});
    let made = call!(
        &app,
        h.req_as(&live, Method::POST, "/api/v1/invoices"),
        invoice.clone()
    );
    assert_eq!(made.status, 201, "{}", made.body);
    let send_path = format!("/api/v1/invoices/{}/send", made.body["id"]);
    let r = call!(&app, h.req_as(&live, Method::POST, &send_path));
    assert_error(&r, 422, "validation_failed");
    let params: Vec<&str> = r.body["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["param"].as_str().unwrap())
        .collect();
    assert_eq!(params, ["account.address"], "{}", r.body);
    let still = call!(
        &app,
        h.req_as(
            &live,
            Method::GET,
            &format!("/api/v1/invoices/{}", made.body["id"])
        )
    );
    assert_eq!(still.body["status"], "draft", "nothing changed");
    // Test documents are never held back by an empty profile.
    let test = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        invoice.clone()
    );
    let r = call!(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/invoices/{}/send", test.body["id"])
        )
    );
    assert_eq!(r.status, 200, "{}", r.body);

    // Set up in test, with a logo, then copy.
    let other = h.stranger_key("Other");
    let r = call!(
        &app,
        h.req(Method::PATCH, "/api/v1/account"),
        profile_body()
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let logo = image(ImageFormat::Png, 40, 20);
    let r = send(
        &app,
        h.req(Method::PUT, "/api/v1/account/logo")
            .insert_header(("content-type", "image/png"))
            .set_payload(logo.clone()),
    )
    .await;
    assert_eq!(r.status, 204, "{}", r.body);
    let r = call!(
        &app,
        h.req_as(&live, Method::POST, "/api/v1/account/copy_to_live")
    );
    assert_error(&r, 403, "insufficient_permissions");
    let reader = h.make_key(h.account, Environment::Test, "account:read", GENEROUS, None);
    let r = call!(
        &app,
        h.req_as(&reader, Method::POST, "/api/v1/account/copy_to_live")
    );
    assert_error(&r, 403, "insufficient_permissions");
    let r = call!(&app, h.req(Method::POST, "/api/v1/account/copy_to_live"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["livemode"], true);
    let live_profile = call!(&app, h.req_as(&live, Method::GET, "/api/v1/account")).body;
    let test_profile = call!(&app, h.req(Method::GET, "/api/v1/account")).body;
    for field in [
        "name",
        "legal_name",
        "address",
        "tax_id",
        "payment_instructions",
        "locale",
        "brand_color",
        "has_logo",
    ] {
        assert_eq!(live_profile[field], test_profile[field], "{field}");
    }
    assert_eq!(live_profile["livemode"], true);
    let r = send_raw(&app, h.req_as(&live, Method::GET, "/api/v1/account/logo")).await;
    assert_eq!((r.status, r.bytes.clone()), (200, logo));
    // Another account's live profile is its own.
    let theirs = call!(&app, h.req_as(&other, Method::GET, "/api/v1/account")).body;
    assert!(theirs["legal_name"].is_null(), "{theirs}");

    // Now the live invoice goes out, issued by the copied seller.
    let r = call!(&app, h.req_as(&live, Method::POST, &send_path));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["status"], "sent");
}
