//! Customers (SPEC §8).

use super::Ops;
use crate::error::ApiError;
use crate::path_id::Id;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::customer::{
    Created, Customer, CustomerFilter, CustomerId, CustomerInput, CustomerPatchInput,
};
use invoicing_domain::paging::Page;

impl Ops {
    /// Creates the customer, or answers the existing one with the same email.
    pub async fn create_customer(
        &self,
        input: CustomerInput,
    ) -> Result<Created<Customer>, ApiError> {
        let scope = self.caller.require(ApiResource::Customers, Access::Write)?;
        let new = input.parse()?;
        self.run(scope, "customer", move |r, s| r.create_customer(s, new))
            .await
    }

    pub async fn list_customers(&self, query: &str) -> Result<Page<Customer>, ApiError> {
        let filter = |q: &crate::query::ListQuery| {
            Ok(CustomerFilter {
                email: q.text("email")?,
                search: super::search(q)?,
            })
        };
        self.list(
            ApiResource::Customers,
            query,
            &["email", "q"],
            filter,
            |r, s, f, p| r.list_customers(s, f, p),
        )
        .await
    }

    pub async fn customer(&self, id: Id<CustomerId>) -> Result<Customer, ApiError> {
        let scope = self.caller.require(ApiResource::Customers, Access::Read)?;
        let id = id.get()?;
        self.run(scope, "customer", move |r, s| r.get_customer(s, id))
            .await
    }

    pub async fn update_customer(
        &self,
        id: Id<CustomerId>,
        input: CustomerPatchInput,
    ) -> Result<Customer, ApiError> {
        let scope = self.caller.require(ApiResource::Customers, Access::Write)?;
        let id = id.get()?;
        let patch = input.parse()?;
        self.run(scope, "customer", move |r, s| {
            r.update_customer(s, id, patch)
        })
        .await
    }

    pub async fn delete_customer(&self, id: Id<CustomerId>) -> Result<(), ApiError> {
        let scope = self.caller.require(ApiResource::Customers, Access::Write)?;
        let id = id.get()?;
        self.run(scope, "customer", move |r, s| r.delete_customer(s, id))
            .await
    }
}

impl Ops {
    /// Who these customers are (name, email), for lists of their documents.
    pub async fn customer_names(
        &self,
        ids: Vec<CustomerId>,
    ) -> Result<std::collections::HashMap<CustomerId, (String, String)>, ApiError> {
        let scope = self.caller.require(ApiResource::Customers, Access::Read)?;
        let rows = self
            .run(scope, "customer", move |r, s| r.customer_names(s, &ids))
            .await?;
        Ok(rows.into_iter().map(|(id, n, e)| (id, (n, e))).collect())
    }
}
