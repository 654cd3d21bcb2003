//! What a document's lines come to before it is saved (the dashboard's running totals, issue
//! 54): the same parse, catalog and tax rounding as saving, nothing written.

use super::Ops;
use crate::error::ApiError;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::currency::Currency;
use invoicing_domain::document_lines::{LineDrafts, LineItemInput, Lines};
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::validation::Violations;

impl Ops {
    /// The lines of a document of `resource` priced as saving it would: in `currency` (the
    /// account's when `None`), rounded as the draft invoice `invoice` is (an edit keeps its
    /// document's rounding), else as the account rounds. Refused as saving would refuse them.
    pub async fn price_lines(
        &self,
        resource: ApiResource,
        currency: Option<String>,
        lines: Vec<LineItemInput>,
        invoice: Option<InvoiceId>,
    ) -> Result<Lines, ApiError> {
        let scope = self.caller.require(resource, Access::Read)?;
        let mut v = Violations::new();
        let currency = currency.and_then(|code| match Currency::parse(&code) {
            Ok(currency) => Some(currency),
            Err(e) => {
                v.push("currency", e.to_string());
                None
            }
        });
        let drafts = LineDrafts::parse(&mut v, Some(lines));
        let drafts = match drafts {
            Some(drafts) if v.is_empty() => drafts,
            _ => return Err(v.into()),
        };
        self.run(scope, "document", move |r, s| {
            let rounding = match invoice {
                Some(id) => Some(r.get_invoice(s, id)?.tax_rounding),
                None => None,
            };
            r.price_lines(s, currency, &drafts, rounding)
        })
        .await
    }
}
