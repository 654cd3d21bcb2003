//! Reports and statements (SPEC §22).

use super::RepoResult;
use crate::currency::Currency;
use crate::customer::CustomerId;
use crate::paging::{Page, PageRequest};
use crate::report::{
    AgingByCurrency, AgingByCustomer, DateRange, ReportInterval, RevenuePeriod, StatementShown,
    TaxLine,
};
use crate::tenant::Scope;
use chrono::NaiveDate;

/// Reports (SPEC §22): sums over the tenant's stored integers, one statement each (revenue:
/// four per period).
pub trait ReportRepository {
    /// What open invoices owe at `as_of`, by currency and bucket.
    fn aging(&self, scope: Scope, as_of: NaiveDate) -> RepoResult<Vec<AgingByCurrency>>;
    /// The same per customer and currency, the largest total first.
    fn aging_by_customer(
        &self,
        scope: Scope,
        as_of: NaiveDate,
        page: PageRequest,
    ) -> RepoResult<Page<AgingByCustomer>>;
    /// By currency and tax rate over the range (a VAT return's figures).
    fn tax_report(&self, scope: Scope, range: DateRange) -> RepoResult<Vec<TaxLine>>;
    /// By period and currency over the range.
    fn revenue(
        &self,
        scope: Scope,
        range: DateRange,
        interval: ReportInterval,
    ) -> RepoResult<Vec<RevenuePeriod>>;
    /// A customer's statement in one currency (`None`: the account's default): the balance
    /// owed at the range's start, the invoices sent, payments verified and credit notes made in
    /// it, and the aging of what is owed now; with the parties as they are now, to print it.
    fn statement(
        &self,
        scope: Scope,
        customer: CustomerId,
        currency: Option<Currency>,
        range: DateRange,
    ) -> RepoResult<StatementShown>;
}
