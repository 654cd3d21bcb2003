//! Email to customers and its queue (SPEC §18).

use super::RepoResult;
use crate::email::{
    EmailFilter, EmailId, EmailJob, EmailRequest, EmailSubject, OutgoingEmail, SendOutcome,
};
use crate::paging::{Page, PageRequest};
use crate::tenant::Scope;
use crate::webhook_delivery::RetrySchedule;
use chrono::{DateTime, Utc};

/// Email to customers (SPEC §18), per account and environment.
pub trait EmailRepository {
    fn list_emails(
        &self,
        scope: Scope,
        filter: &EmailFilter,
        page: PageRequest,
    ) -> RepoResult<Page<OutgoingEmail>>;
    fn get_email(&self, scope: Scope, id: EmailId) -> RepoResult<OutgoingEmail>;
    /// Queues the document (sent or later, never a draft) to be emailed again.
    fn resend_document(
        &self,
        scope: Scope,
        about: EmailSubject,
        request: EmailRequest,
    ) -> RepoResult<OutgoingEmail>;
}

/// The mail workers' and the scheduler's side, across tenants: the same leases as
/// [`DeliveryQueue`](super::DeliveryQueue).
pub trait EmailQueue {
    /// When the next queued email falls due (its attempt time or its lease's end), if any.
    fn next_email_due(&self) -> RepoResult<Option<DateTime<Utc>>>;
    fn claim_emails(
        &self,
        now: DateTime<Utc>,
        lease: std::time::Duration,
        limit: u32,
    ) -> RepoResult<Vec<EmailJob>>;
    /// Records the attempt (with `email.sent` or `email.failed` when it settles it);
    /// `false` if the claim was lost meanwhile.
    fn record_email(
        &self,
        job: &EmailJob,
        outcome: &SendOutcome,
        schedule: &RetrySchedule,
        now: DateTime<Utc>,
    ) -> RepoResult<bool>;
    fn release_email(&self, job: &EmailJob) -> RepoResult<()>;
    /// Keeps the `Message-ID` an email is about to be sent with (conditional on the claim).
    fn assign_message_id(&self, job: &EmailJob, message_id: &str) -> RepoResult<bool>;
    /// Renews the lease of an email being sent; `false` if the claim was lost.
    fn extend_email(
        &self,
        job: &EmailJob,
        now: DateTime<Utc>,
        lease: std::time::Duration,
    ) -> RepoResult<bool>;
    /// Queues the reminders due on each account's date at `now` (SPEC §18, §27), each invoice
    /// and offset once; how many.
    fn queue_reminders(&self, now: DateTime<Utc>) -> RepoResult<usize>;
}
