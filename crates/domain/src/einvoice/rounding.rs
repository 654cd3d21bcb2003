//! How a document rounds its tax (SPEC §23): per line (SPEC §7), or once per rate on the sum of
//! that rate's lines, as EN 16931 and most European accountants compute VAT.

use crate::decimal::TaxRate;
use crate::lines::round_div_half_away;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum TaxRounding {
    /// Each line's tax rounded on its own; the document's tax is their sum.
    #[default]
    Line,
    /// Each rate's tax rounded once on the sum of its lines' amounts.
    Document,
}

impl TaxRounding {
    pub fn as_str(self) -> &'static str {
        match self {
            TaxRounding::Line => "line",
            TaxRounding::Document => "document",
        }
    }

    pub fn parse(s: &str) -> Option<TaxRounding> {
        match s {
            "line" => Some(TaxRounding::Line),
            "document" => Some(TaxRounding::Document),
            _ => None,
        }
    }
}

/// Document rounding: every rate's tax is `round(Σ subtotals × rate / 100)`, then shared out
/// over that rate's lines (each gets its exact share rounded down, the cents left over go to
/// the largest remainders, earliest first), so the lines still add up to the document's figures
/// and everything that sums lines (totals, reports, credit notes) needs no second rule.
/// `lines` are (subtotal, rate) pairs; the answer is each line's tax, in order.
pub fn allocate_document_tax(lines: &[(i64, TaxRate)]) -> Vec<i64> {
    let scale = 100_000i128;
    let mut by_rate: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    for (i, (_, rate)) in lines.iter().enumerate() {
        by_rate.entry(rate.thousandths()).or_default().push(i);
    }
    let mut tax = vec![0i64; lines.len()];
    for (rate, members) in by_rate {
        let rate = i128::from(rate);
        let exact: Vec<i128> = members
            .iter()
            .map(|&i| i128::from(lines[i].0) * rate)
            .collect();
        let target = round_div_half_away(exact.iter().sum(), scale);
        // Floor division keeps the remainders in [0, scale), for negative lines too.
        let mut shares: Vec<i128> = exact.iter().map(|e| e.div_euclid(scale)).collect();
        let mut left = target - shares.iter().sum::<i128>();
        let mut order: Vec<usize> = (0..members.len()).collect();
        order.sort_by_key(|&k| (std::cmp::Reverse(exact[k].rem_euclid(scale)), k));
        // `left` is between 0 and the number of lines: each floor lost less than one unit.
        for &k in order.iter().cycle().take(members.len() * 2) {
            if left == 0 {
                break;
            }
            let step = left.signum();
            shares[k] += step;
            left -= step;
        }
        for (k, &i) in members.iter().enumerate() {
            tax[i] = i64::try_from(shares[k]).unwrap_or(0);
        }
    }
    tax
}
