//! Webhook endpoints (SPEC §11): the bodies, the URL rules, which events an endpoint takes, and
//! the endpoint as the API returns it. Resolving a host is I/O and happens at the edges; which
//! addresses are refused is decided here.

use crate::event::EVENT_TYPES;
use crate::tenant::Environment;
use crate::validation::{not_null, optional_text, Violations};
use crate::webhook_signature::WebhookSecret;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::net::IpAddr;

pub const URL_MAX: usize = 2048;
pub const DESCRIPTION_MAX: usize = 500;
pub const MAX_EVENT_TYPES: usize = 100;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct WebhookEndpointId(pub i64);

/// The events an endpoint takes: every one, or the named types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventSelection {
    All,
    Only(BTreeSet<String>),
}

impl EventSelection {
    pub fn matches(&self, event_type: &str) -> bool {
        match self {
            EventSelection::All => true,
            EventSelection::Only(types) => types.contains(event_type),
        }
    }

    /// `["*"]` or the list of types, as stored and as the API shows it.
    pub fn to_list(&self) -> Vec<String> {
        match self {
            EventSelection::All => vec!["*".into()],
            EventSelection::Only(types) => types.iter().cloned().collect(),
        }
    }

    fn parse(v: &mut Violations, raw: Vec<String>) -> Option<EventSelection> {
        if raw.is_empty() || raw.len() > MAX_EVENT_TYPES {
            v.push(
                "events",
                format!("must list 1 to {MAX_EVENT_TYPES} event types, or [\"*\"]"),
            );
            return None;
        }
        if raw.iter().any(|t| t == "*") {
            if raw.len() > 1 {
                v.push("events", "\"*\" already means every event; give it alone");
                return None;
            }
            return Some(EventSelection::All);
        }
        let before = v.errors().len();
        for (i, t) in raw.iter().enumerate() {
            if !EVENT_TYPES.contains(&t.as_str()) {
                v.push(format!("events[{i}]"), format!("unknown event type {t:?}"));
            }
        }
        (v.errors().len() == before).then(|| EventSelection::Only(raw.into_iter().collect()))
    }

    /// What storage kept; an unreadable value matches nothing rather than everything.
    pub fn from_list(list: Vec<String>) -> EventSelection {
        if list.iter().any(|t| t == "*") {
            EventSelection::All
        } else {
            EventSelection::Only(list.into_iter().collect())
        }
    }
}

/// Whether an address is one a webhook may never reach unless private targets are allowed:
/// anything the IANA special-purpose registries do not call globally reachable, also when an
/// IPv6 form (mapped, compatible, NAT64, 6to4, Teredo) carries such an IPv4 address. The table
/// lives in [`crate::ip_ranges`].
pub fn is_private_target(ip: IpAddr) -> bool {
    !crate::ip_ranges::is_global(ip)
}

/// A webhook URL that passed the rules that need no network: absolute http(s), a host, no
/// credentials, https in live mode, and no literal private address unless allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookUrl(url::Url);

impl WebhookUrl {
    pub fn parse(
        raw: &str,
        env: Environment,
        allow_private: bool,
    ) -> Result<WebhookUrl, &'static str> {
        if raw.len() > URL_MAX {
            return Err("must be at most 2048 characters");
        }
        let url = url::Url::parse(raw.trim()).map_err(|_| "must be an absolute URL")?;
        match url.scheme() {
            "https" => {}
            "http" if !env.is_live() => {}
            "http" => return Err("must use https in live mode"),
            _ => return Err("must be an http or https URL"),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err("must not carry credentials");
        }
        let literal = match url.host() {
            None => return Err("must name a host"),
            Some(url::Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
            Some(url::Host::Domain(_)) => None,
        };
        if !allow_private && literal.is_some_and(is_private_target) {
            return Err("must not point to a private or otherwise not globally reachable address");
        }
        Ok(WebhookUrl(url))
    }

    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// `host:port` to resolve before trusting the URL.
    pub fn host_and_port(&self) -> Option<(String, u16)> {
        let host = match self.0.host()? {
            url::Host::Domain(d) => d.to_string(),
            url::Host::Ipv4(ip) => ip.to_string(),
            url::Host::Ipv6(ip) => ip.to_string(),
        };
        Some((host, self.0.port_or_known_default()?))
    }
}

/// The body of `POST /api/v1/webhooks`.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct WebhookInput {
    /// Where events are POSTed; `https` in live mode.
    pub url: Option<String>,
    /// Event types, or `["*"]` for every event.
    pub events: Option<Vec<String>>,
    pub description: Option<String>,
}

/// The body of `PATCH /api/v1/webhooks/{id}`: absent fields stay, `description: null` clears
/// it, and `null` on any other field is 422 (SPEC §4). Each field is read with `double_option`
/// so that `null` is told apart from absent here, once.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct WebhookPatchInput {
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub url: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub events: Option<Option<Vec<String>>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = bool))]
    pub enabled: Option<Option<bool>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub description: Option<Option<String>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewWebhookEndpoint {
    pub url: WebhookUrl,
    pub events: EventSelection,
    pub description: Option<String>,
    pub secret: WebhookSecret,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WebhookPatch {
    pub url: Option<WebhookUrl>,
    pub events: Option<EventSelection>,
    pub enabled: Option<bool>,
    pub description: Option<Option<String>>,
}

fn parse_url(
    v: &mut Violations,
    raw: Option<String>,
    env: Environment,
    allow_private: bool,
) -> Option<WebhookUrl> {
    WebhookUrl::parse(&raw?, env, allow_private)
        .map_err(|e| v.push("url", e))
        .ok()
}

impl WebhookInput {
    pub fn parse(
        self,
        env: Environment,
        allow_private: bool,
        secret: WebhookSecret,
    ) -> Result<NewWebhookEndpoint, Violations> {
        let mut v = Violations::new();
        if self.url.is_none() {
            v.push("url", crate::validation::Problem::Required);
        }
        let url = parse_url(&mut v, self.url, env, allow_private);
        let events = match self.events {
            None => {
                v.push("events", "is required: a list of event types, or [\"*\"]");
                None
            }
            Some(raw) => EventSelection::parse(&mut v, raw),
        };
        let description = optional_text(&mut v, "description", self.description, DESCRIPTION_MAX);
        match (url, events) {
            (Some(url), Some(events)) if v.is_empty() => Ok(NewWebhookEndpoint {
                url,
                events,
                description,
                secret,
            }),
            _ => Err(v),
        }
    }
}

impl WebhookPatchInput {
    pub fn parse(self, env: Environment, allow_private: bool) -> Result<WebhookPatch, Violations> {
        let mut v = Violations::new();
        let url = not_null(&mut v, "url", self.url);
        let url = parse_url(&mut v, url, env, allow_private);
        let events = not_null(&mut v, "events", self.events)
            .and_then(|raw| EventSelection::parse(&mut v, raw));
        let enabled = not_null(&mut v, "enabled", self.enabled);
        let description = self
            .description
            .map(|d| optional_text(&mut v, "description", d, DESCRIPTION_MAX));
        v.finish(|| WebhookPatch {
            url,
            events,
            enabled,
            description,
        })
    }
}

/// A webhook endpoint as the API returns it; the secret only on create and rotation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WebhookEndpoint {
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub id: WebhookEndpointId,
    pub object: &'static str,
    pub url: String,
    /// Event types, or `["*"]`.
    pub events: Vec<String>,
    pub description: Option<String>,
    pub enabled: bool,
    pub livemode: bool,
    /// `whsec_…`: present only in the answers of create and `rotate_secret`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub secret: Option<String>,
    #[serde(serialize_with = "crate::time::serialize")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::time::serialize")]
    pub updated_at: DateTime<Utc>,
}

impl WebhookEndpoint {
    pub const OBJECT: &'static str = "webhook_endpoint";
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, Ipv6Addr};

    #[test]
    fn private_targets_are_recognised() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fc00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
        ] {
            assert!(is_private_target(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "93.184.216.34",
            "1.1.1.1",
            "2606:4700::1111",
            "100.128.0.1",
            "172.32.0.1",
        ] {
            assert!(!is_private_target(ip.parse().unwrap()), "{ip}");
        }
        assert!(is_private_target(IpAddr::V4(Ipv4Addr::LOCALHOST)));
        assert!(is_private_target(IpAddr::V6(Ipv6Addr::LOCALHOST)));
    }

    #[test]
    fn url_rules() {
        let ok = |u: &str, env| WebhookUrl::parse(u, env, false);
        assert!(ok("https://hooks.example.com/in", Environment::Live).is_ok());
        assert!(ok("http://hooks.example.com/in", Environment::Test).is_ok());
        assert_eq!(
            ok("http://hooks.example.com/in", Environment::Live).unwrap_err(),
            "must use https in live mode"
        );
        for bad in [
            "hooks.example.com",
            "ftp://example.com/x",
            "https://user:pw@example.com/",
            "https://127.0.0.1/x",
            "https://[::1]:8443/x",
            "https://10.0.0.8/x",
        ] {
            assert!(ok(bad, Environment::Test).is_err(), "{bad}");
        }
        assert!(WebhookUrl::parse("http://127.0.0.1:9/x", Environment::Test, true).is_ok());
        let u = ok("https://example.com/x", Environment::Test).unwrap();
        assert_eq!(u.host_and_port(), Some(("example.com".into(), 443)));
    }

    #[test]
    fn event_selection() {
        let secret = || WebhookSecret::generate(&mut rand::rngs::OsRng);
        let parse = |events: Vec<&str>| {
            WebhookInput {
                url: Some("https://example.com/h".into()),
                events: Some(events.into_iter().map(String::from).collect()),
                description: None,
            }
            .parse(Environment::Test, false, secret())
        };
        let all = parse(vec!["*"]).unwrap().events;
        assert!(all.matches("invoice.paid") && all.to_list() == ["*"]);
        let some = parse(vec!["invoice.paid", "invoice.sent"]).unwrap().events;
        assert!(some.matches("invoice.sent") && !some.matches("invoice.created"));
        let err = parse(vec!["invoice.paid", "invoice.exploded"]).unwrap_err();
        assert_eq!(err.errors()[0].param, "events[1]");
        assert!(parse(vec![]).is_err());
        assert!(parse(vec!["*", "invoice.paid"]).is_err());
        let missing = WebhookInput::default()
            .parse(Environment::Test, false, secret())
            .unwrap_err();
        let params: Vec<_> = missing.errors().iter().map(|e| e.param.as_str()).collect();
        assert_eq!(params, ["url", "events"]);
    }
}
