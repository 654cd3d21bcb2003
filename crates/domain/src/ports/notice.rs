//! Mail to people (invitations, resets, test emails) and its queue.

use super::RepoResult;
use crate::email::SendOutcome;
use crate::notice::{NewNotice, Notice, NoticeJob, NoticeKind};
use crate::tenant::AccountId;
use crate::webhook_delivery::RetrySchedule;
use chrono::{DateTime, Utc};

/// Mail to people rather than customers (invitations, password resets, test emails).
pub trait NoticeRepository {
    fn queue_notice(&self, notice: NewNotice) -> RepoResult<Notice>;
    /// The account's newest notice of `kind` (the settings show how the last test email went).
    fn latest_notice(&self, account: AccountId, kind: NoticeKind) -> RepoResult<Option<Notice>>;
    /// How many notices the account queued at or after `since`.
    fn notices_since(&self, account: AccountId, since: DateTime<Utc>) -> RepoResult<u64>;
}

/// The mail workers' side of [`NoticeRepository`]: the same leases as [`EmailQueue`](super::EmailQueue).
pub trait NoticeQueue {
    fn next_notice_due(&self) -> RepoResult<Option<DateTime<Utc>>>;
    fn claim_notices(
        &self,
        now: DateTime<Utc>,
        lease: std::time::Duration,
        limit: u32,
    ) -> RepoResult<Vec<NoticeJob>>;
    /// Records the attempt; a settled notice loses its body and link. `false` if the claim was
    /// lost meanwhile.
    fn record_notice(
        &self,
        job: &NoticeJob,
        outcome: &SendOutcome,
        schedule: &RetrySchedule,
        now: DateTime<Utc>,
    ) -> RepoResult<bool>;
    fn extend_notice(
        &self,
        job: &NoticeJob,
        now: DateTime<Utc>,
        lease: std::time::Duration,
    ) -> RepoResult<bool>;
    fn release_notice(&self, job: &NoticeJob) -> RepoResult<()>;
}
