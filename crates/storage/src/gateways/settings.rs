//! The gateway each environment connected (SPEC §25): keys sealed under the server's secrets
//! key, bound to their row, and the endpoint name its webhook URL ends with.

use crate::connection::AnyConnection;
use crate::rows::{from_db, now_db, scoped, to_db};
use crate::schema::gateway_accounts;
use crate::secrets::SecretsKey;
use crate::store::TxError;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use invoicing_domain::gateway::{GatewayKeys, GatewayKind, GatewaySettings, Secret, STRIPE_EVENTS};
use invoicing_domain::ports::RepoError;
use invoicing_domain::tenant::{AccountId, Environment, Scope};

#[derive(Queryable, Selectable)]
#[diesel(table_name = gateway_accounts)]
pub(crate) struct GatewayRow {
    account_id: i64,
    livemode: bool,
    gateway: String,
    pub endpoint: String,
    publishable_key: String,
    secret_last4: String,
    sealed_secret_key: String,
    sealed_webhook_secret: Option<String>,
    checked_at: Option<NaiveDateTime>,
    check_ok: bool,
    created_at: NaiveDateTime,
}

/// What a sealed value is bound to: a secret opens only in the row (and field) it was made for.
fn context(scope: Scope, kind: GatewayKind, field: &str) -> String {
    format!(
        "{}:{}:{}:{field}",
        scope.account_id.0,
        scope.environment.as_str(),
        kind.as_str()
    )
}

/// The URL to paste into the gateway as the webhook endpoint.
pub(crate) fn webhook_url(public_url: &str, kind: GatewayKind, endpoint: &str) -> String {
    format!("{public_url}/webhooks/{}/{endpoint}", kind.as_str())
}

impl GatewayRow {
    pub(crate) fn scope(&self) -> Scope {
        Scope::new(
            AccountId(self.account_id),
            Environment::from_livemode(self.livemode),
        )
    }

    fn kind(&self) -> Result<GatewayKind, TxError> {
        GatewayKind::parse(&self.gateway)
            .ok_or_else(|| RepoError::Internal(format!("gateway {:?}", self.gateway)).into())
    }

    pub(crate) fn settings(&self, public_url: &str) -> Result<GatewaySettings, TxError> {
        let kind = self.kind()?;
        Ok(GatewaySettings {
            object: GatewaySettings::OBJECT,
            gateway: kind.as_str(),
            livemode: self.livemode,
            publishable_key: self.publishable_key.clone(),
            secret_key_last4: self.secret_last4.clone(),
            webhook_url: webhook_url(public_url, kind, &self.endpoint),
            webhook_secret_set: self.sealed_webhook_secret.is_some(),
            webhook_events: STRIPE_EVENTS.to_vec(),
            connected_at: from_db(self.created_at),
            checked_at: self.checked_at.map(from_db),
            check_ok: self.check_ok,
        })
    }

    /// The keys, opened. A secret that does not open (the secrets key changed without the
    /// old one kept) is an operator's error, reported as such.
    pub(crate) fn keys(&self, secrets: &SecretsKey) -> Result<GatewayKeys, TxError> {
        let (scope, kind) = (self.scope(), self.kind()?);
        let open = |sealed: &str, field: &str| {
            secrets
                .open(sealed, &context(scope, kind, field))
                .map(Secret::new)
                .map_err(|e| TxError::from(RepoError::Internal(format!("gateway keys: {e}"))))
        };
        Ok(GatewayKeys {
            secret_key: open(&self.sealed_secret_key, "secret_key")?,
            publishable_key: self.publishable_key.clone(),
            webhook_secret: self
                .sealed_webhook_secret
                .as_deref()
                .map(|s| open(s, "webhook_secret"))
                .transpose()?,
        })
    }
}

pub(crate) fn load(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: GatewayKind,
) -> Result<Option<GatewayRow>, TxError> {
    Ok(scoped!(gateway_accounts, scope)
        .filter(gateway_accounts::gateway.eq(kind.as_str()))
        .select(GatewayRow::as_select())
        .first(conn)
        .optional()?)
}

pub(crate) fn by_endpoint(
    conn: &mut AnyConnection,
    kind: GatewayKind,
    endpoint: &str,
) -> Result<Option<GatewayRow>, TxError> {
    Ok(gateway_accounts::table
        .filter(gateway_accounts::gateway.eq(kind.as_str()))
        .filter(gateway_accounts::endpoint.eq(endpoint))
        .select(GatewayRow::as_select())
        .first(conn)
        .optional()?)
}

pub(crate) fn save(
    conn: &mut AnyConnection,
    secrets: &SecretsKey,
    scope: Scope,
    kind: GatewayKind,
    keys: &GatewayKeys,
    checked_at: DateTime<Utc>,
) -> Result<GatewayRow, TxError> {
    let before = load(conn, scope, kind)?;
    let sealed_secret = secrets.seal(
        keys.secret_key.expose(),
        &context(scope, kind, "secret_key"),
    );
    let sealed_webhook = match &keys.webhook_secret {
        Some(w) => Some(secrets.seal(w.expose(), &context(scope, kind, "webhook_secret"))),
        None => before
            .as_ref()
            .and_then(|b| b.sealed_webhook_secret.clone()),
    };
    let now = now_db();
    match before {
        Some(row) => {
            diesel::update(
                scoped!(gateway_accounts, scope)
                    .filter(gateway_accounts::gateway.eq(kind.as_str())),
            )
            .set((
                gateway_accounts::publishable_key.eq(&keys.publishable_key),
                gateway_accounts::secret_last4.eq(keys.secret_key.last4()),
                gateway_accounts::sealed_secret_key.eq(&sealed_secret),
                gateway_accounts::sealed_webhook_secret.eq(&sealed_webhook),
                gateway_accounts::checked_at.eq(to_db(checked_at)),
                gateway_accounts::check_ok.eq(true),
                gateway_accounts::updated_at.eq(now),
            ))
            .execute(conn)?;
            drop(row);
        }
        None => {
            diesel::insert_into(gateway_accounts::table)
                .values((
                    gateway_accounts::account_id.eq(scope.account_id.0),
                    gateway_accounts::livemode.eq(scope.livemode()),
                    gateway_accounts::gateway.eq(kind.as_str()),
                    // 128 random bits: the webhook URL names the environment without revealing it.
                    gateway_accounts::endpoint.eq(crate::rows::random_hex::<16>()),
                    gateway_accounts::publishable_key.eq(&keys.publishable_key),
                    gateway_accounts::secret_last4.eq(keys.secret_key.last4()),
                    gateway_accounts::sealed_secret_key.eq(&sealed_secret),
                    gateway_accounts::sealed_webhook_secret.eq(&sealed_webhook),
                    gateway_accounts::checked_at.eq(to_db(checked_at)),
                    gateway_accounts::check_ok.eq(true),
                    gateway_accounts::created_at.eq(now),
                    gateway_accounts::updated_at.eq(now),
                ))
                .execute(conn)?;
        }
    }
    load(conn, scope, kind)?.ok_or_else(|| RepoError::Internal("gateway not saved".into()).into())
}

pub(crate) fn delete(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: GatewayKind,
) -> Result<bool, TxError> {
    let n = diesel::delete(
        scoped!(gateway_accounts, scope).filter(gateway_accounts::gateway.eq(kind.as_str())),
    )
    .execute(conn)?;
    Ok(n > 0)
}

/// Seals every stale secret again with the key that seals now (after a rotation of
/// `SECRETS_KEY` to "new,old"); how many values changed.
pub(crate) fn reseal(conn: &mut AnyConnection, secrets: &SecretsKey) -> Result<usize, TxError> {
    let rows = gateway_accounts::table
        .select(GatewayRow::as_select())
        .load::<GatewayRow>(conn)?;
    let mut changed = 0;
    for row in rows {
        let stale = secrets.is_stale(&row.sealed_secret_key)
            || row
                .sealed_webhook_secret
                .as_deref()
                .is_some_and(|w| secrets.is_stale(w));
        if !stale {
            continue;
        }
        let (scope, kind) = (row.scope(), row.kind()?);
        let keys = row.keys(secrets)?;
        let sealed_secret = secrets.seal(
            keys.secret_key.expose(),
            &context(scope, kind, "secret_key"),
        );
        let sealed_webhook = keys
            .webhook_secret
            .as_ref()
            .map(|w| secrets.seal(w.expose(), &context(scope, kind, "webhook_secret")));
        diesel::update(
            scoped!(gateway_accounts, scope).filter(gateway_accounts::gateway.eq(kind.as_str())),
        )
        .set((
            gateway_accounts::sealed_secret_key.eq(&sealed_secret),
            gateway_accounts::sealed_webhook_secret.eq(&sealed_webhook),
        ))
        .execute(conn)?;
        changed += 1;
    }
    Ok(changed)
}
