//! `/api/v1/products` (SPEC §14): the catalog that line items may name.

use crate::auth::Auth;
use crate::body::{JsonBody, NoBody, OptionalJsonBody};
use crate::error::ApiError;
use crate::openapi::ErrorBody;
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
    ),
    responses((status = 200, description = "A page of products", body = ProductList)),
    security(("api_key" = [])))]
pub async fn list(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let page = Ops::for_key(&state, &auth)
        .list_products(req.query_string())
        .await?;
    Ok(HttpResponse::Ok().json(page))
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
