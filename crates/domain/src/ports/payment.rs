//! Payments (SPEC §13).

use super::RepoResult;
use crate::paging::{Page, PageRequest};
use crate::payment::{
    NewPayment, Payment, PaymentChange, PaymentFilter, PaymentId, PaymentReport, PaymentRequest,
};
use crate::tenant::Scope;

pub trait PaymentRepository {
    /// Records a payment of an open invoice (pending, or verified at once), never more than the
    /// amount due, with its events; a verified payment that covers the total pays the invoice.
    fn create_payment(&self, scope: Scope, new: NewPayment) -> RepoResult<Payment>;
    fn get_payment(&self, scope: Scope, id: PaymentId) -> RepoResult<Payment>;
    fn list_payments(
        &self,
        scope: Scope,
        filter: &PaymentFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Payment>>;
    /// Verifies or rejects a pending payment. Verifications of one invoice are serialised on
    /// the invoice row, so together they never exceed its total, and the one that covers it
    /// marks the invoice paid (`invoice.paid`) in the same transaction.
    fn change_payment(
        &self,
        scope: Scope,
        id: PaymentId,
        change: PaymentChange,
    ) -> RepoResult<Payment>;
    /// The customer's "I have paid" from the public page (number and capability token): a
    /// pending payment, never more than the amount due; never marks the invoice paid.
    fn report_payment(
        &self,
        number: &str,
        token: &str,
        report: PaymentReport,
    ) -> RepoResult<Payment>;
    /// The open (sent, viewed, overdue) invoices, newest first.
    fn list_payment_requests(
        &self,
        scope: Scope,
        page: PageRequest,
    ) -> RepoResult<Page<PaymentRequest>>;
}
