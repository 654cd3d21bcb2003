//! API keys (SPEC §2): generation, hashing, scopes and the rules that make a key usable.
//! The plain key exists only in [`GeneratedKey`]; everything stored or logged is its SHA-256.

use crate::tenant::{AccountId, Environment};
use chrono::{DateTime, Utc};
use rand::{CryptoRng, Rng};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::fmt;

mod request;
pub use request::{rotation_grace_end, KeyRequest, MAX_ROTATION_GRACE_HOURS};

const KEY_RANDOM_LEN: usize = 32;
const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct ApiKeyId(pub i64);

impl fmt::Display for ApiKeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A freshly generated key. Deliberately not `Debug`/`Serialize`: the secret must be printed on
/// purpose, once, never by accident.
pub struct GeneratedKey {
    plain: String,
    environment: Environment,
}

impl GeneratedKey {
    /// `sk_test_`/`sk_live_` + 32 base62 characters. Callers pass the OS CSPRNG; the bound makes a
    /// non-cryptographic generator a compile error.
    pub fn generate<R: Rng + CryptoRng>(environment: Environment, rng: &mut R) -> Self {
        let random: String = (0..KEY_RANDOM_LEN)
            .map(|_| BASE62[rng.gen_range(0..BASE62.len())] as char)
            .collect();
        GeneratedKey {
            plain: format!("{}{random}", prefix_for(environment)),
            environment,
        }
    }

    pub fn plain(&self) -> &str {
        &self.plain
    }

    pub fn environment(&self) -> Environment {
        self.environment
    }

    pub fn hash(&self) -> String {
        hash_key(&self.plain)
    }

    pub fn prefix(&self) -> &'static str {
        prefix_for(self.environment)
    }

    pub fn last4(&self) -> String {
        self.plain[self.plain.len() - 4..].to_string()
    }
}

pub fn prefix_for(environment: Environment) -> &'static str {
    match environment {
        Environment::Test => "sk_test_",
        Environment::Live => "sk_live_",
    }
}

/// Lower-case hex SHA-256 of the key: the only form of it the database ever sees.
pub fn hash_key(plain: &str) -> String {
    let digest = Sha256::digest(plain.as_bytes());
    hex::encode(digest)
}

/// Whether a bearer token has the shape of a key, before spending a database lookup on it.
pub fn parse_key_shape(token: &str) -> Option<Environment> {
    let (env, rest) = if let Some(rest) = token.strip_prefix("sk_test_") {
        (Environment::Test, rest)
    } else if let Some(rest) = token.strip_prefix("sk_live_") {
        (Environment::Live, rest)
    } else {
        return None;
    };
    (rest.len() == KEY_RANDOM_LEN && rest.bytes().all(|b| b.is_ascii_alphanumeric())).then_some(env)
}

/// The resources a key's scopes can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ApiResource {
    Customers,
    Invoices,
    Quotations,
    Payments,
    Products,
    Webhooks,
    Events,
    /// The merchant's profile and logo (SPEC §16).
    Account,
    /// The email log (SPEC §18); sending needs the document's `write`.
    Emails,
    CreditNotes,
    RecurringInvoices,
}

impl ApiResource {
    pub const ALL: [ApiResource; 11] = [
        ApiResource::Customers,
        ApiResource::Invoices,
        ApiResource::Quotations,
        ApiResource::Payments,
        ApiResource::Products,
        ApiResource::Webhooks,
        ApiResource::Events,
        ApiResource::Account,
        ApiResource::Emails,
        ApiResource::CreditNotes,
        ApiResource::RecurringInvoices,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ApiResource::Customers => "customers",
            ApiResource::Invoices => "invoices",
            ApiResource::Quotations => "quotations",
            ApiResource::Payments => "payments",
            ApiResource::Products => "products",
            ApiResource::Webhooks => "webhooks",
            ApiResource::Events => "events",
            ApiResource::Account => "account",
            ApiResource::Emails => "emails",
            ApiResource::CreditNotes => "credit_notes",
            ApiResource::RecurringInvoices => "recurring_invoices",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Access {
    Read,
    Write,
}

/// What a key may do: everything, or a set of `resource:read|write` grants (write implies read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyScopes {
    All,
    Grants(BTreeSet<(ApiResource, Access)>),
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unknown scope {0:?}: use * or RESOURCE:read|write with RESOURCE one of customers, invoices, quotations, payments, products, webhooks, events, account, emails, credit_notes, recurring_invoices")]
pub struct ScopeError(pub String);

impl KeyScopes {
    /// Parses `*` or a comma-separated list such as `customers:read,invoices:write`.
    pub fn parse(text: &str) -> Result<KeyScopes, ScopeError> {
        let items: Vec<&str> = text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if items.is_empty() || items == ["*"] {
            return Ok(KeyScopes::All);
        }
        let mut grants = BTreeSet::new();
        for item in items {
            let (res, access) = item
                .split_once(':')
                .ok_or_else(|| ScopeError(item.to_string()))?;
            let resource = ApiResource::ALL
                .into_iter()
                .find(|r| r.as_str() == res)
                .ok_or_else(|| ScopeError(item.to_string()))?;
            let access = match access {
                "read" => Access::Read,
                "write" => Access::Write,
                _ => return Err(ScopeError(item.to_string())),
            };
            grants.insert((resource, access));
        }
        Ok(KeyScopes::Grants(grants))
    }

    pub fn allows(&self, resource: ApiResource, access: Access) -> bool {
        match self {
            KeyScopes::All => true,
            KeyScopes::Grants(g) => {
                g.contains(&(resource, Access::Write))
                    || (access == Access::Read && g.contains(&(resource, Access::Read)))
            }
        }
    }

    pub fn to_strings(&self) -> Vec<String> {
        match self {
            KeyScopes::All => vec!["*".to_string()],
            KeyScopes::Grants(g) => g
                .iter()
                .map(|(r, a)| {
                    let a = match a {
                        Access::Read => "read",
                        Access::Write => "write",
                    };
                    format!("{}:{a}", r.as_str())
                })
                .collect(),
        }
    }

    /// The stored form; [`KeyScopes::parse`] reads it back.
    pub fn to_storage(&self) -> String {
        self.to_strings().join(",")
    }
}

/// Per-key overrides of the server's default token bucket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RateOverride {
    pub per_minute: Option<u32>,
    pub burst: Option<u32>,
}

/// A stored key as the operator sees it: never the secret, only how to recognise it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiKey {
    pub id: ApiKeyId,
    pub account_id: AccountId,
    pub environment: Environment,
    pub prefix: String,
    pub last4: String,
    pub scopes: KeyScopes,
    pub rate: RateOverride,
    pub expires_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    /// When a request last used it, to the minute (see [`LAST_USED_PRECISION`]).
    pub last_used_at: Option<DateTime<Utc>>,
}

/// How stale a key's `last_used_at` may be: it is written at most this often, so a busy key
/// costs no write per request.
pub const LAST_USED_PRECISION: chrono::Duration = chrono::Duration::minutes(1);

/// Why a known key cannot be used; the HTTP layer maps each to its SPEC §2 code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyRejection {
    Revoked,
    Expired,
}

impl ApiKey {
    pub fn check_usable(&self, now: DateTime<Utc>) -> Result<(), KeyRejection> {
        if self.revoked_at.is_some_and(|t| t <= now) {
            Err(KeyRejection::Revoked)
        } else if self.expires_at.is_some_and(|t| t <= now) {
            Err(KeyRejection::Expired)
        } else {
            Ok(())
        }
    }
}

/// What storage needs to persist a new key (the account is named separately).
#[derive(Clone, Debug)]
pub struct NewApiKey {
    pub environment: Environment,
    pub key_hash: String,
    pub prefix: String,
    pub last4: String,
    pub scopes: KeyScopes,
    pub rate: RateOverride,
    pub expires_at: Option<DateTime<Utc>>,
}

impl NewApiKey {
    pub fn from_generated(
        key: &GeneratedKey,
        scopes: KeyScopes,
        rate: RateOverride,
        expires_at: Option<DateTime<Utc>>,
    ) -> Self {
        NewApiKey {
            environment: key.environment(),
            key_hash: key.hash(),
            prefix: key.prefix().to_string(),
            last4: key.last4(),
            scopes,
            rate,
            expires_at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;
    use rand::rngs::OsRng;

    #[test]
    fn generated_keys_have_the_documented_shape() {
        let key = GeneratedKey::generate(Environment::Live, &mut OsRng);
        assert!(key.plain().starts_with("sk_live_"));
        assert_eq!(key.plain().len(), 8 + 32);
        assert_eq!(parse_key_shape(key.plain()), Some(Environment::Live));
        assert_eq!(key.hash().len(), 64);
        assert_ne!(
            key.plain(),
            GeneratedKey::generate(Environment::Live, &mut OsRng).plain()
        );
    }

    #[test]
    fn shape_check_rejects_near_misses() {
        assert_eq!(parse_key_shape("sk_test_short"), None);
        assert_eq!(
            parse_key_shape(&format!("pk_test_{}", "a".repeat(32))),
            None
        );
        assert_eq!(
            parse_key_shape(&format!("sk_test_{}!", "a".repeat(31))),
            None
        );
        assert_eq!(
            parse_key_shape(&format!("sk_test_{}", "a".repeat(32))),
            Some(Environment::Test)
        );
    }

    #[test]
    fn hash_is_sha256_hex() {
        assert_eq!(
            hash_key("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn write_implies_read_and_nothing_else() {
        let s = KeyScopes::parse("customers:write, invoices:read").unwrap();
        assert!(s.allows(ApiResource::Customers, Access::Read));
        assert!(s.allows(ApiResource::Customers, Access::Write));
        assert!(s.allows(ApiResource::Invoices, Access::Read));
        assert!(!s.allows(ApiResource::Invoices, Access::Write));
        assert!(!s.allows(ApiResource::Payments, Access::Read));
        assert_eq!(KeyScopes::parse(&s.to_storage()).unwrap(), s);
        assert_eq!(KeyScopes::parse("*").unwrap(), KeyScopes::All);
        assert!(KeyScopes::parse("customers:delete").is_err());
        assert!(KeyScopes::parse("clients:read").is_err());
    }

    #[test]
    fn revoked_and_expired_keys_are_refused() {
        let now = Utc::now();
        let mut key = ApiKey {
            id: ApiKeyId(1),
            account_id: AccountId(1),
            environment: Environment::Test,
            prefix: "sk_test_".into(),
            last4: "abcd".into(),
            scopes: KeyScopes::All,
            rate: RateOverride::default(),
            expires_at: None,
            revoked_at: None,
            created_at: now,
            last_used_at: None,
        };
        assert_eq!(key.check_usable(now), Ok(()));
        key.expires_at = Some(now + Duration::hours(1));
        assert_eq!(key.check_usable(now), Ok(()));
        assert_eq!(
            key.check_usable(now + Duration::hours(2)),
            Err(KeyRejection::Expired)
        );
        key.revoked_at = Some(now);
        assert_eq!(key.check_usable(now), Err(KeyRejection::Revoked));
    }
}
