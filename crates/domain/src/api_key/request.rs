//! What an operator asks of a new key, checked by one set of rules whether it comes from the
//! CLI's flags or the dashboard's form (SPEC §2, §21).

use super::{GeneratedKey, KeyScopes, NewApiKey, RateOverride};
use crate::validation::{Problem, Violations};
use chrono::{DateTime, Duration, Utc};

/// The longest a rotated key keeps working beside its replacement: 30 days. Longer is no
/// rotation at all.
pub const MAX_ROTATION_GRACE_HOURS: u32 = 720;

/// A new key's scopes, limits and expiry, as the rules allow them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyRequest {
    pub scopes: KeyScopes,
    pub rate: RateOverride,
    pub expires_at: Option<DateTime<Utc>>,
}

impl KeyRequest {
    /// `scopes` as `*` or `RESOURCE:read|write,…`; an expiry must be after `now`; a limit at
    /// least 1 (a key limited to nothing is a revoked key).
    pub fn parse(
        scopes: &str,
        rate: RateOverride,
        expires_at: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Result<KeyRequest, Violations> {
        let mut v = Violations::new();
        let scopes = KeyScopes::parse(scopes)
            .map_err(|e| v.push("scopes", e.to_string()))
            .ok();
        if expires_at.is_some_and(|t| t <= now) {
            v.push("expires_at", Problem::NotFuture);
        }
        for (param, limit) in [("rate_per_minute", rate.per_minute), ("burst", rate.burst)] {
            if limit == Some(0) {
                v.push(param, "must be at least 1");
            }
        }
        v.finish(|| KeyRequest {
            scopes: scopes.unwrap_or(KeyScopes::All),
            rate,
            expires_at,
        })
    }

    /// The key to store for `generated`.
    pub fn into_new_key(self, generated: &GeneratedKey) -> NewApiKey {
        NewApiKey::from_generated(generated, self.scopes, self.rate, self.expires_at)
    }
}

/// When a rotated key stops working: `hours` after `now`, at most
/// [`MAX_ROTATION_GRACE_HOURS`] (0 ends it at once).
pub fn rotation_grace_end(now: DateTime<Utc>, hours: u32) -> Result<DateTime<Utc>, Violations> {
    if hours > MAX_ROTATION_GRACE_HOURS {
        return Err(Violations::single(
            "grace_hours",
            format!("must be at most {MAX_ROTATION_GRACE_HOURS} hours"),
        ));
    }
    Ok(now + Duration::hours(i64::from(hours)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api_key::{Access, ApiResource};

    fn params(e: &Violations) -> Vec<&str> {
        e.errors().iter().map(|f| f.param.as_str()).collect()
    }

    #[test]
    fn a_request_takes_scopes_limits_and_a_future_expiry() {
        let now = Utc::now();
        let r = KeyRequest::parse(
            "invoices:write, customers:read",
            RateOverride {
                per_minute: Some(60),
                burst: None,
            },
            Some(now + Duration::days(1)),
            now,
        )
        .unwrap();
        assert!(r.scopes.allows(ApiResource::Invoices, Access::Write));
        assert!(!r.scopes.allows(ApiResource::Customers, Access::Write));
        assert_eq!(r.rate.per_minute, Some(60));
        assert_eq!(
            KeyRequest::parse("*", RateOverride::default(), None, now)
                .unwrap()
                .scopes,
            KeyScopes::All
        );
    }

    #[test]
    fn every_broken_rule_is_named_by_its_field() {
        let now = Utc::now();
        let e = KeyRequest::parse(
            "invoices:delete",
            RateOverride {
                per_minute: Some(0),
                burst: Some(0),
            },
            Some(now),
            now,
        )
        .unwrap_err();
        assert_eq!(
            params(&e),
            ["scopes", "expires_at", "rate_per_minute", "burst"]
        );
    }

    #[test]
    fn a_rotation_grace_is_at_most_thirty_days() {
        let now = Utc::now();
        assert_eq!(rotation_grace_end(now, 0).unwrap(), now);
        assert_eq!(
            rotation_grace_end(now, 720).unwrap(),
            now + Duration::days(30)
        );
        assert_eq!(
            params(&rotation_grace_end(now, 721).unwrap_err()),
            ["grace_hours"]
        );
    }
}
