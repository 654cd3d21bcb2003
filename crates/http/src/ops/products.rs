//! The product catalog (SPEC §10).

use super::Ops;
use crate::error::ApiError;
use crate::path_id::Id;
use crate::query::ListQuery;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::paging::Page;
use invoicing_domain::product::{
    Product, ProductFilter, ProductId, ProductInput, ProductPatchInput,
};

fn parse_active(raw: &str) -> Option<bool> {
    match raw {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

impl Ops {
    pub async fn create_product(&self, input: ProductInput) -> Result<Product, ApiError> {
        let scope = self.caller.require(ApiResource::Products, Access::Write)?;
        let new = input.parse()?;
        self.run(scope, "product", move |r, s| r.create_product(s, new))
            .await
    }

    pub async fn list_products(&self, query: &str) -> Result<Page<Product>, ApiError> {
        let filter = |q: &ListQuery| {
            Ok(ProductFilter {
                active: q.choice("active", parse_active, "true, false")?,
            })
        };
        self.list(
            ApiResource::Products,
            query,
            &["active"],
            filter,
            |r, s, f, p| r.list_products(s, f, p),
        )
        .await
    }

    pub async fn product(&self, id: Id<ProductId>) -> Result<Product, ApiError> {
        let scope = self.caller.require(ApiResource::Products, Access::Read)?;
        let id = id.get()?;
        self.run(scope, "product", move |r, s| r.get_product(s, id))
            .await
    }

    pub async fn update_product(
        &self,
        id: Id<ProductId>,
        input: ProductPatchInput,
    ) -> Result<Product, ApiError> {
        let scope = self.caller.require(ApiResource::Products, Access::Write)?;
        let id = id.get()?;
        let patch = input.parse()?;
        self.run(scope, "product", move |r, s| r.update_product(s, id, patch))
            .await
    }

    pub async fn delete_product(&self, id: Id<ProductId>) -> Result<(), ApiError> {
        let scope = self.caller.require(ApiResource::Products, Access::Write)?;
        let id = id.get()?;
        self.run(scope, "product", move |r, s| r.delete_product(s, id))
            .await
    }
}
