//! Median time to render a 10-line and a 500-line invoice (SPEC §17 targets: ≤ 20 ms and
//! ≤ 300 ms on the project's 2-core machine). Run a release build of this crate alone:
//! `cargo run --release -p invoicing-render --example render_bench [-- RUNS]`.
// A benchmark program: its output is its report, and a failure ends the run.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

use std::time::Instant;

use chrono::NaiveDate;
use invoicing_domain::currency::Currency;
use invoicing_domain::decimal::{Quantity, TaxRate};
use invoicing_domain::money::Money;
use invoicing_render::{
    render_pdf, Body, Document, DocumentKind, Line, Locale, Mark, Party, TaxIdentifier, Totals,
};

/// A VAT ID as a party block prints it.
fn vat_id(id: &str) -> TaxIdentifier {
    TaxIdentifier {
        label: "field.vat_id",
        value: id.into(),
    }
}

fn party(name: &str) -> Party {
    Party {
        name: name.into(),
        legal_name: Some(format!("{name} GmbH")),
        address_lines: vec!["Friedrichstraße 123".into(), "10117 Berlin".into()],
        country: Some("Deutschland".into()),
        tax_ids: vec![vat_id("DE123456789")],
        email: Some("billing@example.com".into()),
        ..Party::default()
    }
}

fn invoice(n: usize) -> Document {
    invoice_with(n, |i| {
        format!(
            "Item {:04}: consulting and implementation work as agreed, billed per hour",
            i + 1
        )
    })
}

/// The longest text a customer may send, in a script without spaces: every description 1,000
/// Chinese characters, the notes 5,000.
fn chinese(n: usize) -> Document {
    let text = |len: usize| {
        "年間保守契約と追加開発作業の請求書"
            .chars()
            .cycle()
            .take(len)
            .collect::<String>()
    };
    let mut doc = invoice_with(n, |_| text(1000));
    doc.notes = Some(text(5000));
    doc
}

fn invoice_with(n: usize, description: impl Fn(i64) -> String) -> Document {
    let money = |m| Money::new(m).unwrap();
    let lines: Vec<Line> = (0..n as i64)
        .map(|i| Line {
            description: description(i),
            quantity: Quantity::from_thousandths(1000 + 250 * (i % 8)).unwrap(),
            unit_price: money(9_950 + i % 100),
            tax_rate: TaxRate::from_thousandths(19_000).unwrap(),
            amount: money((9_950 + i % 100) * (1000 + 250 * (i % 8)) / 1000),
            exemption: None,
        })
        .collect();
    let subtotal: i64 = lines.iter().map(|l| l.amount.minor()).sum();
    let tax = subtotal * 19 / 100;
    let date = |d| NaiveDate::from_ymd_opt(2025, 3, d).unwrap();
    Document {
        kind: DocumentKind::Invoice,
        number: "INV-2025-0042".into(),
        issue_date: date(5),
        due_date: Some(date(31)),
        supply: None,
        valid_until: None,
        currency: Currency::parse("EUR").unwrap(),
        seller: party("Nordlicht Studio"),
        logo: None,
        brand_color: Some([0x0f, 0x76, 0x6e]),
        buyer: party("Kunde"),
        body: Body::Lines {
            lines,
            totals: Totals {
                subtotal: money(subtotal),
                taxes: vec![(TaxRate::from_thousandths(19_000).unwrap(), money(tax))],
                total: money(subtotal + tax),
                credited: None,
                paid: None,
                due: Some(money(subtotal + tax)),
            },
        },
        payment_instructions: Some("IBAN DE89 3704 0044 0532 0130 00 · BIC COBADEFFXXX".into()),
        payment_link: Some("https://pay.example.com/i/INV-2025-0042".into()),
        notes: Some("Thank you for your business.".into()),
        footer: Some("Nordlicht Studio GmbH · HRB 123456".into()),
        mark: Mark::None,
        locale: Locale::De,
        factur_x: None,
    }
}

fn median_ms(doc: &Document, runs: usize) -> (f64, usize) {
    let mut bytes = 0;
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            bytes = render_pdf(doc).expect("renders").len();
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
    // The first render parses the fonts once per process; it is not what a request costs.
    let t = Instant::now();
    render_pdf(&invoice(1)).expect("renders");
    let cold = t.elapsed().as_secs_f64() * 1000.0;
    println!("first render in the process (fonts parsed): {cold:.2} ms");
    for n in [10, 500] {
        let (ms, bytes) = median_ms(&invoice(n), runs);
        println!("{n:>4} lines: median {ms:7.2} ms over {runs} runs ({bytes} bytes)");
    }
    let (ms, bytes) = median_ms(&chinese(100), runs.min(10));
    println!(" 100 lines of 1,000 Chinese characters, 5,000 in the notes: median {ms:7.2} ms ({bytes} bytes)");
}
