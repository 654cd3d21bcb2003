//! Customers (SPEC §6).

use super::RepoResult;
use crate::customer::{Created, Customer, CustomerFilter, CustomerId, CustomerPatch, NewCustomer};
use crate::paging::{Page, PageRequest};
use crate::tenant::Scope;

pub trait CustomerRepository {
    /// Creates the customer, or returns the existing one with the same email unchanged: exactly
    /// one row per email even under concurrent identical requests.
    fn create_customer(&self, scope: Scope, new: NewCustomer) -> RepoResult<Created<Customer>>;
    fn get_customer(&self, scope: Scope, id: CustomerId) -> RepoResult<Customer>;
    fn list_customers(
        &self,
        scope: Scope,
        filter: &CustomerFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Customer>>;
    fn update_customer(
        &self,
        scope: Scope,
        id: CustomerId,
        patch: CustomerPatch,
    ) -> RepoResult<Customer>;
    fn delete_customer(&self, scope: Scope, id: CustomerId) -> RepoResult<()>;
    /// The names and emails of these customers of the tenant, in one statement (lists of
    /// documents show who they are for); ids of no customer of the tenant are left out.
    fn customer_names(
        &self,
        scope: Scope,
        ids: &[CustomerId],
    ) -> RepoResult<Vec<(CustomerId, String, String)>>;
}
