//! Reading products: rows as the API shows them, and the catalog that line items resolve from.

use crate::connection::AnyConnection;
use crate::rows::{from_db, missing_or_forbidden, scoped};
use crate::schema::products;
use crate::store::TxError;
use chrono::NaiveDateTime;
use diesel::prelude::*;
use invoicing_domain::currency::Currency;
use invoicing_domain::decimal::TaxRate;
use invoicing_domain::ports::RepoError;
use invoicing_domain::product::{Product, ProductId};
use invoicing_domain::tenant::Scope;
use invoicing_domain::validation::Metadata;
use std::collections::HashMap;

#[derive(Queryable, Selectable)]
#[diesel(table_name = products)]
pub(crate) struct ProductRow {
    id: i64,
    livemode: bool,
    name: String,
    description: Option<String>,
    unit_price_cents: i64,
    currency: String,
    tax_rate_milli: i64,
    active: bool,
    metadata: String,
    created_at: NaiveDateTime,
    updated_at: NaiveDateTime,
}

impl ProductRow {
    pub(crate) fn into_domain(self) -> Result<Product, TxError> {
        let bad = |what: &str| RepoError::Internal(format!("product {}: bad {what}", self.id));
        Ok(Product {
            id: ProductId(self.id),
            object: Product::OBJECT,
            currency: Currency::parse(&self.currency).map_err(|_| bad("currency"))?,
            tax_rate: TaxRate::from_thousandths(self.tax_rate_milli)
                .map_err(|_| bad("tax rate"))?,
            name: self.name,
            description: self.description,
            unit_price_cents: self.unit_price_cents,
            active: self.active,
            metadata: Metadata::from_json(&self.metadata),
            livemode: self.livemode,
            created_at: from_db(self.created_at),
            updated_at: from_db(self.updated_at),
        })
    }
}

pub(crate) fn load_product(
    conn: &mut AnyConnection,
    scope: Scope,
    id: ProductId,
) -> Result<Product, TxError> {
    match scoped!(products, scope)
        .filter(products::id.eq(id.0))
        .select(ProductRow::as_select())
        .first::<ProductRow>(conn)
        .optional()?
    {
        Some(row) => row.into_domain(),
        None => Err(missing_or_forbidden!(conn, products, id.0).into()),
    }
}

/// The scope's products among `ids`. Another tenant's id is simply absent, so a line naming it
/// gets the same "no such product" as an id nobody has.
pub(crate) fn catalog(
    conn: &mut AnyConnection,
    scope: Scope,
    ids: &[ProductId],
) -> Result<HashMap<ProductId, Product>, TxError> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let raw: Vec<i64> = ids.iter().map(|id| id.0).collect();
    // Holds the products until the document's lines are written: a concurrent delete (which
    // locks the product too) then either finishes first, so the product is gone (422 here), or
    // waits and finds the new line (409 there) — never a foreign-key failure.
    diesel::update(scoped!(products, scope).filter(products::id.eq_any(raw.clone())))
        .set(products::updated_at.eq(products::updated_at))
        .execute(conn)?;
    scoped!(products, scope)
        .filter(products::id.eq_any(raw))
        .select(ProductRow::as_select())
        .load::<ProductRow>(conn)?
        .into_iter()
        .map(|row| row.into_domain().map(|p| (p.id, p)))
        .collect()
}
