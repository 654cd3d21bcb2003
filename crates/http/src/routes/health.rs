//! Liveness and readiness probes (SPEC §1); no key needed.

use crate::error::ApiError;
use crate::{blocking_within, AppState};
use std::time::Duration;

/// Load balancers probe often and give up quickly: a database that does not answer within this
/// is not ready.
const READY_LIMIT: Duration = Duration::from_secs(3);
use actix_web::{web, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;

/// The body of `GET /healthz`; the same type writes it and documents it.
#[derive(Serialize, ToSchema)]
pub struct Liveness {
    pub status: LiveStatus,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum LiveStatus {
    Ok,
}

/// The body of `GET /readyz` while the database answers.
#[derive(Serialize, ToSchema)]
pub struct Readiness {
    pub status: ReadyStatus,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReadyStatus {
    Ready,
}

/// The process is running.
#[utoipa::path(get, path = "/healthz", tag = "health", operation_id = "live",
    responses((status = 200, description = "The process runs", body = Liveness)))]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(Liveness {
        status: LiveStatus::Ok,
    })
}

/// The database answers.
#[utoipa::path(get, path = "/readyz", tag = "health", operation_id = "ready",
    responses(
        (status = 200, description = "The database answers", body = Readiness),
        (status = 503, description = "The database does not answer within 3 s (`service_unavailable`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let repos = state.repos();
    blocking_within(READY_LIMIT, move || repos.ping())
        .await
        .map_err(|_| ApiError::service_unavailable())?;
    Ok(HttpResponse::Ok().json(Readiness {
        status: ReadyStatus::Ready,
    }))
}
