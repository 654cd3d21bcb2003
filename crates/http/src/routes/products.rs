//! `/api/v1/products` (SPEC §14): the catalog that line items may name.

use crate::auth::Auth;
use crate::body::{JsonBody, NoBody, OptionalJsonBody};
use crate::error::ApiError;
use crate::openapi::ErrorBody;
use crate::path_id::Id;
use crate::query::ListQuery;
use crate::{blocking, AppState};
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::product::{
    Product, ProductFilter, ProductId, ProductInput, ProductPatchInput,
};

crate::page_schema! {
    /// A page of products (SPEC §5 envelope).
    ProductList of Product
}

fn missing(e: ApiError) -> ApiError {
    e.naming("product")
}

fn parse_active(raw: &str) -> Option<bool> {
    match raw {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
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
    let scope = auth.require(ApiResource::Products, Access::Write)?;
    let new = body.0.parse()?;
    let repos = state.repos();
    let product = blocking(move || repos.create_product(scope, new)).await?;
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
    let scope = auth.require(ApiResource::Products, Access::Read)?;
    let q = ListQuery::parse(req.query_string(), &["active"])?;
    let page = q.page()?;
    let filter = ProductFilter {
        active: q.choice("active", parse_active, "true, false")?,
    };
    let repos = state.repos();
    let page = blocking(move || repos.list_products(scope, &filter, page)).await?;
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
    let scope = auth.require(ApiResource::Products, Access::Read)?;
    let id = id.get()?;
    let repos = state.repos();
    let product = blocking(move || repos.get_product(scope, id))
        .await
        .map_err(missing)?;
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
    let scope = auth.require(ApiResource::Products, Access::Write)?;
    let id = id.get()?;
    let patch = body.0.parse()?;
    let repos = state.repos();
    let product = blocking(move || repos.update_product(scope, id, patch))
        .await
        .map_err(missing)?;
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
    let scope = auth.require(ApiResource::Products, Access::Write)?;
    let id = id.get()?;
    let repos = state.repos();
    blocking(move || repos.delete_product(scope, id))
        .await
        .map_err(missing)?;
    Ok(HttpResponse::NoContent().finish())
}
