//! `/api/v1/reports` (SPEC §22): aging, revenue and tax, with `invoices:read`; each also as CSV
//! (`as_csv.rs`), and a customer's statement (`statement.rs`).

pub(crate) mod as_csv;
pub mod statement;

use crate::auth::Auth;
use crate::csv_export::{self};
use crate::error::ApiError;
use crate::ops::Ops;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use as_csv::{aging_csv, revenue_csv, tax_csv};
use invoicing_domain::report::AgingByCustomer;

crate::page_schema! {
    /// A page of customers' aging (SPEC §5 envelope), the largest total first.
    AgingCustomerList of AgingByCustomer
}

/// What open invoices (sent, viewed, overdue) still owe, by days past due at `as_of`: per
/// currency, and per customer and currency (paged).
#[utoipa::path(get, path = "/api/v1/reports/aging", tag = "reports",
    params(
        ("as_of" = Option<String>, Query, format = Date, description = "The day to age at (default: today in the account's time zone)"),
        ("page" = Option<u32>, Query, description = "Page of the per-customer rows, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
        ("format" = Option<String>, Query, description = "`csv`: as CSV (as `Accept: text/csv` asks): a row per currency (all customers), then every customer's rows; anything else: JSON"),
    ),
    responses((status = 200, description = "The aging report",
        content((crate::ops::AgingReport = "application/json"), (String = "text/csv")))),
    security(("api_key" = [])))]
pub async fn aging(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let ops = Ops::for_key(&state, &auth);
    if csv_export::wanted(&req) {
        return aging_csv(req.query_string(), ops).await;
    }
    let report = ops
        .aging_report(&csv_export::without_format(req.query_string()))
        .await?;
    Ok(HttpResponse::Ok().json(report))
}

/// Invoiced (less credit notes), tax, collected and outstanding per currency and calendar period
/// (UTC).
#[utoipa::path(get, path = "/api/v1/reports/revenue", tag = "reports",
    params(
        ("from" = String, Query, format = Date, description = "First day"),
        ("to" = String, Query, format = Date, description = "Last day (before `from`: nothing)"),
        ("interval" = Option<invoicing_domain::report::ReportInterval>, Query, description = "`month` (default), `quarter` or `year`"),
        ("format" = Option<String>, Query, description = "`csv`: as CSV (as `Accept: text/csv` asks); anything else: JSON"),
    ),
    responses((status = 200, description = "The revenue report",
        content((crate::ops::RevenueReport = "application/json"), (String = "text/csv")))),
    security(("api_key" = [])))]
pub async fn revenue(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let csv = csv_export::wanted(&req);
    let report = Ops::for_key(&state, &auth)
        .revenue_report(&csv_export::without_format(req.query_string()))
        .await?;
    if csv {
        return revenue_csv(&report);
    }
    Ok(HttpResponse::Ok().json(report))
}

/// The taxable amount and the tax per currency and rate over a range: invoices that left draft
/// in it, less credit notes made in it (the figures of a VAT return).
#[utoipa::path(get, path = "/api/v1/reports/tax", tag = "reports",
    params(
        ("from" = String, Query, format = Date, description = "First day"),
        ("to" = String, Query, format = Date, description = "Last day (before `from`: nothing)"),
        ("format" = Option<String>, Query, description = "`csv`: as CSV (as `Accept: text/csv` asks); anything else: JSON"),
    ),
    responses((status = 200, description = "The tax report",
        content((crate::ops::TaxReport = "application/json"), (String = "text/csv")))),
    security(("api_key" = [])))]
pub async fn tax(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let csv = csv_export::wanted(&req);
    let report = Ops::for_key(&state, &auth)
        .tax_report(&csv_export::without_format(req.query_string()))
        .await?;
    if csv {
        return tax_csv(&report);
    }
    Ok(HttpResponse::Ok().json(report))
}
