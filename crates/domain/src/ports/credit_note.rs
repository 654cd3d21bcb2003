//! Credit notes (SPEC §19).

use super::RepoResult;
use crate::credit_note::{
    CreditNote, CreditNoteFilter, CreditNoteId, NewCreditNote, PublicCreditNote,
};
use crate::email::EmailRequest;
use crate::invoice::InvoiceId;
use crate::paging::{Page, PageRequest};
use crate::tenant::Scope;

/// Credit notes (SPEC §19): final once issued.
pub trait CreditNoteRepository {
    /// In one transaction: the credit note (never more than the invoice has left to credit,
    /// however many are issued at once) with the next gap-free `CN-` number, the invoice's
    /// credited amount, its move to paid or cancelled when its amount due reaches zero, the
    /// events, and the email when `email` asks for one.
    fn create_credit_note(
        &self,
        scope: Scope,
        invoice: InvoiceId,
        new: NewCreditNote,
        email: Option<EmailRequest>,
    ) -> RepoResult<CreditNote>;
    fn get_credit_note(&self, scope: Scope, id: CreditNoteId) -> RepoResult<CreditNote>;
    fn list_credit_notes(
        &self,
        scope: Scope,
        filter: &CreditNoteFilter,
        page: PageRequest,
    ) -> RepoResult<Page<CreditNote>>;
    /// The credit note as its PDF shows it.
    fn credit_note_as_shown(&self, scope: Scope, id: CreditNoteId) -> RepoResult<PublicCreditNote>;
}
