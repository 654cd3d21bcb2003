//! The keys that connect an account's environment to its gateway account (SPEC §25): the body
//! of `PUT /api/v1/account/gateways/stripe`, its parsed form, and what `GET` shows (never a
//! secret).

use crate::tenant::Environment;
use crate::validation::Violations;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::fmt;

const KEY_MAX: usize = 255;

/// A secret that never prints: `Debug` and `Display` show only its last four characters.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn last4(&self) -> String {
        let chars: Vec<char> = self.0.chars().collect();
        chars[chars.len().saturating_sub(4)..].iter().collect()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secret(…{})", self.last4())
    }
}

/// The body of `PUT /api/v1/account/gateways/stripe`.
#[derive(Clone, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct GatewayKeysInput {
    /// `sk_test_…` in the test environment, `sk_live_…` in live (a restricted `rk_…` key too).
    pub secret_key: Option<String>,
    /// `pk_test_…` or `pk_live_…`, as the environment.
    pub publishable_key: Option<String>,
    /// The signing secret of the webhook endpoint made in Stripe (`whsec_…`). It may come in a
    /// second save: the endpoint's URL (from `GET`) is known only once the keys are saved, and
    /// until then payments are recorded from the customer's return and the sweep alone.
    pub webhook_secret: Option<String>,
}

impl fmt::Debug for GatewayKeysInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("GatewayKeysInput(…)")
    }
}

/// Keys that passed their checks for one environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GatewayKeys {
    pub secret_key: Secret,
    pub publishable_key: String,
    pub webhook_secret: Option<Secret>,
}

fn key(
    v: &mut Violations,
    param: &str,
    value: Option<&str>,
    prefixes: &[String],
    what: &str,
) -> Option<String> {
    let Some(value) = value.map(str::trim).filter(|s| !s.is_empty()) else {
        v.push(param, crate::validation::Problem::Required);
        return None;
    };
    let shape_ok = value.len() <= KEY_MAX
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !shape_ok {
        v.push(
            param,
            format!("must be {what}: letters, digits and underscores, up to {KEY_MAX}"),
        );
        return None;
    }
    match prefixes.iter().find(|p| value.starts_with(p.as_str())) {
        Some(p) if value.len() > p.len() => Some(value.to_string()),
        _ => {
            v.push(
                param,
                format!("must be {what} starting with {}", prefixes.join(" or ")),
            );
            None
        }
    }
}

impl GatewayKeysInput {
    /// Stripe's keys for `environment`: test keys only in test, live keys only in live.
    pub fn parse_stripe(&self, environment: Environment) -> Result<GatewayKeys, Violations> {
        let mode = environment.as_str();
        let mut v = Violations::new();
        let secret = key(
            &mut v,
            "secret_key",
            self.secret_key.as_deref(),
            &[format!("sk_{mode}_"), format!("rk_{mode}_")],
            &format!("a Stripe secret key of the {mode} environment"),
        );
        let publishable = key(
            &mut v,
            "publishable_key",
            self.publishable_key.as_deref(),
            &[format!("pk_{mode}_")],
            &format!("a Stripe publishable key of the {mode} environment"),
        );
        let blank = |s: &Option<String>| s.as_deref().is_none_or(|s| s.trim().is_empty());
        let webhook = if blank(&self.webhook_secret) {
            None
        } else {
            key(
                &mut v,
                "webhook_secret",
                self.webhook_secret.as_deref(),
                &["whsec_".to_string()],
                "the signing secret of a Stripe webhook endpoint",
            )
        };
        match (secret, publishable) {
            (Some(s), Some(p)) if v.is_empty() => Ok(GatewayKeys {
                secret_key: Secret(s),
                publishable_key: p,
                webhook_secret: webhook.map(Secret),
            }),
            _ => Err(v),
        }
    }
}

/// What `GET /api/v1/account/gateways/stripe` shows: enough to recognise the keys, never them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GatewaySettings {
    /// Always `gateway`.
    pub object: &'static str,
    /// `stripe`.
    pub gateway: &'static str,
    pub livemode: bool,
    pub publishable_key: String,
    /// The secret key's last four characters.
    pub secret_key_last4: String,
    /// The URL to paste into Stripe as the webhook endpoint.
    pub webhook_url: String,
    /// Whether the endpoint's signing secret is saved (webhooks are refused until it is).
    pub webhook_secret_set: bool,
    /// The Stripe events to select for that endpoint.
    pub webhook_events: Vec<&'static str>,
    pub connected_at: DateTime<Utc>,
    /// When the secret key was last checked against Stripe, and whether that worked.
    pub checked_at: Option<DateTime<Utc>>,
    pub check_ok: bool,
}

impl GatewaySettings {
    pub const OBJECT: &'static str = "gateway";
}

/// The Stripe events this service acts on (SPEC §25): what to select for the endpoint. A card
/// refund's later changes come as `charge.refund.updated` on endpoints of API versions before
/// 2024-10-28 and as `refund.*` after, so both are listed.
pub const STRIPE_EVENTS: [&str; 7] = [
    "checkout.session.completed",
    "checkout.session.async_payment_succeeded",
    "checkout.session.async_payment_failed",
    "refund.created",
    "refund.updated",
    "refund.failed",
    "charge.refund.updated",
];
