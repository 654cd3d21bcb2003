//! Liveness of the store.

use super::RepoResult;

/// Liveness of the store, for `/readyz`.
pub trait HealthCheck {
    fn ping(&self) -> RepoResult<()>;
}
