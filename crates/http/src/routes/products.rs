//! `/api/v1/products` (SPEC §14): the catalog that line items may name.

use crate::auth::Auth;
use crate::body::{JsonBody, NoBody, OptionalJsonBody};
use crate::csv_export;
use crate::error::ApiError;
use crate::openapi::error_body::ErrorBody;
use crate::ops::Ops;
use crate::path_id::Id;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::product::{Product, ProductId, ProductInput, ProductPatchInput};

crate::page_schema! {
    /// A page of products (SPEC §5 envelope).
    ProductList of Product
}

/// Create a product.
#[utoipa::path(post, path = "/api/v1/products", tag = "products",
    request_body = ProductInput,
    responses((status = 201, description = "The new product", body = Product)),
    security(("api_key" = [])))]
pub async fn create(
    state: web::Data<AppState>,
    auth: Auth,
    body: JsonBody<ProductInput>,
) -> Result<HttpResponse, ApiError> {
    let product = Ops::for_key(&state, &auth).create_product(body.0).await?;
    Ok(HttpResponse::Created().json(product))
}

/// List products, newest first.
#[utoipa::path(get, path = "/api/v1/products", tag = "products",
    params(
        ("active" = Option<bool>, Query, description = "true: the catalog on offer; false: archived products"),
        ("page" = Option<u32>, Query, description = "Page number, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
        ("format" = Option<String>, Query, description = "`csv`: every matching row as CSV (as `Accept: text/csv` asks); anything else: JSON"),
    ),
    responses((status = 200, description = "A page of products; or, asked for CSV, every matching one (UTF-8 with a byte-order mark, amounts as `_cents` and decimals)",
        content((ProductList = "application/json"), (String = "text/csv")))),
    security(("api_key" = [])))]
pub async fn list(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    PRODUCTS
        .answer(
            req.query_string(),
            csv_export::wanted(&req),
            Ops::for_key(&state, &auth),
        )
        .await
}

/// The list as CSV, for this route and the dashboard's export link.
pub(crate) const PRODUCTS: csv_export::Export<Product> = csv_export::Export {
    file: "products.csv",
    columns: PRODUCT_COLUMNS,
    row: product_row,
    list: |ops, q| Box::pin(async move { ops.list_products(&q).await }),
};

pub(crate) const PRODUCT_COLUMNS: &[csv_export::Column] = &[
    csv_export::text("id"),
    csv_export::text("name"),
    csv_export::text("description"),
    csv_export::text("currency"),
    csv_export::amount("unit_price"),
    csv_export::text("tax_rate"),
    csv_export::text("active"),
    csv_export::text("created_at"),
];

pub(crate) fn product_row(p: &Product) -> Vec<csv_export::Cell> {
    use csv_export::Cell::{Amount, Int, Text, Time};
    vec![
        Int(p.id.0),
        Text(p.name.clone()),
        Text(p.description.clone().unwrap_or_default()),
        Text(p.currency.code().to_string()),
        Amount(p.unit_price_cents, p.currency),
        Text(p.tax_rate.to_string()),
        Text(p.active.to_string()),
        Time(Some(p.created_at)),
    ]
}

/// Retrieve a product.
#[utoipa::path(get, path = "/api/v1/products/{id}", tag = "products",
    params(("id" = i64, Path, description = "Product id")),
    responses(
        (status = 200, description = "The product", body = Product),
        (status = 404, description = "No such product", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn get(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<ProductId>,
) -> Result<HttpResponse, ApiError> {
    let product = Ops::for_key(&state, &auth).product(id).await?;
    Ok(HttpResponse::Ok().json(product))
}

/// Update a product; `{"active": false}` archives it. Lines already written keep what they
/// copied from it.
#[utoipa::path(patch, path = "/api/v1/products/{id}", tag = "products",
    params(("id" = i64, Path, description = "Product id")),
    request_body = ProductPatchInput,
    responses(
        (status = 200, description = "The updated product", body = Product),
        (status = 404, description = "No such product", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn update(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<ProductId>,
    body: JsonBody<ProductPatchInput>,
) -> Result<HttpResponse, ApiError> {
    let product = Ops::for_key(&state, &auth)
        .update_product(id, body.0)
        .await?;
    Ok(HttpResponse::Ok().json(product))
}

/// Delete a product that no line item names; archive it otherwise.
#[utoipa::path(delete, path = "/api/v1/products/{id}", tag = "products",
    params(("id" = i64, Path, description = "Product id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such product", body = ErrorBody),
        (status = 409, description = "Line items name the product (`resource_in_use`): archive it with `{\"active\": false}`", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn delete(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<ProductId>,
    _body: OptionalJsonBody<NoBody>,
) -> Result<HttpResponse, ApiError> {
    Ops::for_key(&state, &auth).delete_product(id).await?;
    Ok(HttpResponse::NoContent().finish())
}
