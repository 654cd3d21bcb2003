//! The invoice screen's e-invoice panel: shown where e-invoices concern the invoice (a business
//! customer, or a merchant who sends them), it says in one line whether the invoice is an
//! e-invoice yet and opens to each missing term with the screen where it is filled in.

use invoicing_domain::einvoice::{self, Readiness};
use invoicing_domain::locale::Locale;
use invoicing_domain::parties::Parties;

/// Whether the invoice is an e-invoice yet, and what to fill in where.
pub(crate) struct EInvoiceView {
    /// E-invoices concern this invoice: else the panel is not shown.
    pub applies: bool,
    pub ready: bool,
    /// "Not yet an e-invoice: 3 things missing".
    pub summary: String,
    /// Term, message in the user's language, and the screen where it is filled in.
    pub missing: Vec<(&'static str, String, Option<String>)>,
}

impl EInvoiceView {
    pub(super) fn of(
        r: Readiness,
        parties: &Parties,
        t: Locale,
        customer_id: i64,
        invoice_id: i64,
        draft: bool,
    ) -> EInvoiceView {
        let link = |field: &str| -> Option<String> {
            // The forms name their fields as the API does, so a field is its own anchor.
            match field {
                "account.electronic_address" => {
                    Some("/dashboard/settings#electronic_address.scheme".into())
                }
                "account.address" => Some("/dashboard/settings#address.line1".into()),
                "tax_rounding" => Some("/dashboard/settings#tax_rounding".into()),
                f if f.starts_with("account.") => {
                    Some(format!("/dashboard/settings#{}", &f["account.".len()..]))
                }
                f if f.starts_with("customer.") => Some(format!(
                    "/dashboard/customers/{customer_id}/edit#{}",
                    &f["customer.".len()..]
                )),
                f if f.starts_with("line_items") && draft => {
                    Some(format!("/dashboard/invoices/{invoice_id}/edit"))
                }
                "buyer_reference" if draft => Some(format!(
                    "/dashboard/invoices/{invoice_id}/edit#buyer_reference"
                )),
                _ => None,
            }
        };
        EInvoiceView {
            applies: einvoice::applies(&parties.issuer, &parties.recipient),
            ready: r.ready,
            summary: t.count("dash.einvoice.missing_count", r.missing.len() as i64),
            missing: r
                .missing
                .into_iter()
                .map(|m| {
                    let to = link(&m.field);
                    (m.term, m.text(t), to)
                })
                .collect(),
        }
    }
}
