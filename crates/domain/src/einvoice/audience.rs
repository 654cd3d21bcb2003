//! Whom e-invoices concern: businesses (a VAT number or an electronic address), merchants who
//! receive or send them (an electronic address), and which documents travel over Peppol.

use super::{is_peppol_scheme, ElectronicAddress, VatId};
use crate::parties::{Issuer, Recipient};

/// Whether a document to this buyer travels over Peppol, so that Peppol BIS Billing 3.0's rules
/// apply beside EN 16931's: the customer's electronic address is a Peppol participant
/// identifier (a scheme on Peppol's list). The buyer's address is thereby there (R010); a
/// customer whose address is an email (`EM`), or who has none, receives the file otherwise, and
/// a seller's own Peppol address alone does not make every customer a participant.
pub fn over_peppol(buyer: &Recipient) -> bool {
    buyer
        .electronic_address
        .as_ref()
        .is_some_and(|a| is_peppol_scheme(&a.scheme))
}

/// A customer e-invoices are for: a business, known by its VAT number or its electronic
/// address. A private person is sent PDFs.
pub fn for_business(
    vat_id: Option<&VatId>,
    electronic_address: Option<&ElectronicAddress>,
) -> bool {
    vat_id.is_some() || electronic_address.is_some()
}

/// Whether a document between these parties is one the merchant deals with as an e-invoice:
/// the customer is a business, or the merchant has an electronic address of its own (it sends
/// e-invoices).
pub fn applies(seller: &Issuer, buyer: &Recipient) -> bool {
    seller.electronic_address.is_some()
        || for_business(buyer.vat_id.as_ref(), buyer.electronic_address.as_ref())
}
