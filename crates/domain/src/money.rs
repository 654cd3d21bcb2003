//! Bounded integer amounts in a currency's minor unit. How an amount is written for people is the
//! locale's business (`locale::Locale::money`).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Largest magnitude of any amount: 10^15 keeps every figure a safe JavaScript integer (< 2^53).
pub const MAX_AMOUNT: i64 = 1_000_000_000_000_000;

/// Why an amount was refused; the message is shown to API clients verbatim.
#[derive(Debug, thiserror::Error, PartialEq, Eq, Clone, Copy)]
pub enum MoneyError {
    #[error("must be between -1000000000000000 and 1000000000000000")]
    OutOfRange,
}

/// An amount in minor units (cents, fils, yen), always within ±[`MAX_AMOUNT`] so arithmetic on
/// it can be checked once instead of trusted everywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Money(i64);

impl Money {
    pub const ZERO: Money = Money(0);

    pub fn new(minor: i64) -> Result<Money, MoneyError> {
        if (-MAX_AMOUNT..=MAX_AMOUNT).contains(&minor) {
            Ok(Money(minor))
        } else {
            Err(MoneyError::OutOfRange)
        }
    }

    /// Widened constructor so callers doing i128 math never truncate before the bound check.
    pub(crate) fn from_i128(minor: i128) -> Result<Money, MoneyError> {
        i64::try_from(minor)
            .map_err(|_| MoneyError::OutOfRange)
            .and_then(Money::new)
    }

    pub fn minor(self) -> i64 {
        self.0
    }

    // Both operands are within ±10^15, so the raw i64 add/sub cannot overflow; only the bound
    // can be exceeded.
    pub fn checked_add(self, o: Money) -> Result<Money, MoneyError> {
        Money::new(self.0 + o.0)
    }

    pub fn checked_sub(self, o: Money) -> Result<Money, MoneyError> {
        Money::new(self.0 - o.0)
    }

    /// Infallible because the bound is symmetric. Also available as `-money` via `Neg`.
    #[allow(clippy::should_implement_trait)]
    pub fn neg(self) -> Money {
        Money(-self.0)
    }

    pub fn is_negative(self) -> bool {
        self.0 < 0
    }

    /// Sums in i128 so intermediate excursions beyond the bound (e.g. a big charge followed by
    /// a big discount) do not fail; only the final figure must be in range.
    pub fn sum<I: IntoIterator<Item = Money>>(it: I) -> Result<Money, MoneyError> {
        // Saturation can only happen far outside the bound, where the result is an error anyway.
        let total = it
            .into_iter()
            .fold(0i128, |acc, m| acc.saturating_add(i128::from(m.0)));
        Money::from_i128(total)
    }
}

impl std::ops::Neg for Money {
    type Output = Money;

    fn neg(self) -> Money {
        Money::neg(self)
    }
}

impl Serialize for Money {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i64(self.0)
    }
}

impl<'de> Deserialize<'de> for Money {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let minor = i64::deserialize(deserializer)?;
        Money::new(minor).map_err(serde::de::Error::custom)
    }
}

/// An amount as a plain decimal in its currency's exponent, for machines and spreadsheets
/// (no grouping, `.` as the separator, `-` in front): EUR 1250 → `12.50`, JPY 1000 → `1000`,
/// BHD 1250 → `1.250`, EUR -5 → `-0.05`.
pub fn decimal_text(minor: i64, currency: crate::currency::Currency) -> String {
    let exponent = u32::from(currency.exponent());
    let sign = if minor < 0 { "-" } else { "" };
    let magnitude = minor.unsigned_abs();
    if exponent == 0 {
        return format!("{sign}{magnitude}");
    }
    let unit = 10u64.pow(exponent);
    format!(
        "{sign}{}.{:0width$}",
        magnitude / unit,
        magnitude % unit,
        width = exponent as usize
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(v: i64) -> Money {
        Money::new(v).unwrap()
    }

    #[test]
    fn bound_is_inclusive_and_symmetric() {
        assert!(Money::new(MAX_AMOUNT).is_ok());
        assert!(Money::new(-MAX_AMOUNT).is_ok());
        assert_eq!(Money::new(MAX_AMOUNT + 1), Err(MoneyError::OutOfRange));
        assert_eq!(Money::new(-MAX_AMOUNT - 1), Err(MoneyError::OutOfRange));
        assert_eq!(Money::new(i64::MIN), Err(MoneyError::OutOfRange));
        assert_eq!(Money::default(), Money::ZERO);
    }

    #[test]
    fn checked_arithmetic() {
        assert_eq!(m(5).checked_add(m(7)), Ok(m(12)));
        assert_eq!(m(5).checked_sub(m(7)), Ok(m(-2)));
        assert_eq!(m(MAX_AMOUNT).checked_add(m(1)), Err(MoneyError::OutOfRange));
        assert_eq!(
            m(-MAX_AMOUNT).checked_sub(m(MAX_AMOUNT)),
            Err(MoneyError::OutOfRange)
        );
        assert_eq!(m(-MAX_AMOUNT).neg(), m(MAX_AMOUNT));
        assert_eq!(-m(7), m(-7));
        assert!(m(-1).is_negative());
        assert!(!Money::ZERO.is_negative());
    }

    #[test]
    fn sum_tolerates_intermediate_excursions() {
        assert_eq!(Money::sum([]), Ok(Money::ZERO));
        assert_eq!(
            Money::sum([m(MAX_AMOUNT), m(MAX_AMOUNT), m(-MAX_AMOUNT)]),
            Ok(m(MAX_AMOUNT))
        );
        assert_eq!(
            Money::sum([m(MAX_AMOUNT), m(1)]),
            Err(MoneyError::OutOfRange)
        );
    }

    #[test]
    fn serde_is_a_plain_integer() {
        assert_eq!(serde_json::to_string(&m(-42)).unwrap(), "-42");
        assert_eq!(serde_json::from_str::<Money>("595").unwrap(), m(595));
        let err = serde_json::from_str::<Money>("1000000000000001").unwrap_err();
        assert!(err
            .to_string()
            .contains("must be between -1000000000000000 and 1000000000000000"));
        assert!(serde_json::from_str::<Money>("1.5").is_err());
        assert!(serde_json::from_str::<Money>("\"5\"").is_err());
    }

    #[test]
    fn decimals_in_the_currency_exponent() {
        let c = |code| crate::currency::Currency::parse(code).unwrap();
        assert_eq!(decimal_text(1250, c("EUR")), "12.50");
        assert_eq!(decimal_text(-5, c("EUR")), "-0.05");
        assert_eq!(decimal_text(0, c("EUR")), "0.00");
        assert_eq!(decimal_text(1000, c("JPY")), "1000");
        assert_eq!(decimal_text(1250, c("BHD")), "1.250");
        assert_eq!(decimal_text(-i64::MAX, c("EUR")), "-92233720368547758.07");
    }
}
