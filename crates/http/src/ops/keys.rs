//! API keys (SPEC §2) as an account's owners manage them in the dashboard, by the CLI's rules
//! (`KeyRequest`, `rotation_grace_end`): the keys of the environment shown. A new key's secret
//! leaves here once, in the answer that created it.

use super::Ops;
use crate::error::ApiError;
use chrono::Utc;
use invoicing_domain::api_key::{
    rotation_grace_end, ApiKey, ApiKeyId, GeneratedKey, KeyRequest, KeyScopes, NewApiKey,
    RateOverride,
};
use invoicing_domain::ports::{RepoError, RepoResult, Repositories};
use invoicing_domain::tenant::Scope;

const WHAT: &str = "API key";

/// The key, if it is the scope's (its account and environment); otherwise not found, as
/// another tenant's documents are to a person browsing.
fn own_key(r: &dyn Repositories, scope: Scope, id: ApiKeyId) -> RepoResult<ApiKey> {
    let key = r.get_key(id)?;
    if key.account_id != scope.account_id || key.environment != scope.environment {
        return Err(RepoError::NotFound);
    }
    Ok(key)
}

/// A new key and its secret, shown once.
pub struct IssuedKey {
    pub key: ApiKey,
    pub secret: GeneratedKey,
}

impl Ops {
    /// The environment's keys, newest first, revoked ones included.
    pub async fn api_keys(&self) -> Result<Vec<ApiKey>, ApiError> {
        let scope = self.caller.require_owner()?;
        self.run(scope, WHAT, move |r, s| {
            let mut keys = r.list_keys(s.account_id)?;
            keys.retain(|k| k.environment == s.environment);
            Ok(keys)
        })
        .await
    }

    pub async fn create_api_key(&self, request: KeyRequest) -> Result<IssuedKey, ApiError> {
        let scope = self.caller.require_owner()?;
        let secret = GeneratedKey::generate(scope.environment, &mut rand::rngs::OsRng);
        let new = request.into_new_key(&secret);
        let key = self
            .run(scope, WHAT, move |r, s| r.insert_key(s.account_id, new))
            .await?;
        Ok(IssuedKey { key, secret })
    }

    pub async fn revoke_api_key(&self, id: ApiKeyId) -> Result<ApiKey, ApiError> {
        let scope = self.caller.require_owner()?;
        self.run(scope, WHAT, move |r, s| {
            own_key(r, s, id)?;
            r.revoke_key(id, Utc::now())
        })
        .await
    }

    /// A replacement with the same scopes, limits and expiry; the old key works for
    /// `grace_hours` more (at most 30 days).
    pub async fn rotate_api_key(
        &self,
        id: ApiKeyId,
        grace_hours: u32,
    ) -> Result<IssuedKey, ApiError> {
        let scope = self.caller.require_owner()?;
        let grace_end = rotation_grace_end(Utc::now(), grace_hours)?;
        let secret = GeneratedKey::generate(scope.environment, &mut rand::rngs::OsRng);
        let template =
            NewApiKey::from_generated(&secret, KeyScopes::All, RateOverride::default(), None);
        let key = self
            .run(scope, WHAT, move |r, s| {
                let old = own_key(r, s, id)?;
                let replacement = NewApiKey {
                    scopes: old.scopes,
                    rate: old.rate,
                    expires_at: old.expires_at,
                    ..template
                };
                r.rotate_key(id, replacement, grace_end).map(|(_, new)| new)
            })
            .await?;
        Ok(IssuedKey { key, secret })
    }
}
