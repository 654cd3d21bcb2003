//! Line and document arithmetic: the one place where quantities, prices and tax rates meet.

use crate::decimal::{Quantity, TaxRate};
use crate::money::{Money, MoneyError};

/// Thousandths of a unit (quantity) and thousandths of a percent (tax rate) as divisors.
const QUANTITY_SCALE: i128 = 1000;
const RATE_SCALE: i128 = 100 * 1000;

/// The computed figures of one line, kept together so totals are always summed from the same
/// rounded values that were shown on the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineAmounts {
    pub subtotal: Money,
    pub tax: Money,
    pub total: Money,
}

/// Document figures; the sums of the lines' rounded figures, so they always add up on paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct DocumentTotals {
    pub subtotal: Money,
    pub tax: Money,
    pub total: Money,
}

/// Why document totals cannot be produced.
#[derive(Debug, thiserror::Error, PartialEq, Eq, Clone, Copy)]
pub enum TotalsError {
    #[error(transparent)]
    Money(#[from] MoneyError),
    #[error("the document total must not be negative")]
    NegativeTotal,
}

/// `n / d` rounded half away from zero (so discounts mirror charges exactly: -0.5 → -1).
///
/// `d` is meant to be positive; like integer division it panics when `d == 0`.
pub fn round_div_half_away(n: i128, d: i128) -> i128 {
    debug_assert!(d > 0, "divisor must be positive");
    let quotient = n / d;
    let remainder = (n % d).unsigned_abs();
    // `remainder >= d - remainder` is `2 * remainder >= d` without the chance to overflow.
    if remainder >= d.unsigned_abs() - remainder {
        quotient + n.signum() * d.signum()
    } else {
        quotient
    }
}

/// Computes one line exactly: subtotal = round(quantity × unit_price), then
/// tax = round(subtotal × rate / 100), each half away from zero; total = subtotal + tax.
/// Inputs are bounded (|price| ≤ 10^15, quantity ≤ 10^9 thousandths), so i128 never overflows.
pub fn line_amounts(
    quantity: Quantity,
    unit_price: Money,
    tax_rate: TaxRate,
) -> Result<LineAmounts, MoneyError> {
    let raw = i128::from(quantity.thousandths()) * i128::from(unit_price.minor());
    let subtotal = Money::from_i128(round_div_half_away(raw, QUANTITY_SCALE))?;
    let raw_tax = i128::from(subtotal.minor()) * i128::from(tax_rate.thousandths());
    let tax = Money::from_i128(round_div_half_away(raw_tax, RATE_SCALE))?;
    let total = subtotal.checked_add(tax)?;
    Ok(LineAmounts {
        subtotal,
        tax,
        total,
    })
}

/// The unit price of one item whose line, at `rate`, totals exactly `gross`: round(gross × 100 /
/// (100 + rate)) or a cent beside it. `None` where no net price does (the tax's rounding skips
/// that total, as at 19 % it skips 3: a net of 2 totals 2, a net of 3 totals 4).
pub fn net_of_gross(gross: Money, rate: TaxRate) -> Option<Money> {
    let first = round_div_half_away(
        i128::from(gross.minor()) * RATE_SCALE,
        RATE_SCALE + i128::from(rate.thousandths()),
    );
    let one = Quantity::from_thousandths(1000).ok()?;
    [first, first - 1, first + 1].into_iter().find_map(|net| {
        let net = Money::from_i128(net).ok()?;
        let line = line_amounts(one, net, rate).ok()?;
        (line.total == gross && line.tax.minor() >= 0 && net.minor() > 0).then_some(net)
    })
}

/// Sums the lines. Discount lines may make partial sums negative, but an invoice that pays the
/// customer is not a thing this product issues, hence `NegativeTotal`.
pub fn document_totals<'a, I: IntoIterator<Item = &'a LineAmounts>>(
    lines: I,
) -> Result<DocumentTotals, TotalsError> {
    let lines: Vec<&LineAmounts> = lines.into_iter().collect();
    let subtotal = Money::sum(lines.iter().map(|l| l.subtotal))?;
    let tax = Money::sum(lines.iter().map(|l| l.tax))?;
    let total = Money::sum(lines.iter().map(|l| l.total))?;
    if total.is_negative() {
        return Err(TotalsError::NegativeTotal);
    }
    Ok(DocumentTotals {
        subtotal,
        tax,
        total,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::money::MAX_AMOUNT;

    fn qty(s: &str) -> Quantity {
        Quantity::parse(s).unwrap()
    }

    fn rate(s: &str) -> TaxRate {
        TaxRate::parse(s).unwrap()
    }

    fn m(v: i64) -> Money {
        Money::new(v).unwrap()
    }

    fn line(q: &str, price: i64, r: &str) -> Result<(i64, i64, i64), MoneyError> {
        line_amounts(qty(q), m(price), rate(r))
            .map(|l| (l.subtotal.minor(), l.tax.minor(), l.total.minor()))
    }

    #[test]
    fn rounding_is_half_away_from_zero() {
        assert_eq!(round_div_half_away(5, 10), 1);
        assert_eq!(round_div_half_away(-5, 10), -1);
        assert_eq!(round_div_half_away(4, 10), 0);
        assert_eq!(round_div_half_away(-4, 10), 0);
        assert_eq!(round_div_half_away(15, 10), 2);
        assert_eq!(round_div_half_away(-15, 10), -2);
        assert_eq!(round_div_half_away(14, 10), 1);
        assert_eq!(round_div_half_away(0, 7), 0);
        assert_eq!(round_div_half_away(499_500, 1000), 500);
        assert_eq!(round_div_half_away(-499_500, 1000), -500);
        assert_eq!(round_div_half_away(i128::MAX, i128::MAX), 1);
        assert_eq!(round_div_half_away(i128::MIN, i128::MAX), -1);
        assert_eq!(round_div_half_away(i128::MAX, 2), i128::MAX / 2 + 1);
    }

    #[test]
    fn spec_example() {
        assert_eq!(line("1.5", 333, "19"), Ok((500, 95, 595)));
        assert_eq!(line("1.5", -333, "19"), Ok((-500, -95, -595)));
    }

    #[test]
    fn half_cent_discount_rounds_away_from_zero() {
        assert_eq!(line("0.5", -1, "0"), Ok((-1, 0, -1)));
        assert_eq!(line("0.5", 1, "0"), Ok((1, 0, 1)));
    }

    #[test]
    fn jpy_has_no_fractional_minor_units() {
        // ¥1,000 × 3 at 10 %: amounts are already whole yen.
        assert_eq!(line("3", 1000, "10"), Ok((3000, 300, 3300)));
        // ¥333 × 0.333 = 110.889 → 111; 8 % of 111 = 8.88 → 9.
        assert_eq!(line("0.333", 333, "8"), Ok((111, 9, 120)));
    }

    #[test]
    fn tax_rounding_and_extremes() {
        assert_eq!(line("1", 50, "1"), Ok((50, 1, 51))); // 0.5 → 1
        assert_eq!(line("1", 49, "1"), Ok((49, 0, 49))); // 0.49 → 0
        assert_eq!(line("1", 100, "0.001"), Ok((100, 0, 100)));
        assert_eq!(line("1", 12345, "100"), Ok((12345, 12345, 24690)));
        assert_eq!(line("1", MAX_AMOUNT, "0"), Ok((MAX_AMOUNT, 0, MAX_AMOUNT)));
        assert_eq!(line("1", MAX_AMOUNT, "1"), Err(MoneyError::OutOfRange));
        assert_eq!(
            line("1000000", MAX_AMOUNT, "0"),
            Err(MoneyError::OutOfRange)
        );
        assert_eq!(
            line("1000000", -MAX_AMOUNT, "100"),
            Err(MoneyError::OutOfRange)
        );
        assert_eq!(line("0.001", 1, "19"), Ok((0, 0, 0)));
    }

    #[test]
    fn document_totals_sum_lines() {
        let lines = [
            line_amounts(qty("1.5"), m(333), rate("19")).unwrap(),
            line_amounts(qty("1"), m(-100), rate("19")).unwrap(),
        ];
        assert_eq!(
            document_totals(&lines),
            Ok(DocumentTotals {
                subtotal: m(400),
                tax: m(76),
                total: m(476),
            })
        );
        assert_eq!(document_totals([]), Ok(DocumentTotals::default()));
    }

    #[test]
    fn document_totals_errors() {
        let discount = line_amounts(qty("1"), m(-1), rate("0")).unwrap();
        assert_eq!(
            document_totals([&discount]),
            Err(TotalsError::NegativeTotal)
        );
        let big = line_amounts(qty("1"), m(MAX_AMOUNT), rate("0")).unwrap();
        assert_eq!(
            document_totals([&big, &big]),
            Err(TotalsError::Money(MoneyError::OutOfRange))
        );
        assert_eq!(
            TotalsError::Money(MoneyError::OutOfRange).to_string(),
            MoneyError::OutOfRange.to_string()
        );
    }
}
