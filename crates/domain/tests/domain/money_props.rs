//! Property tests for the money contract: bounded amounts, exact decimals, and line/document
//! arithmetic checked against an independent reference implementation.

use invoicing_domain::{currency::*, decimal::*, lines::*, money::*};
use proptest::prelude::*;

const MAX: i128 = MAX_AMOUNT as i128;

fn in_range(v: i128) -> bool {
    (-MAX..=MAX).contains(&v)
}

/// Mostly in-range values, with the edges and small numbers over-represented.
fn amount() -> impl Strategy<Value = i64> {
    prop_oneof![
        -MAX_AMOUNT..=MAX_AMOUNT,
        -100_000i64..=100_000,
        Just(MAX_AMOUNT),
        Just(-MAX_AMOUNT),
        (MAX_AMOUNT - 1000)..=MAX_AMOUNT,
    ]
}

fn money() -> impl Strategy<Value = Money> {
    amount().prop_map(|v| Money::new(v).unwrap())
}

fn quantity() -> impl Strategy<Value = Quantity> {
    prop_oneof![
        1i64..=1_000_000_000,
        1i64..=10_000,
        Just(500),
        Just(1_000_000_000)
    ]
    .prop_map(|t| Quantity::from_thousandths(t).unwrap())
}

fn tax_rate() -> impl Strategy<Value = TaxRate> {
    prop_oneof![0i64..=100_000, Just(0), Just(100_000), Just(19_000)]
        .prop_map(|t| TaxRate::from_thousandths(t).unwrap())
}

/// Rounds `num / den` (den > 0) half away from zero using magnitudes only, independently of
/// the crate's helper.
fn reference_round(num: i128, den: u128) -> i128 {
    let magnitude = (num.unsigned_abs() + den / 2) / den;
    let magnitude = i128::try_from(magnitude).unwrap();
    if num < 0 {
        -magnitude
    } else {
        magnitude
    }
}

/// Reference line computation; `None` when any figure leaves the Money bound.
fn reference_line(q: Quantity, price: i64, rate: TaxRate) -> Option<(i64, i64, i64)> {
    let subtotal = reference_round(i128::from(q.thousandths()) * i128::from(price), 1000);
    if !in_range(subtotal) {
        return None;
    }
    let tax = reference_round(subtotal * i128::from(rate.thousandths()), 100_000);
    let total = subtotal + tax;
    if !in_range(tax) || !in_range(total) {
        return None;
    }
    Some((subtotal as i64, tax as i64, total as i64))
}

fn figures(l: &LineAmounts) -> (i64, i64, i64) {
    (l.subtotal.minor(), l.tax.minor(), l.total.minor())
}

proptest! {
    #[test]
    fn new_accepts_exactly_the_bound(v in any::<i64>()) {
        prop_assert_eq!(Money::new(v).is_ok(), in_range(i128::from(v)));
        if let Ok(m) = Money::new(v) {
            prop_assert_eq!(m.minor(), v);
        }
    }

    #[test]
    fn checked_arithmetic_matches_wide_math(a in money(), b in money()) {
        let sum = i128::from(a.minor()) + i128::from(b.minor());
        match a.checked_add(b) {
            Ok(m) => prop_assert_eq!(i128::from(m.minor()), sum),
            Err(e) => {
                prop_assert_eq!(e, MoneyError::OutOfRange);
                prop_assert!(!in_range(sum));
            }
        }
        prop_assert_eq!(a.checked_add(b).is_ok(), in_range(sum));

        let diff = i128::from(a.minor()) - i128::from(b.minor());
        match a.checked_sub(b) {
            Ok(m) => prop_assert_eq!(i128::from(m.minor()), diff),
            Err(_) => prop_assert!(!in_range(diff)),
        }
        prop_assert_eq!(a.checked_sub(b).is_ok(), in_range(diff));

        prop_assert_eq!(a.neg().minor(), -a.minor());
        prop_assert_eq!(a.neg().neg(), a);
        prop_assert_eq!(a.is_negative(), a.minor() < 0);
    }

    #[test]
    fn sum_matches_wide_math(items in prop::collection::vec(money(), 0..20)) {
        let wide: i128 = items.iter().map(|m| i128::from(m.minor())).sum();
        match Money::sum(items.iter().copied()) {
            Ok(m) => prop_assert_eq!(i128::from(m.minor()), wide),
            Err(_) => prop_assert!(!in_range(wide)),
        }
    }

    #[test]
    fn quantity_display_round_trips(t in 1i64..=1_000_000_000) {
        let q = Quantity::from_thousandths(t).unwrap();
        let text = q.to_string();
        prop_assert_eq!(Quantity::parse(&text), Ok(q));
        prop_assert_eq!(q.thousandths(), t);
        prop_assert!(!text.ends_with('.'));
        if text.contains('.') {
            prop_assert!(!text.ends_with('0'), "{}", text);
        }
        let json = serde_json::to_value(q).unwrap();
        prop_assert_eq!(Quantity::from_json(&json), Ok(q));
    }

    #[test]
    fn tax_rate_display_round_trips(t in 0i64..=100_000) {
        let r = TaxRate::from_thousandths(t).unwrap();
        let text = r.to_string();
        prop_assert_eq!(TaxRate::parse(&text), Ok(r));
        prop_assert!(!text.ends_with('.'));
        if text.contains('.') {
            prop_assert!(!text.ends_with('0'), "{}", text);
        }
    }

    #[test]
    fn decimal_json_numbers_match_their_text(t in 1i64..=1_000_000_000) {
        // A client sending the number 12.345 must get the same value as sending "12.345".
        let text = Quantity::from_thousandths(t).unwrap().to_string();
        let number: serde_json::Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(Quantity::from_json(&number), Quantity::parse(&text));
    }

    #[test]
    fn decimal_parsing_never_panics(s in "\\PC{0,40}") {
        let _ = Quantity::parse(&s);
        let _ = TaxRate::parse(&s);
    }

    #[test]
    fn line_amounts_match_reference(
        price in prop_oneof![any::<i64>(), amount()],
        q in quantity(),
        rate in tax_rate(),
    ) {
        // Prices outside the bound cannot even become Money, so they never reach the math.
        let Ok(unit_price) = Money::new(price) else {
            prop_assert!(!in_range(i128::from(price)));
            return Ok(());
        };
        let got = line_amounts(q, unit_price, rate);
        prop_assert_eq!(got.as_ref().ok().map(figures), reference_line(q, price, rate));
        if let Ok(l) = got {
            prop_assert_eq!(l.subtotal.checked_add(l.tax), Ok(l.total));
        } else {
            prop_assert_eq!(got, Err(MoneyError::OutOfRange));
        }
    }

    #[test]
    fn line_amounts_are_symmetric(price in amount(), q in quantity(), rate in tax_rate()) {
        let p = Money::new(price).unwrap();
        let pos = line_amounts(q, p, rate).map(|l| figures(&l));
        let neg = line_amounts(q, p.neg(), rate).map(|l| figures(&l));
        prop_assert_eq!(neg, pos.map(|(s, t, tot)| (-s, -t, -tot)));
    }

    #[test]
    fn rounding_is_half_away_from_zero(n in any::<i64>(), d in 1i64..=1_000_000) {
        let (n, d) = (i128::from(n), i128::from(d));
        let got = round_div_half_away(n, d);
        prop_assert_eq!(got, reference_round(n, d.unsigned_abs()));
        prop_assert_eq!(round_div_half_away(-n, d), -got);
        // Never further than half a unit from the exact quotient.
        prop_assert!((2 * (got * d - n)).abs() <= d);
    }

    #[test]
    fn document_totals_equal_sum_of_lines(
        specs in prop::collection::vec((quantity(), amount(), tax_rate()), 0..12),
    ) {
        let lines: Vec<LineAmounts> = specs
            .iter()
            .filter_map(|&(q, p, r)| line_amounts(q, Money::new(p).unwrap(), r).ok())
            .collect();
        let wide = |f: fn(&LineAmounts) -> Money| -> i128 {
            lines.iter().map(|l| i128::from(f(l).minor())).sum()
        };
        let (sub, tax, total) = (wide(|l| l.subtotal), wide(|l| l.tax), wide(|l| l.total));
        prop_assert_eq!(total, sub + tax);
        let expected = if !in_range(sub) || !in_range(tax) || !in_range(total) {
            Err(TotalsError::Money(MoneyError::OutOfRange))
        } else if total < 0 {
            Err(TotalsError::NegativeTotal)
        } else {
            Ok((sub as i64, tax as i64, total as i64))
        };
        let got = document_totals(&lines)
            .map(|t| (t.subtotal.minor(), t.tax.minor(), t.total.minor()));
        prop_assert_eq!(got, expected);
    }

    #[test]
    fn small_documents_total_exactly(
        specs in prop::collection::vec((quantity(), 0i64..=1_000_000, tax_rate()), 1..12),
    ) {
        // Realistic invoices (non-negative prices) always produce totals.
        let lines: Vec<LineAmounts> = specs
            .iter()
            .map(|&(q, p, r)| line_amounts(q, Money::new(p).unwrap(), r).unwrap())
            .collect();
        let totals = document_totals(lines.iter()).unwrap();
        prop_assert_eq!(totals.subtotal.checked_add(totals.tax), Ok(totals.total));
        prop_assert_eq!(Money::sum(lines.iter().map(|l| l.total)), Ok(totals.total));
    }

    #[test]
    fn currency_parse_is_case_insensitive(code in "[a-zA-Z]{3}") {
        let upper = code.to_ascii_uppercase();
        let known = Currency::all().any(|c| c.code() == upper);
        match Currency::parse(&code) {
            Ok(c) => {
                prop_assert!(known);
                prop_assert_eq!(c.code(), upper.as_str());
            }
            Err(e) => {
                prop_assert!(!known);
                prop_assert_eq!(e, CurrencyError::Invalid);
            }
        }
    }
}

#[test]
fn every_table_code_round_trips_in_lower_case() {
    let mut count = 0;
    for c in Currency::all() {
        count += 1;
        assert_eq!(Currency::parse(&c.code().to_lowercase()), Ok(c));
        assert_eq!(Currency::parse(c.code()), Ok(c));
        assert_eq!(c.to_string(), c.code());
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(serde_json::from_str::<Currency>(&json).unwrap(), c);
        assert!(c.exponent() <= 4);
    }
    assert!(count >= 150, "{count}");
}
