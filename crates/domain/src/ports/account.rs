//! Accounts and their API keys.

use super::RepoResult;
use crate::api_key::{ApiKey, ApiKeyId, NewApiKey};
use crate::currency::Currency;
use crate::tenant::AccountId;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// A tenant: everything else hangs off one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Account {
    pub id: AccountId,
    pub name: String,
    pub default_currency: Currency,
    #[serde(serialize_with = "crate::time::serialize")]
    pub created_at: DateTime<Utc>,
}

pub trait AccountRepository {
    fn create_account(&self, name: &str, default_currency: Currency) -> RepoResult<Account>;
    fn get_account(&self, id: AccountId) -> RepoResult<Account>;
    /// Creates the first account and key on an empty database, exactly once even when several
    /// processes start together; `None` when the database already had an account.
    fn bootstrap_if_empty(
        &self,
        name: &str,
        default_currency: Currency,
        key: NewApiKey,
    ) -> RepoResult<Option<(Account, ApiKey)>>;
}

pub trait ApiKeyRepository {
    fn insert_key(&self, account: AccountId, key: NewApiKey) -> RepoResult<ApiKey>;
    fn get_key(&self, id: ApiKeyId) -> RepoResult<ApiKey>;
    fn find_key_by_hash(&self, key_hash: &str) -> RepoResult<Option<ApiKey>>;
    /// The key with this hash when this process already holds it, without reaching storage,
    /// so an async caller may ask before handing [`Self::find_key_by_hash`] to a thread;
    /// `None` means "ask `find_key_by_hash`", never "no such key".
    fn known_key_by_hash(&self, _key_hash: &str) -> Option<ApiKey> {
        None
    }
    fn list_keys(&self, account: AccountId) -> RepoResult<Vec<ApiKey>>;
    fn revoke_key(&self, id: ApiKeyId, at: DateTime<Utc>) -> RepoResult<ApiKey>;
    /// Issues `replacement` (same account and environment) and makes the old key expire at
    /// `old_expires_at` if that is sooner, in one transaction, so a rotation never leaves an
    /// account without a working key. Answers `(old, new)`.
    fn rotate_key(
        &self,
        id: ApiKeyId,
        replacement: NewApiKey,
        old_expires_at: DateTime<Utc>,
    ) -> RepoResult<(ApiKey, ApiKey)>;
}
