//! Products (SPEC §17).

use super::RepoResult;
use crate::currency::Currency;
use crate::document_lines::{LineDrafts, Lines};
use crate::einvoice::TaxRounding;
use crate::paging::{Page, PageRequest};
use crate::product::{NewProduct, Product, ProductFilter, ProductId, ProductPatch};
use crate::tenant::Scope;

pub trait ProductRepository {
    fn create_product(&self, scope: Scope, new: NewProduct) -> RepoResult<Product>;
    fn get_product(&self, scope: Scope, id: ProductId) -> RepoResult<Product>;
    fn list_products(
        &self,
        scope: Scope,
        filter: &ProductFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Product>>;
    fn update_product(
        &self,
        scope: Scope,
        id: ProductId,
        patch: ProductPatch,
    ) -> RepoResult<Product>;
    /// Refused (in use) once a line item names the product: archive it instead.
    fn delete_product(&self, scope: Scope, id: ProductId) -> RepoResult<()>;
    /// The lines priced as a document of the scope prices them when it is saved: products'
    /// prices filled in, in `currency` (the account's when `None`), tax rounded as `rounding`
    /// says (the account's when `None`). Nothing is written.
    fn price_lines(
        &self,
        scope: Scope,
        currency: Option<Currency>,
        drafts: &LineDrafts,
        rounding: Option<TaxRounding>,
    ) -> RepoResult<Lines>;
}
