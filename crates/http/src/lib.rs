//! HTTP: the actix-web application of the invoicing API. Routes, extractors, authentication,
//! rate limiting, and the one mapping of every failure to the SPEC §4 error body. It talks to
//! storage only through the domain's repository ports, always off the async workers.
#![forbid(unsafe_code)] // only storage calls the OS; the workspace lint is `deny` for it

pub mod account_export;
pub mod auth;
pub mod binary;
pub mod body;
pub mod client;
pub mod config;
pub mod csv_export;
pub mod dashboard;
pub mod envelope;
pub mod error;
pub mod escape;
pub mod failpoint;
pub mod form_body;
pub mod idempotency;
pub mod multipart;
pub mod openapi;
pub mod ops;
pub mod path_id;
pub mod paths;
pub mod pdf;
pub mod people;
pub mod query;
pub mod ratelimit;
pub mod redirect;
pub mod route_table;
pub mod routes;
pub mod storage_calls;
mod storage_threads;
pub mod unique_keys;
pub mod webhook_target;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::from_fn;
use actix_web::{web, App};
use config::{HttpConfig, RateConfig};
use invoicing_domain::ports::{BucketTake, Repositories};
use ratelimit::{BucketKey, Decision, RateLimiter, SharedBuckets, TakeShared};
use std::sync::Arc;
use std::time::Instant;

pub use client::TlsConnection;
pub use storage_calls::{
    blocking, blocking_final, blocking_within, with_storage_budget, StorageThreads,
    STORAGE_ANSWER_LIMIT,
};

/// What every handler shares.
pub struct AppState {
    repos: Arc<dyn Repositories>,
    pub config: HttpConfig,
    pub limiter: RateLimiter,
    /// The API's buckets in the database, shared by every process, when they live there.
    shared_limits: Option<(SharedBuckets, TakeShared)>,
    /// The threads the requests' storage calls run on (see [`storage_calls`]).
    pub(crate) storage_threads: Option<StorageThreads>,
    /// Invoice reads waiting for those threads, answered together.
    pub(crate) invoice_reads: Arc<ops::InvoiceReads>,
}

tokio::task_local! {
    /// Set while a request that carries an idempotency key runs: its own transaction.
    static REQUEST_REPOS: Arc<dyn Repositories>;
}

/// Whether the running request works in a transaction of its own (it carries an
/// idempotency key), on the connection that transaction holds.
fn holds_request_transaction() -> bool {
    REQUEST_REPOS.try_with(|_| ()).is_ok()
}

impl AppState {
    /// The repositories for the request being handled. Inside a request with an
    /// `Idempotency-Key` every call joins that request's transaction, which also stores its
    /// answer (see [`idempotency`]); handlers cannot reach storage any other way.
    pub fn repos(&self) -> Arc<dyn Repositories> {
        REQUEST_REPOS
            .try_with(Arc::clone)
            .unwrap_or_else(|_| self.repos.clone())
    }

    pub fn new(repos: Arc<dyn Repositories>, config: HttpConfig) -> Self {
        let shared_limits = (repos.shares_rate_limits() && !config.process_rate_limits)
            .then(|| (SharedBuckets::default(), take_shared(repos.clone())));
        AppState {
            storage_threads: None,
            invoice_reads: Arc::new(ops::invoice_reads(repos.clone())),
            shared_limits,
            repos,
            config,
            limiter: RateLimiter::new(),
        }
    }

    /// Runs the requests' storage calls on `threads` (see [`storage_calls`]) instead of
    /// actix's blocking pool.
    pub fn with_storage_threads(mut self, threads: StorageThreads) -> Self {
        self.storage_threads = Some(threads);
        self
    }

    /// Takes a request from `key`'s bucket: the one every process shares when the database
    /// keeps them, else (or when it cannot answer in time: fail open, logged) this process's.
    pub async fn check_rate(&self, key: BucketKey, rate: RateConfig) -> Decision {
        if let Some((buckets, take)) = &self.shared_limits {
            let started = Instant::now();
            let decision = buckets.check(key, rate, take).await;
            storage_calls::spend(started.elapsed());
            if let Some(decision) = decision {
                return decision;
            }
        }
        self.limiter.check(key, rate)
    }
}

/// One take from the shared buckets, off the async workers and outside any request's own
/// transaction (on the shared handle); failures are logged and read as "no answer".
fn take_shared(repos: Arc<dyn Repositories>) -> TakeShared {
    Arc::new(
        move |name: String, requests: u32, spare: u32, rate: RateConfig| {
            let repos = repos.clone();
            let (interval, tolerance) = ratelimit::gcra(rate);
            let ask = BucketTake {
                requests,
                spare,
                interval,
                tolerance,
            };
            Box::pin(async move {
                match web::block(move || repos.take(&name, ask)).await {
                    Ok(Ok(taken)) => Some(taken),
                    Ok(Err(e)) => {
                        warn_sometimes(&format!("the shared bucket did not answer ({e})"));
                        None
                    }
                    Err(e) => {
                        warn_sometimes(&e.to_string());
                        None
                    }
                }
            })
        },
    )
}

/// Logs a limiter failure at most every 10 s: while the database is down every request would
/// report the same thing.
fn warn_sometimes(what: &str) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let last = LAST.load(Ordering::Relaxed);
    if now >= last + 10
        && LAST
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    {
        log::warn!("rate limit: {what}; limiting in this process (said at most every 10 s)");
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
        .configure(route_table::register)
        .default_service(web::to(route_table::not_found))
        .wrap(from_fn(dashboard::answer_pages))
        .wrap(from_fn(idempotency::guard))
        .wrap(from_fn(auth::api_gate))
        .wrap(from_fn(envelope::envelope))
}
