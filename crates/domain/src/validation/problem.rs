//! What is wrong with one field, as a program reads it (a code and the values it names) and as
//! people read it: the API's English sentence (SPEC §4), or a sentence in a person's language
//! beside the field of a dashboard or public form (SPEC §27). The rule that finds a problem is
//! written once, in the domain; each front door only chooses how to say it.

use crate::currency::{Currency, CurrencyError};
use crate::decimal::DecimalError;
use crate::locale::Locale;
use crate::money::Money;
use crate::payment_amount::{AmountTextError, PaymentAmountError};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// Absent where a value is needed.
    Required,
    /// `null` on a field that cannot be cleared (SPEC §4).
    NotNull,
    Blank,
    TooLong {
        max: usize,
    },
    /// NUL, a control character or a bidirectional override: the English reason.
    Characters(&'static str),
    NotPositiveInteger,
    /// Not an email address a message can be sent to.
    Email,
    /// Not a currency of ISO 4217.
    Currency,
    /// A quantity or a percentage that is not a number the field takes.
    Number(DecimalError),
    /// An amount typed in `currency`'s major units that cannot be taken as it is.
    Amount {
        error: AmountTextError,
        currency: Currency,
    },
    /// A payment report for more than the invoice still owes.
    ExceedsDue {
        due: Money,
        currency: Currency,
    },
    /// A payment report for more than is neither paid nor reported yet.
    ExceedsUnreported {
        left: Money,
        currency: Currency,
    },
    /// Everything owed has been reported and is being checked.
    AllReported,
    /// Not a calendar day written as the field takes it: the API's English sentence.
    Date(&'static str),
    /// A day that must be given (the API's English sentence names the form it takes).
    DateRequired(&'static str),
    /// A day before the one it closes or follows (`field`, e.g. `issue_date`): the English
    /// sentence, and the field it names.
    NotBefore {
        field: &'static str,
        english: String,
    },
    /// A day in the past where only today or later is taken.
    Past,
    /// A moment that must lie ahead.
    NotFuture,
    /// Two fields of which only one may be given: the English sentence naming both.
    NotBoth(&'static str),
    /// A value outside the field's list: the English sentence that lists them.
    OneOf(String),
    /// Not an IBAN (ISO 13616, its check digits included).
    Iban,
    /// Not a BIC's shape (ISO 9362: 8 or 11 characters).
    Bic,
    /// Not an absolute http(s) address.
    Url,
    /// Not a colour written `#RRGGBB`.
    Colour,
    /// Not a telephone number that can be dialled (E.164 from its `+` or its country).
    Phone,
    /// An identifier that fails its scheme's check digit or form (`scheme` is its EAS code):
    /// the API's English sentence names the form.
    Identifier {
        scheme: &'static str,
        english: &'static str,
    },
    /// A rule that has no code of its own: its English sentence, said as it is everywhere.
    Said(String),
}

/// The days a later one may not precede, each with a sentence of its own in the catalogue
/// (`problem.not_before.<field>`).
pub const NOT_BEFORE: [&str; 3] = ["issue_date", "start_date", "service_period.start"];

impl Problem {
    /// A day before `field` (one of [`NOT_BEFORE`]); `english` is the API's sentence.
    pub fn not_before(field: &'static str, english: String) -> Problem {
        debug_assert!(NOT_BEFORE.contains(&field), "{field} has no sentence");
        Problem::NotBefore { field, english }
    }

    /// A customer's payment report that the invoice's balance refuses.
    pub fn of_report(e: PaymentAmountError, currency: Currency) -> Problem {
        match e {
            PaymentAmountError::ExceedsUnreported { left } if left == Money::ZERO => {
                Problem::AllReported
            }
            PaymentAmountError::ExceedsUnreported { left } => {
                Problem::ExceedsUnreported { left, currency }
            }
            PaymentAmountError::ExceedsDue { due } => Problem::ExceedsDue { due, currency },
            PaymentAmountError::NotPositive => Problem::Amount {
                error: AmountTextError::NotPositive,
                currency,
            },
        }
    }

    /// The stable code a program branches on.
    pub fn code(&self) -> &'static str {
        match self {
            Problem::Required => "required",
            Problem::NotNull => "not_null",
            Problem::Blank => "blank",
            Problem::TooLong { .. } => "too_long",
            Problem::Characters(_) => "characters",
            Problem::NotPositiveInteger => "not_positive_integer",
            Problem::Email => "email",
            Problem::Currency => "currency",
            Problem::Number(e) => match e {
                DecimalError::Invalid => "number",
                DecimalError::TooPrecise => "number_too_precise",
                DecimalError::NotPositive => "not_positive",
                DecimalError::TooLarge(_) => "number_too_large",
                DecimalError::OutOfRange => "percent",
            },
            Problem::Amount { error, .. } => match error {
                AmountTextError::Invalid | AmountTextError::Ambiguous(_) => "amount_unreadable",
                AmountTextError::TooPrecise(_) => "amount_too_precise",
                AmountTextError::NotPositive => "amount_not_positive",
                AmountTextError::TooLarge => "amount_too_large",
            },
            Problem::ExceedsDue { .. } => "exceeds_due",
            Problem::ExceedsUnreported { .. } => "exceeds_unreported",
            Problem::AllReported => "all_reported",
            Problem::Date(_) => "date",
            Problem::DateRequired(_) => "date_required",
            Problem::NotBefore { .. } => "not_before",
            Problem::Past => "past",
            Problem::NotFuture => "not_future",
            Problem::NotBoth(_) => "not_both",
            Problem::OneOf(_) => "one_of",
            Problem::Iban => "iban",
            Problem::Bic => "bic",
            Problem::Url => "url",
            Problem::Colour => "colour",
            Problem::Phone => "phone",
            Problem::Identifier { .. } => "identifier",
            Problem::Said(_) => "invalid",
        }
    }

    /// The problem of the field `param` in `t`'s words: the form's own sentence for this field
    /// and code where the catalogue has one (`form.reference.required`: "Please enter the
    /// transfer reference."), else the problem's sentence, to stand beside the field.
    pub fn say_for(&self, param: &str, t: Locale) -> String {
        self.fill(t, &format!("form.{param}.{}", self.code()))
            .unwrap_or_else(|| self.say(t))
    }

    /// The catalogue's sentence `key` with the problem's values, where the catalogue has it.
    fn fill(&self, t: Locale, key: &str) -> Option<String> {
        let values = self.values(t);
        let values: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
        t.fill_if_known(key, &values)
    }

    /// The problem in `t`'s words, to stand beside the field it concerns: the catalogue's
    /// `problem.<code>`, or for an amount the payment form's own sentences (`form.amount.*`).
    pub fn say(&self, t: Locale) -> String {
        let key = match self {
            Problem::Said(sentence) => return sentence.clone(),
            Problem::Amount { error, currency } => match error {
                AmountTextError::Invalid | AmountTextError::Ambiguous(_) => "form.amount.invalid",
                AmountTextError::TooPrecise(_) if currency.exponent() == 0 => {
                    "form.amount.no_decimals"
                }
                AmountTextError::TooPrecise(_) => "form.amount.too_precise",
                AmountTextError::NotPositive => "form.amount.not_positive",
                AmountTextError::TooLarge => "form.amount.too_large",
            }
            .to_string(),
            Problem::ExceedsDue { .. } => "form.amount.exceeds_due".to_string(),
            Problem::ExceedsUnreported { .. } => "form.amount.exceeds_unreported".to_string(),
            Problem::AllReported => "form.amount.all_reported".to_string(),
            // Which day it may not precede is part of the sentence ("the issue date").
            Problem::NotBefore { field, .. } => format!("problem.not_before.{field}"),
            _ => format!("problem.{}", self.code()),
        };
        self.fill(t, &key).unwrap_or(key)
    }

    /// The values a sentence about the problem may name, written as `t` writes them.
    fn values(&self, t: Locale) -> Vec<(&'static str, String)> {
        match self {
            Problem::TooLong { max } => vec![("max", max.to_string())],
            Problem::Number(DecimalError::TooLarge(max)) => vec![("max", (*max).to_string())],
            Problem::Number(_) => vec![("example", format!("1{}5", t.decimal_separator()))],
            Problem::Amount { currency, .. } => {
                // In the page's own writing, with grouping: `1.453,00` on a German page.
                let example = Money::new(145_300 * 10i64.pow(u32::from(currency.exponent())) / 100)
                    .map(|m| t.amount_field(m, *currency))
                    .unwrap_or_else(|_| "12.50".into());
                vec![
                    ("example", example),
                    ("currency", currency.code().to_string()),
                    ("decimals", currency.exponent().to_string()),
                ]
            }
            Problem::ExceedsDue {
                due: amount,
                currency,
            }
            | Problem::ExceedsUnreported {
                left: amount,
                currency,
            } => vec![("amount", t.money(*amount, *currency))],
            Problem::Identifier { scheme, .. } => vec![("scheme", scheme.to_string())],
            _ => Vec::new(),
        }
    }
}

/// The API's English sentence (SPEC §4 `details[].message`), unchanged from before problems
/// had codes.
impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let english = |m: &Money, c: &Currency| Locale::En.money(*m, *c);
        match self {
            Problem::Required => f.write_str("is required"),
            Problem::NotNull => f.write_str("must not be null"),
            Problem::Blank => f.write_str("must not be blank"),
            Problem::TooLong { max } => write!(f, "must be at most {max} characters"),
            Problem::Characters(reason) => f.write_str(reason),
            Problem::NotPositiveInteger => f.write_str("must be a positive integer"),
            Problem::Email => f.write_str("must be a valid email address"),
            Problem::Currency => CurrencyError::Invalid.fmt(f),
            Problem::Number(e) => e.fmt(f),
            Problem::Amount { error, .. } => error.fmt(f),
            Problem::ExceedsDue { due, currency } => {
                write!(
                    f,
                    "must not exceed the amount due, {}",
                    english(due, currency)
                )
            }
            Problem::ExceedsUnreported { left, currency } => write!(
                f,
                "must not exceed what is neither paid nor reported yet, {}",
                english(left, currency)
            ),
            Problem::AllReported => {
                f.write_str("has been reported already: the merchant is checking it")
            }
            Problem::Date(english) | Problem::DateRequired(english) | Problem::NotBoth(english) => {
                f.write_str(english)
            }
            Problem::NotBefore { english, .. } | Problem::OneOf(english) => f.write_str(english),
            Problem::Past => f.write_str("must not be in the past"),
            Problem::NotFuture => f.write_str("must be in the future"),
            Problem::Iban => f.write_str("must be a valid IBAN"),
            Problem::Bic => f.write_str("must be a BIC of 8 or 11 characters"),
            Problem::Url => f.write_str("must be an http or https URL"),
            Problem::Colour => f.write_str("must be a colour as #RRGGBB"),
            Problem::Phone => f.write_str(
                "must be a phone number that can be dialled: with + and the country code, or as \
                 written in the country of the customer's (or else the account's) address",
            ),
            Problem::Identifier { english, .. } => f.write_str(english),
            Problem::Said(sentence) => f.write_str(sentence),
        }
    }
}

impl From<DecimalError> for Problem {
    fn from(e: DecimalError) -> Problem {
        Problem::Number(e)
    }
}

impl From<CurrencyError> for Problem {
    fn from(_: CurrencyError) -> Problem {
        Problem::Currency
    }
}

impl From<String> for Problem {
    fn from(sentence: String) -> Problem {
        Problem::Said(sentence)
    }
}

impl From<&str> for Problem {
    fn from(sentence: &str) -> Problem {
        Problem::Said(sentence.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_keeps_its_english_sentences() {
        assert_eq!(Problem::Required.to_string(), "is required");
        assert_eq!(
            Problem::TooLong { max: 3 }.to_string(),
            "must be at most 3 characters"
        );
        let left = Money::new(1_250).unwrap();
        assert_eq!(
            Problem::ExceedsUnreported {
                left,
                currency: Currency::parse("EUR").unwrap()
            }
            .to_string(),
            "must not exceed what is neither paid nor reported yet, €12.50"
        );
    }

    #[test]
    fn people_read_problems_in_their_language() {
        assert_eq!(Problem::Required.say(Locale::De), "Bitte ausfüllen.");
        assert_eq!(
            Problem::TooLong { max: 40 }.say(Locale::Fr),
            "40 caractères au maximum."
        );
        let eur = Currency::parse("EUR").unwrap();
        let unreadable = Problem::Amount {
            error: AmountTextError::Invalid,
            currency: eur,
        };
        assert_eq!(unreadable.code(), "amount_unreadable");
        assert_eq!(
            unreadable.say(Locale::De),
            "Bitte geben Sie einen Betrag wie 1.453,00 ein."
        );
        let jpy = Currency::parse("JPY").unwrap();
        let precise = Problem::Amount {
            error: AmountTextError::TooPrecise(String::new()),
            currency: jpy,
        };
        assert_eq!(precise.say(Locale::En), "JPY amounts have no decimals.");
    }

    #[test]
    fn dates_and_bank_details_are_said_in_the_readers_language() {
        let date = Problem::Date("must be a date as YYYY-MM-DD");
        assert_eq!(date.to_string(), "must be a date as YYYY-MM-DD");
        assert_eq!(date.code(), "date");
        assert!(
            date.say(Locale::De).contains("Datum"),
            "{}",
            date.say(Locale::De)
        );
        let early = Problem::not_before("issue_date", "must not be before issue_date".into());
        assert_eq!(early.to_string(), "must not be before issue_date");
        assert!(early.say(Locale::De).contains("Ausstellungsdatum"));
        assert_eq!(Problem::Iban.to_string(), "must be a valid IBAN");
        assert!(Problem::Iban.say(Locale::De).contains("IBAN"));
        assert_ne!(Problem::Iban.say(Locale::De), Problem::Iban.to_string());
    }

    #[test]
    fn a_form_may_say_a_fields_problem_its_own_way() {
        assert_eq!(
            Problem::Required.say_for("reference", Locale::De),
            "Bitte geben Sie den Verwendungszweck der Überweisung ein."
        );
        assert_eq!(
            Problem::TooLong { max: 140 }.say_for("reference", Locale::En),
            "The transfer reference must be at most 140 characters long."
        );
        assert_eq!(
            Problem::Required.say_for("name", Locale::En),
            "Please fill this in."
        );
    }

    #[test]
    fn every_code_is_said_in_every_language() {
        let eur = Currency::parse("EUR").unwrap();
        let one = Money::new(100).unwrap();
        let all = [
            Problem::Required,
            Problem::NotNull,
            Problem::Blank,
            Problem::TooLong { max: 5 },
            Problem::Characters("x"),
            Problem::NotPositiveInteger,
            Problem::Email,
            Problem::Currency,
            Problem::Number(DecimalError::Invalid),
            Problem::Number(DecimalError::TooPrecise),
            Problem::Number(DecimalError::NotPositive),
            Problem::Number(DecimalError::TooLarge("1000000")),
            Problem::Number(DecimalError::OutOfRange),
            Problem::ExceedsDue {
                due: one,
                currency: eur,
            },
            Problem::ExceedsUnreported {
                left: one,
                currency: eur,
            },
            Problem::AllReported,
            Problem::Date("x"),
            Problem::DateRequired("x"),
            Problem::Past,
            Problem::NotFuture,
            Problem::NotBoth("x"),
            Problem::OneOf("x".into()),
            Problem::Iban,
            Problem::Bic,
            Problem::Url,
            Problem::Colour,
            Problem::Phone,
        ];
        let all: Vec<Problem> = all
            .into_iter()
            .chain(
                NOT_BEFORE
                    .iter()
                    .map(|field| Problem::not_before(field, "x".into())),
            )
            .collect();
        for t in Locale::ALL {
            for p in &all {
                let said = p.say(t);
                assert!(
                    !said.is_empty() && !said.contains('{'),
                    "{t:?} {p:?}: {said}"
                );
                assert!(!said.starts_with("problem."), "{t:?} {p:?} has no sentence");
            }
        }
    }
}
