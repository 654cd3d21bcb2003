//! `/api/v1/customers` (SPEC §8).

use crate::auth::Auth;
use crate::body::{JsonBody, NoBody, OptionalJsonBody};
use crate::csv_export;
use crate::error::ApiError;
use crate::ops::Ops;
use crate::path_id::Id;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::customer::{
    Created, Customer, CustomerId, CustomerInput, CustomerPatchInput,
};

crate::page_schema! {
    /// A page of customers (SPEC §5 envelope).
    CustomerList of Customer
}

/// Create a customer, or get the existing one with this email.
#[utoipa::path(post, path = "/api/v1/customers", tag = "customers",
    request_body = CustomerInput,
    responses(
        (status = 201, description = "Customer created", body = Customer),
        (status = 200, description = "A customer with this email exists; returned unchanged, nothing created", body = Customer),
    ),
    security(("api_key" = [])))]
pub async fn create(
    state: web::Data<AppState>,
    auth: Auth,
    body: JsonBody<CustomerInput>,
) -> Result<HttpResponse, ApiError> {
    Ok(
        match Ops::for_key(&state, &auth).create_customer(body.0).await? {
            Created::New(c) => HttpResponse::Created().json(c),
            Created::Existing(c) => HttpResponse::Ok().json(c),
        },
    )
}

/// List customers, newest first; `email` finds one by address (exact, case-insensitive).
#[utoipa::path(get, path = "/api/v1/customers", tag = "customers",
    params(
        ("email" = Option<String>, Query, min_length = 1, pattern = r"^[^\u0000-\u001F\u007F-\u009F]*[^\s\u0000-\u001F\u007F-\u009F][^\u0000-\u001F\u007F-\u009F]*$",
            description = "Exact email, compared case-insensitively; not blank, no control characters"),
        ("q" = Option<String>, Query, min_length = 1, max_length = 100, pattern = r"^[^\u0000-\u001F\u007F-\u009F]*[^\s\u0000-\u001F\u007F-\u009F][^\u0000-\u001F\u007F-\u009F]*$", description = "Search: customers whose name or email contains this text (any case); 1 to 100 characters, no control characters"),
        ("page" = Option<u32>, Query, description = "Page number, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
        ("format" = Option<String>, Query, description = "`csv`: every matching row as CSV (as `Accept: text/csv` asks); anything else: JSON"),
    ),
    responses((status = 200, description = "A page of customers; or, asked for CSV, every matching one (UTF-8 with a byte-order mark, amounts as `_cents` and decimals)",
        content((CustomerList = "application/json"), (String = "text/csv")))),
    security(("api_key" = [])))]
pub async fn list(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    CUSTOMERS
        .answer(
            req.query_string(),
            csv_export::wanted(&req),
            Ops::for_key(&state, &auth),
        )
        .await
}

/// The list as CSV, for this route and the dashboard's export link.
pub(crate) const CUSTOMERS: csv_export::Export<Customer> = csv_export::Export {
    file: "customers.csv",
    columns: CUSTOMER_COLUMNS,
    row: customer_row,
    list: |ops, q| Box::pin(async move { ops.list_customers(&q).await }),
};

pub(crate) const CUSTOMER_COLUMNS: &[csv_export::Column] = &[
    csv_export::text("id"),
    csv_export::text("name"),
    csv_export::text("email"),
    csv_export::text("company"),
    csv_export::text("phone"),
    csv_export::text("tax_id"),
    csv_export::text("address_line1"),
    csv_export::text("address_line2"),
    csv_export::text("postal_code"),
    csv_export::text("city"),
    csv_export::text("state"),
    csv_export::text("country"),
    csv_export::text("locale"),
    csv_export::text("created_at"),
];

pub(crate) fn customer_row(c: &Customer) -> Vec<csv_export::Cell> {
    use csv_export::Cell::{Int, Text, Time};
    let opt = |v: &Option<String>| Text(v.clone().unwrap_or_default());
    let a = c.address.clone().unwrap_or_default();
    vec![
        Int(c.id.0),
        Text(c.name.clone()),
        Text(c.email.as_str().to_string()),
        opt(&c.company),
        opt(&c.phone),
        opt(&c.tax_id),
        opt(&a.line1),
        opt(&a.line2),
        opt(&a.postal_code),
        opt(&a.city),
        opt(&a.state),
        opt(&a.country),
        Text(c.locale.map(|l| l.code().to_string()).unwrap_or_default()),
        Time(Some(c.created_at)),
    ]
}

/// Retrieve a customer.
#[utoipa::path(get, path = "/api/v1/customers/{id}", tag = "customers",
    params(("id" = i64, Path, description = "Customer id")),
    responses(
        (status = 200, description = "The customer", body = Customer),
        (status = 404, description = "No such customer", body = crate::openapi::error_body::ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn get(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<CustomerId>,
) -> Result<HttpResponse, ApiError> {
    let customer = Ops::for_key(&state, &auth).customer(id).await?;
    Ok(HttpResponse::Ok().json(customer))
}

/// Update a customer; absent fields stay, `null` clears an optional field.
#[utoipa::path(patch, path = "/api/v1/customers/{id}", tag = "customers",
    params(("id" = i64, Path, description = "Customer id")),
    request_body = CustomerPatchInput,
    responses(
        (status = 200, description = "The updated customer", body = Customer),
        (status = 404, description = "No such customer", body = crate::openapi::error_body::ErrorBody),
        (status = 409, description = "Another customer has this email (`resource_in_use`)", body = crate::openapi::error_body::ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn update(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<CustomerId>,
    body: JsonBody<CustomerPatchInput>,
) -> Result<HttpResponse, ApiError> {
    let customer = Ops::for_key(&state, &auth)
        .update_customer(id, body.0)
        .await?;
    Ok(HttpResponse::Ok().json(customer))
}

/// Delete a customer that no document refers to.
#[utoipa::path(delete, path = "/api/v1/customers/{id}", tag = "customers",
    params(("id" = i64, Path, description = "Customer id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such customer", body = crate::openapi::error_body::ErrorBody),
        (status = 409, description = "Documents refer to the customer (`resource_in_use`)", body = crate::openapi::error_body::ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn delete(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<CustomerId>,
    _body: OptionalJsonBody<NoBody>,
) -> Result<HttpResponse, ApiError> {
    Ops::for_key(&state, &auth).delete_customer(id).await?;
    Ok(HttpResponse::NoContent().finish())
}
