use super::*;
use serde_json::json;

fn patch(body: serde_json::Value) -> Result<ProfilePatch, Violations> {
    serde_json::from_value::<ProfilePatchInput>(body)
        .expect("shape")
        .parse()
}

fn params(body: serde_json::Value) -> Vec<String> {
    patch(body)
        .unwrap_err()
        .errors()
        .iter()
        .map(|e| e.param.clone())
        .collect()
}

#[test]
fn a_full_patch_parses_into_typed_values() {
    let p = patch(json!({
        "name": "Acme", "legal_name": "Acme GmbH", "email": "billing@acme.example",
        "website": "https://acme.example", "tax_id": "DE123456789",
        "address": {"line1": "Hauptstraße 1", "city": "Berlin", "postal_code": "10115", "country": "DE"},
        "payment_instructions": "IBAN DE89 3704 0044 0532 0130 00", "invoice_footer": "Thank you",
        "locale": "de", "brand_color": "#1f6feb", "default_currency": "eur",
        "reminders": [7, -3, 0, 7], "send_receipts": true,
    }))
    .unwrap();
    assert_eq!(p.locale, Some(Locale::De));
    assert_eq!(p.brand_color, Some(Some(BrandColor([0x1f, 0x6f, 0xeb]))));
    assert_eq!(p.brand_color.unwrap().unwrap().to_string(), "#1F6FEB");
    assert_eq!(p.address.unwrap().unwrap().country.as_deref(), Some("DE"));
    assert_eq!(p.reminders.unwrap().days(), &[-3, 0, 7]);
    assert_eq!(p.default_currency.map(|c| c.code()), Some("EUR"));
}

#[test]
fn bad_values_name_their_field() {
    assert_eq!(
        params(json!({"address": {"country": "XX"}})),
        ["address.country"]
    );
    assert_eq!(
        params(json!({"address": {"country": "Germany"}})),
        ["address.country"]
    );
    assert_eq!(
        params(json!({"address": {"country": "de"}})),
        ["address.country"]
    );
    assert_eq!(params(json!({"brand_color": "blue"})), ["brand_color"]);
    assert_eq!(params(json!({"brand_color": "#12345"})), ["brand_color"]);
    assert_eq!(params(json!({"brand_color": "#GGGGGG"})), ["brand_color"]);
    assert_eq!(params(json!({"locale": "it"})), ["locale"]);
    assert_eq!(
        params(json!({"website": "ftp://acme.example"})),
        ["website"]
    );
    assert_eq!(params(json!({"reminders": [400]})), ["reminders[0]"]);
    assert_eq!(
        params(json!({"reminders": (0..11).collect::<Vec<_>>()})),
        ["reminders"]
    );
    let long = "x".repeat(PAYMENT_INSTRUCTIONS_MAX + 1);
    assert_eq!(
        params(json!({"payment_instructions": long})),
        ["payment_instructions"]
    );
    assert_eq!(
        params(json!({"invoice_footer": "x".repeat(FOOTER_MAX + 1)})),
        ["invoice_footer"]
    );
    assert_eq!(
        params(json!({"tax_id": "x".repeat(TAX_ID_MAX + 1)})),
        ["tax_id"]
    );
    for required in [
        "name",
        "locale",
        "default_currency",
        "reminders",
        "send_receipts",
    ] {
        assert_eq!(params(json!({required: null})), [required], "{required}");
    }
}

#[test]
fn null_clears_and_absence_keeps() {
    let p = patch(json!({"legal_name": null, "tax_id": null, "brand_color": null})).unwrap();
    assert_eq!(p.legal_name, Some(None));
    assert_eq!(p.brand_color, Some(None));
    assert_eq!(p.website, None);
}

#[test]
fn unknown_fields_are_refused_by_the_shape() {
    assert!(serde_json::from_value::<ProfilePatchInput>(json!({"iban": "x"})).is_err());
}
