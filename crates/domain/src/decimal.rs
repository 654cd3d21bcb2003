//! Exact decimals with at most three fractional digits, stored as integer thousandths so that
//! money math never touches floating point.

use std::borrow::Cow;
use std::fmt;

use serde::{Serialize, Serializer};
use serde_json::Value;

/// Why a quantity or tax rate was refused; messages are shown to API clients verbatim.
#[derive(Debug, thiserror::Error, PartialEq, Eq, Clone)]
pub enum DecimalError {
    #[error("must be a decimal number")]
    Invalid,
    #[error("must have at most 3 decimal places")]
    TooPrecise,
    #[error("must be greater than 0")]
    NotPositive,
    #[error("must be at most {0}")]
    TooLarge(&'static str),
    #[error("must be between 0 and 100")]
    OutOfRange,
}

/// Longer inputs are refused outright; keeps parsing cheap and bounded for hostile input.
pub const MAX_TEXT_LEN: usize = 32;
pub const SCALE: i128 = 1000;
pub const MAX_QUANTITY: i64 = 1_000_000 * 1000;
pub const MAX_TAX_RATE: i64 = 100 * 1000;

/// A line quantity (> 0, ≤ 1 000 000), exact to 0.001 so `quantity × price` is integer math.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Quantity(i64);

/// A tax rate in percent (0 to 100), exact to 0.001 % so tax is computed without floats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaxRate(i64);

impl Quantity {
    pub fn parse(s: &str) -> Result<Quantity, DecimalError> {
        Quantity::from_wide(parse_thousandths(s)?)
    }

    pub fn from_thousandths(thousandths: i64) -> Result<Quantity, DecimalError> {
        Quantity::from_wide(i128::from(thousandths))
    }

    /// Accepts what API clients send: a JSON number or a decimal string.
    pub fn from_json(v: &Value) -> Result<Quantity, DecimalError> {
        Quantity::parse(&json_text(v)?)
    }

    pub fn thousandths(self) -> i64 {
        self.0
    }

    fn from_wide(t: i128) -> Result<Quantity, DecimalError> {
        if t <= 0 {
            Err(DecimalError::NotPositive)
        } else if t > i128::from(MAX_QUANTITY) {
            Err(DecimalError::TooLarge("1000000"))
        } else {
            i64::try_from(t)
                .map(Quantity)
                .map_err(|_| DecimalError::TooLarge("1000000"))
        }
    }
}

impl TaxRate {
    pub const ZERO: TaxRate = TaxRate(0);

    pub fn parse(s: &str) -> Result<TaxRate, DecimalError> {
        TaxRate::from_wide(parse_thousandths(s)?)
    }

    pub fn from_thousandths(thousandths: i64) -> Result<TaxRate, DecimalError> {
        TaxRate::from_wide(i128::from(thousandths))
    }

    /// Accepts what API clients send: a JSON number or a decimal string.
    pub fn from_json(v: &Value) -> Result<TaxRate, DecimalError> {
        TaxRate::parse(&json_text(v)?)
    }

    pub fn thousandths(self) -> i64 {
        self.0
    }

    fn from_wide(t: i128) -> Result<TaxRate, DecimalError> {
        if (0..=i128::from(MAX_TAX_RATE)).contains(&t) {
            i64::try_from(t)
                .map(TaxRate)
                .map_err(|_| DecimalError::OutOfRange)
        } else {
            Err(DecimalError::OutOfRange)
        }
    }
}

/// Signed thousandths of the text. A leading '-' is accepted here (only) so that the range
/// check, not the syntax check, answers "-1": the client then learns what is actually wrong.
fn parse_thousandths(s: &str) -> Result<i128, DecimalError> {
    if s.len() > MAX_TEXT_LEN {
        return Err(DecimalError::Invalid);
    }
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (int_part, frac_part) = match body.split_once('.') {
        Some((_, "")) => return Err(DecimalError::Invalid),
        Some((int_part, frac_part)) => (int_part, frac_part),
        None => (body, ""),
    };
    let all_digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if (int_part.is_empty() && frac_part.is_empty())
        || !all_digits(int_part)
        || !all_digits(frac_part)
    {
        return Err(DecimalError::Invalid);
    }
    // Trailing zeros carry no precision: "1.5000" is just 1.5.
    let frac_part = frac_part.trim_end_matches('0');
    if frac_part.len() > 3 {
        return Err(DecimalError::TooPrecise);
    }
    // At most 32 digits, so < 10^35 thousandths: fits i128 without any overflow check.
    let digits_value = |t: &str| {
        t.bytes()
            .fold(0i128, |acc, b| acc * 10 + i128::from(b - b'0'))
    };
    let mut frac = digits_value(frac_part);
    for _ in frac_part.len()..3 {
        frac *= 10;
    }
    let magnitude = digits_value(int_part) * SCALE + frac;
    Ok(if negative { -magnitude } else { magnitude })
}

/// A quantity or a rate as a client wrote it: a JSON number (`19`, `2.5`) or a string (`"19"`),
/// or a form's text field. Read into a [`Quantity`] or a [`TaxRate`] by the parser of the
/// body it came in; anything else JSON holds (`true`, `{}`) is kept as unreadable, for that
/// parser to refuse beside the field (422) instead of the whole body (400).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecimalText(Option<String>);

impl DecimalText {
    /// Text as typed, to be read as a decimal (with a point or a comma).
    pub fn typed(text: impl Into<String>) -> DecimalText {
        DecimalText(Some(text.into()))
    }

    pub fn quantity(&self) -> Result<Quantity, DecimalError> {
        Quantity::parse(self.0.as_deref().ok_or(DecimalError::Invalid)?)
    }

    pub fn tax_rate(&self) -> Result<TaxRate, DecimalError> {
        TaxRate::parse(self.0.as_deref().ok_or(DecimalError::Invalid)?)
    }
}

impl<'de> serde::Deserialize<'de> for DecimalText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<DecimalText, D::Error> {
        let v = <Value as serde::Deserialize>::deserialize(d)?;
        Ok(DecimalText(json_text(&v).ok().map(Cow::into_owned)))
    }
}

/// The exact decimal text of a JSON value. For floats, Rust's `Display` of an f64 is the
/// shortest text that round-trips, i.e. what the client wrote ("0.1" stays "0.1").
fn json_text(v: &Value) -> Result<Cow<'_, str>, DecimalError> {
    match v {
        Value::String(s) => Ok(Cow::Borrowed(s)),
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().ok_or(DecimalError::Invalid)?;
            let text = f.to_string();
            if !f.is_finite() || text.contains(['e', 'E']) {
                return Err(DecimalError::Invalid);
            }
            Ok(Cow::Owned(text))
        }
        Value::Number(n) => Ok(Cow::Owned(n.to_string())),
        _ => Err(DecimalError::Invalid),
    }
}

/// Normalised text: no trailing zeros and no trailing point ("2", "1.5", "0.125"). Written
/// into a buffer on the stack: every line of every invoice a list or get answers prints two.
fn thousandths_text(t: i64, buf: &mut [u8; 24]) -> &str {
    let (whole, frac) = (t.unsigned_abs() / 1000, t.unsigned_abs() % 1000);
    let mut len = 0;
    let mut push = |bytes: &[u8]| {
        buf[len..len + bytes.len()].copy_from_slice(bytes);
        len += bytes.len();
    };
    if t < 0 {
        push(b"-");
    }
    push(itoa::Buffer::new().format(whole).as_bytes());
    if frac != 0 {
        let places = [
            b'.',
            b'0' + (frac / 100) as u8,
            b'0' + (frac / 10 % 10) as u8,
            b'0' + (frac % 10) as u8,
        ];
        let kept = places.iter().rposition(|&d| d != b'0').map_or(0, |i| i + 1);
        push(&places[..kept]);
    }
    // Only ASCII digits, '-' and '.' were written.
    std::str::from_utf8(&buf[..len]).unwrap_or_default()
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(thousandths_text(self.0, &mut [0; 24]))
    }
}

impl fmt::Display for TaxRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(thousandths_text(self.0, &mut [0; 24]))
    }
}

impl Serialize for Quantity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(thousandths_text(self.0, &mut [0; 24]))
    }
}

impl Serialize for TaxRate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(thousandths_text(self.0, &mut [0; 24]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The text as it was written with `format!` before the stack buffer: the same for every
    /// quantity and rate, the largest included.
    #[test]
    fn thousandths_print_as_format_would() {
        let by_format = |t: i64| {
            let (whole, frac) = (t / 1000, t % 1000);
            let frac = format!("{frac:03}");
            match frac.trim_end_matches('0') {
                "" => format!("{whole}"),
                kept => format!("{whole}.{kept}"),
            }
        };
        let samples = (0..=120_000).chain([MAX_QUANTITY - 1, MAX_QUANTITY, i64::MAX]);
        for t in samples {
            assert_eq!(thousandths_text(t, &mut [0; 24]), by_format(t), "{t}");
        }
        assert_eq!(thousandths_text(-1500, &mut [0; 24]), "-1.5");
        let rate = TaxRate::from_thousandths(19_500).unwrap();
        assert_eq!(serde_json::to_string(&rate).unwrap(), "\"19.5\"");
        assert_eq!(format!("{rate}"), "19.5");
    }

    fn q(s: &str) -> Result<String, DecimalError> {
        Quantity::parse(s).map(|v| v.to_string())
    }

    fn r(s: &str) -> Result<String, DecimalError> {
        TaxRate::parse(s).map(|v| v.to_string())
    }

    #[test]
    fn quantity_parses_and_normalises() {
        for (input, out) in [
            ("1.5", "1.5"),
            ("2", "2"),
            ("2.000", "2"),
            ("1.5000", "1.5"),
            ("0.125", "0.125"),
            (".5", "0.5"),
            ("007", "7"),
            ("0.001", "0.001"),
            ("1000000", "1000000"),
            ("1000000.000", "1000000"),
            ("10.01", "10.01"),
        ] {
            assert_eq!(q(input).as_deref(), Ok(out), "{input:?}");
        }
        assert_eq!(Quantity::parse("1.5").map(Quantity::thousandths), Ok(1500));
    }

    #[test]
    fn quantity_rejections() {
        use DecimalError::*;
        for (input, err) in [
            ("1.0005", TooPrecise),
            ("0", NotPositive),
            ("0.000", NotPositive),
            ("-1", NotPositive),
            ("-0.5", NotPositive),
            ("1000000.001", TooLarge("1000000")),
            ("99999999999999999999999999999999", TooLarge("1000000")),
            ("1e3", Invalid),
            (" 1", Invalid),
            ("1 ", Invalid),
            ("", Invalid),
            ("-", Invalid),
            (".", Invalid),
            ("1.", Invalid),
            ("+1", Invalid),
            ("--1", Invalid),
            ("1.2.3", Invalid),
            ("1,5", Invalid),
            ("NaN", Invalid),
            ("١", Invalid),
            ("000000000000000000000000000000001", Invalid),
        ] {
            assert_eq!(q(input), Err(err), "{input:?}");
        }
        assert_eq!(
            DecimalError::TooLarge("1000000").to_string(),
            "must be at most 1000000"
        );
    }

    #[test]
    fn quantity_from_thousandths() {
        assert_eq!(
            Quantity::from_thousandths(1).map(|v| v.to_string()),
            Ok("0.001".into())
        );
        assert_eq!(
            Quantity::from_thousandths(0),
            Err(DecimalError::NotPositive)
        );
        assert_eq!(
            Quantity::from_thousandths(i64::MIN),
            Err(DecimalError::NotPositive)
        );
        assert!(Quantity::from_thousandths(MAX_QUANTITY).is_ok());
        assert_eq!(
            Quantity::from_thousandths(MAX_QUANTITY + 1),
            Err(DecimalError::TooLarge("1000000"))
        );
    }

    #[test]
    fn tax_rate_bounds() {
        assert_eq!(r("0").as_deref(), Ok("0"));
        assert_eq!(r("-0").as_deref(), Ok("0"));
        assert_eq!(r("100").as_deref(), Ok("100"));
        assert_eq!(r("19").as_deref(), Ok("19"));
        assert_eq!(r("7.125").as_deref(), Ok("7.125"));
        assert_eq!(r("100.001"), Err(DecimalError::OutOfRange));
        assert_eq!(r("-1"), Err(DecimalError::OutOfRange));
        assert_eq!(r("-0.001"), Err(DecimalError::OutOfRange));
        assert_eq!(r("19.0001"), Err(DecimalError::TooPrecise));
        assert_eq!(r("19%"), Err(DecimalError::Invalid));
        assert_eq!(TaxRate::ZERO.thousandths(), 0);
        assert_eq!(
            TaxRate::from_thousandths(100_001),
            Err(DecimalError::OutOfRange)
        );
        assert_eq!(TaxRate::from_thousandths(-1), Err(DecimalError::OutOfRange));
    }

    #[test]
    fn from_json_numbers_and_strings() {
        let qj = |v: Value| Quantity::from_json(&v).map(|x| x.to_string());
        assert_eq!(qj(json!(1.5)).as_deref(), Ok("1.5"));
        assert_eq!(qj(json!(2)).as_deref(), Ok("2"));
        assert_eq!(qj(json!(2.0)).as_deref(), Ok("2"));
        assert_eq!(qj(json!(0.1)).as_deref(), Ok("0.1"));
        assert_eq!(qj(json!("1.5")).as_deref(), Ok("1.5"));
        assert_eq!(qj(json!(1.0005)), Err(DecimalError::TooPrecise));
        assert_eq!(qj(json!(-3)), Err(DecimalError::NotPositive));
        assert_eq!(qj(json!(u64::MAX)), Err(DecimalError::TooLarge("1000000")));
        assert_eq!(qj(json!(1e300)), Err(DecimalError::Invalid));
        assert_eq!(qj(json!(1e-7)), Err(DecimalError::TooPrecise));
        assert_eq!(qj(json!(null)), Err(DecimalError::Invalid));
        assert_eq!(qj(json!(true)), Err(DecimalError::Invalid));
        assert_eq!(qj(json!([1])), Err(DecimalError::Invalid));
        // Text parsed by serde_json, as a request body would be.
        let parsed: Value = serde_json::from_str("[1.50, 19.5, -0, 100.0]").unwrap();
        assert_eq!(qj(parsed[0].clone()).as_deref(), Ok("1.5"));
        let rates: Vec<_> = (1..4)
            .map(|i| TaxRate::from_json(&parsed[i]).map(|x| x.to_string()))
            .collect();
        assert_eq!(
            rates,
            vec![Ok("19.5".to_string()), Ok("0".into()), Ok("100".into())]
        );
        assert_eq!(
            TaxRate::from_json(&json!(100.5)),
            Err(DecimalError::OutOfRange)
        );
    }

    #[test]
    fn serialises_as_normalised_string() {
        let v = Quantity::parse("1.500").unwrap();
        assert_eq!(serde_json::to_string(&v).unwrap(), "\"1.5\"");
        assert_eq!(serde_json::to_string(&TaxRate::ZERO).unwrap(), "\"0\"");
    }
}
