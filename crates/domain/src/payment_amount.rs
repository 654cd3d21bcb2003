//! The arithmetic of paying an invoice (SPEC §13): what is paid and still due, which amounts a
//! payment may have, and amounts as a customer types them on the payment page ("12.50").

use crate::currency::Currency;
use crate::money::{Money, MoneyError};

/// `total − paid − credited`, never negative: an invoice never owes the customer money, even if
/// stored figures disagreed (money paid beyond that is a credit note's refund due). Computed in
/// i128, so no inputs can overflow.
pub fn amount_due_cents(total_cents: i64, paid_cents: i64, credited_cents: i64) -> i64 {
    let due =
        (i128::from(total_cents) - i128::from(paid_cents) - i128::from(credited_cents)).max(0);
    i64::try_from(due).unwrap_or(i64::MAX)
}

/// Why a payment amount does not fit an invoice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PaymentAmountError {
    #[error("must be greater than 0")]
    NotPositive,
    /// More than the invoice still owes: nothing may over-pay an invoice.
    #[error("must not exceed the invoice's amount due ({})", due.minor())]
    ExceedsDue { due: Money },
    /// A customer's report of more than is neither paid nor reported already: the same
    /// transfer is not reported twice (`left` may be zero: everything is being checked).
    #[error("must not exceed what is neither paid nor reported yet ({})", left.minor())]
    ExceedsUnreported { left: Money },
}

/// The sum of stored amounts in minor units (each within the bounds of `Money`; one out of
/// them, or a sum past them, is left out rather than wrapped).
pub fn total(amounts: impl IntoIterator<Item = i64>) -> Money {
    amounts
        .into_iter()
        .filter_map(|a| Money::new(a).ok())
        .fold(Money::ZERO, |sum, m| sum.checked_add(m).unwrap_or(sum))
}

/// An invoice's total, the sum of its verified payments and what its credit notes took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvoiceBalance {
    total: Money,
    paid: Money,
    credited: Money,
}

impl InvoiceBalance {
    pub fn new(total_cents: i64, paid_cents: i64) -> Result<InvoiceBalance, MoneyError> {
        Ok(InvoiceBalance {
            total: Money::new(total_cents)?,
            paid: Money::new(paid_cents)?,
            credited: Money::ZERO,
        })
    }

    /// The same with `credited_cents` taken by credit notes (SPEC §19).
    pub fn with_credited(self, credited_cents: i64) -> Result<InvoiceBalance, MoneyError> {
        Ok(InvoiceBalance {
            credited: Money::new(credited_cents)?,
            ..self
        })
    }

    pub fn credited(self) -> Money {
        self.credited
    }

    /// What credit notes may still take: the total less what earlier ones took.
    pub fn creditable(self) -> Money {
        self.total
            .checked_sub(self.credited)
            .ok()
            .filter(|m| !m.is_negative())
            .unwrap_or(Money::ZERO)
    }

    pub fn total(self) -> Money {
        self.total
    }

    pub fn paid(self) -> Money {
        self.paid
    }

    pub fn due(self) -> Money {
        // Both figures are within ±10^15, so the clamped difference is a valid amount.
        Money::new(amount_due_cents(
            self.total.minor(),
            self.paid.minor(),
            self.credited.minor(),
        ))
        .unwrap_or(Money::ZERO)
    }

    /// Verified payments and credit notes cover the total: the invoice is paid.
    pub fn is_settled(self) -> bool {
        i128::from(self.paid.minor()) + i128::from(self.credited.minor())
            >= i128::from(self.total.minor())
    }

    /// Money a gateway already took, kept in full even beyond what is due (SPEC §25): the
    /// excess is the invoice's `overpaid_cents`.
    pub fn apply_in_full(self, amount: Money) -> Result<InvoiceBalance, PaymentAmountError> {
        if amount.minor() <= 0 {
            return Err(PaymentAmountError::NotPositive);
        }
        let paid = self
            .paid
            .checked_add(amount)
            .map_err(|_| PaymentAmountError::ExceedsDue { due: self.due() })?;
        Ok(InvoiceBalance { paid, ..self })
    }

    /// What was paid beyond what is owed after credit notes: what refunds may return.
    pub fn overpaid(self) -> Money {
        let over = i128::from(self.paid.minor()) + i128::from(self.credited.minor())
            - i128::from(self.total.minor());
        Money::new(i64::try_from(over.max(0)).unwrap_or(0)).unwrap_or(Money::ZERO)
    }

    /// What a customer may still report on the invoice's page: what is due less what they
    /// reported and is being checked (`reported`), never below zero (SPEC §13: the form is
    /// offered, and prefilled, for that much only).
    pub fn reportable(self, reported: Money) -> Money {
        self.due()
            .checked_sub(reported)
            .ok()
            .filter(|m| !m.is_negative())
            .unwrap_or(Money::ZERO)
    }

    /// Whether a customer may report paying `amount`: positive, and at most what is neither
    /// paid nor `reported` already (more than is due, when nothing is reported yet).
    pub fn check_report(self, amount: Money, reported: Money) -> Result<(), PaymentAmountError> {
        if amount <= Money::ZERO {
            return Err(PaymentAmountError::NotPositive);
        }
        let left = self.reportable(reported);
        if amount <= left {
            Ok(())
        } else if reported == Money::ZERO {
            Err(PaymentAmountError::ExceedsDue { due: left })
        } else {
            Err(PaymentAmountError::ExceedsUnreported { left })
        }
    }

    /// The balance after one more verified payment of `amount`, which must be positive and at
    /// most what is due.
    pub fn apply(self, amount: Money) -> Result<InvoiceBalance, PaymentAmountError> {
        if amount <= Money::ZERO {
            return Err(PaymentAmountError::NotPositive);
        }
        let due = self.due();
        if amount > due {
            return Err(PaymentAmountError::ExceedsDue { due });
        }
        // paid + amount ≤ total ≤ 10^15 here, so the bound cannot be exceeded.
        let paid = self
            .paid
            .checked_add(amount)
            .map_err(|_| PaymentAmountError::ExceedsDue { due })?;
        Ok(InvoiceBalance { paid, ..self })
    }
}

/// Why a typed amount was refused; shown to the customer verbatim.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AmountTextError {
    #[error("must be an amount such as 12.50")]
    Invalid,
    #[error("{0}")]
    TooPrecise(String),
    #[error("must be greater than 0")]
    NotPositive,
    #[error("is too large")]
    TooLarge,
    /// A mark that may be a decimal point or grouping (`1.453` on a French page); the example
    /// is the amount written as the page's locale writes it.
    #[error("is ambiguous: write it as {0}")]
    Ambiguous(String),
}

/// Whether `text` is digits grouped by `mark` as people group them: a first group of one to
/// three digits, then groups of exactly three.
fn grouped(text: &str, mark: char) -> bool {
    let mut parts = text.split(mark);
    let first_ok = parts
        .next()
        .is_some_and(|p| (1..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()));
    first_ok && parts.all(|p| p.len() == 3 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// The most fraction digits any currency has (CLF, UYW: 4).
const MAX_SCALE: u32 = 4;
/// The longest amount text (trimmed) that is read at all; public so the payment form's schema
/// states the same bound.
pub const MAX_TEXT: usize = 32;

/// An amount in major units as a person types it: `12.50`, `12,5`, `1000`. Exact (digits, not a
/// float) and not yet tied to a currency: [`MajorAmount::to_minor`] applies the exponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MajorAmount {
    /// The digits without the separator, e.g. 1250 for "12.50" with `scale` 2.
    digits: u128,
    /// Fraction digits as typed ("12.50" → 2).
    scale: u32,
}

impl MajorAmount {
    /// Digits with at most one decimal separator, `.` or `,` (both are common on keyboards). No
    /// sign: nobody pays a negative. Fraction digits are kept as typed, so "1,000" is refused
    /// for EUR or JPY (too many decimals) instead of silently becoming 1 euro or 1 yen.
    pub fn parse(text: &str) -> Result<MajorAmount, AmountTextError> {
        let s = text.trim();
        if s.is_empty() || s.len() > MAX_TEXT {
            return Err(AmountTextError::Invalid);
        }
        let (whole, fraction) = match s.find(['.', ',']) {
            Some(i) => (&s[..i], &s[i + 1..]),
            None => (s, ""),
        };
        let all_digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
        if !all_digits(whole) || !all_digits(fraction) || (whole.is_empty() && fraction.is_empty())
        {
            return Err(AmountTextError::Invalid);
        }
        let scale = u32::try_from(fraction.len()).map_err(|_| AmountTextError::Invalid)?;
        if scale > MAX_SCALE {
            return Err(AmountTextError::TooPrecise(
                "must have at most 4 decimals".into(),
            ));
        }
        // At most 32 digits: fits u128 with room to spare.
        let digits = format!("{whole}{fraction}")
            .parse::<u128>()
            .map_err(|_| AmountTextError::Invalid)?;
        Ok(MajorAmount { digits, scale })
    }

    /// An amount as a person types it on a page in `locale` (SPEC §27): the locale's decimal
    /// separator, its digit grouping (any space groups too), with or without the currency's sign
    /// or code: de `1.453,00`, `1.453,00 €`; fr `1 453,00`; en `1,453.00`. The other
    /// punctuation mark alone reads as a decimal point where it cannot be grouping (`12.50` typed
    /// on a German page), and as grouping where the locale groups with it (`1.453` in German is
    /// 1453). A mark that could be either in a locale that groups with spaces (`1.453` in French)
    /// is ambiguous: refused with an example in the locale's own writing.
    pub fn parse_in(
        text: &str,
        locale: crate::locale::Locale,
        currency: Currency,
    ) -> Result<MajorAmount, AmountTextError> {
        let ambiguous = || {
            let example = Money::new(145_300 * 10i64.pow(u32::from(currency.exponent())) / 100)
                .map(|m| locale.amount_field(m, currency))
                .unwrap_or_default();
            AmountTextError::Ambiguous(example)
        };
        let mut s = text.trim().to_string();
        if s.chars().count() > MAX_TEXT * 2 {
            return Err(AmountTextError::Invalid);
        }
        for sign in [
            locale.currency_sign(currency),
            currency.code(),
            "€",
            "$",
            "£",
        ] {
            if let Some(rest) = s.strip_prefix(sign) {
                s = rest.to_string();
            }
            if let Some(rest) = s.strip_suffix(sign) {
                s = rest.to_string();
            }
        }
        let decimal = locale.decimal_separator();
        let group = if locale.group_separator().is_whitespace() {
            ' '
        } else {
            locale.group_separator()
        };
        // Spaces of any kind are grouping; the rest must be digits or the two marks.
        let s: String = s
            .trim()
            .chars()
            .map(|c| if c.is_whitespace() { ' ' } else { c })
            .collect();
        if s.chars()
            .any(|c| !(c.is_ascii_digit() || c == '.' || c == ',' || c == ' '))
        {
            return Err(AmountTextError::Invalid);
        }
        let other = if decimal == '.' { ',' } else { '.' };
        let (whole, fraction) = match (s.matches(decimal).count(), s.matches(other).count()) {
            (0, 0) => (s.as_str(), ""),
            (1, _) => {
                let at = s.rfind(decimal).unwrap_or(0);
                (&s[..at], &s[at + 1..])
            }
            (0, n) => {
                let at = s.rfind(other).unwrap_or(0);
                let after = &s[at + 1..];
                let groups_by_other = other == group && grouped(&s, other);
                if groups_by_other {
                    (s.as_str(), "")
                } else if n == 1 && after.len() != 3 {
                    // Cannot be grouping: a decimal point from another habit.
                    (&s[..at], after)
                } else if n == 1 {
                    return Err(ambiguous());
                } else {
                    return Err(AmountTextError::Invalid);
                }
            }
            _ => return Err(AmountTextError::Invalid),
        };
        // What stands before the decimal point may be grouped, by the locale's mark or spaces.
        let marks = |c: char| c == group || c == ' ' || (c == other && other == group);
        let whole_digits: String = if whole.chars().any(marks) {
            if !grouped(whole, if whole.contains(' ') { ' ' } else { group }) {
                return Err(AmountTextError::Invalid);
            }
            whole.chars().filter(char::is_ascii_digit).collect()
        } else {
            whole.to_string()
        };
        if fraction.chars().any(|c| !c.is_ascii_digit()) || whole_digits.contains(other) {
            return Err(AmountTextError::Invalid);
        }
        if fraction.is_empty() {
            MajorAmount::parse(&whole_digits)
        } else {
            MajorAmount::parse(&format!("{whole_digits}.{fraction}"))
        }
    }

    /// The amount in `currency`'s minor unit.
    pub fn to_minor(self, currency: Currency) -> Result<Money, AmountTextError> {
        let exponent = u32::from(currency.exponent());
        if self.scale > exponent {
            return Err(AmountTextError::TooPrecise(match exponent {
                0 => format!("{} amounts have no decimals", currency.code()),
                n => format!("{} amounts have at most {n} decimals", currency.code()),
            }));
        }
        let minor = self.digits * 10u128.pow(exponent - self.scale);
        if minor == 0 {
            return Err(AmountTextError::NotPositive);
        }
        i64::try_from(minor)
            .ok()
            .and_then(|m| Money::new(m).ok())
            .ok_or(AmountTextError::TooLarge)
    }

    /// An amount to pay or credit as a person types it in `locale` (see [`MajorAmount::parse_in`]),
    /// in `currency`'s minor unit: greater than zero.
    pub fn minor_in(
        text: &str,
        locale: crate::locale::Locale,
        currency: Currency,
    ) -> Result<Money, AmountTextError> {
        MajorAmount::parse_in(text, locale, currency)?.to_minor(currency)
    }

    /// A unit price as a person types it in `locale` (`12.50`, `-5` for a discount, `0`; German
    /// `1.200,00`), in `currency`'s minor unit: unlike an amount paid, it may be zero or
    /// negative.
    pub fn signed_minor_in(
        text: &str,
        locale: crate::locale::Locale,
        currency: Currency,
    ) -> Result<i64, AmountTextError> {
        let text = text.trim();
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        if !digits.is_empty() && digits.trim_start_matches(['0', '.', ',']).is_empty() {
            return Ok(0);
        }
        let minor = MajorAmount::minor_in(digits, locale, currency)?.minor();
        Ok(if negative { -minor } else { minor })
    }

    /// `amount` written the way [`MajorAmount::parse`] reads it back: `12.50`, `1000`, `1.250`,
    /// without symbol or grouping (the value of a form field).
    pub fn format(amount: Money, currency: Currency) -> String {
        let exponent = u32::from(currency.exponent());
        let scale = 10u64.pow(exponent);
        let magnitude = amount.minor().unsigned_abs();
        let sign = if amount.is_negative() { "-" } else { "" };
        let whole = magnitude / scale;
        if exponent == 0 {
            format!("{sign}{whole}")
        } else {
            let width = exponent as usize;
            format!("{sign}{whole}.{:0width$}", magnitude % scale)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_as_typed_may_be_zero_or_negative() {
        use crate::locale::Locale;
        let (eur, jpy, en) = (
            Currency::parse("EUR").unwrap(),
            Currency::parse("JPY").unwrap(),
            Locale::En,
        );
        let price = |t: &str, c, l| MajorAmount::signed_minor_in(t, l, c);
        assert_eq!(price("12.50", eur, en), Ok(1250));
        assert_eq!(price("12,5", eur, en), Ok(1250));
        assert_eq!(price("-5", eur, en), Ok(-500));
        assert_eq!(price("0", eur, en), Ok(0));
        assert_eq!(price("0.00", eur, en), Ok(0));
        assert_eq!(price("1500", jpy, en), Ok(1500));
        assert!(price("1.5", jpy, en).is_err());
        assert_eq!(price("1.200,00", eur, Locale::De), Ok(120_000));
        assert_eq!(price("-1.200,50", eur, Locale::De), Ok(-120_050));
        assert!(price("abc", eur, en).is_err());
        assert!(price("", eur, en).is_err());
        assert!(price("--5", eur, en).is_err());
        // An amount paid is never zero.
        assert_eq!(
            MajorAmount::minor_in("0", en, eur),
            Err(AmountTextError::NotPositive)
        );
        assert_eq!(
            MajorAmount::minor_in("1.453,00 €", Locale::De, eur).map(|m| m.minor()),
            Ok(145_300)
        );
    }

    fn cur(code: &str) -> Currency {
        Currency::parse(code).unwrap()
    }

    fn m(v: i64) -> Money {
        Money::new(v).unwrap()
    }

    #[test]
    fn amounts_read_as_each_locale_writes_them() {
        use crate::locale::Locale::{self, *};
        let eur = cur("EUR");
        let read = |text: &str, l: Locale| {
            MajorAmount::parse_in(text, l, eur).and_then(|a| a.to_minor(eur))
        };
        for (text, locale, minor) in [
            ("1.453,00", De, 145_300),
            ("1.453,00 €", De, 145_300),
            ("€ 1.453,00", Nl, 145_300),
            ("1.453", De, 145_300),
            ("12.50", De, 1_250),
            ("12,5", De, 1_250),
            ("1453", Es, 145_300),
            ("1 453,00", Fr, 145_300),
            ("1\u{202f}453,00\u{a0}€", Fr, 145_300),
            ("12.50", Fr, 1_250),
            ("1,453.00", En, 145_300),
            ("€1,453.00", En, 145_300),
            ("1,453", En, 145_300),
            ("12,50", En, 1_250),
            ("1 453.00", En, 145_300),
            ("EUR 1.000.000,01", Pt, 100_000_001),
        ] {
            assert_eq!(
                read(text, locale).map(|m| m.minor()),
                Ok(minor),
                "{text} in {locale:?}"
            );
        }
        // Ambiguous where the locale groups with spaces: refused with its own writing.
        assert_eq!(
            read("1.453", Fr),
            Err(AmountTextError::Ambiguous("1\u{202f}453,00".into()))
        );
        for (text, locale) in [
            ("1,453.00", De),
            ("1.45.3", De),
            ("12,3,4", En),
            ("1.4530,00", De),
            ("abc", En),
            ("1 45,00", Fr),
        ] {
            assert!(read(text, locale).is_err(), "{text} in {locale:?}");
        }
        // What a field shows is what it reads back.
        for locale in Locale::ALL {
            let shown = locale.amount_field(Money::new(145_300).unwrap(), eur);
            assert_eq!(
                read(&shown, locale).map(|m| m.minor()),
                Ok(145_300),
                "{shown}"
            );
        }
    }

    #[test]
    fn a_report_takes_only_what_is_neither_paid_nor_reported() {
        let b = InvoiceBalance::new(145_300, 300).unwrap();
        assert_eq!(b.reportable(Money::ZERO), m(145_000));
        assert_eq!(b.reportable(m(100_000)), m(45_000));
        assert_eq!(b.reportable(m(145_000)), Money::ZERO);
        assert_eq!(b.reportable(m(999_999)), Money::ZERO, "never below zero");
        assert_eq!(b.check_report(m(45_000), m(100_000)), Ok(()));
        assert_eq!(
            b.check_report(m(45_001), m(100_000)),
            Err(PaymentAmountError::ExceedsUnreported { left: m(45_000) })
        );
        assert_eq!(
            b.check_report(m(1), m(145_000)),
            Err(PaymentAmountError::ExceedsUnreported { left: Money::ZERO })
        );
        assert_eq!(
            b.check_report(Money::ZERO, Money::ZERO),
            Err(PaymentAmountError::NotPositive)
        );
        // Nothing reported yet: more than is due is the plain refusal.
        assert_eq!(
            b.check_report(m(145_001), Money::ZERO),
            Err(PaymentAmountError::ExceedsDue { due: m(145_000) })
        );
    }

    #[test]
    fn due_is_never_negative() {
        assert_eq!(amount_due_cents(1000, 250, 0), 750);
        assert_eq!(amount_due_cents(1000, 250, 300), 450);
        assert_eq!(amount_due_cents(1000, 1000, 0), 0);
        assert_eq!(amount_due_cents(1000, 5000, 0), 0);
        assert_eq!(amount_due_cents(1000, 600, 600), 0);
        assert_eq!(amount_due_cents(i64::MAX, i64::MIN, 0), i64::MAX);
        assert_eq!(amount_due_cents(i64::MIN, i64::MAX, i64::MAX), 0);
    }

    #[test]
    fn payments_fill_the_balance_exactly() {
        let b = InvoiceBalance::new(1000, 0).unwrap();
        assert_eq!(b.apply(m(0)), Err(PaymentAmountError::NotPositive));
        assert_eq!(b.apply(m(-5)), Err(PaymentAmountError::NotPositive));
        assert_eq!(
            b.apply(m(1001)),
            Err(PaymentAmountError::ExceedsDue { due: m(1000) })
        );
        let b = b.apply(m(400)).unwrap();
        assert_eq!((b.paid(), b.due(), b.is_settled()), (m(400), m(600), false));
        let b = b.apply(m(600)).unwrap();
        assert_eq!((b.paid(), b.due(), b.is_settled()), (m(1000), m(0), true));
        assert!(b.apply(m(1)).is_err());
        assert_eq!(
            PaymentAmountError::ExceedsDue { due: m(600) }.to_string(),
            "must not exceed the invoice's amount due (600)"
        );
    }

    #[test]
    fn typed_amounts_follow_the_currency() {
        let minor = |s: &str, c: &str| MajorAmount::parse(s).and_then(|a| a.to_minor(cur(c)));
        assert_eq!(minor("12.50", "EUR"), Ok(m(1250)));
        assert_eq!(minor(" 12,5 ", "EUR"), Ok(m(1250)));
        assert_eq!(minor("12", "EUR"), Ok(m(1200)));
        assert_eq!(minor("0.05", "EUR"), Ok(m(5)));
        assert_eq!(minor(".5", "EUR"), Ok(m(50)));
        assert_eq!(minor("1000", "JPY"), Ok(m(1000)));
        assert_eq!(minor("1.25", "KWD"), Ok(m(1250)));
        assert_eq!(minor("1,000", "KWD"), Ok(m(1000)));
        // A thousands separator is never mistaken for a decimal point.
        for (text, code, message) in [
            ("1,000", "EUR", "EUR amounts have at most 2 decimals"),
            ("1,000", "JPY", "JPY amounts have no decimals"),
            ("1000.00", "JPY", "JPY amounts have no decimals"),
        ] {
            assert_eq!(
                minor(text, code),
                Err(AmountTextError::TooPrecise(message.into())),
                "{text} {code}"
            );
        }
        assert_eq!(
            MajorAmount::parse("1.00000"),
            Err(AmountTextError::TooPrecise(
                "must have at most 4 decimals".into()
            ))
        );
        assert_eq!(
            minor("12.505", "EUR"),
            Err(AmountTextError::TooPrecise(
                "EUR amounts have at most 2 decimals".into()
            ))
        );
        assert_eq!(
            minor("1.5", "JPY"),
            Err(AmountTextError::TooPrecise(
                "JPY amounts have no decimals".into()
            ))
        );
        assert_eq!(minor("0", "EUR"), Err(AmountTextError::NotPositive));
        assert_eq!(minor("0.00", "EUR"), Err(AmountTextError::NotPositive));
        assert_eq!(
            minor("99999999999999999999", "EUR"),
            Err(AmountTextError::TooLarge)
        );
        for bad in [
            "", "abc", "-5", "1,234.56", "12.5.0", "€12", "1 000", ".", "1e3", "+1",
        ] {
            assert_eq!(
                MajorAmount::parse(bad),
                Err(AmountTextError::Invalid),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn formats_for_a_form_field() {
        assert_eq!(MajorAmount::format(m(1595), cur("EUR")), "15.95");
        assert_eq!(MajorAmount::format(m(5), cur("EUR")), "0.05");
        assert_eq!(MajorAmount::format(m(3300), cur("JPY")), "3300");
        assert_eq!(MajorAmount::format(m(1250), cur("KWD")), "1.250");
    }
}
