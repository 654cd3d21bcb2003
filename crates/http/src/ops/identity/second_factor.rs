//! The second factor: a one-time code from an authenticator app, or a recovery code, after the
//! password; setting it up, new recovery codes, and turning it off.

use super::{may_try, Identity};
use crate::blocking;
use crate::error::ApiError;
use chrono::Utc;
use invoicing_domain::user::{
    hash_recovery_code, recovery_codes, SessionId, SignedIn, ThrottleKey, TotpSecret, UserId,
};
use rand::rngs::OsRng;

/// What a one-time or recovery code came to.
pub enum CodeCheck {
    Accepted,
    Refused,
    Throttled,
}

impl Identity {
    /// Checks a one-time code (six digits), else a recovery code, for `user`, using it once.
    pub async fn check_code(
        &self,
        user: UserId,
        key: ThrottleKey,
        typed: String,
    ) -> Result<CodeCheck, ApiError> {
        let repos = self.repos.clone();
        let now = Utc::now();
        blocking(move || {
            if !may_try(&*repos, &key, now)? {
                return Ok(CodeCheck::Throttled);
            }
            let used = match repos.totp_of(user)? {
                None => false,
                Some((secret, last)) => match secret.accepts(&typed, now, last) {
                    Some(step) => repos.use_totp_step(user, step)?,
                    None => repos.use_recovery_code(user, &hash_recovery_code(&typed), now)?,
                },
            };
            if !used {
                repos.record_login_failure(&key, now)?;
                return Ok(CodeCheck::Refused);
            }
            repos.clear_login_failures(&key)?;
            Ok(CodeCheck::Accepted)
        })
        .await
    }

    /// The session has given its second factor.
    pub async fn confirm_second_factor(&self, session: SessionId) -> Result<(), ApiError> {
        let repos = self.repos.clone();
        blocking(move || repos.confirm_second_factor(session, Utc::now())).await?;
        Ok(())
    }

    /// How many unused recovery codes `user` has left.
    pub async fn recovery_codes_left(&self, user: UserId) -> Result<u32, ApiError> {
        let repos = self.repos.clone();
        blocking(move || repos.recovery_codes_left(user)).await
    }

    /// The secret this session sets up (the same one until it is used): the server chooses it,
    /// never the page.
    pub async fn pending_secret(&self, session: SessionId) -> Result<TotpSecret, ApiError> {
        let repos = self.repos.clone();
        let fresh = TotpSecret::generate(&mut OsRng);
        blocking(move || repos.pending_totp(session, &fresh)).await
    }

    /// Turns the second factor on once `typed` (a code from the app) proves the session's
    /// pending secret was scanned: the new recovery codes, to show once, or `None` for a code
    /// that does not match. Refused while a factor is on (re-keying it would leave the password
    /// alone for a moment).
    pub async fn enable_second_factor(
        &self,
        me: &SignedIn,
        typed: &str,
    ) -> Result<Option<Vec<String>>, ApiError> {
        if me.user.totp {
            return Err(ApiError::invalid_state_transition(
                "two-step sign-in is on already: turn it off first",
            ));
        }
        let secret = self.pending_secret(me.session.id).await?;
        let now = Utc::now();
        let Some(step) = secret.accepts(typed, now, None) else {
            return Ok(None);
        };
        let (codes, hashes) = new_recovery_codes();
        let repos = self.repos.clone();
        let (user, session) = (me.user.id, me.session.id);
        blocking(move || {
            repos.enable_totp(user, &secret, step, &hashes)?;
            repos.confirm_second_factor(session, now).map(|_| ())
        })
        .await?;
        Ok(Some(codes))
    }

    /// Whether new recovery codes may be made: only while a second factor is on. Asked before
    /// the password is asked again, so nobody types it for a change that cannot be made.
    pub fn may_replace_recovery_codes(me: &SignedIn) -> Result<(), ApiError> {
        if me.user.totp {
            Ok(())
        } else {
            Err(ApiError::invalid_state_transition(
                "the second factor is off",
            ))
        }
    }

    /// New recovery codes in place of the old ones, to show once.
    pub async fn replace_recovery_codes(&self, me: &SignedIn) -> Result<Vec<String>, ApiError> {
        Identity::may_replace_recovery_codes(me)?;
        let (codes, hashes) = new_recovery_codes();
        let repos = self.repos.clone();
        let user = me.user.id;
        blocking(move || repos.replace_recovery_codes(user, &hashes)).await?;
        Ok(codes)
    }

    /// Whether the second factor may be turned off: never while the account requires one of
    /// every member. Asked before the password is asked again.
    pub fn may_disable_second_factor(me: &SignedIn) -> Result<(), ApiError> {
        if me.account_requires_totp {
            Err(ApiError::invalid_state_transition(
                "this account requires a second factor of every member",
            ))
        } else {
            Ok(())
        }
    }

    /// Turns the second factor off; never while the account requires one of every member.
    pub async fn disable_second_factor(&self, me: &SignedIn) -> Result<(), ApiError> {
        Identity::may_disable_second_factor(me)?;
        let repos = self.repos.clone();
        let user = me.user.id;
        blocking(move || repos.disable_totp(user)).await?;
        Ok(())
    }
}

/// Ten recovery codes, and the hashes storage keeps of them.
fn new_recovery_codes() -> (Vec<String>, Vec<String>) {
    let codes = recovery_codes(&mut OsRng);
    let hashes = codes.iter().map(|c| hash_recovery_code(c)).collect();
    (codes, hashes)
}
