//! Payment requests (SPEC §26): an amount and a customer made into a sent one-line invoice by
//! the invoices' own rules and steps, answered with the page that takes the payment.

use super::invoices::new_token;
use super::Ops;
use crate::error::ApiError;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::email::EmailInput;
use invoicing_domain::invoice::InvoicePatch;
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::payment_request::{CreatedPaymentRequest, PaymentRequestInput};

impl Ops {
    /// Creates and sends the request's invoice (emailed with `email: true`), its customer found
    /// or created by email: `invoices:write` is enough for both (SPEC §26).
    pub async fn create_payment_request(
        &self,
        input: PaymentRequestInput,
    ) -> Result<CreatedPaymentRequest, ApiError> {
        let scope = self.caller.require(ApiResource::Invoices, Access::Write)?;
        let today = self.today().await?;
        let new = input.parse(self.clock.now(), today, new_token(), scope.environment)?;
        let send = InvoicePatch {
            status: Some(InvoiceStatus::Sent),
            email: self.email_request(new.email.then(EmailInput::default))?,
            ..Default::default()
        };
        let (invoice, checkout) = self
            .run(scope, "invoice", move |r, s| {
                r.create_payment_request(s, new, send)
            })
            .await?;
        Ok(CreatedPaymentRequest::new(&invoice, checkout))
    }
}
