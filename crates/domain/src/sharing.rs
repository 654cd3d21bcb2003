//! Sharing a document without email (SPEC §26): a WhatsApp chat and an SMS to the customer's
//! phone, prefilled with a message in the customer's language that names the document, what it
//! asks and its link.

use crate::contact::phone_e164;
use crate::parties::Parties;
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};

/// The two ways to send a message the merchant's phone opens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Share {
    /// `https://wa.me/{digits}?text=…`
    pub whatsapp: String,
    /// `sms:+…?body=…`
    pub sms: String,
}

impl Share {
    /// To `e164` (`+4930123456`), saying `text`.
    pub fn to(e164: &str, text: &str) -> Share {
        let digits: String = e164.chars().filter(char::is_ascii_digit).collect();
        let text = utf8_percent_encode(text, NON_ALPHANUMERIC).to_string();
        Share {
            whatsapp: format!("https://wa.me/{digits}?text={text}"),
            sms: format!("sms:+{digits}?body={text}"),
        }
    }
}

/// What a document's message says: its kind's sentence (`share.invoice`, `share.quotation`)
/// filled with the document's facts, written as the customer reads them.
pub struct Message<'a> {
    pub key: &'static str,
    pub number: &'a str,
    pub amount: &'a str,
    pub date: &'a str,
    pub link: &'a str,
}

impl Parties {
    /// The customer's phone as a document's parties name it, in E.164: from its `+`, or as
    /// written in the customer's country, or else the merchant's; `None` without one that can
    /// be dialled.
    pub fn dialled_phone(&self) -> Option<String> {
        let phone = self.recipient.phone.as_deref()?;
        let own = self
            .recipient
            .address
            .as_ref()
            .and_then(|a| a.country.as_deref());
        let home = self
            .issuer
            .address
            .as_ref()
            .and_then(|a| a.country.as_deref());
        phone_e164(phone, &[own, home]).ok().flatten()
    }

    /// The document shared with its customer, in the customer's language; `None` when they
    /// have no phone that can be dialled.
    pub fn share(&self, message: Message<'_>) -> Option<Share> {
        let phone = self.dialled_phone()?;
        let text = self.locale().fill(
            message.key,
            &[
                ("number", message.number),
                ("merchant", self.issuer.display_name()),
                ("amount", message.amount),
                ("date", message.date),
                ("link", message.link),
            ],
        );
        Some(Share::to(&phone, &text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_carry_the_number_and_the_text_encoded() {
        let share = Share::to(
            "+4930123456",
            "Rechnung INV-1: 12,00 € – https://x.example/i?t=a&b",
        );
        assert_eq!(
            share.whatsapp,
            "https://wa.me/4930123456?text=Rechnung%20INV%2D1%3A%2012%2C00%20%E2%82%AC%20%E2%80%93%20https%3A%2F%2Fx%2Eexample%2Fi%3Ft%3Da%26b"
        );
        assert!(share.sms.starts_with("sms:+4930123456?body=Rechnung%20INV"));
    }
}
