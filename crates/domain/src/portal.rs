//! The customer portal (SPEC §26): one page per customer and environment with every document of
//! theirs that left draft, opened by a capability link. The link's token is random; only its
//! SHA-256 is kept, so a copy of the database opens no portal.

use crate::validation::{Problem, Violations};
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// How long a link lasts when its maker names no end.
pub const DEFAULT_DAYS: i64 = 30;
/// The longest a link may last.
pub const MAX_DAYS: i64 = 366;
/// How long a link sent to a customer who asked for one by email lasts.
pub const ASKED_HOURS: i64 = 24;

/// The body of `POST /api/v1/customers/{id}/portal_link`.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PortalLinkInput {
    /// RFC 3339, in the future, within 366 days; default 30 days from now.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime, example = "2027-01-31T00:00:00Z"))]
    pub expires_at: Option<String>,
}

impl PortalLinkInput {
    /// When the link ends, seen from `now`.
    pub fn parse(self, now: DateTime<Utc>) -> Result<DateTime<Utc>, Violations> {
        let Some(raw) = self.expires_at else {
            return Ok(crate::time::whole_seconds(
                now + Duration::days(DEFAULT_DAYS),
            ));
        };
        let at = DateTime::parse_from_rfc3339(raw.trim()).map(|t| t.with_timezone(&Utc));
        match at {
            Ok(at) if at <= now => Err(Violations::single("expires_at", Problem::NotFuture)),
            Ok(at) if at > now + Duration::days(MAX_DAYS) => Err(Violations::single(
                "expires_at",
                format!("must be within {MAX_DAYS} days"),
            )),
            Ok(at) => Ok(crate::time::whole_seconds(at)),
            Err(_) => Err(Violations::single(
                "expires_at",
                "must be a moment in RFC 3339, such as 2027-01-31T00:00:00Z",
            )),
        }
    }
}

/// A new link, as the API answers it: the only time its token is shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PortalLink {
    /// Always `portal_link`.
    pub object: &'static str,
    /// `{public_url}/portal?token=…`
    pub url: String,
    #[serde(serialize_with = "crate::time::serialize")]
    pub expires_at: DateTime<Utc>,
}

impl PortalLink {
    pub const OBJECT: &'static str = "portal_link";

    pub fn new(public_url: &str, token: &str, expires_at: DateTime<Utc>) -> PortalLink {
        PortalLink {
            object: PortalLink::OBJECT,
            url: format!("{}/portal?token={token}", public_url.trim_end_matches('/')),
            expires_at,
        }
    }
}

/// The answer to revoking a customer's links.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PortalRevocation {
    /// Always `portal_link_revocation`.
    pub object: &'static str,
    /// How many links ended.
    pub revoked: u64,
}

impl PortalRevocation {
    pub fn new(revoked: usize) -> PortalRevocation {
        PortalRevocation {
            object: "portal_link_revocation",
            revoked: u64::try_from(revoked).unwrap_or(u64::MAX),
        }
    }
}

/// What storage keeps of a token: its SHA-256, hex.
pub fn token_hash(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap()
    }

    fn parse(expires_at: Option<&str>) -> Result<DateTime<Utc>, Violations> {
        PortalLinkInput {
            expires_at: expires_at.map(str::to_string),
        }
        .parse(now())
    }

    #[test]
    fn a_link_lasts_thirty_days_unless_told() {
        assert_eq!(parse(None).unwrap(), now() + Duration::days(30));
        assert_eq!(
            parse(Some("2026-12-01T00:00:00+01:00")).unwrap(),
            Utc.with_ymd_and_hms(2026, 11, 30, 23, 0, 0).unwrap()
        );
        for bad in ["2026-11-29T11:00:00Z", "2028-01-01T00:00:00Z", "soon"] {
            let refused = parse(Some(bad)).unwrap_err();
            assert_eq!(refused.errors()[0].param, "expires_at", "{bad}");
        }
    }

    #[test]
    fn only_a_hash_of_the_token_is_kept() {
        let hash = token_hash("abc");
        assert_eq!(
            hash,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_ne!(token_hash("abd"), hash);
    }
}
