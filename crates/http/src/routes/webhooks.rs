//! `/api/v1/webhooks` (SPEC §11): endpoints, their secrets and their delivery log.

use crate::auth::Auth;
use crate::body::{JsonBody, NoBody, OptionalJsonBody};
use crate::csv_export;
use crate::error::ApiError;
use crate::openapi::error_body::ErrorBody;
use crate::ops::Ops;
use crate::path_id::Id;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::webhook::{
    WebhookEndpoint, WebhookEndpointId, WebhookInput, WebhookPatchInput,
};
use invoicing_domain::webhook_delivery::DeliveryAttempt;

crate::page_schema! {
    /// A page of webhook endpoints (SPEC §5 envelope).
    WebhookList of WebhookEndpoint
}

crate::page_schema! {
    /// A page of delivery attempts, newest first (SPEC §5 envelope).
    DeliveryAttemptList of DeliveryAttempt
}

/// Register an endpoint. The answer carries its signing secret, shown only here and on rotation.
#[utoipa::path(post, path = "/api/v1/webhooks", tag = "webhooks",
    request_body = WebhookInput,
    responses((status = 201, description = "The endpoint, with `secret`", body = WebhookEndpoint)),
    security(("api_key" = [])))]
pub async fn create(
    state: web::Data<AppState>,
    auth: Auth,
    body: JsonBody<WebhookInput>,
) -> Result<HttpResponse, ApiError> {
    let endpoint = Ops::for_key(&state, &auth).create_webhook(body.0).await?;
    Ok(HttpResponse::Created().json(endpoint))
}

/// List endpoints, newest first (without secrets).
#[utoipa::path(get, path = "/api/v1/webhooks", tag = "webhooks",
    params(
        ("page" = Option<u32>, Query, description = "Page number, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
        ("format" = Option<String>, Query, description = "`csv`: every matching row as CSV (as `Accept: text/csv` asks); anything else: JSON"),
    ),
    responses((status = 200, description = "A page of endpoints; or, asked for CSV, every matching one (UTF-8 with a byte-order mark)",
        content((WebhookList = "application/json"), (String = "text/csv")))),
    security(("api_key" = [])))]
pub async fn list(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    WEBHOOKS
        .answer(
            req.query_string(),
            csv_export::wanted(&req),
            Ops::for_key(&state, &auth),
        )
        .await
}

/// Retrieve an endpoint (without its secret).
#[utoipa::path(get, path = "/api/v1/webhooks/{id}", tag = "webhooks",
    params(("id" = i64, Path, description = "Webhook endpoint id")),
    responses(
        (status = 200, description = "The endpoint", body = WebhookEndpoint),
        (status = 404, description = "No such endpoint", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn get(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<WebhookEndpointId>,
) -> Result<HttpResponse, ApiError> {
    let endpoint = Ops::for_key(&state, &auth).webhook(id).await?;
    Ok(HttpResponse::Ok().json(endpoint))
}

/// Change an endpoint's `url`, `events`, `enabled` or `description`. A disabled endpoint keeps
/// its pending deliveries until it is enabled again.
#[utoipa::path(patch, path = "/api/v1/webhooks/{id}", tag = "webhooks",
    params(("id" = i64, Path, description = "Webhook endpoint id")),
    request_body = WebhookPatchInput,
    responses(
        (status = 200, description = "The updated endpoint", body = WebhookEndpoint),
        (status = 404, description = "No such endpoint", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn update(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<WebhookEndpointId>,
    body: JsonBody<WebhookPatchInput>,
) -> Result<HttpResponse, ApiError> {
    let endpoint = Ops::for_key(&state, &auth)
        .update_webhook(id, body.0)
        .await?;
    Ok(HttpResponse::Ok().json(endpoint))
}

/// Delete an endpoint, its pending deliveries and its delivery log.
#[utoipa::path(delete, path = "/api/v1/webhooks/{id}", tag = "webhooks",
    params(("id" = i64, Path, description = "Webhook endpoint id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such endpoint", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn delete(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<WebhookEndpointId>,
    _body: OptionalJsonBody<NoBody>,
) -> Result<HttpResponse, ApiError> {
    Ops::for_key(&state, &auth).delete_webhook(id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Replace the signing secret; the answer carries the new one. Attempts from now on are signed
/// with it.
#[utoipa::path(post, path = "/api/v1/webhooks/{id}/rotate_secret", tag = "webhooks",
    params(("id" = i64, Path, description = "Webhook endpoint id")),
    responses(
        (status = 200, description = "The endpoint, with its new `secret`", body = WebhookEndpoint),
        (status = 404, description = "No such endpoint", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn rotate_secret(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<WebhookEndpointId>,
    _body: OptionalJsonBody<NoBody>,
) -> Result<HttpResponse, ApiError> {
    let endpoint = Ops::for_key(&state, &auth)
        .rotate_webhook_secret(id)
        .await?;
    Ok(HttpResponse::Ok().json(endpoint))
}

/// The endpoint's delivery attempts, newest first.
#[utoipa::path(get, path = "/api/v1/webhooks/{id}/deliveries", tag = "webhooks",
    params(
        ("id" = i64, Path, description = "Webhook endpoint id"),
        ("page" = Option<u32>, Query, description = "Page number, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
        ("format" = Option<String>, Query, description = "`csv`: every matching row as CSV (as `Accept: text/csv` asks); anything else: JSON"),
    ),
    responses(
        (status = 200, description = "A page of attempts; or, asked for CSV, every one",
            content((DeliveryAttemptList = "application/json"), (String = "text/csv"))),
        (status = 404, description = "No such endpoint", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn deliveries(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
    id: Id<WebhookEndpointId>,
) -> Result<HttpResponse, ApiError> {
    csv_export::list_answer(
        req.query_string(),
        csv_export::wanted(&req),
        Ops::for_key(&state, &auth),
        "webhook_deliveries.csv",
        DELIVERY_COLUMNS,
        delivery_row,
        move |ops, q| async move { ops.delivery_attempts(id, &q).await },
    )
    .await
}

/// The endpoints as CSV (never a secret), for this route and the dashboard's export link.
pub(crate) const WEBHOOKS: csv_export::Export<WebhookEndpoint> = csv_export::Export {
    file: "webhooks.csv",
    columns: &[
        csv_export::text("id"),
        csv_export::text("url"),
        csv_export::text("description"),
        csv_export::text("events"),
        csv_export::text("enabled"),
        csv_export::text("created_at"),
        csv_export::text("updated_at"),
    ],
    row: webhook_row,
    list: |ops, q| Box::pin(async move { ops.list_webhooks(&q).await }),
};

fn webhook_row(w: &WebhookEndpoint) -> Vec<csv_export::Cell> {
    use csv_export::Cell::{Int, Text, Time};
    vec![
        Int(w.id.0),
        Text(w.url.clone()),
        Text(w.description.clone().unwrap_or_default()),
        Text(w.events.join(" ")),
        Text(w.enabled.to_string()),
        Time(Some(w.created_at)),
        Time(Some(w.updated_at)),
    ]
}

/// An endpoint's delivery attempts as CSV.
const DELIVERY_COLUMNS: &[csv_export::Column] = &[
    csv_export::text("id"),
    csv_export::text("event_id"),
    csv_export::text("event_type"),
    csv_export::text("attempt"),
    csv_export::text("state"),
    csv_export::text("status_code"),
    csv_export::text("duration_ms"),
    csv_export::text("error"),
    csv_export::text("next_attempt_at"),
    csv_export::text("created_at"),
];

fn delivery_row(d: &DeliveryAttempt) -> Vec<csv_export::Cell> {
    use csv_export::Cell::{Int, Text, Time};
    vec![
        Int(d.id),
        Int(d.event_id),
        Text(d.event_type.clone()),
        Int(i64::from(d.attempt)),
        Text(d.state.as_str().to_string()),
        csv_export::maybe_int(d.status_code.map(i64::from)),
        Int(d.duration_ms),
        Text(d.error.clone().unwrap_or_default()),
        Time(d.next_attempt_at),
        Time(Some(d.created_at)),
    ]
}
