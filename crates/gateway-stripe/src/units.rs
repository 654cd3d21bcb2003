//! Amounts in the units Stripe's API counts (https://docs.stripe.com/currencies): mostly ISO
//! 4217's minor units, with Stripe's exceptions. Our `Money` is in ISO minor units
//! (`Currency::exponent()`), so every amount crosses here both ways.

use invoicing_domain::currency::Currency;
use invoicing_domain::money::Money;

/// Stripe's presentment currencies (docs.stripe.com/currencies, "Supported presentment
/// currencies", plus the three-decimal currencies its "Three-decimal currencies" section says
/// the payment APIs take), sorted. Codes ISO has since retired (ANG, BGN, STD) are kept as
/// Stripe lists them; `Currency::parse` never yields them, so they never match.
const SUPPORTED: &[&str] = &[
    "AED", "AFN", "ALL", "AMD", "ANG", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT",
    "BGN", "BHD", "BIF", "BMD", "BND", "BOB", "BRL", "BSD", "BWP", "BYN", "BZD", "CAD", "CDF",
    "CHF", "CLP", "CNY", "COP", "CRC", "CVE", "CZK", "DJF", "DKK", "DOP", "DZD", "EGP", "ETB",
    "EUR", "FJD", "FKP", "GBP", "GEL", "GIP", "GMD", "GNF", "GTQ", "GYD", "HKD", "HNL", "HTG",
    "HUF", "IDR", "ILS", "INR", "ISK", "JMD", "JOD", "JPY", "KES", "KGS", "KHR", "KMF", "KRW",
    "KWD", "KYD", "KZT", "LAK", "LBP", "LKR", "LRD", "LSL", "MAD", "MDL", "MGA", "MKD", "MMK",
    "MNT", "MOP", "MUR", "MVR", "MWK", "MXN", "MYR", "MZN", "NAD", "NGN", "NIO", "NOK", "NPR",
    "NZD", "OMR", "PAB", "PEN", "PGK", "PHP", "PKR", "PLN", "PYG", "QAR", "RON", "RSD", "RUB",
    "RWF", "SAR", "SBD", "SCR", "SEK", "SGD", "SHP", "SLE", "SOS", "SRD", "STD", "SZL", "THB",
    "TJS", "TND", "TOP", "TRY", "TTD", "TWD", "TZS", "UAH", "UGX", "USD", "UYU", "UZS", "VND",
    "VUV", "WST", "XAF", "XCD", "XOF", "XPF", "YER", "ZAR", "ZMW",
];

/// "Zero-decimal currencies": the amount is whole units. (Stripe lists UGX here too, but its
/// "Special cases" override that: see [`WHOLE_IN_HUNDREDTHS`].) MGA is zero-decimal at Stripe
/// although ISO gives it two digits.
const ZERO_DECIMAL: &[&str] = &[
    "BIF", "CLP", "DJF", "GNF", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF", "VND", "VUV", "XAF",
    "XOF", "XPF",
];

/// "Three-decimal currencies": thousandths, and the last digit must be 0.
const THREE_DECIMAL: &[&str] = &["BHD", "JOD", "KWD", "OMR", "TND"];

/// "Special cases": ISK and UGX are whole units at the card networks but Stripe keeps them
/// two-decimal for backwards compatibility, so 5 ISK is `500` and the amount must be a multiple
/// of 100 (Stripe refuses others with `invalid_charge_amount_no_decimal_compatible`). ISO gives
/// both zero digits. (HUF and TWD are special only for payouts; charges take two decimals.)
const WHOLE_IN_HUNDREDTHS: &[&str] = &["ISK", "UGX"];

/// "The amount value supports up to twelve digits for IDR … and up to eight digits for all
/// other currencies."
const MAX_EIGHT_DIGITS: i64 = 99_999_999;
const MAX_IDR: i64 = 999_999_999_999;

/// How many decimals Stripe's `amount` fields carry for this currency.
fn stripe_exponent(code: &str) -> u32 {
    if WHOLE_IN_HUNDREDTHS.contains(&code) {
        2
    } else if ZERO_DECIMAL.contains(&code) {
        0
    } else if THREE_DECIMAL.contains(&code) {
        3
    } else {
        2
    }
}

/// The granularity Stripe accepts, in its units.
fn stripe_step(code: &str) -> i64 {
    if WHOLE_IN_HUNDREDTHS.contains(&code) {
        100
    } else if THREE_DECIMAL.contains(&code) {
        10
    } else {
        1
    }
}

fn stripe_max(code: &str) -> i64 {
    if code == "IDR" {
        MAX_IDR
    } else {
        MAX_EIGHT_DIGITS
    }
}

pub(crate) fn is_supported(currency: Currency) -> bool {
    SUPPORTED.binary_search(&currency.code()).is_ok()
}

/// `amount` (ISO minor units) in Stripe's units, when Stripe can charge (or refund) exactly
/// that: a supported currency, positive, no finer than Stripe takes, within its maximum.
/// Stripe's minimum charge depends on the merchant's settlement currency, which this adapter
/// cannot know: Stripe refuses too small an amount itself.
pub fn chargeable(amount: Money, currency: Currency) -> Option<i64> {
    let code = currency.code();
    if !is_supported(currency) || amount.minor() <= 0 {
        return None;
    }
    let units = rescale(
        amount.minor(),
        u32::from(currency.exponent()),
        stripe_exponent(code),
    )?;
    (units % stripe_step(code) == 0 && units <= stripe_max(code)).then_some(units)
}

/// An amount Stripe reports (in its units) as ours, `None` when it does not fit: a fraction
/// our minor unit cannot hold, or beyond `Money`'s bound.
pub fn from_stripe_units(units: i64, currency: Currency) -> Option<Money> {
    let minor = rescale(
        units,
        stripe_exponent(currency.code()),
        u32::from(currency.exponent()),
    )?;
    Money::new(minor).ok()
}

/// `value` with `from` decimals written with `to` decimals, exactly or not at all.
fn rescale(value: i64, from: u32, to: u32) -> Option<i64> {
    if to >= from {
        value.checked_mul(10i64.checked_pow(to - from)?)
    } else {
        let divisor = 10i64.checked_pow(from - to)?;
        (value % divisor == 0).then_some(value / divisor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cur(code: &str) -> Currency {
        Currency::parse(code).unwrap()
    }

    fn m(minor: i64) -> Money {
        Money::new(minor).unwrap()
    }

    #[test]
    fn tables_are_sorted_and_consistent() {
        assert!(SUPPORTED.windows(2).all(|w| w[0] < w[1]));
        for code in ZERO_DECIMAL
            .iter()
            .chain(THREE_DECIMAL)
            .chain(WHOLE_IN_HUNDREDTHS)
        {
            assert!(SUPPORTED.contains(code), "{code}");
        }
    }

    #[test]
    fn chargeable_table() {
        for (amount, code, expected) in [
            // Two-decimal: ISO minor units are Stripe's.
            (1250, "EUR", Some(1250)),
            (1, "EUR", Some(1)),
            (99_999_999, "EUR", Some(99_999_999)),
            (100_000_000, "EUR", None),
            (1250, "USD", Some(1250)),
            (1045, "HUF", Some(1045)),
            (80045, "TWD", Some(80045)),
            // Zero-decimal, as they are.
            (500, "JPY", Some(500)),
            (99_999_999, "JPY", Some(99_999_999)),
            (100_000_000, "JPY", None),
            (1500, "XOF", Some(1500)),
            (12345, "KRW", Some(12345)),
            // MGA: zero-decimal at Stripe, two digits in ISO: whole ariary only.
            (5000, "MGA", Some(50)),
            (5050, "MGA", None),
            // Three-decimal: the last digit must be 0.
            (5120, "KWD", Some(5120)),
            (5124, "KWD", None),
            (10, "BHD", Some(10)),
            (1005, "JOD", None),
            (99_999_990, "OMR", Some(99_999_990)),
            (100_000_000, "TND", None),
            // ISK and UGX: whole units (ISO), sent as hundredths.
            (5, "ISK", Some(500)),
            (999_999, "ISK", Some(99_999_900)),
            (1_000_000, "ISK", None),
            (5, "UGX", Some(500)),
            (3800, "UGX", Some(380_000)),
            // IDR may use twelve digits.
            (999_999_999_999, "IDR", Some(999_999_999_999)),
            (1_000_000_000_000, "IDR", None),
            // Positive only.
            (0, "EUR", None),
            (-100, "EUR", None),
            (0, "JPY", None),
            // Not Stripe's: refused whatever the amount.
            (1000, "IQD", None),
            (1000, "LYD", None),
            (1000, "CLF", None),
            (1000, "UYI", None),
            (1000, "IRR", None),
            (1000, "CUP", None),
            (1000, "VES", None),
            (1000, "XCG", None),
        ] {
            assert_eq!(
                chargeable(m(amount), cur(code)),
                expected,
                "{amount} {code}"
            );
        }
    }

    #[test]
    fn stripe_units_read_back() {
        for (units, code, expected) in [
            (1250, "EUR", Some(1250)),
            (500, "JPY", Some(500)),
            (50, "MGA", Some(5000)),
            (5120, "KWD", Some(5120)),
            (500, "ISK", Some(5)),
            (380_000, "UGX", Some(3800)),
            // A fraction of a krona or shilling does not exist here.
            (1050, "ISK", None),
            (1, "UGX", None),
            (0, "EUR", Some(0)),
            (i64::MAX, "MGA", None),
        ] {
            assert_eq!(
                from_stripe_units(units, cur(code)),
                expected.map(m),
                "{units} {code}"
            );
        }
    }

    #[test]
    fn every_chargeable_amount_survives_the_round_trip() {
        let amounts = [
            1,
            5,
            10,
            99,
            100,
            101,
            1000,
            5120,
            99_999_999,
            999_999_999_999,
        ];
        let mut supported = 0;
        for currency in Currency::all() {
            if is_supported(currency) {
                supported += 1;
            }
            for amount in amounts {
                if let Some(units) = chargeable(m(amount), currency) {
                    assert!(units > 0);
                    assert_eq!(
                        from_stripe_units(units, currency),
                        Some(m(amount)),
                        "{amount} {currency}"
                    );
                }
            }
        }
        // Nearly all of Stripe's list is in ours (ANG, BGN, STD are retired codes).
        assert_eq!(supported, SUPPORTED.len() - 3);
    }
}
