//! Median time to write a 10-line and a 500-line invoice as UBL and as CII (model built from the
//! stored amounts each time, as a request does), and to render its PDF with and without the
//! Factur-X attachment (SPEC §23: each under the PDF's own time, §17). Run a release build:
//! `cargo run --release -p invoicing-render --example einvoice_bench [-- RUNS]`.
// A benchmark program: its output is its report, and a failure ends the run.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

use std::time::Instant;

use chrono::{NaiveDate, TimeZone, Utc};
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::{Address, CustomerId};
use invoicing_domain::decimal::{Quantity, TaxRate};
use invoicing_domain::document::LineItemView;
use invoicing_domain::einvoice::{BankAccount, TaxCategory, TaxRounding, VatId};
use invoicing_domain::invoice::{Invoice, InvoiceId, PublicInvoice};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::locale::Locale;
use invoicing_domain::parties::{Issuer, Parties, Recipient};
use invoicing_domain::validation::Metadata;
use invoicing_einvoice::{invoice_model, write, Syntax};
use invoicing_render::{invoice_document, render_pdf};

fn address(country: &str) -> Option<Address> {
    Some(Address {
        line1: Some("Friedrichstraße 123".into()),
        city: Some("Berlin".into()),
        postal_code: Some("10117".into()),
        country: Some(country.into()),
        ..Address::default()
    })
}

/// A sent invoice of `n` lines at 19 %, complete for EN 16931.
fn invoice(n: usize) -> PublicInvoice {
    let rate = TaxRate::parse("19").unwrap();
    let lines: Vec<LineItemView> = (0..n)
        .map(|i| {
            let subtotal = 12_500 + i as i64;
            let tax = (subtotal * 19 + 50) / 100;
            LineItemView {
                id: i as i64 + 1,
                product_id: None,
                description: format!("Item {i:04}: consulting and implementation work, per hour"),
                quantity: Quantity::parse("1").unwrap(),
                unit_price_cents: subtotal,
                tax_rate: rate,
                subtotal_cents: subtotal,
                tax_cents: tax,
                total_cents: subtotal + tax,
                unit: "HUR".into(),
                tax_category: Some(TaxCategory::S),
                tax_exemption_reason: None,
            }
        })
        .collect();
    let subtotal: i64 = lines.iter().map(|l| l.subtotal_cents).sum();
    let tax: i64 = lines.iter().map(|l| l.tax_cents).sum();
    let at = Utc.with_ymd_and_hms(2026, 3, 5, 9, 0, 0).unwrap();
    let date = |d| NaiveDate::from_ymd_opt(2026, 3, d).unwrap();
    PublicInvoice {
        invoice: Invoice {
            id: InvoiceId(1),
            object: "invoice",
            invoice_number: "INV-2026-000042".into(),
            status: InvoiceStatus::Sent,
            customer_id: CustomerId(1),
            currency: Currency::parse("EUR").unwrap(),
            issue_date: date(5),
            due_date: date(31),
            payment_terms: None,
            line_items: lines,
            subtotal_cents: subtotal,
            tax_cents: tax,
            total_cents: subtotal + tax,
            amount_paid_cents: 0,
            amount_credited_cents: 0,
            amount_due_cents: subtotal + tax,
            overpaid_cents: 0,
            payment_link: "https://pay.example/invoice/INV-2026-000042?token=t".into(),
            notes: None,
            metadata: Metadata::default(),
            livemode: false,
            sent_at: Some(at),
            viewed_at: None,
            paid_at: None,
            cancelled_at: None,
            quotation_id: None,
            recurring_invoice_id: None,
            reminders: None,
            buyer_reference: Some("04011000-12345-03".into()),
            purchase_order: None,
            delivery_date: None,
            service_period: None,
            tax_rounding: TaxRounding::Line,
            created_at: at,
            updated_at: at,
        },
        parties: Parties {
            issuer: Issuer {
                name: "Muster".into(),
                legal_name: Some("Muster GmbH".into()),
                email: None,
                phone: None,
                website: None,
                address: address("DE"),
                tax_id: None,
                payment_instructions: None,
                invoice_footer: None,
                locale: Locale::De,
                brand_color: None,
                logo: None,
                vat_id: Some(VatId::parse("DE123456789").unwrap()),
                electronic_address: None,
                bank_account: Some(BankAccount {
                    iban: "DE89370400440532013000".into(),
                    bic: None,
                    name: None,
                }),
                contact: None,
                time_zone: Default::default(),
            },
            recipient: Recipient {
                name: "Erika Musterfrau".into(),
                email: "erika@example.com".into(),
                phone: None,
                company: Some("Kunde AG".into()),
                address: address("DE"),
                tax_id: None,
                locale: None,
                vat_id: None,
                electronic_address: None,
            },
        },
        logo: None,
        payments: Vec::new(),
        credit_notes: Vec::new(),
        checkout: None,
    }
}

fn median_ms(runs: usize, mut f: impl FnMut() -> usize) -> (f64, usize) {
    let mut bytes = 0;
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            bytes = f();
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], bytes)
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(50);
    // Fonts are parsed once per process; not what a request costs.
    render_pdf(&invoice_document(invoice(1))).expect("renders");
    for n in [10, 500] {
        let p = invoice(n);
        for (name, syntax) in [("UBL", Syntax::Ubl), ("CII", Syntax::Cii)] {
            let (ms, bytes) = median_ms(runs, || {
                let model = invoice_model(&p).expect("complete");
                write(&model, syntax).len()
            });
            println!("{n:>4} lines, {name}: median {ms:8.3} ms over {runs} runs ({bytes} bytes)");
        }
        let factur_x = invoice_document(p.clone());
        assert!(
            factur_x.factur_x.is_some(),
            "a complete invoice is Factur-X"
        );
        let mut plain = invoice_document(p.clone());
        plain.factur_x = None;
        let (ms, bytes) = median_ms(runs, || render_pdf(&plain).expect("renders").len());
        println!("{n:>4} lines, PDF: median {ms:8.3} ms ({bytes} bytes)");
        let (ms, bytes) = median_ms(runs, || {
            render_pdf(&invoice_document(p.clone()))
                .expect("renders")
                .len()
        });
        println!("{n:>4} lines, Factur-X PDF (CII written and embedded): median {ms:8.3} ms ({bytes} bytes)");
    }
}
