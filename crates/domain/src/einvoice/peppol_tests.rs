//! Peppol BIS Billing 3.0's identifier checks and the readiness rules its data decides.

use super::*;
use crate::currency::Currency;
use crate::parties::{Issuer, Recipient};
use serde_json::json;

#[test]
fn identifiers_pass_their_schemes_checks() {
    let valid = [
        ("0002", "732829320"),
        ("0007", "5560360793"),
        ("0009", "73282932000074"),
        ("0009", "35600000000048"),
        ("0009", "35600000049837"),
        ("0088", "4000001000005"),
        ("0088", "5790000435968"),
        ("0151", "51824753556"),
        ("0184", "DK12345678"),
        ("0192", "974760673"),
        ("0201", "UFY9MH"),
        ("0208", "0403170701"),
        ("0208", "0202239951"),
        ("0210", "RSSMRA85T10A562S"),
        ("0210", "12345678903"),
        ("0210", "MRTMTT25D09F205Z"),
        ("0211", "IT00743110157"),
        ("9925", "BE0417497106"),
    ];
    for (scheme, id) in valid {
        assert!(identifier_fault(scheme, id).is_none(), "{scheme} {id}");
    }
    let invalid = [
        ("0002", "732829321"),
        ("0007", "5560360794"),
        ("0009", "73282932000075"),
        ("0009", "35600000049838"),
        ("0088", "4000001000006"),
        ("0088", "400000100000"),
        ("0088", "40000010000O5"),
        ("0151", "51824753557"),
        ("0184", "12345678"),
        ("0192", "974760674"),
        ("0192", "000000000"),
        ("0201", "UFY9M"),
        ("0208", "0403170702"),
        ("0208", "403170701"),
        ("0208", "BE0403170701"),
        ("0210", "RSSMRA85T10A56XS"),
        ("0210", "RSSMRA85T10A562X"),
        ("0210", "12345678904"),
        ("0211", "IT00743110158"),
        ("9925", "0417497106"),
        ("9925", "BE0417497107"),
        // Multi-byte text never panics a check that slices.
        ("0088", "é"),
        ("0208", "０４０３１７０７０１"),
        ("0210", "ééééééééééééééé"),
    ];
    for (scheme, id) in invalid {
        assert!(identifier_fault(scheme, id).is_some(), "{scheme} {id}");
    }
    // Schemes without a check take any identifier.
    assert!(identifier_fault("0204", "991-01234-56").is_none());
    assert!(identifier_fault("EM", "x@example.com").is_none());
}

#[test]
fn typed_numbers_are_written_as_their_schemes_write_them() {
    assert_eq!(normalise_identifier("0208", " 0403.170.701 "), "0403170701");
    assert_eq!(
        normalise_identifier("9925", "be 0417.497.106"),
        "BE0417497106"
    );
    assert_eq!(normalise_identifier("0184", "dk 1234 5678"), "DK12345678");
    // An email or a Leitweg-ID keeps what was typed (its dashes, its case).
    assert_eq!(normalise_identifier("0204", "991-01234-56"), "991-01234-56");
    assert_eq!(
        normalise_identifier("EM", " A.B@x.example "),
        "A.B@x.example"
    );
}

#[test]
fn wrong_check_digits_are_refused_at_input_naming_the_field() {
    let parse = |scheme: &str, id: &str| {
        let mut v = Violations::new();
        let a = ElectronicAddressInput {
            scheme: Some(scheme.into()),
            id: Some(id.into()),
        }
        .parse(&mut v, "electronic_address");
        (a, v)
    };
    let (a, v) = parse("0208", "0403.170.701");
    assert!(v.is_empty());
    assert_eq!(a.unwrap().id, "0403170701");
    let (a, v) = parse("0208", "0403.170.702");
    assert!(a.is_none());
    assert_eq!(v.errors()[0].param, "electronic_address.id");
    assert_eq!(v.errors()[0].problem.code(), "identifier");
    assert!(v.errors()[0]
        .problem
        .to_string()
        .contains("Belgian enterprise number"));
    assert!(v.errors()[0]
        .problem
        .say(crate::locale::Locale::De)
        .contains("0208"));
}

#[test]
fn only_peppol_schemes_are_participants() {
    assert!(is_peppol_scheme("0208") && is_peppol_scheme("9925") && is_peppol_scheme("0088"));
    assert!(is_peppol_scheme("9930") && is_peppol_scheme("9914"));
    assert!(!is_peppol_scheme("EM") && !is_peppol_scheme("") && !is_peppol_scheme("0000"));
    // Every Peppol scheme a merchant can enter is one of the EAS list the input takes.
    for scheme in include_str!("codes/peppol_eas.txt").lines() {
        assert!(is_eas_scheme(scheme) || scheme == "9901", "{scheme}");
    }
}

fn address(scheme: &str, id: &str) -> serde_json::Value {
    json!({"scheme": scheme, "id": id})
}

fn seller(electronic_address: Option<serde_json::Value>) -> Issuer {
    serde_json::from_value(json!({
        "name": "Brussels Bakery", "locale": "fr", "vat_id": "BE0403170701",
        "address": {"city": "Bruxelles", "country": "BE"},
        "electronic_address": electronic_address,
    }))
    .unwrap()
}

fn buyer(electronic_address: Option<serde_json::Value>) -> Recipient {
    serde_json::from_value(json!({
        "name": "Client", "email": "client@example.be", "vat_id": "BE0202239951",
        "address": {"city": "Gent", "country": "BE"},
        "electronic_address": electronic_address,
    }))
    .unwrap()
}

fn terms(
    issuer: &Issuer,
    recipient: &Recipient,
    refs: (Option<&str>, Option<&str>),
) -> Vec<(String, String)> {
    check(Subject {
        currency: Currency::parse("EUR").unwrap(),
        issuer,
        recipient,
        lines: &[],
        buyer_reference: refs.0,
        purchase_order: refs.1,
    })
    .missing
    .into_iter()
    .map(|m| (m.term.to_string(), m.field))
    .collect()
}

#[test]
fn peppol_rules_apply_when_the_buyer_is_a_participant() {
    let belgian = seller(Some(address("0208", "0403170701")));
    let participant = buyer(Some(address("0208", "0202239951")));
    assert!(over_peppol(&participant));
    assert_eq!(terms(&belgian, &participant, (Some("PO 1"), None)), []);
    assert_eq!(terms(&belgian, &participant, (None, Some("4711"))), []);
    assert_eq!(
        terms(&belgian, &participant, (None, Some("  "))),
        [("PEPPOL-EN16931-R003".into(), "buyer_reference".into())]
    );
    assert_eq!(
        terms(&seller(None), &participant, (Some("x"), None)),
        [(
            "PEPPOL-EN16931-R020".into(),
            "account.electronic_address".into()
        )]
    );
    assert_eq!(
        terms(
            &seller(Some(address("EM", "a@b.example"))),
            &participant,
            (Some("x"), None)
        ),
        [(
            "PEPPOL-EN16931-CL008".into(),
            "account.electronic_address.scheme".into()
        )]
    );
    // Identifiers kept from before the input checked them.
    let stale = buyer(Some(address("0208", "0202239952")));
    assert_eq!(
        terms(
            &seller(Some(address("0088", "4000001000006"))),
            &stale,
            (Some("x"), None)
        ),
        [
            (
                "PEPPOL-COMMON-R040".into(),
                "account.electronic_address.id".into()
            ),
            (
                "PEPPOL-COMMON-R043".into(),
                "customer.electronic_address.id".into()
            ),
        ]
    );
    // A scheme refused at input since (0219: Factur-X's list lacks it) is named, for any buyer.
    assert_eq!(
        terms(&belgian, &buyer(Some(address("0219", "X1"))), (None, None)),
        [(
            "BR-CL-25".into(),
            "customer.electronic_address.scheme".into()
        )]
    );
    // A buyer who receives by email, or has no address, is not on Peppol: none of its rules.
    for other in [buyer(Some(address("EM", "x@example.be"))), buyer(None)] {
        assert!(!over_peppol(&other));
        assert_eq!(terms(&seller(None), &other, (None, None)), []);
    }
}

#[test]
fn peppol_reasons_read_in_every_language() {
    for locale in crate::locale::Locale::ALL {
        for reason in [
            Reason::PeppolReference,
            Reason::PeppolSellerAddress,
            Reason::PeppolScheme("EM"),
            Reason::IdentifierCheck("0208"),
            Reason::UnlistedScheme,
        ] {
            let text = reason.text(locale);
            assert!(!text.starts_with("einvoice."), "{locale:?} {text}");
            assert!(!text.contains('{'), "{locale:?} {text}");
        }
    }
}
