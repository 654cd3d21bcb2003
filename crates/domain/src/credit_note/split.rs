//! A gross credit amount split over the invoice's tax rates (SPEC §19).

use crate::decimal::TaxRate;
use crate::lines::round_div_half_away;

/// One tax rate's part of the invoice total (gross: subtotal plus tax of its lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateShare {
    pub rate: TaxRate,
    pub gross: i64,
}

/// One line of a credit note made from a gross amount.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitLine {
    /// Which of the shares it is (their index).
    pub share: usize,
    pub rate: TaxRate,
    pub subtotal: i64,
    pub tax: i64,
}

impl SplitLine {
    pub fn total(self) -> i64 {
        self.subtotal + self.tax
    }
}

/// Splits `amount` (gross, tax included) over the rates in proportion to each one's share of the
/// invoice total; the rounding remainder goes to the largest share. Each line's
/// `subtotal = round(share × 100 / (100 + rate))` and `tax = share − subtotal`, so the lines add
/// up to `amount` exactly. Rates with no part of the total get no line. Empty when the shares
/// hold nothing to split over.
pub fn split_gross(amount: i64, shares: &[RateShare]) -> Vec<SplitLine> {
    let shares: Vec<(usize, RateShare)> = shares
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, s)| s.gross > 0)
        .collect();
    let total: i128 = shares.iter().map(|(_, s)| i128::from(s.gross)).sum();
    if total <= 0 {
        return Vec::new();
    }
    let amount = i128::from(amount);
    let mut parts: Vec<i128> = shares
        .iter()
        .map(|(_, s)| amount * i128::from(s.gross) / total)
        .collect();
    let remainder = amount - parts.iter().sum::<i128>();
    if let Some(largest) = (0..shares.len()).max_by_key(|i| (shares[*i].1.gross, usize::MAX - i)) {
        parts[largest] += remainder;
    }
    shares
        .iter()
        .zip(parts)
        .filter(|(_, part)| *part != 0)
        .map(|((share, s), part)| {
            let scale = 100_000i128;
            let subtotal =
                round_div_half_away(part * scale, scale + i128::from(s.rate.thousandths()));
            // |part| ≤ |amount|, which fits in i64; so do its parts.
            let subtotal = i64::try_from(subtotal).unwrap_or(0);
            let part = i64::try_from(part).unwrap_or(0);
            SplitLine {
                share: *share,
                rate: s.rate,
                subtotal,
                tax: part - subtotal,
            }
        })
        .collect()
}
