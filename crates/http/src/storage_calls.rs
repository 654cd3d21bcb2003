//! Storage calls from requests: never on an async worker, and never waited for past the
//! request's storage budget.
//!
//! A request may wait [`STORAGE_ANSWER_LIMIT`] in all for storage: its shared rate limit, its
//! authentication and its handler's calls draw on one budget (a task-local the envelope sets),
//! so several slow calls cannot add up past SPEC §12's 10 s, while time the client spends
//! sending its body does not count. A call made with the budget spent is answered 503 without
//! reaching the database. The commit of a keyed request ([`blocking_final`]) gets a short
//! minimum, so a handler that used the whole budget is not cut off at its very end; rollbacks
//! and `/readyz` use limits of their own ([`blocking_within`]).
//!
//! A request's calls run on the server's [`StorageThreads`] (as many as the pool has
//! connections, first come, first served), except those of a request that holds its own
//! transaction: they hold their connection already, and calls waiting their turn may be waiting
//! for that very connection.

use crate::error::ApiError;
pub use crate::storage_threads::Batch;
use crate::storage_threads::NotRun;
use actix_web::web;
use invoicing_domain::ports::{RepoError, RepoResult};
use std::cell::Cell;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use crate::storage_threads::StorageThreads;

/// How long a request waits for storage in all before it is answered 503: within SPEC §12's
/// 10 s even when the database has stopped answering (storage's watchdog frees the
/// connection soon after).
pub const STORAGE_ANSWER_LIMIT: Duration = Duration::from_secs(9);

/// What [`blocking_final`] gets even when the budget is spent.
const FINAL_MINIMUM: Duration = Duration::from_millis(500);

/// How long a call waits for its turn on the storage threads, as long as the pool would wait
/// for a connection: a server that far behind answers 503 rather than queueing without end.
const TURN_WAIT: Duration = Duration::from_secs(4);

/// What a request's storage calls share.
struct RequestStorage {
    /// What is left of the request's storage budget.
    left: Cell<Duration>,
    threads: Option<StorageThreads>,
}

tokio::task_local! {
    static REQUEST: RequestStorage;
}

/// Runs a request's handling with a storage budget of [`STORAGE_ANSWER_LIMIT`], its storage
/// calls on `threads` (without: on actix's blocking pool).
pub async fn with_storage_budget<F: Future>(
    threads: Option<StorageThreads>,
    handling: F,
) -> F::Output {
    with_budget(STORAGE_ANSWER_LIMIT, threads, handling).await
}

async fn with_budget<F: Future>(
    budget: Duration,
    threads: Option<StorageThreads>,
    handling: F,
) -> F::Output {
    let storage = RequestStorage {
        left: Cell::new(budget),
        threads,
    };
    REQUEST.scope(storage, handling).await
}

/// What is left of the current request's budget; `None` outside a request.
fn left() -> Option<Duration> {
    REQUEST.try_with(|r| r.left.get()).ok()
}

/// Counts `waited` against the current request's budget (nothing outside a request).
pub fn spend(waited: Duration) {
    let _ = REQUEST.try_with(|r| r.left.set(r.left.get().saturating_sub(waited)));
}

/// Runs storage work within what is left of the request's budget (outside a request, within
/// [`STORAGE_ANSWER_LIMIT`]), on the request's storage threads when it has them and holds no
/// transaction of its own; 503 when the budget is spent, runs out while waiting, or the call
/// waits past `TURN_WAIT` for its turn.
pub async fn blocking<T, F>(f: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, RepoError> + Send + 'static,
{
    let limit = budget_left()?;
    let started = Instant::now();
    let answer = match request_threads() {
        Some(threads) => settled(threads.run(TURN_WAIT, limit, f).await, limit),
        None => blocking_within(limit, f).await,
    };
    spend(started.elapsed());
    answer
}

/// A read that may be answered together with the same reads of other requests (see
/// [`Batch`]): [`blocking`]'s budget, turn and limits, through `batch` when the request's
/// calls run on storage threads, else `alone` as [`blocking`] runs it.
pub async fn batched<K, T, F>(
    batch: &Arc<Batch<K, RepoResult<T>>>,
    key: K,
    alone: F,
) -> Result<T, ApiError>
where
    K: Send + 'static,
    T: Send + 'static,
    F: FnOnce() -> Result<T, RepoError> + Send + 'static,
{
    let Some(threads) = request_threads() else {
        return blocking(alone).await;
    };
    let limit = budget_left()?;
    let started = Instant::now();
    let answer = settled(
        threads.run_batched(batch, key, TURN_WAIT, limit).await,
        limit,
    );
    spend(started.elapsed());
    answer
}

/// What is left of the request's budget (outside a request, [`STORAGE_ANSWER_LIMIT`]); 503
/// when it is spent.
fn budget_left() -> Result<Duration, ApiError> {
    let limit = left().unwrap_or(STORAGE_ANSWER_LIMIT);
    if limit.is_zero() {
        log::error!("the request's storage budget was spent before its next storage call");
        return Err(ApiError::service_unavailable());
    }
    Ok(limit)
}

/// The storage threads the request's calls run on: none when it holds a transaction of its
/// own or the server runs its calls on actix's blocking pool.
fn request_threads() -> Option<StorageThreads> {
    match crate::holds_request_transaction() {
        true => None,
        false => REQUEST.try_with(|r| r.threads.clone()).ok().flatten(),
    }
}

/// A storage thread's answer, or why there is none, as the API answers it.
fn settled<T>(answer: Result<RepoResult<T>, NotRun>, limit: Duration) -> Result<T, ApiError> {
    match answer {
        Ok(result) => result.map_err(ApiError::from),
        Err(NotRun::NoTurn) => {
            let waited = TURN_WAIT.min(limit).as_millis();
            log::error!("no storage turn within {waited} ms");
            Err(ApiError::service_unavailable())
        }
        Err(NotRun::TooSlow) => Err(not_answered(limit)),
        Err(NotRun::Failed) => {
            log::error!("a storage task panicked");
            Err(ApiError::internal())
        }
    }
}

/// [`blocking`] for a request's last call, its commit: at least `FINAL_MINIMUM`. A keyed
/// request's commit, so it takes no turn.
pub async fn blocking_final<T, F>(f: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, RepoError> + Send + 'static,
{
    let limit = left().unwrap_or(STORAGE_ANSWER_LIMIT).max(FINAL_MINIMUM);
    let started = Instant::now();
    let answer = blocking_within(limit, f).await;
    spend(started.elapsed());
    answer
}

/// Runs storage work on the blocking pool with a limit of its own, outside the budget and
/// without a turn (a keyed request's rollback, a health check); 503 when it takes longer (the
/// work then finishes in the background).
pub async fn blocking_within<T, F>(limit: Duration, f: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, RepoError> + Send + 'static,
{
    match actix_web::rt::time::timeout(limit, web::block(f)).await {
        Ok(Ok(result)) => result.map_err(ApiError::from),
        Ok(Err(e)) => {
            log::error!("a storage task failed to complete: {e}");
            Err(ApiError::internal())
        }
        Err(_) => Err(not_answered(limit)),
    }
}

fn not_answered(limit: Duration) -> ApiError {
    log::error!(
        "the database did not answer within {} ms",
        limit.as_millis()
    );
    ApiError::service_unavailable()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn nap() -> Result<(), RepoError> {
        std::thread::sleep(Duration::from_millis(200));
        Ok(())
    }

    /// Storage calls share the request's budget: the second of two slow calls is cut off
    /// where the budget ends, and a call made once it is spent never runs; time spent
    /// elsewhere (a body arriving) does not count.
    #[actix_web::test]
    async fn storage_calls_share_one_budget() {
        let runs = Arc::new(AtomicUsize::new(0));
        let counted = runs.clone();
        let (first, second, third) = with_budget(Duration::from_millis(300), None, async move {
            actix_web::rt::time::sleep(Duration::from_millis(400)).await;
            let first = blocking(nap).await;
            let second = blocking(nap).await;
            let third = blocking(move || {
                counted.fetch_add(1, Ordering::SeqCst);
                Ok(())
            })
            .await;
            (first, second, third)
        })
        .await;
        assert!(first.is_ok(), "the wait outside storage did not count");
        assert_eq!(second.map_err(|e| e.code), Err("service_unavailable"));
        assert_eq!(third.map_err(|e| e.code), Err("service_unavailable"));
        assert_eq!(
            runs.load(Ordering::SeqCst),
            0,
            "a spent budget reaches no storage"
        );
        // Outside a request, a call has its whole limit.
        assert!(blocking(nap).await.is_ok());
    }

    /// The commit gets its minimum even when the handler spent the budget.
    #[actix_web::test]
    async fn the_final_call_gets_its_minimum() {
        let answer = with_budget(Duration::from_millis(100), None, async {
            spend(Duration::from_secs(1));
            blocking_final(nap).await
        })
        .await;
        assert!(answer.is_ok());
    }
}
