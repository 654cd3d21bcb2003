use super::*;
use crate::lines::round_div_half_away;
use proptest::prelude::*;

fn rate(s: &str) -> TaxRate {
    TaxRate::parse(s).unwrap()
}

#[test]
fn vat_ids_keep_their_country_prefix() {
    assert_eq!(
        VatId::parse("de 123.456-789").unwrap().as_str(),
        "DE123456789"
    );
    assert_eq!(VatId::parse("EL123456789").unwrap().as_str(), "EL123456789");
    assert_eq!(VatId::parse("XI123456789").unwrap().as_str(), "XI123456789");
    for bad in [
        "123456789",
        "ZZ123456789",
        "DE1",
        "DE12345678901234",
        "DE12345<6>",
        // The first two bytes end inside a character (a 500 once, from the fuzzer).
        "\u{cffca}x",
        "é123456789",
        "Dé123456789",
        "",
        "D",
    ] {
        assert!(VatId::parse(bad).is_err(), "{bad}");
    }
}

proptest! {
    /// Any text is a VAT ID or an error, never a panic: documents try every `tax_id` as one.
    #[test]
    fn any_text_parses_or_is_refused(raw in any::<String>()) {
        if let Ok(id) = VatId::parse(&raw) {
            prop_assert!(id.as_str().is_ascii());
        }
    }
}

#[test]
fn categories_follow_the_rate() {
    let mut v = Violations::new();
    let s = LineTax::for_rate(&mut v, "l", rate("19"), None, None).unwrap();
    assert_eq!(s.category, Some(TaxCategory::S));
    let zero = LineTax::for_rate(&mut v, "l", TaxRate::ZERO, None, None).unwrap();
    assert_eq!(
        zero.category, None,
        "at 0 % only the merchant knows which it is"
    );
    assert!(v.is_empty());
    assert!(LineTax::for_rate(&mut v, "l", TaxRate::ZERO, Some(TaxCategory::S), None).is_none());
    assert!(LineTax::for_rate(&mut v, "l", rate("7"), Some(TaxCategory::E), None).is_none());
    assert_eq!(v.errors().len(), 2);
    assert_eq!(v.errors()[0].param, "l.tax_category");
}

#[test]
fn codes_come_from_the_official_lists() {
    assert!(is_unit_code("C62") && is_unit_code("HUR") && is_unit_code("KGM"));
    assert!(!is_unit_code("ABCD") && !is_unit_code(""));
    assert!(is_vatex_code("VATEX-EU-AE") && is_vatex_code("vatex-eu-ic"));
    assert!(!is_vatex_code("VATEX-EU-NOPE"));
    assert!(is_eas_scheme("0088") && is_eas_scheme("EM") && !is_eas_scheme("0000"));
    let mut v = Violations::new();
    assert_eq!(
        parse_exemption_reason(&mut v, "l", Some("vatex-eu-ae".into())),
        Ok(Some("VATEX-EU-AE".into()))
    );
    assert_eq!(
        parse_exemption_reason(&mut v, "l", Some("Exempt under §4 UStG".into())),
        Ok(Some("Exempt under §4 UStG".into()))
    );
    assert!(parse_exemption_reason(&mut v, "l", Some("VATEX-XX".into())).is_err());
    assert!(parse_unit(&mut v, "l", Some("NOPE".into())).is_err());
}

#[test]
fn bank_accounts_are_checked_ibans() {
    let mut v = Violations::new();
    let ok = BankAccountInput {
        iban: Some("de89 3704 0044 0532 0130 00".into()),
        bic: Some("cobadeffxxx".into()),
        name: None,
    }
    .parse(&mut v, "bank_account")
    .unwrap();
    assert_eq!(ok.iban, "DE89370400440532013000");
    assert_eq!(ok.bic.as_deref(), Some("COBADEFFXXX"));
    assert_eq!(ok.payment_means_code(), "58");
    assert!(v.is_empty());
    let bad = BankAccountInput {
        iban: Some("DE89370400440532013001".into()),
        bic: Some("NOPE".into()),
        name: None,
    }
    .parse(&mut v, "bank_account");
    assert!(bad.is_none());
    let params: Vec<_> = v.errors().iter().map(|e| e.param.as_str()).collect();
    assert_eq!(params, ["bank_account.iban", "bank_account.bic"]);
}

#[test]
fn document_rounding_rounds_each_rate_once() {
    // Three lines of 0.33 at 19 %: per line 0.06 each (0.18); once, 19 % of 0.99 = 0.19.
    let lines = [
        (33, rate("19")),
        (33, rate("19")),
        (33, rate("19")),
        (1000, rate("7")),
    ];
    let tax = allocate_document_tax(&lines);
    assert_eq!(tax[..3].iter().sum::<i64>(), 19);
    assert_eq!(tax[3], 70);
}

proptest! {
    #[test]
    fn document_rounding_adds_up_to_each_rates_tax(
        lines in prop::collection::vec((-100_000i64..1_000_000, prop::sample::select(vec![0i64, 7000, 19000, 21000, 5500])), 1..60)
    ) {
        let pairs: Vec<(i64, TaxRate)> = lines
            .iter()
            .map(|(s, r)| (*s, TaxRate::from_thousandths(*r).unwrap()))
            .collect();
        let tax = allocate_document_tax(&pairs);
        for r in [0i64, 7000, 19000, 21000, 5500] {
            let members: Vec<usize> = (0..pairs.len()).filter(|i| lines[*i].1 == r).collect();
            let taxable: i128 = members.iter().map(|i| i128::from(lines[*i].0)).sum();
            let expected = round_div_half_away(taxable * i128::from(r), 100_000);
            let got: i128 = members.iter().map(|i| i128::from(tax[*i])).sum();
            prop_assert_eq!(got, expected);
            for i in members {
                // Each line's share is within a unit of its exact tax.
                let exact = i128::from(lines[i].0) * i128::from(r);
                prop_assert!((i128::from(tax[i]) * 100_000 - exact).abs() < 2 * 100_000);
            }
        }
    }
}

/// What is missing reads in the user's language with the line it is about; the API's message
/// stays the English text it always was.
#[test]
fn reasons_read_in_each_language_and_the_api_keeps_english() {
    use crate::locale::Locale;
    let m = Missing {
        term: "BT-151",
        field: "line_items[2].tax_category".into(),
        message: Reason::LineCategory.text(Locale::En),
        reason: Reason::LineCategory,
        line: Some(2),
        kept: false,
    };
    assert_eq!(
        m.message,
        "a 0 % line needs its VAT category: Z, E, AE, K, G or O"
    );
    assert_eq!(
        m.text(Locale::De),
        "Position 3: Eine Position zu 0 % braucht ihre USt-Kategorie: Z, E, AE, K, G oder O"
    );
    assert_eq!(
        Reason::ExemptionReason(TaxCategory::E).text(Locale::Fr),
        "La catégorie E exige un motif d'exonération : un texte ou un code VATEX"
    );
    assert_eq!(
        Reason::Rounding(rate("7")).text(Locale::En),
        "the 7 % lines' taxes, rounded one by one, stray a whole unit from their sum's tax; \
         create the document with the account's tax_rounding set to document"
    );
    let currency = crate::currency::Currency::parse("BHD").unwrap();
    let every = [
        Reason::CurrencyDecimals(currency),
        Reason::SellerCountry,
        Reason::BuyerCountryCode,
        Reason::BuyerCountry,
        Reason::LineCategory,
        Reason::ExemptionReason(TaxCategory::AE),
        Reason::OneExemptionReason(TaxCategory::K),
        Reason::OutsideScopeMixed,
        Reason::SellerIdentifier,
        Reason::SellerVatId,
        Reason::BuyerVatId,
        Reason::Rounding(rate("19")),
    ];
    for locale in Locale::all() {
        for reason in every {
            let text = reason.text(locale);
            assert!(
                !text.contains('{') && !text.starts_with("einvoice."),
                "{text}"
            );
            if locale != Locale::En {
                assert_ne!(text, reason.text(Locale::En), "{locale:?}");
            }
        }
    }
}
