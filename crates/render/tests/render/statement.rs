//! A customer's statement: the opening balance, every entry with its running balance over as
//! many pages as it takes (the table header on each), the closing balance, and the aging.

use crate::fixture::{buyer, date, money, page_count, save, seller, text};
use invoicing_domain::currency::Currency;
use invoicing_render::{
    render_pdf, AgingAmounts, Body, Document, DocumentKind, Locale, Mark, Statement,
    StatementEntry, StatementEntryKind,
};

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `n` invoices of 100.00 each followed by a payment of 60.00, from an opening of 250.00.
fn statement(n: usize, locale: Locale) -> Document {
    let mut entries = Vec::new();
    let mut balance = 25_000;
    for i in 0..n {
        for (kind, amount) in [
            (StatementEntryKind::Invoice, 10_000),
            (StatementEntryKind::Payment, -6_000),
        ] {
            balance += amount;
            entries.push(StatementEntry {
                date: date(2026, 1, 1) + chrono::Days::new(i as u64),
                kind,
                id: i as i64,
                number: format!("INV-2026-{:04}", i + 1),
                amount_cents: amount,
                balance_cents: balance,
            });
        }
    }
    Document {
        kind: DocumentKind::Statement,
        number: "ST-7-20260630".into(),
        issue_date: date(2026, 7, 1),
        due_date: None,
        supply: None,
        valid_until: None,
        currency: Currency::parse("EUR").unwrap(),
        seller: seller(),
        logo: None,
        brand_color: None,
        buyer: buyer(),
        body: Body::Statement(Statement {
            from: date(2026, 1, 1),
            to: date(2026, 6, 30),
            opening: money(25_000),
            entries,
            closing: money(balance),
            aging: AgingAmounts {
                current: 1_000,
                days_1_30: 2_000,
                days_31_60: 0,
                days_61_90: 0,
                over_90: balance - 3_000,
                total: balance,
            },
        }),
        payment_instructions: Some("IBAN DE89 3704 0044 0532 0130 00".into()),
        payment_link: None,
        notes: None,
        footer: None,
        mark: Mark::None,
        locale,
        factur_x: None,
    }
}

#[test]
fn a_statement_prints_its_balances_in_german() {
    let doc = statement(3, Locale::De);
    let pdf = render_pdf(&doc).unwrap();
    save(&pdf, "statement-de");
    let t = squash(&text(&pdf, None));
    for needle in [
        "Kontoauszug",
        "ST-7-20260630",
        "Zeitraum 01.01.2026 – 30.06.2026",
        "Anfangssaldo 250,00 €",
        "Rechnung INV-2026-0001 100,00 € 350,00 €",
        "Zahlung zur Rechnung INV-2026-0001 -60,00 € 290,00 €",
        "Endsaldo 370,00 €",
        "Noch nicht fällig",
        "Über 90 Tage",
        "340,00 €",
        "ZAHLUNGSHINWEISE",
    ] {
        assert!(t.contains(needle), "{needle:?} missing from:\n{t}");
    }
}

#[test]
fn a_long_statement_flows_over_pages_with_its_header_on_each() {
    let doc = statement(60, Locale::En);
    let pdf = render_pdf(&doc).unwrap();
    let pages = page_count(&pdf);
    assert!(pages >= 3, "120 entries on {pages} pages");
    for n in 1..=pages {
        let t = squash(&text(&pdf, Some((n, n))));
        assert!(t.contains(&format!("Page {n} of {pages}")), "page {n}: {t}");
        if t.contains("INV-2026-") {
            assert!(t.contains("Date Entry Amount Balance"), "page {n}: {t}");
        }
    }
    let all = squash(&text(&pdf, None));
    assert!(all.contains("Payment for invoice INV-2026-0060"), "{all}");
    assert!(all.contains("Closing balance €2,650.00"), "{all}");
    assert_eq!(render_pdf(&doc).unwrap(), pdf, "the same bytes every time");
}
