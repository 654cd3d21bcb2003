//! One-time secrets of the dashboard: 256-bit random tokens for set-password links and sessions.
//! The plain token exists only in [`SecretToken`] (and in the link or cookie it is handed over
//! in); storage sees its SHA-256, as it does for API keys.

use super::{Role, UserId};
use crate::tenant::AccountId;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::{DateTime, Duration, Utc};
use rand::{CryptoRng, RngCore};

/// How long a set-password link works (SPEC §21): 24 hours, once.
pub const LINK_VALIDITY: Duration = Duration::hours(24);
/// How long an owner's invitation from the dashboard works: 72 hours, once.
pub const INVITATION_VALIDITY: Duration = Duration::hours(72);
/// How long a reset asked for on the sign-in page works: 30 minutes, once. Shorter than the
/// operator's link: anyone can ask for it, and it travels by email.
pub const EMAILED_RESET_VALIDITY: Duration = Duration::minutes(30);

const TOKEN_BYTES: usize = 32;
/// 32 bytes in unpadded base64url.
const TOKEN_CHARS: usize = 43;

/// A fresh random token. Deliberately not `Debug`/`Serialize`: it is handed over on purpose, once.
pub struct SecretToken(String);

impl SecretToken {
    /// 256 random bits as 43 base64url characters, safe in a URL and a cookie as they are.
    /// Callers pass the OS CSPRNG; the bound makes a non-cryptographic generator a compile error.
    pub fn generate<R: RngCore + CryptoRng>(rng: &mut R) -> SecretToken {
        let mut bytes = [0u8; TOKEN_BYTES];
        rng.fill_bytes(&mut bytes);
        SecretToken(URL_SAFE_NO_PAD.encode(bytes))
    }

    pub fn plain(&self) -> &str {
        &self.0
    }

    /// What storage keeps and looks up.
    pub fn hash(&self) -> String {
        hash_token(&self.0)
    }

    /// Whether `text` has the shape of a token, before spending a database lookup on it.
    pub fn has_shape(text: &str) -> bool {
        text.len() == TOKEN_CHARS
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    }
}

/// Lower-case hex SHA-256 of a token: the API keys' hash.
pub use crate::api_key::hash_key as hash_token;

/// The page that confirms a new email: `{public_url}/dashboard/confirm-email?token=…`.
pub fn confirm_email_url(public_url: &str, token: &SecretToken) -> String {
    format!(
        "{}/dashboard/confirm-email?token={}",
        public_url.trim_end_matches('/'),
        token.plain()
    )
}

/// The page where a link's holder sets their password: `{public_url}/dashboard/set-password?token=…`.
pub fn set_password_url(public_url: &str, token: &SecretToken) -> String {
    format!(
        "{}/dashboard/set-password?token={}",
        public_url.trim_end_matches('/'),
        token.plain()
    )
}

/// Why a set-password link was made; both set a password, the page greets them differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkPurpose {
    /// A new member (the CLI's `users create`, an owner's invitation, the first start).
    Invitation,
    /// A forgotten or never-set password (`users reset-password`).
    PasswordReset,
    /// A new email to confirm (SPEC §27): mailed to the new address, it changes the user's
    /// email when opened.
    EmailChange,
}

impl LinkPurpose {
    pub fn as_str(self) -> &'static str {
        match self {
            LinkPurpose::Invitation => "invitation",
            LinkPurpose::PasswordReset => "password_reset",
            LinkPurpose::EmailChange => "email_change",
        }
    }

    /// Whether the link's page is where a password is set.
    pub fn sets_password(self) -> bool {
        !matches!(self, LinkPurpose::EmailChange)
    }

    pub fn parse(s: &str) -> Option<LinkPurpose> {
        [
            LinkPurpose::Invitation,
            LinkPurpose::PasswordReset,
            LinkPurpose::EmailChange,
        ]
        .into_iter()
        .find(|p| p.as_str() == s)
    }
}

/// What an owner's invitation makes its holder: a member of this account, with this role, and
/// of no other account whatever is done with the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Invitation {
    pub account_id: AccountId,
    pub role: Role,
    pub invited_by: UserId,
}

/// What storage needs to keep a new link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewLink {
    pub user_id: UserId,
    pub purpose: LinkPurpose,
    pub token_hash: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub invitation: Option<Invitation>,
    /// The address an email-change link confirms.
    pub new_email: Option<super::UserEmail>,
}

impl NewLink {
    /// A link for `token` that works for [`LINK_VALIDITY`] from `now`.
    pub fn new(
        user_id: UserId,
        purpose: LinkPurpose,
        token: &SecretToken,
        now: DateTime<Utc>,
    ) -> NewLink {
        NewLink {
            user_id,
            purpose,
            token_hash: token.hash(),
            created_at: now,
            expires_at: now + LINK_VALIDITY,
            invitation: None,
            new_email: None,
        }
    }

    /// A link mailed to `new_email` that makes it `user_id`'s email when opened within
    /// [`LINK_VALIDITY`].
    pub fn email_change(
        user_id: UserId,
        new_email: super::UserEmail,
        token: &SecretToken,
        now: DateTime<Utc>,
    ) -> NewLink {
        NewLink {
            new_email: Some(new_email),
            ..NewLink::new(user_id, LinkPurpose::EmailChange, token, now)
        }
    }

    /// A reset asked for on the sign-in page, emailed: [`EMAILED_RESET_VALIDITY`]. Storage
    /// makes it, having found the user by the email typed, so it takes the token's hash.
    pub fn emailed_reset(user_id: UserId, token_hash: &str, now: DateTime<Utc>) -> NewLink {
        NewLink {
            user_id,
            purpose: LinkPurpose::PasswordReset,
            token_hash: token_hash.to_string(),
            created_at: now,
            expires_at: now + EMAILED_RESET_VALIDITY,
            invitation: None,
            new_email: None,
        }
    }
}

/// A stored link, as its holder's page needs it (never its token).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    pub id: i64,
    pub user_id: UserId,
    pub purpose: LinkPurpose,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub invitation: Option<Invitation>,
    pub new_email: Option<super::UserEmail>,
}

/// An invitation not yet used, as the account's people screen lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingInvitation {
    pub id: i64,
    pub email: super::UserEmail,
    pub role: Role,
    pub expires_at: DateTime<Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api_key::hash_key;
    use rand::rngs::OsRng;

    #[test]
    fn tokens_are_256_random_bits_in_base64url() {
        let t = SecretToken::generate(&mut OsRng);
        assert_eq!(t.plain().len(), 43);
        assert!(SecretToken::has_shape(t.plain()));
        assert_eq!(URL_SAFE_NO_PAD.decode(t.plain()).unwrap().len(), 32);
        assert_eq!(t.hash(), hash_key(t.plain()));
        assert_eq!(t.hash().len(), 64);
        assert_ne!(t.plain(), SecretToken::generate(&mut OsRng).plain());
        assert!(!SecretToken::has_shape(&t.plain()[1..]));
        assert!(!SecretToken::has_shape(&format!("{}=", &t.plain()[1..])));
    }

    #[test]
    fn links_point_at_the_dashboard_and_last_a_day() {
        let t = SecretToken::generate(&mut OsRng);
        assert_eq!(
            set_password_url("https://billing.example.com/", &t),
            format!(
                "https://billing.example.com/dashboard/set-password?token={}",
                t.plain()
            )
        );
        let now = Utc::now();
        let link = NewLink::new(UserId(7), LinkPurpose::Invitation, &t, now);
        assert_eq!(link.expires_at - link.created_at, Duration::hours(24));
        assert_eq!(link.token_hash, t.hash());
        let reset = NewLink::emailed_reset(UserId(7), &t.hash(), now);
        assert_eq!(reset.expires_at - reset.created_at, Duration::minutes(30));
        assert_eq!(reset.purpose, LinkPurpose::PasswordReset);
        for p in [LinkPurpose::Invitation, LinkPurpose::PasswordReset] {
            assert_eq!(LinkPurpose::parse(p.as_str()), Some(p));
        }
    }
}
