//! The operator commands: accounts, keys, dashboard users (`cli/users.rs`) and tenants' sealed
//! secrets, printed as JSON on stdout.
#![allow(clippy::print_stdout)] // the commands' JSON is their output

mod users;
pub use users::users;

use crate::config::{AccountsCommand, KeysCommand, SecretsCommand};
use anyhow::{anyhow, Context, Result};
use chrono::{DateTime, Utc};
use invoicing_domain::api_key::{
    rotation_grace_end, ApiKey, ApiKeyId, GeneratedKey, KeyRequest, NewApiKey, RateOverride,
};
use invoicing_domain::currency::Currency;
use invoicing_domain::ports::{AccountRepository, ApiKeyRepository};
use invoicing_domain::tenant::{AccountId, Environment};
use invoicing_domain::time::format;
use invoicing_domain::validation::Violations;
use invoicing_storage::Store;
use serde_json::{json, Value};

pub(crate) fn open(url: &str) -> Result<Store> {
    let store = Store::connect(url, 2)?;
    store.migrate()?;
    Ok(store)
}

pub fn secrets(cmd: SecretsCommand) -> Result<()> {
    match cmd {
        SecretsCommand::Reseal { db, secrets_key } => {
            let store = open(&db.database_url)?.with_secrets(secrets_key);
            let resealed = store.reseal_secrets()?;
            println!("{}", json!({ "resealed": resealed }));
        }
        SecretsCommand::Generate => {
            println!(
                "{}",
                json!({ "secrets_key": invoicing_storage::secrets::SecretsKey::generate() })
            );
        }
    }
    Ok(())
}

pub fn key_json(key: &ApiKey, plain: Option<&str>) -> Value {
    let mut v = json!({
        "id": key.id.0,
        "object": "api_key",
        "account_id": key.account_id.0,
        "environment": key.environment.as_str(),
        "livemode": key.environment.is_live(),
        "prefix": key.prefix,
        "last4": key.last4,
        "scopes": key.scopes.to_strings(),
        "rate_per_minute": key.rate.per_minute,
        "burst": key.rate.burst,
        "expires_at": key.expires_at.as_ref().map(format),
        "revoked_at": key.revoked_at.as_ref().map(format),
        "created_at": format(&key.created_at),
        "last_used_at": key.last_used_at.as_ref().map(format),
    });
    if let Some(plain) = plain {
        v["key"] = json!(plain);
    }
    v
}

pub(crate) fn print(v: &Value) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}

pub fn accounts(cmd: AccountsCommand) -> Result<()> {
    match cmd {
        AccountsCommand::Create { name, currency, db } => {
            let name = name.trim();
            if name.is_empty() || name.chars().count() > 256 {
                return Err(anyhow!("--name must be 1 to 256 characters"));
            }
            let currency = Currency::parse(&currency).map_err(|e| anyhow!("--currency {e}"))?;
            let account = open(&db.database_url)?.create_account(name, currency)?;
            print(&serde_json::to_value(&account)?)
        }
    }
}

fn parse_expiry(text: &str) -> Result<DateTime<Utc>> {
    Ok(DateTime::parse_from_rfc3339(text)
        .with_context(|| format!("--expires-at {text:?} is not an RFC 3339 time"))?
        .with_timezone(&Utc))
}

/// The dashboard's rules, with the CLI's flag names.
fn flag_errors(v: Violations) -> anyhow::Error {
    let text: Vec<String> = v
        .errors()
        .iter()
        .map(|e| format!("--{} {}", e.param.replace('_', "-"), e.message))
        .collect();
    anyhow!(text.join("; "))
}

pub fn keys(cmd: KeysCommand) -> Result<()> {
    match cmd {
        KeysCommand::Create {
            account,
            env,
            scopes,
            expires_at,
            rate_per_minute,
            burst,
            db,
        } => {
            let environment =
                Environment::parse(&env).ok_or_else(|| anyhow!("--env must be test or live"))?;
            let expires_at = expires_at.as_deref().map(parse_expiry).transpose()?;
            let rate = RateOverride {
                per_minute: rate_per_minute,
                burst,
            };
            let request =
                KeyRequest::parse(&scopes, rate, expires_at, Utc::now()).map_err(flag_errors)?;
            let store = open(&db.database_url)?;
            let account = store
                .get_account(AccountId(account))
                .map_err(|_| anyhow!("no account {account}"))?;
            let generated = GeneratedKey::generate(environment, &mut rand::rngs::OsRng);
            let key = store.insert_key(account.id, request.into_new_key(&generated))?;
            print(&key_json(&key, Some(generated.plain())))
        }
        KeysCommand::List { account, db } => {
            let keys = open(&db.database_url)?.list_keys(AccountId(account))?;
            let data: Vec<Value> = keys.iter().map(|k| key_json(k, None)).collect();
            print(&json!({ "data": data }))
        }
        KeysCommand::Revoke { key_id, db } => {
            let key = open(&db.database_url)?
                .revoke_key(ApiKeyId(key_id), Utc::now())
                .map_err(|e| anyhow!("key {key_id}: {e}"))?;
            print(&key_json(&key, None))
        }
        KeysCommand::Rotate {
            key_id,
            grace_hours,
            db,
        } => {
            let store = open(&db.database_url)?;
            let old = store
                .get_key(ApiKeyId(key_id))
                .map_err(|e| anyhow!("key {key_id}: {e}"))?;
            let generated = GeneratedKey::generate(old.environment, &mut rand::rngs::OsRng);
            let replacement =
                NewApiKey::from_generated(&generated, old.scopes.clone(), old.rate, old.expires_at);
            let grace_end = rotation_grace_end(Utc::now(), grace_hours).map_err(flag_errors)?;
            let (old, new) = store
                .rotate_key(old.id, replacement, grace_end)
                .map_err(|e| anyhow!("key {key_id}: {e}"))?;
            let mut out = key_json(&new, Some(generated.plain()));
            out["replaces"] = key_json(&old, None);
            print(&out)
        }
    }
}
