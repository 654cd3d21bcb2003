//! Liveness and readiness probes (SPEC §1); no key needed.

use crate::error::ApiError;
use crate::{blocking_within, AppState};
use std::time::Duration;

/// Load balancers probe often and give up quickly: a database that does not answer within this
/// is not ready.
const READY_LIMIT: Duration = Duration::from_secs(3);
use actix_web::{web, HttpResponse};
use serde_json::json;

/// The process is running.
#[utoipa::path(get, path = "/healthz", tag = "operations",
    responses((status = 200, description = "The process runs")))]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(json!({"status": "ok"}))
}

/// The database answers.
#[utoipa::path(get, path = "/readyz", tag = "operations",
    responses(
        (status = 200, description = "The database answers"),
        (status = 503, description = "The database does not answer", body = crate::openapi::ErrorBody),
    ))]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let repos = state.repos();
    blocking_within(READY_LIMIT, move || repos.ping())
        .await
        .map_err(|_| ApiError::service_unavailable())?;
    Ok(HttpResponse::Ok().json(json!({"status": "ready"})))
}
