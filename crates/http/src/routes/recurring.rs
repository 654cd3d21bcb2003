//! Recurring invoices (SPEC §20): schedules the scheduler issues invoices from.

use crate::auth::Auth;
use crate::body::{JsonBody, NoBody, OptionalJsonBody};
use crate::csv_export;
use crate::error::ApiError;
use crate::openapi::error_body::ErrorBody;
use crate::ops::Ops;
use crate::path_id::Id;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::recurring::{
    RecurringId, RecurringInput, RecurringInvoice, RecurringPatchInput, RecurringStatus,
};

crate::page_schema! {
    /// A page of recurring invoices (SPEC §5 envelope).
    RecurringList of RecurringInvoice
}

/// Create a schedule. The scheduler issues every invoice, the first one too: a schedule
/// starting today gets its first invoice at the next sweep.
#[utoipa::path(post, path = "/api/v1/recurring_invoices", tag = "recurring_invoices",
    request_body = RecurringInput,
    responses((status = 201, description = "The active schedule", body = RecurringInvoice)),
    security(("api_key" = [])))]
pub async fn create(
    state: web::Data<AppState>,
    auth: Auth,
    body: JsonBody<RecurringInput>,
) -> Result<HttpResponse, ApiError> {
    let created = Ops::for_key(&state, &auth).create_recurring(body.0).await?;
    Ok(HttpResponse::Created().json(created))
}

/// List schedules, newest first.
#[utoipa::path(get, path = "/api/v1/recurring_invoices", tag = "recurring_invoices",
    params(
        ("status" = Option<RecurringStatus>, Query, description = "active, paused, cancelled or completed"),
        ("customer_id" = Option<i64>, Query, minimum = 1, description = "Only this customer's"),
        ("page" = Option<u32>, Query, description = "Page number, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
        ("format" = Option<String>, Query, description = "`csv`: every matching row as CSV (as `Accept: text/csv` asks); anything else: JSON"),
    ),
    responses((status = 200, description = "A page of schedules; or, asked for CSV, every matching one (UTF-8 with a byte-order mark)",
        content((RecurringList = "application/json"), (String = "text/csv")))),
    security(("api_key" = [])))]
pub async fn list(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    RECURRING
        .answer(
            req.query_string(),
            csv_export::wanted(&req),
            Ops::for_key(&state, &auth),
        )
        .await
}

/// Retrieve a schedule.
#[utoipa::path(get, path = "/api/v1/recurring_invoices/{id}", tag = "recurring_invoices",
    params(("id" = i64, Path, description = "Recurring invoice id")),
    responses(
        (status = 200, description = "The schedule", body = RecurringInvoice),
        (status = 404, description = "No such recurring invoice", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn get(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<RecurringId>,
) -> Result<HttpResponse, ApiError> {
    let found = Ops::for_key(&state, &auth).recurring(id).await?;
    Ok(HttpResponse::Ok().json(found))
}

/// Change what the invoices not yet issued will be: lines, payment terms, notes, metadata,
/// the end (`end_date` or `occurrences`), `auto_send` and `email`.
#[utoipa::path(patch, path = "/api/v1/recurring_invoices/{id}", tag = "recurring_invoices",
    params(("id" = i64, Path, description = "Recurring invoice id")),
    request_body = RecurringPatchInput,
    responses(
        (status = 200, description = "The schedule", body = RecurringInvoice),
        (status = 404, description = "No such recurring invoice", body = ErrorBody),
        (status = 409, description = "Cancelled or completed (`invalid_state_transition`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn update(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<RecurringId>,
    body: JsonBody<RecurringPatchInput>,
) -> Result<HttpResponse, ApiError> {
    let updated = Ops::for_key(&state, &auth)
        .update_recurring(id, body.0)
        .await?;
    Ok(HttpResponse::Ok().json(updated))
}

async fn change(
    state: &AppState,
    auth: &Auth,
    id: Id<RecurringId>,
    to: RecurringStatus,
) -> Result<HttpResponse, ApiError> {
    let changed = Ops::for_key(state, auth).change_recurring(id, to).await?;
    Ok(HttpResponse::Ok().json(changed))
}

/// Pause an active schedule: periods that fall while paused are skipped.
#[utoipa::path(post, path = "/api/v1/recurring_invoices/{id}/pause", tag = "recurring_invoices",
    params(("id" = i64, Path, description = "Recurring invoice id")),
    responses(
        (status = 200, description = "The paused schedule", body = RecurringInvoice),
        (status = 404, description = "No such recurring invoice", body = ErrorBody),
        (status = 409, description = "Not active (`invalid_state_transition`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn pause(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<RecurringId>,
    _body: OptionalJsonBody<NoBody>,
) -> Result<HttpResponse, ApiError> {
    change(&state, &auth, id, RecurringStatus::Paused).await
}

/// Resume a paused schedule from its first period on or after today.
#[utoipa::path(post, path = "/api/v1/recurring_invoices/{id}/resume", tag = "recurring_invoices",
    params(("id" = i64, Path, description = "Recurring invoice id")),
    responses(
        (status = 200, description = "The active schedule (completed if no period is left)", body = RecurringInvoice),
        (status = 404, description = "No such recurring invoice", body = ErrorBody),
        (status = 409, description = "Not paused (`invalid_state_transition`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn resume(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<RecurringId>,
    _body: OptionalJsonBody<NoBody>,
) -> Result<HttpResponse, ApiError> {
    change(&state, &auth, id, RecurringStatus::Active).await
}

/// Cancel an active or paused schedule; no further invoices.
#[utoipa::path(post, path = "/api/v1/recurring_invoices/{id}/cancel", tag = "recurring_invoices",
    params(("id" = i64, Path, description = "Recurring invoice id")),
    responses(
        (status = 200, description = "The cancelled schedule", body = RecurringInvoice),
        (status = 404, description = "No such recurring invoice", body = ErrorBody),
        (status = 409, description = "Already cancelled or completed (`invalid_state_transition`)", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn cancel(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<RecurringId>,
    _body: OptionalJsonBody<NoBody>,
) -> Result<HttpResponse, ApiError> {
    change(&state, &auth, id, RecurringStatus::Cancelled).await
}

/// The list as CSV, for this route and the dashboard's export link.
pub(crate) const RECURRING: csv_export::Export<RecurringInvoice> = csv_export::Export {
    file: "recurring_invoices.csv",
    columns: &[
        csv_export::text("id"),
        csv_export::text("customer_id"),
        csv_export::text("currency"),
        csv_export::amount("subtotal"),
        csv_export::amount("tax"),
        csv_export::amount("total"),
        csv_export::text("interval"),
        csv_export::text("interval_count"),
        csv_export::text("start_date"),
        csv_export::text("end_date"),
        csv_export::text("occurrences"),
        csv_export::text("status"),
        csv_export::text("next_issue_date"),
        csv_export::text("invoices_created"),
        csv_export::text("auto_send"),
        csv_export::text("email"),
        csv_export::text("created_at"),
    ],
    row: recurring_row,
    list: |ops, q| Box::pin(async move { ops.list_recurring(&q).await }),
};

fn recurring_row(r: &RecurringInvoice) -> Vec<csv_export::Cell> {
    use csv_export::Cell::{Amount, Date, Int, Text, Time};
    let day = |d: Option<chrono::NaiveDate>| d.map_or_else(|| Text(String::new()), Date);
    vec![
        Int(r.id.0),
        Int(r.customer_id.0),
        Text(r.currency.code().to_string()),
        Amount(r.subtotal_cents, r.currency),
        Amount(r.tax_cents, r.currency),
        Amount(r.total_cents, r.currency),
        Text(r.interval.as_str().to_string()),
        Int(i64::from(r.interval_count)),
        Date(r.start_date),
        day(r.end_date),
        csv_export::maybe_int(r.occurrences.map(i64::from)),
        Text(r.status.as_str().to_string()),
        day(r.next_issue_date),
        Int(i64::from(r.invoices_created)),
        Text(r.auto_send.to_string()),
        Text(r.email.to_string()),
        Time(Some(r.created_at)),
    ]
}
