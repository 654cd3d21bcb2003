//! Which document counts when (SPEC §22), for every report, statement and export alike: an
//! invoice that left its draft counts on its issue date with its lines; a credit note counts on
//! the day it was issued, negative, with its lines; cancelling an invoice that had left its draft
//! (a void) takes back on that day, rate by rate, what its credit notes had not taken back. So an
//! invoice cancelled by its credit notes counts once and is taken back once, and the bookings of
//! every period add up to the documents' totals. Storage keeps the bookings' sums by day and
//! rate; this module alone decides what they are.

use crate::decimal::TaxRate;
use crate::document_lines::{LineItem, LineItemView};
use crate::einvoice::TaxCategory;
use crate::invoice_status::InvoiceStatus;
use chrono::NaiveDate;
use std::collections::BTreeMap;

/// One line's stored amounts, as the books read them (never recomputed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookLine {
    pub rate: TaxRate,
    /// The VAT category; `None` for a 0 % line whose merchant never said which it is.
    pub category: Option<TaxCategory>,
    pub taxable: i64,
    pub tax: i64,
}

impl From<&LineItem> for BookLine {
    fn from(l: &LineItem) -> BookLine {
        BookLine {
            rate: l.tax_rate,
            category: l.tax.category,
            taxable: l.amounts.subtotal.minor(),
            tax: l.amounts.tax.minor(),
        }
    }
}

impl From<&LineItemView> for BookLine {
    fn from(l: &LineItemView) -> BookLine {
        BookLine {
            rate: l.tax_rate,
            category: l.tax_category,
            taxable: l.subtotal_cents,
            tax: l.tax_cents,
        }
    }
}

/// What one day's books gain (or lose, when negative) at one rate and category: a box of a
/// VAT return.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Booking {
    pub day: NaiveDate,
    pub rate: TaxRate,
    pub category: Option<TaxCategory>,
    pub taxable: i64,
    pub tax: i64,
}

impl Booking {
    /// What the customer is charged for it: the taxable amount and its tax.
    pub fn gross(&self) -> i64 {
        self.taxable + self.tax
    }
}

/// What a change of an invoice's status does to the books.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counting {
    /// It left its draft for good: its lines count on its issue date.
    Issue,
    /// It was cancelled after it left its draft: what its credit notes had not taken back is.
    Void,
    /// Nothing to book.
    Nothing,
}

/// The books' side of the transition table: leaving the draft for anything but a cancellation
/// issues the invoice; cancelling an issued one voids it; a draft cancelled never counted.
pub fn on_move(from: InvoiceStatus, to: InvoiceStatus) -> Counting {
    use InvoiceStatus::*;
    match (from, to) {
        (Draft, Sent | Paid) => Counting::Issue,
        (Sent | Viewed | Overdue, Cancelled) => Counting::Void,
        _ => Counting::Nothing,
    }
}

type Key = (TaxRate, Option<TaxCategory>);

/// The lines' sums by rate and category, each multiplied by `sign`.
fn by_rate<'a>(
    lines: impl IntoIterator<Item = &'a BookLine>,
    sign: i64,
) -> BTreeMap<Key, (i64, i64)> {
    let mut sums = BTreeMap::new();
    for l in lines {
        let s: &mut (i64, i64) = sums.entry((l.rate, l.category)).or_default();
        s.0 += sign * l.taxable;
        s.1 += sign * l.tax;
    }
    sums
}

fn bookings(day: NaiveDate, sums: BTreeMap<Key, (i64, i64)>) -> Vec<Booking> {
    sums.into_iter()
        .filter(|(_, amounts)| *amounts != (0, 0))
        .map(|((rate, category), (taxable, tax))| Booking {
            day,
            rate,
            category,
            taxable,
            tax,
        })
        .collect()
}

/// An invoice that left its draft: its lines, on its issue date.
pub fn issued(issue_date: NaiveDate, lines: &[BookLine]) -> Vec<Booking> {
    bookings(issue_date, by_rate(lines, 1))
}

/// A credit note: its lines, negative, on the day it was issued.
pub fn credited(day: NaiveDate, lines: &[BookLine]) -> Vec<Booking> {
    bookings(day, by_rate(lines, -1))
}

/// A void on `day`: the invoice's lines less what its credit notes (`credited`, their lines as
/// stored, positive) took back already, rate by rate, negative.
pub fn voided(day: NaiveDate, invoice: &[BookLine], credited: &[BookLine]) -> Vec<Booking> {
    let mut rest = by_rate(invoice, -1);
    for (key, (taxable, tax)) in by_rate(credited, 1) {
        let r = rest.entry(key).or_default();
        r.0 += taxable;
        r.1 += tax;
    }
    bookings(day, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 5, day).unwrap()
    }

    fn line(rate: &str, category: Option<TaxCategory>, taxable: i64, tax: i64) -> BookLine {
        BookLine {
            rate: TaxRate::parse(rate).unwrap(),
            category,
            taxable,
            tax,
        }
    }

    fn gross(b: &[Booking]) -> i64 {
        b.iter().map(Booking::gross).sum()
    }

    #[test]
    fn an_invoice_counts_on_its_issue_date_rate_by_rate() {
        let lines = [
            line("19", Some(TaxCategory::S), 1000, 190),
            line("19", Some(TaxCategory::S), 1000, 190),
            line("0", Some(TaxCategory::E), 500, 0),
            line("0", Some(TaxCategory::AE), 300, 0),
            line("0", None, 200, 0),
        ];
        let b = issued(d(3), &lines);
        assert_eq!(b.len(), 4, "one booking per rate and category: {b:?}");
        assert!(b.iter().all(|b| b.day == d(3)));
        assert_eq!(gross(&b), 2380 + 1000);
        let standard = b
            .iter()
            .find(|b| b.category == Some(TaxCategory::S))
            .unwrap();
        assert_eq!((standard.taxable, standard.tax), (2000, 380));
    }

    #[test]
    fn a_credited_then_voided_invoice_nets_to_zero() {
        let inv = [
            line("19", Some(TaxCategory::S), 2000, 380),
            line("7", Some(TaxCategory::S), 1000, 70),
        ];
        let note = [line("19", Some(TaxCategory::S), 1000, 190)];
        let mut all = issued(d(1), &inv);
        all.extend(credited(d(2), &note));
        let void = voided(d(3), &inv, &note);
        assert!(void.iter().all(|b| b.day == d(3)));
        assert_eq!(gross(&void), -(1190 + 1070));
        all.extend(void);
        let mut by: BTreeMap<Key, (i64, i64)> = BTreeMap::new();
        for b in &all {
            let s = by.entry((b.rate, b.category)).or_default();
            s.0 += b.taxable;
            s.1 += b.tax;
        }
        assert!(by.values().all(|s| *s == (0, 0)), "{by:?}");
        // Fully credited first: the void takes back nothing more.
        assert!(voided(d(4), &inv, &inv).is_empty());
    }

    #[test]
    fn only_leaving_the_draft_or_cancelling_an_issued_invoice_books() {
        use InvoiceStatus::*;
        for from in InvoiceStatus::ALL {
            for to in InvoiceStatus::ALL {
                let expected = match (from, to) {
                    (Draft, Sent | Paid) => Counting::Issue,
                    (Sent | Viewed | Overdue, Cancelled) => Counting::Void,
                    _ => Counting::Nothing,
                };
                assert_eq!(on_move(from, to), expected, "{from} -> {to}");
                if expected != Counting::Nothing {
                    assert!(from.transition(to).is_ok(), "{from} -> {to} is a move");
                }
            }
        }
    }

    mod props {
        use super::*;
        use crate::report::ReportInterval;
        use proptest::prelude::*;

        /// An invoice's story: its lines, its issue day, its credit notes (each a share in
        /// percent of what is left of every line, on a day) and whether it was voided after.
        #[derive(Clone, Debug)]
        struct Story {
            issue: u32,
            lines: Vec<BookLine>,
            credits: Vec<(u32, i64)>,
            void: Option<u32>,
        }

        fn a_line() -> impl Strategy<Value = BookLine> {
            let rates = prop_oneof![
                Just(("19", Some(TaxCategory::S))),
                Just(("7", Some(TaxCategory::S))),
                Just(("0", Some(TaxCategory::E))),
                Just(("0", Some(TaxCategory::AE))),
                Just(("0", None)),
            ];
            (rates, 0i64..1_000_000).prop_map(|((rate, category), taxable)| {
                let rate = TaxRate::parse(rate).unwrap();
                BookLine {
                    rate,
                    category,
                    taxable,
                    tax: taxable * rate.thousandths() / 100_000,
                }
            })
        }

        fn a_story() -> impl Strategy<Value = Story> {
            (
                0u32..400,
                prop::collection::vec(a_line(), 1..6),
                prop::collection::vec((0u32..60, prop_oneof![1i64..=100, Just(100)]), 0..4),
                prop::option::of(0u32..60),
            )
                .prop_map(|(issue, lines, credits, void)| Story {
                    issue,
                    lines,
                    credits,
                    void,
                })
        }

        fn day(n: u32) -> NaiveDate {
            NaiveDate::from_ymd_opt(2025, 1, 1).unwrap() + chrono::Days::new(u64::from(n))
        }

        /// The story's bookings, and what the documents come to net: nothing when voided,
        /// else the invoice less its credit notes (gross, tax).
        fn tell(s: &Story) -> (Vec<Booking>, (i64, i64)) {
            let mut books = issued(day(s.issue), &s.lines);
            let mut left: Vec<BookLine> = s.lines.clone();
            let mut all_credited: Vec<BookLine> = Vec::new();
            let mut at = s.issue;
            for (after, share) in &s.credits {
                at += after;
                let note: Vec<BookLine> = left
                    .iter()
                    .map(|l| BookLine {
                        taxable: l.taxable * share / 100,
                        tax: l.tax * share / 100,
                        ..*l
                    })
                    .collect();
                for (l, n) in left.iter_mut().zip(&note) {
                    l.taxable -= n.taxable;
                    l.tax -= n.tax;
                }
                books.extend(credited(day(at), &note));
                all_credited.extend(note);
            }
            let net = match s.void {
                Some(after) => {
                    books.extend(voided(day(at + after), &s.lines, &all_credited));
                    (0, 0)
                }
                None => left
                    .iter()
                    .fold((0, 0), |(g, t), l| (g + l.taxable + l.tax, t + l.tax)),
            };
            (books, net)
        }

        proptest! {
            #[test]
            fn every_period_adds_up_to_the_documents(stories in prop::collection::vec(a_story(), 1..20)) {
                let mut books = Vec::new();
                let (mut gross_net, mut tax_net) = (0, 0);
                for s in &stories {
                    let (b, (g, t)) = tell(s);
                    let (own_gross, own_tax) =
                        b.iter().fold((0, 0), |(g, t), b| (g + b.gross(), t + b.tax));
                    prop_assert_eq!((own_gross, own_tax), (g, t), "one document: {:?}", s);
                    let fully_credited = s.credits.iter().any(|(_, share)| *share == 100);
                    if s.void.is_some() || fully_credited {
                        prop_assert_eq!((own_gross, own_tax), (0, 0), "nets to zero: {:?}", s);
                    }
                    books.extend(b);
                    gross_net += g;
                    tax_net += t;
                }
                // Summed by calendar period, as the reports do, then over the periods.
                for interval in [ReportInterval::Month, ReportInterval::Quarter, ReportInterval::Year] {
                    let mut periods: BTreeMap<NaiveDate, (i64, i64)> = BTreeMap::new();
                    for b in &books {
                        let p = periods.entry(interval.start_of(b.day)).or_default();
                        p.0 += b.gross();
                        p.1 += b.tax;
                    }
                    let summed = periods.values().fold((0, 0), |(g, t), p| (g + p.0, t + p.1));
                    prop_assert_eq!(summed, (gross_net, tax_net));
                }
            }
        }
    }
}
