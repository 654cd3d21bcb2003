//! The language a customer or prospect reads (SPEC: `locale`): fixed texts from one message
//! catalogue per locale, and dates, amounts, quantities and rates written by that locale's CLDR
//! conventions. Hand-written tables for six locales instead of ICU: the data is small, stable
//! and easier to review than a dependency. Country names are CLDR's, generated into
//! `locales/countries/` by `scripts/gen-country-names`.

mod catalogue;
mod countries;
mod format;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::invoice_status::InvoiceStatus;
use crate::quotation_status::QuotationStatus;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Locale {
    En,
    Es,
    Fr,
    De,
    Nl,
    Pt,
}

/// A locale code that is not one of the six; the message is shown to API clients verbatim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("must be one of en, es, fr, de, nl, pt")]
pub struct LocaleError;

impl Locale {
    pub const DEFAULT: Locale = Locale::En;

    pub const ALL: [Locale; 6] = [
        Locale::En,
        Locale::Es,
        Locale::Fr,
        Locale::De,
        Locale::Nl,
        Locale::Pt,
    ];

    /// Every locale, in SPEC order (for pickers, docs and exhaustive tests).
    pub fn all() -> impl ExactSizeIterator<Item = Locale> {
        Locale::ALL.into_iter()
    }

    /// Exact lower-case codes only, like the API's other enums: "EN" or "en-GB" is refused
    /// rather than guessed.
    pub fn parse(s: &str) -> Option<Locale> {
        Locale::all().find(|l| l.code() == s)
    }

    /// The code, also usable as an HTML `lang` attribute.
    pub fn code(self) -> &'static str {
        match self {
            Locale::En => "en",
            Locale::Es => "es",
            Locale::Fr => "fr",
            Locale::De => "de",
            Locale::Nl => "nl",
            Locale::Pt => "pt",
        }
    }

    /// How the customer's page names an invoice's status. Sent and viewed read the same to the
    /// customer (whether they looked is the merchant's business): "Awaiting payment".
    pub fn invoice_status(self, status: InvoiceStatus) -> &'static str {
        self.text(match status {
            InvoiceStatus::Draft => "invoice.status.draft",
            InvoiceStatus::Sent | InvoiceStatus::Viewed => "invoice.status.awaiting_payment",
            InvoiceStatus::Overdue => "invoice.status.overdue",
            InvoiceStatus::Paid => "invoice.status.paid",
            InvoiceStatus::Cancelled => "invoice.status.cancelled",
        })
    }

    /// How the merchant's dashboard names an invoice's status: one label per status (sent
    /// and viewed are different facts to the merchant, one to the customer).
    pub fn invoice_status_for_merchant(self, status: InvoiceStatus) -> &'static str {
        self.text(match status {
            InvoiceStatus::Draft => "invoice.status.draft",
            InvoiceStatus::Sent => "invoice.status.sent",
            InvoiceStatus::Viewed => "invoice.status.viewed",
            InvoiceStatus::Overdue => "invoice.status.overdue",
            InvoiceStatus::Paid => "invoice.status.paid",
            InvoiceStatus::Cancelled => "invoice.status.cancelled",
        })
    }

    /// How the merchant's dashboard names a quotation's status: one label per status, none
    /// in the prospect's words ("Awaiting your answer" is the prospect's to give).
    pub fn quotation_status_for_merchant(self, status: QuotationStatus) -> &'static str {
        self.text(match status {
            QuotationStatus::Draft => "quotation.status.draft",
            QuotationStatus::Sent => "quotation.status.sent",
            QuotationStatus::Viewed => "quotation.status.viewed",
            QuotationStatus::Accepted => "quotation.status.accepted",
            QuotationStatus::Converted => "quotation.status.converted",
            QuotationStatus::Rejected => "quotation.status.rejected",
            QuotationStatus::Expired => "quotation.status.expired",
        })
    }

    /// How the prospect's page names a quotation's status; a converted quotation is, to the
    /// prospect, simply accepted.
    pub fn quotation_status(self, status: QuotationStatus) -> &'static str {
        self.text(match status {
            QuotationStatus::Draft => "quotation.status.draft",
            QuotationStatus::Sent | QuotationStatus::Viewed => "quotation.status.awaiting_answer",
            QuotationStatus::Accepted | QuotationStatus::Converted => "quotation.status.accepted",
            QuotationStatus::Rejected => "quotation.status.rejected",
            QuotationStatus::Expired => "quotation.status.expired",
        })
    }
}

impl Default for Locale {
    fn default() -> Self {
        Locale::DEFAULT
    }
}

impl fmt::Display for Locale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl FromStr for Locale {
    type Err = LocaleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Locale::parse(s).ok_or(LocaleError)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_merchant_sees_one_label_per_status() {
        for l in Locale::all() {
            let mut invoice: Vec<&str> = InvoiceStatus::ALL
                .iter()
                .map(|s| l.invoice_status_for_merchant(*s))
                .collect();
            let n = invoice.len();
            invoice.sort();
            invoice.dedup();
            assert_eq!(invoice.len(), n, "{l:?}: {invoice:?}");
            let mut quotation: Vec<&str> = QuotationStatus::ALL
                .iter()
                .map(|s| l.quotation_status_for_merchant(*s))
                .collect();
            let n = quotation.len();
            quotation.sort();
            quotation.dedup();
            assert_eq!(quotation.len(), n, "{l:?}: {quotation:?}");
            assert!(
                !quotation.contains(&l.text("quotation.status.awaiting_answer")),
                "the prospect's words"
            );
        }
    }

    #[test]
    fn codes_round_trip() {
        assert_eq!(Locale::all().len(), 6);
        for l in Locale::all() {
            assert_eq!(Locale::parse(l.code()), Some(l));
            assert_eq!(l.code().parse::<Locale>(), Ok(l));
            assert_eq!(l.to_string(), l.code());
            assert_eq!(serde_json::to_value(l).unwrap(), l.code());
            let back: Locale = serde_json::from_value(l.code().into()).unwrap();
            assert_eq!(back, l);
        }
        assert_eq!(Locale::DEFAULT, Locale::En);
        assert_eq!(Locale::default(), Locale::En);
    }

    #[test]
    fn refuses_anything_but_exact_codes() {
        for bad in [
            "EN", "En", "en-GB", "en_US", " en", "en ", "", "it", "pt-BR",
        ] {
            assert_eq!(Locale::parse(bad), None, "{bad:?}");
            assert_eq!(bad.parse::<Locale>(), Err(LocaleError));
            assert!(serde_json::from_value::<Locale>(bad.into()).is_err());
        }
        assert_eq!(
            LocaleError.to_string(),
            "must be one of en, es, fr, de, nl, pt"
        );
    }

    #[cfg(feature = "openapi")]
    #[test]
    fn schema_lists_the_lower_case_codes() {
        let schema = serde_json::to_value(<Locale as utoipa::PartialSchema>::schema()).unwrap();
        assert_eq!(
            schema["enum"],
            serde_json::json!(["en", "es", "fr", "de", "nl", "pt"])
        );
    }

    #[test]
    fn status_labels_are_translated() {
        assert_eq!(
            Locale::En.invoice_status(InvoiceStatus::Viewed),
            "Awaiting payment"
        );
        assert_eq!(Locale::De.invoice_status(InvoiceStatus::Paid), "Bezahlt");
        assert_eq!(
            Locale::Fr.quotation_status(QuotationStatus::Converted),
            Locale::Fr.quotation_status(QuotationStatus::Accepted)
        );
        for l in Locale::all() {
            for s in InvoiceStatus::ALL {
                assert!(!l.invoice_status(s).contains('.'), "{l} {s}");
            }
            for s in QuotationStatus::ALL {
                assert!(!l.quotation_status(s).contains('.'), "{l} {s}");
            }
        }
    }
}
