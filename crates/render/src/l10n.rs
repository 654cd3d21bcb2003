//! TEMPORARY stand-in for `invoicing_domain::locale` (being written on branch `locale`), with
//! the same method names so the switch is an import change. Removed once that branch lands.

use chrono::{Datelike, NaiveDate};
use invoicing_domain::currency::Currency;
use invoicing_domain::decimal::{Quantity, TaxRate};
use invoicing_domain::money::Money;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Locale {
    #[default]
    En,
    Es,
    Fr,
    De,
    Nl,
    Pt,
}

impl Locale {
    fn catalogue(self) -> &'static str {
        match self {
            Locale::En => include_str!("l10n/en.txt"),
            Locale::Es => include_str!("l10n/es.txt"),
            Locale::Fr => include_str!("l10n/fr.txt"),
            Locale::De => include_str!("l10n/de.txt"),
            Locale::Nl => include_str!("l10n/nl.txt"),
            Locale::Pt => include_str!("l10n/pt.txt"),
        }
    }

    pub fn text(self, key: &str) -> &'static str {
        self.catalogue()
            .lines()
            .filter_map(|l| l.split_once(" = "))
            .find(|(k, _)| *k == key)
            .map_or("", |(_, v)| v)
    }

    pub fn fill(self, key: &str, args: &[(&str, &str)]) -> String {
        let mut s = self.text(key).to_string();
        for (k, v) in args {
            s = s.replace(&format!("{{{k}}}"), v);
        }
        s
    }

    pub fn date(self, d: NaiveDate) -> String {
        let (y, m, day) = (d.year(), d.month(), d.day());
        match self {
            Locale::En => format!("{y:04}-{m:02}-{day:02}"),
            Locale::De => format!("{day:02}.{m:02}.{y:04}"),
            Locale::Nl => format!("{day:02}-{m:02}-{y:04}"),
            _ => format!("{day:02}/{m:02}/{y:04}"),
        }
    }

    fn separators(self) -> (&'static str, &'static str) {
        match self {
            Locale::En => (",", "."),
            Locale::Fr => ("\u{202f}", ","),
            _ => (".", ","),
        }
    }

    fn number(self, int: u64, frac: Option<String>) -> String {
        let (group, dec) = self.separators();
        let digits = int.to_string();
        let mut out = String::new();
        let phase = digits.len() % 3;
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && i % 3 == phase {
                out.push_str(group);
            }
            out.push(c);
        }
        if let Some(f) = frac {
            out.push_str(dec);
            out.push_str(&f);
        }
        out
    }

    pub fn money(self, m: Money, c: Currency) -> String {
        let e = u32::from(c.exponent());
        let scale = 10u64.pow(e);
        let mag = m.minor().unsigned_abs();
        let frac = (e > 0).then(|| format!("{:0w$}", mag % scale, w = e as usize));
        let n = self.number(mag / scale, frac);
        let sign = if m.is_negative() { "-" } else { "" };
        let sym = c.symbol().unwrap_or(c.code());
        match self {
            Locale::En => format!("{sign}{sym}{n}"),
            _ => format!("{sign}{n}\u{a0}{sym}"),
        }
    }

    fn thousandths(self, t: i64) -> String {
        let mag = t.unsigned_abs();
        let frac = (mag % 1000 != 0).then(|| {
            format!("{:03}", mag % 1000)
                .trim_end_matches('0')
                .to_string()
        });
        let sign = if t < 0 { "-" } else { "" };
        format!("{sign}{}", self.number(mag / 1000, frac))
    }

    pub fn quantity(self, q: Quantity) -> String {
        self.thousandths(q.thousandths())
    }

    pub fn percent(self, r: TaxRate) -> String {
        match self {
            Locale::En | Locale::Nl => format!("{}%", self.thousandths(r.thousandths())),
            _ => format!("{}\u{a0}%", self.thousandths(r.thousandths())),
        }
    }
}
