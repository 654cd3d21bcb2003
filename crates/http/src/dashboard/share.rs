//! "Share on WhatsApp" and "Send by SMS" on a document's screen (SPEC §26): the links the
//! domain makes from the document's parties, with the hint that names the number they open.

use invoicing_domain::currency::Currency;
use invoicing_domain::locale::Locale;
use invoicing_domain::money::Money;
use invoicing_domain::parties::Parties;
use invoicing_domain::sharing::{Message, Share};

/// What a document's share offer says.
pub(crate) struct Offer<'a> {
    /// `share.invoice` or `share.quotation`.
    pub key: &'static str,
    pub number: &'a str,
    /// The amount asked (an invoice's due, a quotation's total), in minor units.
    pub amount_cents: i64,
    pub currency: Currency,
    pub date: chrono::NaiveDate,
    pub link: &'a str,
}

/// The hint (in `t`, the merchant's language) and the links (in the customer's), when the
/// customer has a phone that can be dialled.
pub(crate) fn share(t: Locale, parties: &Parties, offer: Offer<'_>) -> Option<(String, Share)> {
    let customer = parties.locale();
    let amount = Money::new(offer.amount_cents).unwrap_or(Money::ZERO);
    let shared = parties.share(Message {
        key: offer.key,
        number: offer.number,
        amount: &customer.money(amount, offer.currency),
        date: &customer.date(offer.date),
        link: offer.link,
    })?;
    let phone = parties.dialled_phone()?;
    Some((t.fill("dash.share.hint", &[("phone", &phone)]), shared))
}
