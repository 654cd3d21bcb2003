//! Quotations (SPEC §10).

use super::RepoResult;
use crate::email::EmailRequest;
use crate::invoice::Due;
use crate::paging::{Page, PageRequest};
use crate::quotation::{
    Answer, ConversionResult, NewQuotation, PublicQuotation, Quotation, QuotationFilter,
    QuotationId, QuotationPatch,
};
use crate::tenant::Scope;
use chrono::{DateTime, NaiveDate, Utc};

pub trait QuotationRepository {
    fn create_quotation(&self, scope: Scope, new: NewQuotation) -> RepoResult<Quotation>;
    /// Creates the quotation and sends it (with `email`, queued) in one transaction: a send
    /// that is refused leaves no draft behind.
    fn create_and_send_quotation(
        &self,
        scope: Scope,
        new: NewQuotation,
        email: Option<EmailRequest>,
    ) -> RepoResult<Quotation>;
    fn get_quotation(&self, scope: Scope, id: QuotationId) -> RepoResult<Quotation>;
    fn list_quotations(
        &self,
        scope: Scope,
        filter: &QuotationFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Quotation>>;
    fn update_quotation(
        &self,
        scope: Scope,
        id: QuotationId,
        patch: QuotationPatch,
    ) -> RepoResult<Quotation>;
    /// Drafts only; anything else is an invalid transition.
    fn delete_quotation(&self, scope: Scope, id: QuotationId) -> RepoResult<()>;
    /// Sends a draft; with `email`, the message is queued in the same transaction.
    fn send_quotation(
        &self,
        scope: Scope,
        id: QuotationId,
        email: Option<EmailRequest>,
    ) -> RepoResult<Quotation>;
    /// Accepts or rejects on the prospect's behalf. An accept after `valid_until` expires the
    /// quotation (committed, with its event) and answers an invalid transition.
    fn answer_quotation(
        &self,
        scope: Scope,
        id: QuotationId,
        answer: Answer,
        today: NaiveDate,
    ) -> RepoResult<Quotation>;
    /// The public page's read by number and token; never a draft; the first read marks it viewed.
    fn view_public_quotation(&self, number: &str, token: &str) -> RepoResult<PublicQuotation>;
    /// The quotation as its page and PDF show it (with its parties), for the API.
    fn quotation_as_shown(&self, scope: Scope, id: QuotationId) -> RepoResult<PublicQuotation>;
    /// [`Self::view_public_quotation`] without marking it viewed.
    fn find_public_quotation(&self, number: &str, token: &str) -> RepoResult<PublicQuotation>;
    /// The public page's Accept and Decline buttons, with the same rules as `answer_quotation`
    /// on the merchant's date at `now`.
    fn answer_public_quotation(
        &self,
        number: &str,
        token: &str,
        answer: Answer,
        now: DateTime<Utc>,
    ) -> RepoResult<PublicQuotation>;
    /// In one transaction: a draft invoice with the quotation's customer, currency and lines,
    /// the quotation converted, and both events. Only once per quotation.
    fn convert_quotation(
        &self,
        scope: Scope,
        id: QuotationId,
        due: Due,
        token: String,
        today: NaiveDate,
    ) -> RepoResult<ConversionResult>;
    /// Turns sent and viewed quotations valid until before their account's date at `now` into
    /// expired, across tenants.
    fn mark_expired_quotations(&self, now: DateTime<Utc>) -> RepoResult<usize>;
}
