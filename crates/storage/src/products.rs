//! Products (SPEC §14): the catalog, with its events. A product that a line item names cannot
//! be deleted, only archived, so documents never point at nothing.

use crate::capped::{kept_page, uncounted_page};
use crate::connection::AnyConnection;
use crate::events::record;
use crate::product_rows::{load_product, ProductRow};
use crate::rows::{lock_scoped, now_db, returning, scoped};
use crate::schema::{line_items, products};
use crate::store::{Store, TxError};
use diesel::prelude::*;
use invoicing_domain::currency::Currency;
use invoicing_domain::document_lines::{LineDrafts, Lines};
use invoicing_domain::einvoice::TaxRounding;
use invoicing_domain::paging::{Page, PageRequest};
use invoicing_domain::ports::{ProductRepository, RepoError, RepoResult};
use invoicing_domain::product::{NewProduct, Product, ProductFilter, ProductId, ProductPatch};
use invoicing_domain::tenant::Scope;

const IN_USE: &str =
    "line items refer to this product, so it cannot be deleted; archive it with {\"active\": false}";

fn insert(conn: &mut AnyConnection, scope: Scope, new: &NewProduct) -> Result<Product, TxError> {
    let now = now_db();
    let product = diesel::insert_into(products::table)
        .values((
            products::account_id.eq(scope.account_id.0),
            products::livemode.eq(scope.livemode()),
            products::name.eq(&new.name),
            products::description.eq(&new.description),
            products::unit_price_cents.eq(new.unit_price.minor()),
            products::currency.eq(new.currency.code()),
            products::tax_rate_milli.eq(new.tax_rate.thousandths()),
            products::active.eq(new.active),
            products::metadata.eq(new.metadata.to_json()),
            products::created_at.eq(now),
            products::updated_at.eq(now),
        ))
        .returning(returning::<ProductRow>())
        .get_result::<ProductRow>(conn)?
        .into_domain()?;
    record(conn, scope, "product.created", &product)?;
    Ok(product)
}

fn update(
    conn: &mut AnyConnection,
    scope: Scope,
    id: ProductId,
    patch: ProductPatch,
) -> Result<Product, TxError> {
    lock_scoped!(conn, products, scope, id.0)?;
    let current = load_product(conn, scope, id)?;
    if patch == ProductPatch::default() {
        return Ok(current);
    }
    let unit_price = patch
        .unit_price
        .map(|m| m.minor())
        .unwrap_or(current.unit_price_cents);
    diesel::update(scoped!(products, scope).filter(products::id.eq(id.0)))
        .set((
            products::name.eq(patch.name.unwrap_or(current.name)),
            products::description.eq(patch.description.unwrap_or(current.description)),
            products::unit_price_cents.eq(unit_price),
            products::currency.eq(patch.currency.unwrap_or(current.currency).code()),
            products::tax_rate_milli.eq(patch.tax_rate.unwrap_or(current.tax_rate).thousandths()),
            products::active.eq(patch.active.unwrap_or(current.active)),
            products::metadata.eq(patch.metadata.unwrap_or(current.metadata).to_json()),
            products::updated_at.eq(now_db()),
        ))
        .execute(conn)?;
    let updated = load_product(conn, scope, id)?;
    record(conn, scope, "product.updated", &updated)?;
    Ok(updated)
}

fn delete(conn: &mut AnyConnection, scope: Scope, id: ProductId) -> Result<(), TxError> {
    lock_scoped!(conn, products, scope, id.0)?;
    let product = load_product(conn, scope, id)?;
    let in_use: bool = diesel::select(diesel::dsl::exists(
        scoped!(line_items, scope).filter(line_items::product_id.eq(id.0)),
    ))
    .get_result(conn)?;
    if in_use {
        return Err(RepoError::InUse(IN_USE.into()).into());
    }
    diesel::delete(scoped!(products, scope).filter(products::id.eq(id.0))).execute(conn)?;
    record(conn, scope, "product.deleted", &product)?;
    Ok(())
}

impl ProductRepository for Store {
    fn price_lines(
        &self,
        scope: Scope,
        currency: Option<Currency>,
        drafts: &LineDrafts,
        rounding: Option<TaxRounding>,
    ) -> RepoResult<Lines> {
        self.read(|conn| {
            let defaults = crate::documents::account_defaults(conn, scope)?;
            crate::documents::resolve_lines(
                conn,
                scope,
                currency.unwrap_or(defaults.currency),
                drafts,
                rounding.unwrap_or(defaults.tax_rounding),
            )
        })
    }

    fn create_product(&self, scope: Scope, new: NewProduct) -> RepoResult<Product> {
        self.write(|conn| insert(conn, scope, &new))
    }

    fn get_product(&self, scope: Scope, id: ProductId) -> RepoResult<Product> {
        self.read(|conn| load_product(conn, scope, id))
    }

    fn list_products(
        &self,
        scope: Scope,
        filter: &ProductFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Product>> {
        self.read(|conn| {
            let query = || {
                let mut q = scoped!(products, scope).into_boxed();
                if let Some(active) = filter.active {
                    q = q.filter(products::active.eq(active));
                }
                q
            };
            let rows = crate::rows::below!(query(), products, page)
                .order((products::created_at.desc(), products::id.desc()))
                .limit(page.limit() + 1)
                .offset(page.offset())
                .select(ProductRow::as_select())
                .load::<ProductRow>(conn)?;
            let convert =
                |rows: Vec<ProductRow>| rows.into_iter().map(ProductRow::into_domain).collect();
            if !page.counts() {
                return uncounted_page(rows, page, convert);
            }
            let total: i64 = query().count().get_result(conn)?;
            kept_page(rows, page, total, convert)
        })
    }

    fn update_product(
        &self,
        scope: Scope,
        id: ProductId,
        patch: ProductPatch,
    ) -> RepoResult<Product> {
        self.write(|conn| update(conn, scope, id, patch))
    }

    fn delete_product(&self, scope: Scope, id: ProductId) -> RepoResult<()> {
        // A line written by a racing transaction is still caught by the foreign key
        // (PostgreSQL; SQLite's exclusive write transactions cannot interleave).
        self.try_write(|conn| delete(conn, scope, id)).map_err(|e| {
            if e.is_foreign_key_violation() {
                RepoError::InUse(IN_USE.into())
            } else {
                e.into_repo()
            }
        })
    }
}
