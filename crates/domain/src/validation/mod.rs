//! Field-level validation: every failing field of a request is collected into one [`Violations`]
//! so that a client fixes all of them in one round trip (SPEC §4, `details`).

mod problem;

pub use problem::{Problem, NOT_BEFORE};
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// One failing input field, addressed the way the client wrote it (`line_items[1].quantity`):
/// what is wrong as a [`Problem`] (its code and values) and the API's English sentence for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FieldError {
    pub param: String,
    pub message: String,
    #[serde(skip)]
    pub problem: Problem,
}

impl FieldError {
    /// What is wrong, in `t`'s words (see [`Problem::say_for`]).
    pub fn say(&self, t: crate::locale::Locale) -> String {
        self.problem.say_for(&self.param, t)
    }
}

/// All failing fields of one request, in the order they were checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Violations(Vec<FieldError>);

impl Violations {
    pub fn new() -> Self {
        Violations(Vec::new())
    }

    pub fn single(param: impl Into<String>, problem: impl Into<Problem>) -> Self {
        let mut v = Violations::new();
        v.push(param, problem);
        v
    }

    /// Records `problem` for `param`; a plain sentence is a problem without a code of its own.
    pub fn push(&mut self, param: impl Into<String>, problem: impl Into<Problem>) {
        let problem = problem.into();
        self.0.push(FieldError {
            param: param.into(),
            message: problem.to_string(),
            problem,
        });
    }

    /// Adds another set of violations whose params are relative to `prefix` (for nested objects).
    pub fn extend_prefixed(&mut self, prefix: &str, other: Violations) {
        for e in other.0 {
            self.push(join_param(prefix, &e.param), e.problem);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn errors(&self) -> &[FieldError] {
        &self.0
    }

    pub fn into_errors(self) -> Vec<FieldError> {
        self.0
    }

    /// `Ok(value)` when nothing failed, so a parser can end with `violations.finish(build)`.
    pub fn finish<T>(self, build: impl FnOnce() -> T) -> Result<T, Violations> {
        if self.0.is_empty() {
            Ok(build())
        } else {
            Err(self)
        }
    }
}

impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.first() {
            Some(e) => write!(f, "{} {}", e.param, e.message),
            None => f.write_str("no violations"),
        }
    }
}

impl std::error::Error for Violations {}

pub fn join_param(prefix: &str, param: &str) -> String {
    if prefix.is_empty() {
        param.to_string()
    } else if param.starts_with('[') {
        format!("{prefix}{param}")
    } else {
        format!("{prefix}.{param}")
    }
}

/// A document's or product's `currency` field: absent is `None`, an unknown code a violation.
pub fn parse_currency(
    v: &mut Violations,
    raw: Option<String>,
) -> Option<crate::currency::Currency> {
    let raw = raw?;
    crate::currency::Currency::parse(&raw)
        .map_err(|e| v.push("currency", e))
        .ok()
}

/// A required text field: present, not blank, at most `max` characters.
pub fn required_text(
    v: &mut Violations,
    param: &str,
    value: Option<String>,
    max: usize,
) -> Option<String> {
    match value {
        None => {
            v.push(param, Problem::Required);
            None
        }
        Some(s) => check_text(v, param, s, max, false),
    }
}

/// An optional text field: absent is fine; present must be within `max` characters.
/// An empty string is read as "no value" so clients can clear a field either way.
pub fn optional_text(
    v: &mut Violations,
    param: &str,
    value: Option<String>,
    max: usize,
) -> Option<String> {
    let s = value?;
    // Blank is "no value", but only within the length limit, which holds for every text sent.
    if s.trim().is_empty() && s.chars().count() <= max {
        return None;
    }
    check_text(v, param, s, max, true)
}

/// Characters no text takes: the C0 and C1 controls but tab, line feed and carriage return,
/// and the bidirectional embeddings, overrides and isolates, which can make a name or an
/// amount display as something else on an invoice ("Trojan Source"). The document's schemas
/// are built from the same ranges.
pub const REFUSED_CHARACTERS: &[(char, char)] = &[
    ('\u{0}', '\u{8}'),
    ('\u{b}', '\u{c}'),
    ('\u{e}', '\u{1f}'),
    ('\u{7f}', '\u{9f}'),
    ('\u{202a}', '\u{202e}'),
    ('\u{2066}', '\u{2069}'),
];

pub const CONTROL_CHARACTERS_REFUSED: &str = "must not contain control characters";

/// Whether `c` is one of [`REFUSED_CHARACTERS`].
pub fn is_refused_character(c: char) -> bool {
    REFUSED_CHARACTERS
        .iter()
        .any(|&(low, high)| (low..=high).contains(&c))
}

/// What is wrong with the characters of `s`, if anything: NUL, then the other refused ones.
pub fn refused_characters(s: &str) -> Option<&'static str> {
    if s.contains('\0') {
        // Whatever the transport (JSON, an HTML form), text never carries NUL (SPEC §3).
        Some("must not contain NUL characters")
    } else if s.chars().any(is_refused_character) {
        Some(CONTROL_CHARACTERS_REFUSED)
    } else {
        None
    }
}

fn check_text(
    v: &mut Violations,
    param: &str,
    s: String,
    max: usize,
    allow_blank: bool,
) -> Option<String> {
    if let Some(refused) = refused_characters(&s) {
        v.push(param, Problem::Characters(refused));
        None
    } else if !allow_blank && s.trim().is_empty() {
        v.push(param, Problem::Blank);
        None
    } else if s.chars().count() > max {
        v.push(param, Problem::TooLong { max });
        None
    } else {
        Some(s)
    }
}

pub const METADATA_MAX_PAIRS: usize = 50;
pub const METADATA_MAX_KEY: usize = 40;
pub const METADATA_MAX_VALUE: usize = 500;

/// Free-form string pairs a client attaches to a resource; bounded so it cannot become a blob store.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct Metadata(BTreeMap<String, String>);

impl Metadata {
    pub fn parse(param: &str, raw: BTreeMap<String, String>) -> Result<Metadata, Violations> {
        let mut v = Violations::new();
        if raw.len() > METADATA_MAX_PAIRS {
            v.push(
                param,
                format!("must have at most {METADATA_MAX_PAIRS} keys"),
            );
        }
        for (key, value) in &raw {
            let at = format!("{param}.{key}");
            if key.is_empty() || key.chars().count() > METADATA_MAX_KEY {
                v.push(
                    at.clone(),
                    format!("keys must be 1 to {METADATA_MAX_KEY} characters"),
                );
            }
            if value.chars().count() > METADATA_MAX_VALUE {
                v.push(
                    at,
                    format!("values must be at most {METADATA_MAX_VALUE} characters"),
                );
            }
        }
        v.finish(|| Metadata(raw))
    }

    pub fn as_map(&self) -> &BTreeMap<String, String> {
        &self.0
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.0).unwrap_or_else(|_| "{}".to_string())
    }

    /// Reads what storage wrote with [`Metadata::to_json`]; unreadable text becomes empty metadata
    /// rather than failing a read of an otherwise valid record.
    pub fn from_json(text: &str) -> Metadata {
        Metadata(serde_json::from_str(text).unwrap_or_default())
    }
}

/// For PATCH bodies: tells an absent field (`None`) from an explicit `null` (`Some(None)`).
pub fn double_option<'de, T, D>(de: D) -> Result<Option<Option<T>>, D::Error>
where
    T: Deserialize<'de>,
    D: Deserializer<'de>,
{
    Option::<T>::deserialize(de).map(Some)
}

/// For PATCH bodies (SPEC §4): a field that may be left out but never cleared, read with
/// [`double_option`] so that `null` is not mistaken for "absent" and silently ignored. `null` is
/// a violation naming the field; the value, when given, is the caller's to check.
pub fn not_null<T>(v: &mut Violations, param: &str, value: Option<Option<T>>) -> Option<T> {
    match value {
        Some(None) => {
            v.push(param, Problem::NotNull);
            None
        }
        other => other.flatten(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_text_is_blank_only_within_its_limit() {
        let mut v = Violations::new();
        assert_eq!(optional_text(&mut v, "a", Some("   ".into()), 3), None);
        assert!(v.is_empty());
        assert_eq!(optional_text(&mut v, "b", Some("    ".into()), 3), None);
        assert_eq!(v.errors()[0].param, "b");
        assert_eq!(
            optional_text(&mut v, "c", Some(" x ".into()), 3),
            Some(" x ".into())
        );
    }

    #[test]
    fn text_never_carries_nul() {
        let mut v = Violations::new();
        assert_eq!(required_text(&mut v, "name", Some("a\0b".into()), 10), None);
        assert_eq!(optional_text(&mut v, "reason", Some("\0".into()), 10), None);
        let params: Vec<_> = v.errors().iter().map(|e| e.param.as_str()).collect();
        assert_eq!(params, ["name", "reason"]);
        assert!(v.errors()[0].message.contains("NUL"));
    }

    #[test]
    fn collects_every_failure_in_order() {
        let mut v = Violations::new();
        assert_eq!(required_text(&mut v, "name", None, 10), None);
        assert_eq!(
            required_text(&mut v, "company", Some("  ".into()), 10),
            None
        );
        assert_eq!(
            required_text(&mut v, "x", Some("abc".into()), 10),
            Some("abc".into())
        );
        let params: Vec<_> = v.errors().iter().map(|e| e.param.as_str()).collect();
        assert_eq!(params, ["name", "company"]);
        assert_eq!(v.to_string(), "name is required");
    }

    #[test]
    fn metadata_limits() {
        let mut m = BTreeMap::new();
        for i in 0..51 {
            m.insert(format!("k{i}"), "v".to_string());
        }
        assert!(Metadata::parse("metadata", m).is_err());
        let long_key: BTreeMap<_, _> = [("k".repeat(41), "v".to_string())].into();
        let err = Metadata::parse("metadata", long_key).unwrap_err();
        assert!(err.errors()[0].param.starts_with("metadata.k"));
        let ok: BTreeMap<_, _> = [("k".repeat(40), "v".repeat(500))].into();
        assert!(Metadata::parse("metadata", ok).is_ok());
    }

    #[test]
    fn null_is_refused_where_a_patch_cannot_clear() {
        let mut v = Violations::new();
        assert_eq!(not_null::<i64>(&mut v, "a", None), None);
        assert_eq!(not_null(&mut v, "b", Some(Some(3))), Some(3));
        assert!(v.is_empty());
        assert_eq!(not_null::<i64>(&mut v, "c", Some(None)), None);
        assert_eq!(v.to_string(), "c must not be null");
    }

    #[test]
    fn prefixes_nested_params() {
        let mut outer = Violations::new();
        outer.extend_prefixed("customer", Violations::single("email", "is required"));
        outer.extend_prefixed("line_items", Violations::single("[1].quantity", "bad"));
        assert_eq!(outer.errors()[0].param, "customer.email");
        assert_eq!(outer.errors()[1].param, "line_items[1].quantity");
    }

    #[test]
    fn text_refuses_controls_and_bidi_overrides_but_not_line_breaks() {
        for bad in [
            "a\u{1}b",
            "a\u{7f}",
            "\u{85}x",
            "Ada\u{202e}gnp.exe",
            "\u{2066}x\u{2069}",
        ] {
            let mut v = Violations::new();
            assert_eq!(
                required_text(&mut v, "name", Some(bad.into()), 100),
                None,
                "{bad:?}"
            );
            assert_eq!(v.errors()[0].message, CONTROL_CHARACTERS_REFUSED);
        }
        let mut v = Violations::new();
        let kept = "Line one\r\n\tLine two, \u{200f}\u{5d0}\u{5d1} é";
        assert_eq!(
            optional_text(&mut v, "notes", Some(kept.into()), 100).as_deref(),
            Some(kept)
        );
        assert!(v.is_empty());
    }
}
