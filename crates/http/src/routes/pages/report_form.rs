//! The "report a payment" form's problems in the customer's words (SPEC §16). Each is a typed
//! cause read from the domain's own parsers (amount text as the page's locale writes it (§27),
//! the currency's exponent, the invoice's balance) and shown through the `form.*` catalogue
//! keys; the API keeps the English messages.

use invoicing_domain::currency::Currency;
use invoicing_domain::invoice::Invoice;
use invoicing_domain::locale::Locale;
use invoicing_domain::money::Money;
use invoicing_domain::payment::REFERENCE_MAX;
use invoicing_domain::payment_amount::{AmountTextError, MajorAmount, PaymentAmountError};

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Problem {
    AmountMissing,
    AmountUnreadable,
    /// More decimals than the currency has.
    TooPrecise,
    NotPositive,
    TooLarge,
    ExceedsDue(Money),
    /// More than is neither paid nor reported yet (zero: everything is being checked).
    ExceedsUnreported(Money),
    ReferenceMissing,
    ReferenceTooLong,
}

/// What is wrong with the form for this invoice, `reported` being what the customer reported
/// before and is being checked; empty when it may be recorded.
pub(crate) fn problems(
    amount: Option<&str>,
    reference: Option<&str>,
    inv: &Invoice,
    reported: Money,
    locale: Locale,
) -> Vec<Problem> {
    let mut found = Vec::new();
    match amount.map(str::trim).filter(|a| !a.is_empty()) {
        None => found.push(Problem::AmountMissing),
        Some(text) => {
            let minor = MajorAmount::parse_in(text, locale, inv.currency)
                .and_then(|a| a.to_minor(inv.currency));
            match minor {
                Err(AmountTextError::Invalid | AmountTextError::Ambiguous(_)) => {
                    found.push(Problem::AmountUnreadable)
                }
                Err(AmountTextError::TooPrecise(_)) => found.push(Problem::TooPrecise),
                Err(AmountTextError::NotPositive) => found.push(Problem::NotPositive),
                Err(AmountTextError::TooLarge) => found.push(Problem::TooLarge),
                Ok(paid) => {
                    match inv.balance().map(|b| b.check_report(paid, reported)) {
                        Ok(Err(PaymentAmountError::ExceedsDue { due })) => {
                            found.push(Problem::ExceedsDue(due))
                        }
                        Ok(Err(PaymentAmountError::ExceedsUnreported { left })) => {
                            found.push(Problem::ExceedsUnreported(left))
                        }
                        Ok(Err(PaymentAmountError::NotPositive)) => {
                            found.push(Problem::NotPositive)
                        }
                        // A stored balance out of range is storage's to report.
                        Ok(Ok(_)) | Err(_) => {}
                    }
                }
            }
        }
    }
    match reference.map(str::trim).filter(|r| !r.is_empty()) {
        None => found.push(Problem::ReferenceMissing),
        Some(r) if r.chars().count() > REFERENCE_MAX => found.push(Problem::ReferenceTooLong),
        Some(_) => {}
    }
    found
}

/// The problem as the customer reads it.
pub(crate) fn describe(t: Locale, problem: &Problem, currency: Currency) -> String {
    let code = currency.code();
    match problem {
        Problem::AmountMissing => t.text("form.amount.required").to_string(),
        Problem::AmountUnreadable => {
            // In the page's own writing, with grouping: `1.453,00` on a German page.
            let example = Money::new(145_300 * 10i64.pow(u32::from(currency.exponent())) / 100)
                .map(|m| t.amount_field(m, currency))
                .unwrap_or_else(|_| "12.50".into());
            t.fill("form.amount.invalid", &[("example", &example)])
        }
        Problem::TooPrecise => match currency.exponent() {
            0 => t.fill("form.amount.no_decimals", &[("currency", code)]),
            n => t.fill(
                "form.amount.too_precise",
                &[("currency", code), ("decimals", &n.to_string())],
            ),
        },
        Problem::NotPositive => t.text("form.amount.not_positive").to_string(),
        Problem::TooLarge => t.text("form.amount.too_large").to_string(),
        Problem::ExceedsDue(due) => t.fill(
            "form.amount.exceeds_due",
            &[("amount", &t.money(*due, currency))],
        ),
        Problem::ExceedsUnreported(left) if *left == Money::ZERO => {
            t.text("form.amount.all_reported").to_string()
        }
        Problem::ExceedsUnreported(left) => t.fill(
            "form.amount.exceeds_unreported",
            &[("amount", &t.money(*left, currency))],
        ),
        Problem::ReferenceMissing => t.text("form.reference.required").to_string(),
        Problem::ReferenceTooLong => t.fill(
            "form.reference.too_long",
            &[("max", &REFERENCE_MAX.to_string())],
        ),
    }
}
