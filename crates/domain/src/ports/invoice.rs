//! Invoices (SPEC §7-§9).

use super::RepoResult;
use crate::customer::CustomerId;
use crate::invoice::{
    Invoice, InvoiceFilter, InvoiceId, InvoicePatch, InvoiceSummary, NewInvoice, Outstanding,
    PublicInvoice,
};
use crate::paging::{Page, PageRequest};
use crate::tenant::Scope;
use chrono::{DateTime, Utc};

pub trait InvoiceRepository {
    /// Creates a draft with the next gap-free number, its customer if inline, and the events.
    fn create_invoice(&self, scope: Scope, new: NewInvoice) -> RepoResult<Invoice>;
    /// Creates the invoice and sends it (`send`: the move to `sent`, with its email when asked)
    /// in one transaction: a send that is refused leaves no draft behind.
    fn create_and_send_invoice(
        &self,
        scope: Scope,
        new: NewInvoice,
        send: InvoicePatch,
    ) -> RepoResult<Invoice>;
    fn get_invoice(&self, scope: Scope, id: InvoiceId) -> RepoResult<Invoice>;
    /// Invoices of any tenants, each answered as [`Self::get_invoice`] answers it, in the order
    /// asked; in one statement where the store can (a server gathers the reads that wait for
    /// storage at the same time). `Err` when the read as a whole failed.
    fn get_invoices(&self, wanted: &[(Scope, InvoiceId)]) -> RepoResult<Vec<RepoResult<Invoice>>> {
        Ok(wanted
            .iter()
            .map(|&(s, id)| self.get_invoice(s, id))
            .collect())
    }
    fn list_invoices(
        &self,
        scope: Scope,
        filter: &InvoiceFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Invoice>>;
    /// The same list as [`Self::list_invoices`] without lines: what an export writes. Never
    /// counted.
    fn invoice_summaries(
        &self,
        scope: Scope,
        filter: &InvoiceFilter,
        page: PageRequest,
    ) -> RepoResult<Page<InvoiceSummary>>;
    /// Per currency, what the open invoices (sent, viewed, overdue) still have due, of one
    /// customer or of all; by currency.
    fn outstanding(
        &self,
        scope: Scope,
        customer: Option<CustomerId>,
    ) -> RepoResult<Vec<Outstanding>>;
    fn update_invoice(
        &self,
        scope: Scope,
        id: InvoiceId,
        patch: InvoicePatch,
    ) -> RepoResult<Invoice>;
    /// The public page's read: by number and capability token, never a draft. The first read
    /// of a sent invoice makes it viewed.
    fn view_public_invoice(&self, number: &str, token: &str) -> RepoResult<PublicInvoice>;
    /// The invoice and the parties it names (its kept copy once sent), without the logo, the
    /// payments or the credit notes: what its e-invoice check reads.
    fn invoice_with_parties(
        &self,
        scope: Scope,
        id: InvoiceId,
    ) -> RepoResult<(Invoice, crate::parties::Parties)>;
    /// The invoice as its page and PDF show it (with its parties), for the API.
    fn invoice_as_shown(&self, scope: Scope, id: InvoiceId) -> RepoResult<PublicInvoice>;
    /// [`Self::view_public_invoice`] without marking it viewed: a PDF download is no view
    /// (SPEC §9).
    fn find_public_invoice(&self, number: &str, token: &str) -> RepoResult<PublicInvoice>;
    /// Turns sent and viewed invoices due before their account's date at `now` (SPEC §27) into
    /// overdue, across all tenants, each with its event; safe when several processes sweep at once. Answers how many changed.
    fn mark_overdue_invoices(&self, now: DateTime<Utc>) -> RepoResult<usize>;
}
