//! Recurring invoices (SPEC §20).

use super::RepoResult;
use crate::paging::{Page, PageRequest};
use crate::recurring::{
    NewRecurring, RecurringFilter, RecurringId, RecurringInvoice, RecurringPatch, RecurringStatus,
};
use crate::tenant::Scope;
use chrono::{DateTime, NaiveDate, Utc};

/// Recurring invoices (SPEC §20).
pub trait RecurringRepository {
    /// An active schedule; its first invoice comes from the next sweep on its start date.
    fn create_recurring(&self, scope: Scope, new: NewRecurring) -> RepoResult<RecurringInvoice>;
    fn get_recurring(&self, scope: Scope, id: RecurringId) -> RepoResult<RecurringInvoice>;
    fn list_recurring(
        &self,
        scope: Scope,
        filter: &RecurringFilter,
        page: PageRequest,
    ) -> RepoResult<Page<RecurringInvoice>>;
    /// Changes what the invoices not yet issued will be; an active or paused schedule only.
    fn update_recurring(
        &self,
        scope: Scope,
        id: RecurringId,
        patch: RecurringPatch,
    ) -> RepoResult<RecurringInvoice>;
    /// Pause, resume (from the first period on or after `today`) or cancel, as the table
    /// allows.
    fn change_recurring(
        &self,
        scope: Scope,
        id: RecurringId,
        to: RecurringStatus,
        today: NaiveDate,
    ) -> RepoResult<RecurringInvoice>;
    /// Issues every period due by its account's date at `now` of every active schedule, across
    /// tenants, each exactly once
    /// however many processes sweep; answers how many invoices were issued.
    fn issue_recurring(&self, now: DateTime<Utc>) -> RepoResult<usize>;
}
