//! ISO 4217 currencies and the number of minor-unit digits each one uses.

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Rejection of a currency code; one variant because callers only need to say "not a currency".
#[derive(Debug, thiserror::Error, PartialEq, Eq, Clone)]
pub enum CurrencyError {
    #[error("must be a three-letter ISO 4217 currency code")]
    Invalid,
}

/// One row of the ISO table; private so a `Currency` can only point at a real row.
#[derive(PartialEq, Eq, Hash)]
struct CurrencyInfo {
    code: &'static str,
    exponent: u8,
}

const fn c(code: &'static str, exponent: u8) -> CurrencyInfo {
    CurrencyInfo { code, exponent }
}

/// Active codes from ISO 4217 List One (as published 2026-01-01), sorted so lookups can
/// binary-search. Precious metals, test codes and accounting units (XAU, XAG, XPT, XPD, XTS,
/// XXX, XDR, XAD, XBA..XBD, XSU, XUA) are left out: nobody invoices in them.
static TABLE: &[CurrencyInfo] = &[
    c("AED", 2),
    c("AFN", 2),
    c("ALL", 2),
    c("AMD", 2),
    c("AOA", 2),
    c("ARS", 2),
    c("AUD", 2),
    c("AWG", 2),
    c("AZN", 2),
    c("BAM", 2),
    c("BBD", 2),
    c("BDT", 2),
    c("BHD", 3),
    c("BIF", 0),
    c("BMD", 2),
    c("BND", 2),
    c("BOB", 2),
    c("BOV", 2),
    c("BRL", 2),
    c("BSD", 2),
    c("BTN", 2),
    c("BWP", 2),
    c("BYN", 2),
    c("BZD", 2),
    c("CAD", 2),
    c("CDF", 2),
    c("CHE", 2),
    c("CHF", 2),
    c("CHW", 2),
    c("CLF", 4),
    c("CLP", 0),
    c("CNY", 2),
    c("COP", 2),
    c("COU", 2),
    c("CRC", 2),
    c("CUP", 2),
    c("CVE", 2),
    c("CZK", 2),
    c("DJF", 0),
    c("DKK", 2),
    c("DOP", 2),
    c("DZD", 2),
    c("EGP", 2),
    c("ERN", 2),
    c("ETB", 2),
    c("EUR", 2),
    c("FJD", 2),
    c("FKP", 2),
    c("GBP", 2),
    c("GEL", 2),
    c("GHS", 2),
    c("GIP", 2),
    c("GMD", 2),
    c("GNF", 0),
    c("GTQ", 2),
    c("GYD", 2),
    c("HKD", 2),
    c("HNL", 2),
    c("HTG", 2),
    c("HUF", 2),
    c("IDR", 2),
    c("ILS", 2),
    c("INR", 2),
    c("IQD", 3),
    c("IRR", 2),
    c("ISK", 0),
    c("JMD", 2),
    c("JOD", 3),
    c("JPY", 0),
    c("KES", 2),
    c("KGS", 2),
    c("KHR", 2),
    c("KMF", 0),
    c("KPW", 2),
    c("KRW", 0),
    c("KWD", 3),
    c("KYD", 2),
    c("KZT", 2),
    c("LAK", 2),
    c("LBP", 2),
    c("LKR", 2),
    c("LRD", 2),
    c("LSL", 2),
    c("LYD", 3),
    c("MAD", 2),
    c("MDL", 2),
    c("MGA", 2),
    c("MKD", 2),
    c("MMK", 2),
    c("MNT", 2),
    c("MOP", 2),
    c("MRU", 2),
    c("MUR", 2),
    c("MVR", 2),
    c("MWK", 2),
    c("MXN", 2),
    c("MXV", 2),
    c("MYR", 2),
    c("MZN", 2),
    c("NAD", 2),
    c("NGN", 2),
    c("NIO", 2),
    c("NOK", 2),
    c("NPR", 2),
    c("NZD", 2),
    c("OMR", 3),
    c("PAB", 2),
    c("PEN", 2),
    c("PGK", 2),
    c("PHP", 2),
    c("PKR", 2),
    c("PLN", 2),
    c("PYG", 0),
    c("QAR", 2),
    c("RON", 2),
    c("RSD", 2),
    c("RUB", 2),
    c("RWF", 0),
    c("SAR", 2),
    c("SBD", 2),
    c("SCR", 2),
    c("SDG", 2),
    c("SEK", 2),
    c("SGD", 2),
    c("SHP", 2),
    c("SLE", 2),
    c("SOS", 2),
    c("SRD", 2),
    c("SSP", 2),
    c("STN", 2),
    c("SVC", 2),
    c("SYP", 2),
    c("SZL", 2),
    c("THB", 2),
    c("TJS", 2),
    c("TMT", 2),
    c("TND", 3),
    c("TOP", 2),
    c("TRY", 2),
    c("TTD", 2),
    c("TWD", 2),
    c("TZS", 2),
    c("UAH", 2),
    c("UGX", 0),
    c("USD", 2),
    c("USN", 2),
    c("UYI", 0),
    c("UYU", 2),
    c("UYW", 4),
    c("UZS", 2),
    c("VED", 2),
    c("VES", 2),
    c("VND", 0),
    c("VUV", 0),
    c("WST", 2),
    c("XAF", 0),
    c("XCD", 2),
    c("XCG", 2),
    c("XOF", 0),
    c("XPF", 0),
    c("YER", 2),
    c("ZAR", 2),
    c("ZMW", 2),
    c("ZWG", 2),
];

/// A known ISO 4217 currency; holding a table reference makes an unknown code unrepresentable.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Currency(&'static CurrencyInfo);

impl Currency {
    /// Case-insensitive so clients may send "eur"; no trimming, so stray whitespace is an error.
    pub fn parse(s: &str) -> Result<Currency, CurrencyError> {
        let bytes = s.as_bytes();
        if bytes.len() != 3 || !bytes.iter().all(u8::is_ascii_alphabetic) {
            return Err(CurrencyError::Invalid);
        }
        let upper = bytes.to_ascii_uppercase();
        TABLE
            .binary_search_by(|info| info.code.as_bytes().cmp(&upper[..]))
            .map(|i| Currency(&TABLE[i]))
            .map_err(|_| CurrencyError::Invalid)
    }

    /// Every supported currency, in code order (for docs, pickers and exhaustive tests).
    pub fn all() -> impl ExactSizeIterator<Item = Currency> {
        TABLE.iter().map(Currency)
    }

    pub fn code(self) -> &'static str {
        self.0.code
    }

    /// Digits after the decimal point, i.e. how many minor units make one major unit (10^n).
    pub fn exponent(self) -> u8 {
        self.0.exponent
    }

    /// Only symbols that name a single currency; "$" is kept for USD because readers expect it,
    /// every other currency falls back to its code so amounts are never ambiguous.
    pub fn symbol(self) -> Option<&'static str> {
        Some(match self.code() {
            "EUR" => "€",
            "USD" => "$",
            "GBP" => "£",
            "JPY" => "¥",
            "INR" => "₹",
            "KRW" => "₩",
            "ILS" => "₪",
            "NGN" => "₦",
            "UAH" => "₴",
            "VND" => "₫",
            "TRY" => "₺",
            _ => return None,
        })
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl fmt::Debug for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Currency").field(&self.code()).finish()
    }
}

impl FromStr for Currency {
    type Err = CurrencyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Currency::parse(s)
    }
}

impl Serialize for Currency {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

impl<'de> Deserialize<'de> for Currency {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CodeVisitor;

        impl Visitor<'_> for CodeVisitor {
            type Value = Currency;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a three-letter ISO 4217 currency code")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Currency, E> {
                Currency::parse(v).map_err(E::custom)
            }
        }

        deserializer.deserialize_str(CodeVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cur(s: &str) -> Currency {
        Currency::parse(s).unwrap()
    }

    #[test]
    fn table_is_sorted_unique_and_well_formed() {
        for pair in TABLE.windows(2) {
            assert!(
                pair[0].code < pair[1].code,
                "{} / {}",
                pair[0].code,
                pair[1].code
            );
        }
        for info in TABLE {
            assert_eq!(info.code.len(), 3);
            assert!(info.code.bytes().all(|b| b.is_ascii_uppercase()));
            assert!(info.exponent <= 4);
        }
        assert!((150..=180).contains(&TABLE.len()), "{}", TABLE.len());
    }

    #[test]
    fn parses_case_insensitively_and_prints_upper_case() {
        assert_eq!(cur("eur").code(), "EUR");
        assert_eq!(cur("Eur"), cur("EUR"));
        assert_eq!(cur("usd").to_string(), "USD");
        assert_eq!("jpy".parse::<Currency>(), Ok(cur("JPY")));
        assert_eq!(format!("{:?}", cur("chf")), "Currency(\"CHF\")");
    }

    #[test]
    fn rejects_unknown_or_malformed_codes() {
        for bad in [
            "EURO", "EU", "", "XAU", "XAG", "XTS", "XXX", "XDR", "ZZZ", " EUR", "EUR ", "E1R",
            "ÉUR", "HRK", "BGN",
        ] {
            assert_eq!(Currency::parse(bad), Err(CurrencyError::Invalid), "{bad:?}");
        }
    }

    #[test]
    fn exponents_follow_iso() {
        for (code, exp) in [
            ("JPY", 0),
            ("KRW", 0),
            ("XOF", 0),
            ("EUR", 2),
            ("USD", 2),
            ("KWD", 3),
            ("BHD", 3),
            ("TND", 3),
            ("CLF", 4),
            ("UYW", 4),
        ] {
            assert_eq!(cur(code).exponent(), exp, "{code}");
        }
    }

    #[test]
    fn symbols() {
        assert_eq!(cur("EUR").symbol(), Some("€"));
        assert_eq!(cur("USD").symbol(), Some("$"));
        assert_eq!(cur("GBP").symbol(), Some("£"));
        assert_eq!(cur("JPY").symbol(), Some("¥"));
        assert_eq!(cur("CHF").symbol(), None);
        assert_eq!(cur("CNY").symbol(), None);
        assert_eq!(cur("KWD").symbol(), None);
    }

    #[test]
    fn serde_uses_the_code_string() {
        assert_eq!(serde_json::to_string(&cur("eur")).unwrap(), "\"EUR\"");
        let parsed: Currency = serde_json::from_str("\"kwd\"").unwrap();
        assert_eq!(parsed, cur("KWD"));
        let err = serde_json::from_str::<Currency>("\"EURO\"").unwrap_err();
        assert!(err
            .to_string()
            .contains("must be a three-letter ISO 4217 currency code"));
        assert!(serde_json::from_str::<Currency>("978").is_err());
    }
}
