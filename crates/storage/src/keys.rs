//! API keys: stored by SHA-256 only, looked up by hash on every request.

use crate::connection::AnyConnection;
use crate::rows::{from_db, now_db, returning, to_db};
use crate::schema::api_keys;
use crate::store::{Store, TxError};
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use invoicing_domain::api_key::{
    ApiKey, ApiKeyId, KeyScopes, NewApiKey, RateOverride, LAST_USED_PRECISION,
};
use invoicing_domain::ports::{ApiKeyRepository, RepoError, RepoResult};
use invoicing_domain::tenant::{AccountId, Environment};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Queryable, Selectable)]
#[diesel(table_name = api_keys)]
struct KeyRow {
    id: i64,
    account_id: i64,
    livemode: bool,
    prefix: String,
    last4: String,
    scopes: String,
    rate_per_minute: Option<i32>,
    burst: Option<i32>,
    expires_at: Option<NaiveDateTime>,
    revoked_at: Option<NaiveDateTime>,
    created_at: NaiveDateTime,
    last_used_at: Option<NaiveDateTime>,
}

impl KeyRow {
    fn into_domain(self) -> Result<ApiKey, TxError> {
        let scopes = KeyScopes::parse(&self.scopes)
            .map_err(|e| RepoError::Internal(format!("api key {}: {e}", self.id)))?;
        let to_u32 = |v: Option<i32>| v.and_then(|v| u32::try_from(v).ok());
        Ok(ApiKey {
            id: ApiKeyId(self.id),
            account_id: AccountId(self.account_id),
            environment: Environment::from_livemode(self.livemode),
            prefix: self.prefix,
            last4: self.last4,
            scopes,
            rate: RateOverride {
                per_minute: to_u32(self.rate_per_minute),
                burst: to_u32(self.burst),
            },
            expires_at: self.expires_at.map(from_db),
            revoked_at: self.revoked_at.map(from_db),
            created_at: from_db(self.created_at),
            last_used_at: self.last_used_at.map(from_db),
        })
    }
}

fn to_i32(v: Option<u32>) -> Option<i32> {
    v.map(|v| i32::try_from(v).unwrap_or(i32::MAX))
}

pub(crate) fn insert_key_row(
    conn: &mut AnyConnection,
    account: AccountId,
    key: NewApiKey,
) -> Result<ApiKey, TxError> {
    diesel::insert_into(api_keys::table)
        .values((
            api_keys::account_id.eq(account.0),
            api_keys::livemode.eq(key.environment.is_live()),
            api_keys::key_hash.eq(&key.key_hash),
            api_keys::prefix.eq(&key.prefix),
            api_keys::last4.eq(&key.last4),
            api_keys::scopes.eq(key.scopes.to_storage()),
            api_keys::rate_per_minute.eq(to_i32(key.rate.per_minute)),
            api_keys::burst.eq(to_i32(key.rate.burst)),
            api_keys::expires_at.eq(key.expires_at.map(to_db)),
            api_keys::created_at.eq(now_db()),
        ))
        .returning(returning::<KeyRow>())
        .get_result::<KeyRow>(conn)?
        .into_domain()
}

fn load(conn: &mut AnyConnection, id: ApiKeyId) -> Result<ApiKey, TxError> {
    api_keys::table
        .find(id.0)
        .select(KeyRow::as_select())
        .first::<KeyRow>(conn)?
        .into_domain()
}

impl ApiKeyRepository for Store {
    fn insert_key(&self, account: AccountId, key: NewApiKey) -> RepoResult<ApiKey> {
        self.write(|conn| insert_key_row(conn, account, key))
    }

    fn get_key(&self, id: ApiKeyId) -> RepoResult<ApiKey> {
        self.read(|conn| load(conn, id))
    }

    fn known_key_by_hash(&self, key_hash: &str) -> Option<ApiKey> {
        self.key_cache.get(key_hash)
    }

    fn find_key_by_hash(&self, key_hash: &str) -> RepoResult<Option<ApiKey>> {
        if let Some(key) = self.key_cache.get(key_hash) {
            return Ok(Some(key));
        }
        let found = self.read(|conn| {
            api_keys::table
                .filter(api_keys::key_hash.eq(key_hash))
                .select(KeyRow::as_select())
                .first::<KeyRow>(conn)
                .optional()?
                .map(KeyRow::into_domain)
                .transpose()
        })?;
        if let Some(key) = &found {
            self.key_cache.put(key_hash, key.clone());
            note_use(self, key);
        }
        Ok(found)
    }

    fn list_keys(&self, account: AccountId) -> RepoResult<Vec<ApiKey>> {
        self.read(|conn| {
            api_keys::table
                .filter(api_keys::account_id.eq(account.0))
                .order((api_keys::created_at.desc(), api_keys::id.desc()))
                .select(KeyRow::as_select())
                .load::<KeyRow>(conn)?
                .into_iter()
                .map(KeyRow::into_domain)
                .collect()
        })
    }

    fn revoke_key(&self, id: ApiKeyId, at: DateTime<Utc>) -> RepoResult<ApiKey> {
        self.key_cache.forget(id);
        self.write(|conn| {
            let key = load(conn, id)?;
            if key.revoked_at.is_none() {
                diesel::update(api_keys::table.find(id.0))
                    .set(api_keys::revoked_at.eq(to_db(at)))
                    .execute(conn)?;
            }
            load(conn, id)
        })
    }

    fn rotate_key(
        &self,
        id: ApiKeyId,
        replacement: NewApiKey,
        old_expires_at: DateTime<Utc>,
    ) -> RepoResult<(ApiKey, ApiKey)> {
        self.key_cache.forget(id);
        self.write(|conn| {
            let old = load(conn, id)?;
            if old.revoked_at.is_some() {
                return Err(RepoError::InUse("a revoked key cannot be rotated".into()).into());
            }
            if old.environment != replacement.environment {
                return Err(
                    RepoError::Internal("rotation must keep the environment".into()).into(),
                );
            }
            let expires = match old.expires_at {
                Some(current) if current < old_expires_at => current,
                _ => old_expires_at,
            };
            diesel::update(api_keys::table.find(id.0))
                .set(api_keys::expires_at.eq(Some(to_db(expires))))
                .execute(conn)?;
            let new = insert_key_row(conn, old.account_id, replacement)?;
            Ok((load(conn, id)?, new))
        })
    }
}

/// Stamps the key's `last_used_at` when it is older than [`LAST_USED_PRECISION`]: at most one
/// write a minute per key and process, on a lookup that missed the cache. A failure only loses
/// the stamp, never the request.
fn note_use(store: &Store, key: &ApiKey) {
    let now = Utc::now();
    if key
        .last_used_at
        .is_some_and(|t| now - t < LAST_USED_PRECISION)
    {
        return;
    }
    let stale = to_db(now - LAST_USED_PRECISION);
    let stamped = store.write(|conn| {
        Ok(diesel::update(
            api_keys::table.find(key.id.0).filter(
                api_keys::last_used_at
                    .is_null()
                    .or(api_keys::last_used_at.lt(stale)),
            ),
        )
        .set(api_keys::last_used_at.eq(to_db(now)))
        .execute(conn)?)
    });
    if let Err(e) = stamped {
        log::warn!("noting the use of api key {}: {e}", key.id);
    }
}

/// How long a verified key is trusted without asking the database again: a key revoked (or
/// given an earlier expiry) by another process stops working here within this bound. The
/// process that revokes it forgets it at once. Expiry itself is checked on every request.
pub const KEY_CACHE_TTL: Duration = Duration::from_secs(4);
/// Enough for every key of a large deployment; past it the cache starts over rather than grow.
const KEY_CACHE_MAX: usize = 10_000;

/// Verified keys by hash, shared by every clone of the store. Unknown hashes are never cached,
/// so key guessing cannot fill it.
#[derive(Clone, Default)]
pub(crate) struct KeyCache(Arc<Mutex<HashMap<String, (ApiKey, Instant)>>>);

impl KeyCache {
    fn get(&self, hash: &str) -> Option<ApiKey> {
        let cache = self.0.lock().ok()?;
        let (key, at) = cache.get(hash)?;
        (at.elapsed() < KEY_CACHE_TTL).then(|| key.clone())
    }

    fn put(&self, hash: &str, key: ApiKey) {
        if let Ok(mut cache) = self.0.lock() {
            if cache.len() >= KEY_CACHE_MAX {
                cache.clear();
            }
            cache.insert(hash.to_string(), (key, Instant::now()));
        }
    }

    fn forget(&self, id: ApiKeyId) {
        if let Ok(mut cache) = self.0.lock() {
            cache.retain(|_, (key, _)| key.id != id);
        }
    }
}
