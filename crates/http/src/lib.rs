//! HTTP: the actix-web application of the invoicing API. Routes, extractors, authentication,
//! rate limiting, and the one mapping of every failure to the SPEC §4 error body. It talks to
//! storage only through the domain's repository ports, always off the async workers.

pub mod auth;
pub mod body;
pub mod client;
pub mod config;
pub mod envelope;
pub mod error;
pub mod escape;
pub mod idempotency;
pub mod openapi;
pub mod query;
pub mod ratelimit;
pub mod routes;
pub mod webhook_target;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::from_fn;
use actix_web::{web, App};
use config::HttpConfig;
use error::ApiError;
use invoicing_domain::ports::{RepoError, Repositories};
use ratelimit::RateLimiter;
use std::sync::Arc;

pub use client::TlsConnection;

/// What every handler shares.
pub struct AppState {
    pub repos: Arc<dyn Repositories>,
    pub config: HttpConfig,
    pub limiter: RateLimiter,
}

impl AppState {
    pub fn new(repos: Arc<dyn Repositories>, config: HttpConfig) -> Self {
        AppState {
            repos,
            config,
            limiter: RateLimiter::new(),
        }
    }
}

/// The whole application; the server calls it once per worker with the same shared state.
pub fn build_app(
    state: web::Data<AppState>,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    App::new()
        .app_data(state)
        .configure(routes::register)
        .default_service(web::to(routes::not_found))
        .wrap(from_fn(idempotency::guard))
        .wrap(from_fn(auth::api_gate))
        .wrap(from_fn(envelope::envelope))
}

/// Runs storage work on the blocking pool, never on an async worker.
pub async fn blocking<T, F>(f: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, RepoError> + Send + 'static,
{
    match web::block(f).await {
        Ok(result) => result.map_err(ApiError::from),
        Err(e) => {
            log::error!("a storage task failed to complete: {e}");
            Err(ApiError::internal())
        }
    }
}
