//! Payment requests (SPEC §26): an invoice made and sent in one step, with the way back to the
//! shop, lapsing when unpaid.

use super::RepoResult;
use crate::invoice::{Invoice, InvoicePatch};
use crate::payment_request::{Checkout, NewPaymentRequest};
use crate::tenant::Scope;
use chrono::{DateTime, Utc};

pub trait PaymentRequestRepository {
    /// Creates the request's invoice (its customer found or created by email), sends it
    /// (`send`: the move to `sent`, with its email when asked) and keeps its checkout, in one
    /// transaction, as [`super::InvoiceRepository::create_and_send_invoice`] does for any invoice.
    fn create_payment_request(
        &self,
        scope: Scope,
        new: NewPaymentRequest,
        send: InvoicePatch,
    ) -> RepoResult<(Invoice, Checkout)>;
    /// Cancels, across all tenants, the open invoices of requests whose `expires_at` has passed
    /// and on which nothing was paid or reported (no payment but rejected ones, no card checkout
    /// still open: those wait for their outcome), each with `invoice.cancelled`; safe when
    /// several processes sweep at once. Answers how many.
    fn expire_payment_requests(&self, now: DateTime<Utc>) -> RepoResult<usize>;
}
