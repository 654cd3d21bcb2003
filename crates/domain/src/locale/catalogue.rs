//! The message catalogues: `locales/<code>.txt` and the dashboard's `locales/dashboard/<code>.txt`
//! (one catalogue per locale, kept in two files), one `key = value` per line, `#` starts a
//! comment line, `\n` in a value is a line break (for e-mail bodies). Embedded at build time so
//! the domain stays free of I/O, and parsed once on first use.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::Locale;

pub(super) type Catalogue = HashMap<String, String>;

fn source(locale: Locale) -> &'static str {
    match locale {
        Locale::En => concat!(
            include_str!("../../locales/en.txt"),
            "\n",
            include_str!("../../locales/dashboard/en.txt")
        ),
        Locale::Es => concat!(
            include_str!("../../locales/es.txt"),
            "\n",
            include_str!("../../locales/dashboard/es.txt")
        ),
        Locale::Fr => concat!(
            include_str!("../../locales/fr.txt"),
            "\n",
            include_str!("../../locales/dashboard/fr.txt")
        ),
        Locale::De => concat!(
            include_str!("../../locales/de.txt"),
            "\n",
            include_str!("../../locales/dashboard/de.txt")
        ),
        Locale::Nl => concat!(
            include_str!("../../locales/nl.txt"),
            "\n",
            include_str!("../../locales/dashboard/nl.txt")
        ),
        Locale::Pt => concat!(
            include_str!("../../locales/pt.txt"),
            "\n",
            include_str!("../../locales/dashboard/pt.txt")
        ),
    }
}

/// A parsed catalogue and what was wrong with its file. At run time problems are ignored (a
/// bad line only loses its key, which then falls back to English); the tests insist on none.
pub(super) struct Parsed {
    pub(super) entries: Catalogue,
    // Only the tests read this; the run-time path deliberately ignores it.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(super) problems: Vec<String>,
}

pub(super) fn parse(text: &str) -> Parsed {
    let mut entries = Catalogue::new();
    let mut problems = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            problems.push(format!("line {}: no `=`", n + 1));
            continue;
        };
        let (key, value) = (key.trim(), value.trim().replace("\\n", "\n"));
        if key.is_empty() || key.contains(char::is_whitespace) {
            problems.push(format!("line {}: bad key {key:?}", n + 1));
            continue;
        }
        if entries.insert(key.to_string(), value).is_some() {
            problems.push(format!("line {}: duplicate key {key}", n + 1));
        }
    }
    Parsed { entries, problems }
}

/// Every locale's file of one kind (`source` names it), parsed.
pub(super) fn parse_all(source: fn(Locale) -> &'static str) -> HashMap<Locale, Catalogue> {
    Locale::all()
        .map(|l| (l, parse(source(l)).entries))
        .collect()
}

fn catalogue(locale: Locale) -> &'static Catalogue {
    static CATALOGUES: OnceLock<HashMap<Locale, Catalogue>> = OnceLock::new();
    static EMPTY: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUES
        .get_or_init(|| parse_all(source))
        .get(&locale)
        .unwrap_or_else(|| EMPTY.get_or_init(Catalogue::new))
}

impl Locale {
    /// The catalogue's text for `key`, falling back to English and then to the key itself, so
    /// a missing translation degrades to something readable instead of failing a page. The
    /// result borrows from `key` only for that last fallback: pass a literal and it is
    /// `'static`.
    pub fn text(self, key: &str) -> &str {
        self.lookup(key)
            .or_else(|| Locale::En.lookup(key))
            .unwrap_or(key)
    }

    /// [`Locale::fill`] where the catalogue (or English) has `key`; `None` where neither has.
    pub fn fill_if_known(self, key: &str, values: &[(&str, &str)]) -> Option<String> {
        self.lookup(key)
            .or_else(|| Locale::En.lookup(key))
            .map(|text| substitute(text, values))
    }

    fn lookup(self, key: &str) -> Option<&'static str> {
        catalogue(self)
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// `key`'s text for `n` things, chosen by CLDR's plural rules for the language: the
    /// catalogue holds `key.one`, `key.other` and whichever other categories the language has
    /// (`few`, `many`), each with `{n}` where the count goes ("1 open invoice", "2 offene
    /// Rechnungen"). A category the catalogue lacks falls back to `other`.
    pub fn count(self, key: &str, n: i64) -> String {
        let category = plural_category(self, n);
        let text = self
            .lookup(&format!("{key}.{category}"))
            .or_else(|| self.lookup(&format!("{key}.other")))
            .or_else(|| Locale::En.lookup(&format!("{key}.other")))
            .unwrap_or(key);
        substitute(text, &[("n", &self.integer(n))])
    }

    /// [`Locale::text`] with `{name}` placeholders replaced by their values, in one pass so a
    /// value that itself contains braces is never expanded again. Unknown placeholders are left
    /// as written.
    pub fn fill(self, key: &str, values: &[(&str, &str)]) -> String {
        substitute(self.text(key), values)
    }
}

fn substitute(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after.find('}').and_then(|close| {
            let name = &after[..close];
            values
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v, close))
        });
        match value {
            Some((v, close)) => {
                out.push_str(v);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The CLDR plural category of `n` in the language (`one`, `other`, …). European Portuguese
/// (the catalogue's) counts 0 as plural, as Brazil does not.
fn plural_category(locale: Locale, n: i64) -> &'static str {
    use intl_pluralrules::{PluralCategory, PluralRuleType, PluralRules};
    let tag = match locale {
        Locale::Pt => "pt-PT",
        other => other.code(),
    };
    let rules = tag
        .parse::<unic_langid::LanguageIdentifier>()
        .ok()
        .and_then(|id| PluralRules::create(id, PluralRuleType::CARDINAL).ok());
    match rules.and_then(|r| r.select(n).ok()) {
        Some(PluralCategory::ZERO) => "zero",
        Some(PluralCategory::ONE) => "one",
        Some(PluralCategory::TWO) => "two",
        Some(PluralCategory::FEW) => "few",
        Some(PluralCategory::MANY) => "many",
        Some(PluralCategory::OTHER) | None => "other",
    }
}

/// The `{name}` placeholders of a text, sorted and de-duplicated.
#[cfg(test)]
fn placeholders(text: &str) -> Vec<&str> {
    let mut names: Vec<&str> = text
        .split('{')
        .skip(1)
        .filter_map(|part| part.split_once('}').map(|(name, _)| name))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn parsed(l: Locale) -> Parsed {
        parse(source(l))
    }

    #[test]
    fn every_file_parses_cleanly() {
        for l in Locale::all() {
            let p = parsed(l);
            assert!(p.problems.is_empty(), "{l}: {:?}", p.problems);
            assert!(p.entries.len() >= 90, "{l}: {}", p.entries.len());
        }
    }

    #[test]
    fn every_catalogue_has_exactly_the_english_keys() {
        let en: BTreeSet<String> = parsed(Locale::En).entries.into_keys().collect();
        for l in Locale::all() {
            let keys: BTreeSet<String> = parsed(l).entries.into_keys().collect();
            let missing: Vec<_> = en.difference(&keys).collect();
            let extra: Vec<_> = keys.difference(&en).collect();
            assert!(missing.is_empty(), "{l} lacks {missing:?}");
            assert!(extra.is_empty(), "{l} has keys en lacks: {extra:?}");
        }
    }

    #[test]
    fn no_empty_values_and_matching_placeholders() {
        let en = parsed(Locale::En).entries;
        for l in Locale::all() {
            for (key, value) in parsed(l).entries {
                assert!(!value.is_empty(), "{l} {key} is empty");
                assert_eq!(
                    value.matches('{').count(),
                    value.matches('}').count(),
                    "{l} {key}"
                );
                let english = en.get(&key).map(String::as_str).unwrap_or_default();
                assert_eq!(
                    placeholders(&value),
                    placeholders(english),
                    "{l} {key}: {value:?}"
                );
            }
        }
    }

    #[test]
    fn translations_are_not_english_copies() {
        // Short labels may coincide ("Total", "Status", "Notes" in nl…); whole sentences must not.
        let en = parsed(Locale::En).entries;
        for l in Locale::all().filter(|&l| l != Locale::En) {
            for (key, value) in parsed(l).entries {
                if value.split_whitespace().count() >= 4 {
                    assert_ne!(Some(&value), en.get(&key), "{l} {key} is English");
                }
            }
        }
    }

    #[test]
    fn text_falls_back_to_english_then_to_the_key() {
        assert_eq!(Locale::En.text("doc.invoice"), "Invoice");
        assert_eq!(Locale::De.text("doc.invoice"), "Rechnung");
        assert_eq!(Locale::Fr.text("doc.quotation"), "Devis");
        assert_eq!(Locale::Nl.text("no.such.key"), "no.such.key");
        assert_eq!(Locale::Es.text(""), "");
        let english = Locale::En.text("totals.total");
        assert!(Locale::all().all(|l| !l.text("totals.total").is_empty()));
        assert_eq!(english, "Total");
    }

    #[test]
    fn email_bodies_have_line_breaks() {
        for l in Locale::all() {
            let body = l.text("email.invoice.body");
            assert!(body.contains("\n\n"), "{l}");
            assert!(!body.contains("\\n"), "{l}");
        }
    }

    #[test]
    fn fill_substitutes_once() {
        let nbsp19 = "19\u{a0}%";
        assert_eq!(
            Locale::De.fill("totals.tax_at_rate", &[("rate", nbsp19)]),
            format!("MwSt. {nbsp19}")
        );
        assert_eq!(
            Locale::En.fill("pdf.page_of", &[("n", "2"), ("m", "3")]),
            "Page 2 of 3"
        );
        assert_eq!(substitute("{a}{b}", &[("a", "{b}"), ("b", "x")]), "{b}x");
        assert_eq!(substitute("{unknown} {", &[("a", "1")]), "{unknown} {");
        assert_eq!(substitute("}{a", &[("a", "1")]), "}{a");
        assert_eq!(substitute("é{a}ü", &[("a", "ß")]), "éßü");
    }

    /// Issue 54: counts read right in every language, by CLDR's rules (French counts 0 as
    /// singular, European Portuguese as plural).
    #[test]
    fn counts_take_the_languages_plural_forms() {
        let open = "dash.home.open_count";
        assert_eq!(Locale::En.count(open, 1), "1 open invoice");
        assert_eq!(Locale::En.count(open, 2), "2 open invoices");
        assert_eq!(Locale::En.count(open, 0), "0 open invoices");
        assert_eq!(Locale::En.count(open, 1200), "1,200 open invoices");
        assert_eq!(Locale::De.count(open, 1), "1 offene Rechnung");
        assert_eq!(Locale::De.count(open, 2), "2 offene Rechnungen");
        assert_eq!(Locale::De.count(open, 1200), "1.200 offene Rechnungen");
        assert_eq!(Locale::Fr.count(open, 0), "0 facture non réglée");
        assert_eq!(Locale::Fr.count(open, 2), "2 factures non réglées");
        assert_eq!(Locale::Pt.count(open, 0), "0 faturas em aberto");
        assert_eq!(Locale::Pt.count(open, 1), "1 fatura em aberto");
        assert_eq!(Locale::Nl.count(open, 1), "1 openstaande factuur");
        assert_eq!(Locale::Es.count(open, 3), "3 facturas pendientes");
        assert_eq!(
            Locale::En.count("dash.recurring.every_months", 1),
            "Every month"
        );
        assert_eq!(
            Locale::De.count("dash.recurring.every_weeks", 2),
            "Alle 2 Wochen"
        );
        // Every counted key has its singular and its plural in every language.
        let en = parsed(Locale::En).entries;
        for key in en.keys().filter_map(|k| k.strip_suffix(".one")) {
            for l in Locale::all() {
                assert!(l.lookup(&format!("{key}.one")).is_some(), "{l} {key}.one");
                assert!(
                    l.lookup(&format!("{key}.other")).is_some(),
                    "{l} {key}.other"
                );
            }
        }
    }

    #[test]
    fn placeholders_are_found() {
        assert_eq!(placeholders("a {x} b {y} {x}"), vec!["x", "y"]);
        assert!(placeholders("none").is_empty());
    }

    #[test]
    fn parse_reports_problems() {
        let p = parse("# c\n\na = 1\nb\na = 2\n x y = 3\nc = x\\ny");
        assert_eq!(p.problems.len(), 3, "{:?}", p.problems);
        assert_eq!(p.entries.get("c").map(String::as_str), Some("x\ny"));
    }
}
