//! `/api/v1/reports` (SPEC §22): aging, revenue and tax, with `invoices:read`.

use crate::auth::Auth;
use crate::error::ApiError;
use crate::ops::Ops;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::report::AgingByCustomer;

crate::page_schema! {
    /// A page of customers' aging (SPEC §5 envelope), the largest total first.
    AgingCustomerList of AgingByCustomer
}

/// What open invoices (sent, viewed, overdue) still owe, by days past due at `as_of`: per
/// currency, and per customer and currency (paged).
#[utoipa::path(get, path = "/api/v1/reports/aging", tag = "reports",
    params(
        ("as_of" = Option<String>, Query, format = Date, description = "The day to age at (default today, UTC)"),
        ("page" = Option<u32>, Query, description = "Page of the per-customer rows, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
    ),
    responses((status = 200, description = "The aging report", body = crate::ops::AgingReport)),
    security(("api_key" = [])))]
pub async fn aging(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let report = Ops::for_key(&state, &auth)
        .aging_report(req.query_string())
        .await?;
    Ok(HttpResponse::Ok().json(report))
}

/// Invoiced (less credit notes), tax, collected and outstanding per currency and calendar period
/// (UTC).
#[utoipa::path(get, path = "/api/v1/reports/revenue", tag = "reports",
    params(
        ("from" = String, Query, format = Date, description = "First day"),
        ("to" = String, Query, format = Date, description = "Last day (at most 3,660 days after `from`)"),
        ("interval" = Option<String>, Query, description = "`month` (default), `quarter` or `year`"),
    ),
    responses((status = 200, description = "The revenue report", body = crate::ops::RevenueReport)),
    security(("api_key" = [])))]
pub async fn revenue(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let report = Ops::for_key(&state, &auth)
        .revenue_report(req.query_string())
        .await?;
    Ok(HttpResponse::Ok().json(report))
}

/// The taxable amount and the tax per currency and rate over a range: invoices that left draft
/// in it, less credit notes made in it (the figures of a VAT return).
#[utoipa::path(get, path = "/api/v1/reports/tax", tag = "reports",
    params(
        ("from" = String, Query, format = Date, description = "First day"),
        ("to" = String, Query, format = Date, description = "Last day (at most 3,660 days after `from`)"),
    ),
    responses((status = 200, description = "The tax report", body = crate::ops::TaxReport)),
    security(("api_key" = [])))]
pub async fn tax(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let report = Ops::for_key(&state, &auth)
        .tax_report(req.query_string())
        .await?;
    Ok(HttpResponse::Ok().json(report))
}
