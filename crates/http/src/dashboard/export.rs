//! The dashboard's CSV links (SPEC §22): the list shown (with its filters) or a report, as the
//! API answers it for `Accept: text/csv`, through the same operations and the session's role.

use super::Refusal;
use crate::dashboard::{Answer, Visitor};
use crate::error::ApiError;
use crate::routes::{
    credit_notes, customers, emails, events, invoices, payments, products, quotations, recurring,
    reports, webhooks,
};
use crate::AppState;
use actix_web::{web, HttpRequest};

/// Every row of a list, or a report, as CSV.
#[utoipa::path(get, path = "/dashboard/export/{what}", tag = "dashboard", operation_id = "dashboard_export",
    params(("what" = String, Path, description = "invoices, quotations, customers, payments, products, credit-notes, recurring, emails, events, webhooks, aging, revenue or tax; the query is the list's filters or the report's days")),
    responses(
        (status = 200, description = "The rows as CSV (UTF-8 with a byte-order mark)", content_type = "text/csv", body = String),
        (status = 400, description = "A filter the API refuses", content_type = "text/html", body = String),
        (status = 404, description = "No such list", content_type = "text/html", body = String),
    ))]
pub(crate) async fn export(
    me: Visitor,
    state: web::Data<AppState>,
    req: HttpRequest,
    what: web::Path<String>,
) -> Answer {
    let ops = me.ops(&state);
    let q = super::form::without_blanks(req.query_string());
    let csv = match what.as_str() {
        "invoices" => invoices::INVOICES.csv(&q, ops).await,
        "quotations" => quotations::QUOTATIONS.csv(&q, ops).await,
        "customers" => customers::CUSTOMERS.csv(&q, ops).await,
        "payments" => payments::PAYMENTS.csv(&q, ops).await,
        "products" => products::PRODUCTS.csv(&q, ops).await,
        "credit-notes" => credit_notes::CREDIT_NOTES.csv(&q, ops).await,
        "recurring" => recurring::RECURRING.csv(&q, ops).await,
        "emails" => emails::EMAILS.csv(&q, ops).await,
        "events" => events::EVENTS.csv(&q, ops).await,
        "webhooks" => webhooks::WEBHOOKS.csv(&q, ops).await,
        "aging" => reports::as_csv::aging_csv(&q, ops).await,
        "revenue" => match ops.revenue_report(&q).await {
            Ok(r) => reports::as_csv::revenue_csv(&r),
            Err(e) => Err(e),
        },
        "tax" => match ops.tax_report(&q).await {
            Ok(r) => reports::as_csv::tax_csv(&r),
            Err(e) => Err(e),
        },
        _ => Err(ApiError::resource_missing("export")),
    };
    csv.map_err(Refusal::from)
}
