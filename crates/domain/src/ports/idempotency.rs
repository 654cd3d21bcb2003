//! Idempotency keys and the request transaction (SPEC §15).

use super::{RepoResult, Repositories};
use crate::idempotency::{IdempotencyClaim, IdempotencyKey, RequestFingerprint, StoredResponse};
use crate::tenant::Scope;
use chrono::{DateTime, Utc};
use std::sync::Arc;

/// Idempotency keys (SPEC §15), per account and environment.
pub trait IdempotencyRepository {
    /// Opens the transaction a request carrying `key` runs in, or says what it must answer
    /// instead. The key stays claimed exactly as long as that transaction is open, so a process
    /// that dies releases it at once, and the answer is stored in the same transaction as the
    /// request's effect: no crash can keep one without the other.
    fn begin_idempotent(
        &self,
        scope: Scope,
        key: &IdempotencyKey,
        request: &RequestFingerprint,
    ) -> RepoResult<IdempotencyClaim<Box<dyn IdempotentRequest>>>;
    /// Forgets keys first used before `before`, across tenants; how many.
    fn purge_idempotency_keys(&self, before: DateTime<Utc>) -> RepoResult<usize>;
}

/// The open transaction of a request that carries an idempotency key.
pub trait IdempotentRequest: Send + Sync {
    /// Repositories whose every call joins this transaction.
    fn repos(&self) -> Arc<dyn Repositories>;
    /// Stores the answer with the request's effect and commits both.
    fn commit(self: Box<Self>, answer: &StoredResponse) -> RepoResult<()>;
    /// Undoes the request's effect and frees the key. Dropping it without either also does.
    fn rollback(self: Box<Self>) -> RepoResult<()>;
}
