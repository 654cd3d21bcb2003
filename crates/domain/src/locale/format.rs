//! Dates, amounts, quantities and tax rates written by each locale's CLDR conventions (CLDR 45,
//! `latn` digits). Only what the six locales need is tabled here; see `Conventions`.

use chrono::{Datelike, NaiveDate};

use super::Locale;
use crate::currency::Currency;
use crate::decimal::{Quantity, TaxRate};
use crate::money::Money;

/// U+00A0 NO-BREAK SPACE: CLDR's space between an amount and its currency sign (and the percent
/// sign in de/es); it keeps `1.234,50 €` on one line.
const NBSP: char = '\u{a0}';
/// U+202F NARROW NO-BREAK SPACE: French digit grouping and French space before `%`.
const NNBSP: char = '\u{202f}';

/// Where the currency goes and where a minus sign goes relative to it (CLDR currencyFormat).
#[derive(Clone, Copy)]
enum CurrencyPattern {
    /// `¤#,##0.00`, negative `-¤#,##0.00`. CLDR currencySpacing inserts U+00A0 when the symbol
    /// ends in a letter (an ISO code), so `$1.00` but `KWD 1.000`.
    Before,
    /// `¤ #,##0.00`; the minus goes between the symbol and the number when `minus_inside`
    /// (nl: `¤ -#,##0.00`), before everything otherwise (pt: `-¤ #,##0.00`).
    BeforeSpaced { minus_inside: bool },
    /// `#,##0.00 ¤`, negative `-#,##0.00 ¤`.
    After,
}

#[derive(Clone, Copy)]
enum DateStyle {
    /// en medium date: `MMM d, y` (`Dec 31, 2026`).
    EnglishMedium,
    /// `dd?MM?y` with the given separator (`31.12.2026`, `31/12/2026`, `31-12-2026`).
    Numeric(char),
}

/// One locale's CLDR number and date data.
struct Conventions {
    decimal: char,
    group: char,
    /// CLDR minimumGroupingDigits: separators appear only once the integer part has at least
    /// `3 + min_grouping` digits (es: `1234` but `12.345`).
    min_grouping: usize,
    currency: CurrencyPattern,
    /// What goes between the number and `%`, if anything.
    percent_space: Option<char>,
    date: DateStyle,
}

impl Locale {
    fn conventions(self) -> Conventions {
        match self {
            Locale::En => Conventions {
                decimal: '.',
                group: ',',
                min_grouping: 1,
                currency: CurrencyPattern::Before,
                percent_space: None,
                date: DateStyle::EnglishMedium,
            },
            Locale::Es => Conventions {
                decimal: ',',
                group: '.',
                min_grouping: 2,
                currency: CurrencyPattern::After,
                percent_space: Some(NBSP),
                date: DateStyle::Numeric('/'),
            },
            Locale::Fr => Conventions {
                decimal: ',',
                group: NNBSP,
                min_grouping: 1,
                currency: CurrencyPattern::After,
                percent_space: Some(NNBSP),
                date: DateStyle::Numeric('/'),
            },
            Locale::De => Conventions {
                decimal: ',',
                group: '.',
                min_grouping: 1,
                currency: CurrencyPattern::After,
                percent_space: Some(NBSP),
                date: DateStyle::Numeric('.'),
            },
            Locale::Nl => Conventions {
                decimal: ',',
                group: '.',
                min_grouping: 1,
                currency: CurrencyPattern::BeforeSpaced { minus_inside: true },
                percent_space: None,
                date: DateStyle::Numeric('-'),
            },
            Locale::Pt => Conventions {
                decimal: ',',
                group: '.',
                min_grouping: 1,
                currency: CurrencyPattern::BeforeSpaced {
                    minus_inside: false,
                },
                percent_space: None,
                date: DateStyle::Numeric('/'),
            },
        }
    }

    /// The currency's sign in this locale, or `None` to write the ISO code. Starts from
    /// [`Currency::symbol`] (only unambiguous symbols) and follows CLDR where a locale
    /// disambiguates: French `$US`/`£GB`, `US$` in es/nl/pt, `JP¥` in nl/pt, and the code where
    /// CLDR itself uses it (JPY in es/fr, GBP in es).
    fn currency_symbol(self, currency: Currency) -> Option<&'static str> {
        match (self, currency.code()) {
            (Locale::Fr, "USD") => Some("$US"),
            (Locale::Es | Locale::Nl | Locale::Pt, "USD") => Some("US$"),
            (Locale::Fr, "GBP") => Some("£GB"),
            (Locale::Es, "GBP") | (Locale::Es | Locale::Fr, "JPY") => None,
            (Locale::Nl | Locale::Pt, "JPY") => Some("JP¥"),
            _ => currency.symbol(),
        }
    }

    /// The decimal separator people write in this locale (`.` in English, `,` elsewhere).
    pub fn decimal_separator(self) -> char {
        self.conventions().decimal
    }

    /// The digit-group separator people write in this locale (`,` en, `.` de/es/nl/pt; French
    /// writes a narrow no-break space, and people type any space).
    pub fn group_separator(self) -> char {
        self.conventions().group
    }

    /// An amount as a form field shows it in this locale: its separators, the currency's
    /// decimals, no sign (en `1,453.00`, de `1.453,00`, fr `1 453,00`), read back by
    /// `MajorAmount::parse_in`.
    pub fn amount_field(self, amount: Money, currency: Currency) -> String {
        let c = self.conventions();
        let exponent = u32::from(currency.exponent());
        let scale = 10u64.checked_pow(exponent).unwrap_or(u64::MAX);
        let magnitude = amount.minor().unsigned_abs();
        let fraction = (exponent > 0).then(|| Fraction::Fixed(magnitude % scale, exponent));
        let minus = if amount.is_negative() { "-" } else { "" };
        format!("{minus}{}", c.number(magnitude / scale, fraction))
    }

    /// The currency's sign as this locale writes it, or its code.
    pub fn currency_sign(self, currency: Currency) -> &'static str {
        self.currency_symbol(currency).unwrap_or(currency.code())
    }

    /// A calendar date: en `Dec 31, 2026`, de `31.12.2026`, fr/es/pt `31/12/2026`,
    /// nl `31-12-2026`.
    pub fn date(self, date: NaiveDate) -> String {
        let (y, m, d) = (date.year(), date.month(), date.day());
        match self.conventions().date {
            DateStyle::EnglishMedium => format!("{} {d}, {y}", month_abbreviation(m)),
            DateStyle::Numeric(sep) => format!("{d:02}{sep}{m:02}{sep}{y}"),
        }
    }

    /// An amount with the currency's exponent and this locale's separators, sign and symbol
    /// placement: en `€1,234.50`, de `1.234,50 €`, fr `1 234,50 €`, es `1234,50 €`,
    /// nl `€ 1.234,50`, pt `€ 1.234,50` (CLDR spaces: U+00A0, and U+202F in French groups).
    pub fn money(self, amount: Money, currency: Currency) -> String {
        let c = self.conventions();
        let exponent = u32::from(currency.exponent());
        // Every exponent in the ISO table is ≤ 4, so this cannot overflow; saturate anyway.
        let scale = 10u64.checked_pow(exponent).unwrap_or(u64::MAX);
        let magnitude = amount.minor().unsigned_abs();
        let fraction = (exponent > 0).then(|| Fraction::Fixed(magnitude % scale, exponent));
        let number = c.number(magnitude / scale, fraction);
        let minus = if amount.is_negative() { "-" } else { "" };
        let symbol = self.currency_symbol(currency);
        let sign = symbol.unwrap_or(currency.code());
        match c.currency {
            CurrencyPattern::Before => {
                // CLDR currencySpacing: a letter next to a digit gets a no-break space.
                let spacing = if sign.chars().last().is_some_and(char::is_alphanumeric) {
                    NBSP.to_string()
                } else {
                    String::new()
                };
                format!("{minus}{sign}{spacing}{number}")
            }
            CurrencyPattern::BeforeSpaced { minus_inside: true } => {
                format!("{sign}{NBSP}{minus}{number}")
            }
            CurrencyPattern::BeforeSpaced {
                minus_inside: false,
            } => format!("{minus}{sign}{NBSP}{number}"),
            CurrencyPattern::After => format!("{minus}{number}{NBSP}{sign}"),
        }
    }

    /// A line quantity, without trailing zeros: en `1,000.5`, de `1.000,5`, es `1000,5`.
    pub fn quantity(self, quantity: Quantity) -> String {
        self.conventions().thousandths(quantity.thousandths())
    }

    /// A count of things, grouped as the locale groups digits: en `1,200`, de `1.200`.
    pub fn integer(self, n: i64) -> String {
        self.conventions().thousandths(n.saturating_mul(1000))
    }

    /// A tax rate, without trailing zeros, in the locale's percent pattern: en/nl/pt `19%`,
    /// de/es `19 %` (U+00A0), fr `19 %` (U+202F); de `7,5 %`.
    pub fn percent(self, rate: TaxRate) -> String {
        let c = self.conventions();
        let number = c.thousandths(rate.thousandths());
        match c.percent_space {
            Some(space) => format!("{number}{space}%"),
            None => format!("{number}%"),
        }
    }
}

/// The digits after the decimal separator.
enum Fraction {
    /// Exactly this many digits, zero-padded (a currency's exponent).
    Fixed(u64, u32),
    /// Thousandths with trailing zeros dropped; nothing at all when zero.
    Trimmed(u64),
}

impl Conventions {
    fn number(&self, integer: u64, fraction: Option<Fraction>) -> String {
        let mut out = self.group_digits(integer);
        let digits = match fraction {
            Some(Fraction::Fixed(value, width)) => {
                format!("{value:0width$}", width = width as usize)
            }
            Some(Fraction::Trimmed(value)) => {
                format!("{value:03}").trim_end_matches('0').to_string()
            }
            None => String::new(),
        };
        if !digits.is_empty() {
            out.push(self.decimal);
            out.push_str(&digits);
        }
        out
    }

    /// Quantities and rates are positive thousandths; a negative one (which the types rule
    /// out) would print as its magnitude rather than panic.
    fn thousandths(&self, t: i64) -> String {
        let magnitude = t.unsigned_abs();
        self.number(magnitude / 1000, Some(Fraction::Trimmed(magnitude % 1000)))
    }

    fn group_digits(&self, n: u64) -> String {
        let digits = n.to_string();
        if digits.len() < 3 + self.min_grouping {
            return digits;
        }
        let mut out = String::with_capacity(digits.len() * 2);
        // A separator goes before every digit whose distance from the end is a multiple of three.
        let phase = digits.len() % 3;
        for (i, ch) in digits.chars().enumerate() {
            if i > 0 && i % 3 == phase {
                out.push(self.group);
            }
            out.push(ch);
        }
        out
    }
}

fn month_abbreviation(month: u32) -> &'static str {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    // chrono months are 1..=12; the fallback only keeps this total.
    month
        .checked_sub(1)
        .and_then(|i| MONTHS.get(i as usize))
        .copied()
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::money::MAX_AMOUNT;
    use proptest::prelude::*;
    use Locale::*;

    fn m(v: i64) -> Money {
        Money::new(v).unwrap()
    }

    fn cur(code: &str) -> Currency {
        Currency::parse(code).unwrap()
    }

    /// The SPEC prints CLDR's spaces as plain ones; this puts U+00A0 back (`~`) and U+202F
    /// (`^`) so expectations stay readable and exact.
    fn cldr(s: &str) -> String {
        s.replace('~', "\u{a0}").replace('^', "\u{202f}")
    }

    fn check(cases: &[(Locale, &str)], f: impl Fn(Locale) -> String) {
        for (locale, expected) in cases {
            assert_eq!(f(*locale), cldr(expected), "{locale}");
        }
    }

    #[test]
    fn spec_examples_for_euros() {
        check(
            &[
                (En, "€1,234.50"),
                (De, "1.234,50~€"),
                (Fr, "1^234,50~€"),
                (Es, "1234,50~€"),
                (Nl, "€~1.234,50"),
                (Pt, "€~1.234,50"),
            ],
            |l| l.money(m(123_450), cur("EUR")),
        );
    }

    #[test]
    fn spanish_groups_from_five_digits() {
        check(&[(Es, "12.345,50~€")], |l| {
            l.money(m(1_234_550), cur("EUR"))
        });
        check(&[(Es, "999,00~€")], |l| l.money(m(99_900), cur("EUR")));
    }

    #[test]
    fn negative_amounts_put_the_minus_where_cldr_does() {
        check(
            &[
                (En, "-€1,234.50"),
                (De, "-1.234,50~€"),
                (Fr, "-1^234,50~€"),
                (Es, "-1234,50~€"),
                (Nl, "€~-1.234,50"),
                (Pt, "-€~1.234,50"),
            ],
            |l| l.money(m(-123_450), cur("EUR")),
        );
        check(
            &[(En, "-KWD~1.250"), (De, "-1,250~KWD"), (Nl, "KWD~-1,250")],
            |l| l.money(m(-1250), cur("KWD")),
        );
    }

    #[test]
    fn zero_and_small_amounts() {
        check(
            &[
                (En, "€0.00"),
                (De, "0,00~€"),
                (Fr, "0,00~€"),
                (Es, "0,00~€"),
                (Nl, "€~0,00"),
                (Pt, "€~0,00"),
            ],
            |l| l.money(Money::ZERO, cur("EUR")),
        );
        check(&[(En, "€0.05"), (De, "0,05~€")], |l| {
            l.money(m(5), cur("EUR"))
        });
        check(&[(En, "¥0"), (De, "0~¥")], |l| {
            l.money(Money::ZERO, cur("JPY"))
        });
    }

    #[test]
    fn large_amounts() {
        check(
            &[
                (En, "€1,234,567.89"),
                (De, "1.234.567,89~€"),
                (Fr, "1^234^567,89~€"),
                (Es, "1.234.567,89~€"),
                (Nl, "€~1.234.567,89"),
                (Pt, "€~1.234.567,89"),
            ],
            |l| l.money(m(123_456_789), cur("EUR")),
        );
        check(
            &[
                (En, "$10,000,000,000,000.00"),
                (De, "10.000.000.000.000,00~$"),
            ],
            |l| l.money(m(MAX_AMOUNT), cur("USD")),
        );
        check(&[(En, "-¥1,000,000,000,000,000")], |l| {
            l.money(m(-MAX_AMOUNT), cur("JPY"))
        });
    }

    #[test]
    fn yen_has_no_decimals() {
        check(
            &[
                (En, "¥1,234"),
                (De, "1.234~¥"),
                (Fr, "1^234~JPY"),
                (Es, "1234~JPY"),
                (Nl, "JP¥~1.234"),
                (Pt, "JP¥~1.234"),
            ],
            |l| l.money(m(1234), cur("JPY")),
        );
    }

    #[test]
    fn dinar_has_three_decimals_and_no_symbol() {
        check(
            &[
                (En, "KWD~1.250"),
                (De, "1,250~KWD"),
                (Fr, "1,250~KWD"),
                (Es, "1,250~KWD"),
                (Nl, "KWD~1,250"),
                (Pt, "KWD~1,250"),
            ],
            |l| l.money(m(1250), cur("KWD")),
        );
        check(&[(En, "BHD~1,234.567"), (De, "1.234,567~BHD")], |l| {
            l.money(m(1_234_567), cur("BHD"))
        });
        check(&[(En, "OMR~0.001")], |l| l.money(m(1), cur("OMR")));
    }

    #[test]
    fn dollar_and_pound_follow_each_locale() {
        check(
            &[
                (En, "$1,234.50"),
                (De, "1.234,50~$"),
                (Fr, "1^234,50~$US"),
                (Es, "1234,50~US$"),
                (Nl, "US$~1.234,50"),
                (Pt, "US$~1.234,50"),
            ],
            |l| l.money(m(123_450), cur("USD")),
        );
        check(
            &[
                (En, "£12.50"),
                (De, "12,50~£"),
                (Fr, "12,50~£GB"),
                (Es, "12,50~GBP"),
                (Nl, "£~12,50"),
                (Pt, "£~12,50"),
            ],
            |l| l.money(m(1250), cur("GBP")),
        );
        check(&[(En, "CHF~12.50"), (En, "CHF~12.50")], |l| {
            l.money(m(1250), cur("CHF"))
        });
    }

    #[test]
    fn dates() {
        let d = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap();
        check(
            &[
                (En, "Dec 31, 2026"),
                (De, "31.12.2026"),
                (Fr, "31/12/2026"),
                (Es, "31/12/2026"),
                (Nl, "31-12-2026"),
                (Pt, "31/12/2026"),
            ],
            |l| l.date(d(2026, 12, 31)),
        );
        check(
            &[
                (En, "Jan 5, 2026"),
                (De, "05.01.2026"),
                (Fr, "05/01/2026"),
                (Nl, "05-01-2026"),
            ],
            |l| l.date(d(2026, 1, 5)),
        );
        let months: Vec<_> = (1..=12).map(|mo| En.date(d(2026, mo, 1))).collect();
        assert_eq!(months[4], "May 1, 2026");
        assert_eq!(months[8], "Sep 1, 2026");
        assert!(months.iter().all(|s| s.len() == "Jan 1, 2026".len()));
    }

    #[test]
    fn quantities_drop_trailing_zeros() {
        let q = |s: &str| Quantity::parse(s).unwrap();
        check(
            &[
                (En, "1.5"),
                (De, "1,5"),
                (Fr, "1,5"),
                (Es, "1,5"),
                (Nl, "1,5"),
                (Pt, "1,5"),
            ],
            |l| l.quantity(q("1.500")),
        );
        check(&[(En, "2"), (De, "2")], |l| l.quantity(q("2")));
        check(&[(En, "0.125"), (Fr, "0,125")], |l| l.quantity(q("0.125")));
        check(
            &[
                (En, "1,000,000"),
                (De, "1.000.000"),
                (Fr, "1^000^000"),
                (Es, "1.000.000"),
            ],
            |l| l.quantity(q("1000000")),
        );
        check(&[(En, "1,234.5"), (Es, "1234,5"), (De, "1.234,5")], |l| {
            l.quantity(q("1234.5"))
        });
    }

    #[test]
    fn percentages_follow_cldr_patterns() {
        let r = |s: &str| TaxRate::parse(s).unwrap();
        check(
            &[
                (En, "19%"),
                (De, "19~%"),
                (Fr, "19^%"),
                (Es, "19~%"),
                (Nl, "19%"),
                (Pt, "19%"),
            ],
            |l| l.percent(r("19")),
        );
        check(&[(En, "7.125%"), (De, "7,125~%"), (Fr, "5,5^%")], |l| {
            l.percent(if l == Fr { r("5.5") } else { r("7.125") })
        });
        check(&[(En, "0%"), (De, "100~%")], |l| {
            l.percent(if l == En { TaxRate::ZERO } else { r("100") })
        });
    }

    fn any_currency() -> impl Strategy<Value = Currency> {
        let all: Vec<Currency> = Currency::all().collect();
        proptest::sample::select(all)
    }

    proptest! {
        #[test]
        fn money_never_panics_and_keeps_its_digits(
            minor in -MAX_AMOUNT..=MAX_AMOUNT,
            currency in any_currency(),
        ) {
            let amount = m(minor);
            for l in Locale::all() {
                let text = l.money(amount, currency);
                let digits: String = text.chars().filter(char::is_ascii_digit).collect();
                // Every digit of the amount appears, in order, and nothing else (symbols and
                // codes carry no digits).
                let expected = format!(
                    "{:0width$}",
                    minor.unsigned_abs(),
                    width = usize::from(currency.exponent()) + 1
                );
                prop_assert_eq!(digits, expected);
                prop_assert_eq!(text.contains('-'), minor < 0);
            }
        }
    }
}
