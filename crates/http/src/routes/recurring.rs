//! Recurring invoices (SPEC §20): schedules the scheduler issues invoices from.

use crate::auth::Auth;
use crate::body::{JsonBody, NoBody, OptionalJsonBody};
use crate::error::ApiError;
use crate::openapi::ErrorBody;
use crate::path_id::Id;
use crate::query::ListQuery;
use crate::{blocking, AppState};
use actix_web::{web, HttpRequest, HttpResponse};
use chrono::Utc;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::customer::CustomerId;
use invoicing_domain::recurring::{
    RecurringFilter, RecurringId, RecurringInput, RecurringInvoice, RecurringPatchInput,
    RecurringStatus,
};

crate::page_schema! {
    /// A page of recurring invoices (SPEC §5 envelope).
    RecurringList of RecurringInvoice
}

fn missing(e: ApiError) -> ApiError {
    e.naming("recurring invoice")
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
    let scope =
        auth.require_document_write(ApiResource::RecurringInvoices, body.0.customer.is_some())?;
    let new = body.0.parse(Utc::now().date_naive())?;
    if new.email && !state.config.mail_enabled {
        return Err(ApiError::email_not_configured());
    }
    let repos = state.repos();
    let created = blocking(move || repos.create_recurring(scope, new)).await?;
    Ok(HttpResponse::Created().json(created))
}

/// List schedules, newest first.
#[utoipa::path(get, path = "/api/v1/recurring_invoices", tag = "recurring_invoices",
    params(
        ("status" = Option<RecurringStatus>, Query, description = "active, paused, cancelled or completed"),
        ("customer_id" = Option<i64>, Query, minimum = 1, description = "Only this customer's"),
        ("page" = Option<u32>, Query, description = "Page number, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
    ),
    responses((status = 200, description = "A page of schedules", body = RecurringList)),
    security(("api_key" = [])))]
pub async fn list(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let scope = auth.require(ApiResource::RecurringInvoices, Access::Read)?;
    let q = ListQuery::parse(req.query_string(), &["status", "customer_id"])?;
    let page = q.page()?;
    let filter = RecurringFilter {
        status: q.choice(
            "status",
            RecurringStatus::parse,
            "active, paused, cancelled, completed",
        )?,
        customer_id: q.id("customer_id")?.map(CustomerId),
    };
    let repos = state.repos();
    let page = blocking(move || repos.list_recurring(scope, &filter, page)).await?;
    Ok(HttpResponse::Ok().json(page))
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
    let scope = auth.require(ApiResource::RecurringInvoices, Access::Read)?;
    let id = id.get()?;
    let repos = state.repos();
    let found = blocking(move || repos.get_recurring(scope, id))
        .await
        .map_err(missing)?;
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
    let scope = auth.require(ApiResource::RecurringInvoices, Access::Write)?;
    let id = id.get()?;
    let patch = body.0.parse()?;
    if patch.email == Some(true) && !state.config.mail_enabled {
        return Err(ApiError::email_not_configured());
    }
    let repos = state.repos();
    let updated = blocking(move || repos.update_recurring(scope, id, patch))
        .await
        .map_err(missing)?;
    Ok(HttpResponse::Ok().json(updated))
}

async fn change(
    state: &AppState,
    auth: &Auth,
    id: Id<RecurringId>,
    to: RecurringStatus,
) -> Result<HttpResponse, ApiError> {
    let scope = auth.require(ApiResource::RecurringInvoices, Access::Write)?;
    let id = id.get()?;
    let repos = state.repos();
    let today = Utc::now().date_naive();
    let changed = blocking(move || repos.change_recurring(scope, id, to, today))
        .await
        .map_err(missing)?;
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
