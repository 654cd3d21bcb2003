//! Dashboard users (SPEC §21): people who sign in with an email and a password and belong to one
//! or more accounts, with one [`Role`] in each. Everything here is pure: the password policy and
//! its Argon2id hashing, the 256-bit one-time tokens (set-password links, sessions), the session
//! timeouts and the sign-in throttle's rule. Storage keeps what these types describe; the HTTP
//! side asks them.

mod csrf;
mod email;
mod password;
mod role;
mod session;
mod throttle;
mod token;
mod totp;

pub use csrf::{csrf_matches, csrf_token};
pub use email::UserEmail;
pub use password::{
    hash_password, verify_password, verify_password_or_dummy, HashError, Password, PasswordHash,
    PasswordProblem, PASSWORD_MAX_CHARS, PASSWORD_MIN_CHARS,
};
pub use role::Role;
pub use session::{
    NewSession, Session, SessionId, SignedIn, Stage, REAUTHENTICATE_AFTER, SESSION_IDLE_TIMEOUT,
    SESSION_LIFETIME,
};
pub use throttle::{ThrottleKey, LOGIN_FAILURE_LIMIT, LOGIN_FAILURE_WINDOW};
pub use token::{
    confirm_email_url, hash_token, set_password_url, Invitation, Link, LinkPurpose, NewLink,
    PendingInvitation, SecretToken, EMAILED_RESET_VALIDITY, INVITATION_VALIDITY, LINK_VALIDITY,
};
pub use totp::{hash_recovery_code, recovery_codes, TotpSecret, RECOVERY_CODES};

use crate::tenant::AccountId;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::fmt;

/// Database id of a user.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct UserId(pub i64);

impl fmt::Display for UserId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A person who signs in to the dashboard; the same user may be a member of several accounts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub id: UserId,
    pub email: UserEmail,
    pub created_at: DateTime<Utc>,
    /// When the password was last set; `None` until the person sets one through a one-time
    /// link (a user is created without a password).
    pub password_changed_at: Option<DateTime<Utc>>,
    /// Whether signing in also asks for a one-time code (TOTP).
    pub totp: bool,
}

impl User {
    pub fn has_password(&self) -> bool {
        self.password_changed_at.is_some()
    }
}

/// A user's place in one account.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Membership {
    pub account_id: AccountId,
    pub user_id: UserId,
    pub role: Role,
}

/// A member of an account as its user list shows them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub user: User,
    pub role: Role,
}

/// What a sign-in checks: the user and their password's hash, if they have set one. Kept apart
/// from [`User`] so the hash only travels where a password is verified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Credentials {
    pub user: User,
    pub password_hash: Option<PasswordHash>,
}
