//! Dashboard sessions (SPEC §21): a signed-in user in one account and one environment, found by
//! the hash of the random token in their cookie, ending after 30 idle minutes or 12 hours.

use super::{Role, User, UserId};
use crate::tenant::{AccountId, Actor, Environment, Scope};
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use std::fmt;

/// A session unused this long has ended.
pub const SESSION_IDLE_TIMEOUT: Duration = Duration::minutes(30);
/// A session this old has ended, however busy.
pub const SESSION_LIFETIME: Duration = Duration::hours(12);
/// Sensitive changes (API keys, webhook URLs, users, one's password) ask for the password again
/// when it was not entered this recently.
pub const REAUTHENTICATE_AFTER: Duration = Duration::minutes(5);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct SessionId(pub i64);

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    pub id: SessionId,
    pub user_id: UserId,
    pub account_id: AccountId,
    /// The environment the dashboard shows; test for a new session.
    pub environment: Environment,
    pub created_at: DateTime<Utc>,
    pub last_seen_at: DateTime<Utc>,
    /// When the password was last typed in this session (at sign-in, then at each confirmation).
    pub password_entered_at: DateTime<Utc>,
    /// When the second factor was given (a one-time or recovery code, or setting one up); `None`
    /// for a session of the password alone.
    pub second_factor_at: Option<DateTime<Utc>>,
}

impl Session {
    /// When it ends unless used before: the sooner of the idle and the absolute limit.
    pub fn expires_at(&self) -> DateTime<Utc> {
        (self.last_seen_at + SESSION_IDLE_TIMEOUT).min(self.created_at + SESSION_LIFETIME)
    }

    pub fn is_expired(&self, now: DateTime<Utc>) -> bool {
        now >= self.expires_at()
    }

    /// Whether a sensitive change may go ahead without asking for the password again.
    pub fn password_is_recent(&self, now: DateTime<Utc>) -> bool {
        now - self.password_entered_at < REAUTHENTICATE_AFTER
    }

    /// The tenant the session acts for, acting as its user (whom events record).
    pub fn scope(&self) -> Scope {
        Scope::new(self.account_id, self.environment).acting_as(Actor::User(self.user_id.0))
    }
}

/// What storage needs to start a session: the hash of its token, never the token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewSession {
    pub user_id: UserId,
    pub account_id: AccountId,
    pub token_hash: String,
    /// The sign-in: the session's start, its last use and its password entry.
    pub at: DateTime<Utc>,
}

/// A live session with who it is and what they may do, read together on every dashboard request
/// (the role as it is now, so a change of role applies at the next request).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedIn {
    pub session: Session,
    pub user: User,
    pub role: Role,
    /// The account asks every member for a second factor.
    pub account_requires_totp: bool,
}

/// How far a sign-in has come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Signed in: every page.
    Ready,
    /// The password was right; the one-time code is still to come.
    NeedsCode,
    /// The account requires a second factor this user has not set up: that page only.
    NeedsSetUp,
}

impl SignedIn {
    pub fn stage(&self) -> Stage {
        match (self.user.totp, self.session.second_factor_at) {
            (true, None) => Stage::NeedsCode,
            (false, _) if self.account_requires_totp => Stage::NeedsSetUp,
            _ => Stage::Ready,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(created: DateTime<Utc>, last_seen: DateTime<Utc>) -> Session {
        Session {
            id: SessionId(1),
            user_id: UserId(1),
            account_id: AccountId(1),
            environment: Environment::Test,
            created_at: created,
            last_seen_at: last_seen,
            password_entered_at: created,
            second_factor_at: None,
        }
    }

    fn signed_in(totp: bool, given: bool, required: bool) -> SignedIn {
        let t0 = Utc::now();
        let mut session = session(t0, t0);
        session.second_factor_at = given.then_some(t0);
        SignedIn {
            session,
            user: crate::user::User {
                id: UserId(1),
                email: crate::user::UserEmail::parse("a@example.com").unwrap(),
                created_at: t0,
                password_changed_at: Some(t0),
                totp,
            },
            role: crate::user::Role::Staff,
            account_requires_totp: required,
        }
    }

    #[test]
    fn a_sign_in_is_ready_once_every_factor_asked_for_is_given() {
        assert_eq!(signed_in(false, false, false).stage(), Stage::Ready);
        assert_eq!(signed_in(true, false, false).stage(), Stage::NeedsCode);
        assert_eq!(signed_in(true, true, false).stage(), Stage::Ready);
        assert_eq!(signed_in(false, false, true).stage(), Stage::NeedsSetUp);
        assert_eq!(signed_in(true, false, true).stage(), Stage::NeedsCode);
        assert_eq!(signed_in(true, true, true).stage(), Stage::Ready);
    }

    #[test]
    fn idle_and_absolute_limits() {
        let t0 = Utc::now();
        let fresh = session(t0, t0);
        assert!(!fresh.is_expired(t0 + Duration::minutes(29)));
        assert!(fresh.is_expired(t0 + Duration::minutes(30)));
        let busy = session(t0, t0 + Duration::hours(11) + Duration::minutes(50));
        assert_eq!(busy.expires_at(), t0 + Duration::hours(12));
        assert!(!busy.is_expired(t0 + Duration::hours(12) - Duration::seconds(1)));
        assert!(busy.is_expired(t0 + Duration::hours(12)));
    }

    #[test]
    fn password_is_asked_again_after_five_minutes() {
        let t0 = Utc::now();
        let s = session(t0, t0);
        assert!(s.password_is_recent(t0 + Duration::minutes(4)));
        assert!(!s.password_is_recent(t0 + Duration::minutes(5)));
        assert_eq!(s.scope(), Scope::new(AccountId(1), Environment::Test));
        assert_eq!(s.scope().actor, Actor::User(1));
    }
}
