//! People rather than tenants (SPEC §21): signing in, proving the password again, the second
//! factor, signing out and switching the environment a session shows. Every proof a person gives
//! counts against the pair of their email and client ([`ThrottleKey`]) through one throttle
//! ([`may_try`]), whichever screen asked for it.

mod links;
mod second_factor;

pub use links::{EmailChange, Join};
pub use second_factor::CodeCheck;

use crate::error::ApiError;
use crate::{blocking, AppState};
use chrono::{DateTime, Utc};
use invoicing_domain::ports::{RepoError, RepoResult, Repositories};
use invoicing_domain::tenant::Environment;
use invoicing_domain::user::{
    hash_password, verify_password_or_dummy, NewSession, Password, PasswordHash, SecretToken,
    Session, SessionId, SignedIn, ThrottleKey, User, UserEmail, UserId, LOGIN_FAILURE_WINDOW,
};
use rand::rngs::OsRng;
use std::sync::Arc;

/// What a sign-in came to.
pub enum SignIn {
    /// A new session, named by this token (the cookie's value).
    SignedIn(SecretToken),
    /// A wrong email or password, or no account to sign in to (the same answer for each).
    Refused,
    /// Too many failures for this pair: nothing was checked.
    Throttled,
}

/// The operations on people: not scoped to a tenant (a person may belong to several accounts).
pub struct Identity {
    repos: Arc<dyn Repositories>,
}

impl Identity {
    pub fn new(state: &AppState) -> Identity {
        Identity {
            repos: state.repos(),
        }
    }

    /// The live session a cookie's token (its hash) names, however far its sign-in has come.
    pub async fn session(&self, token: String) -> Result<Option<SignedIn>, ApiError> {
        let repos = self.repos.clone();
        blocking(move || repos.find_session(&token, Utc::now())).await
    }

    /// Signs in with an email and password: a session in the test environment of the person's
    /// first account. An unknown email takes as long as a known one (one verification always).
    pub async fn sign_in(
        &self,
        key: ThrottleKey,
        email: Option<UserEmail>,
        password: String,
    ) -> Result<SignIn, ApiError> {
        let now = Utc::now();
        let (repos, looking) = (self.repos.clone(), key.clone());
        let credentials = blocking(move || {
            if !may_try(&*repos, &looking, now)? {
                return Ok(Err(SignIn::Throttled));
            }
            Ok(Ok(match &email {
                Some(email) => repos.find_credentials(email)?,
                None => None,
            }))
        })
        .await?;
        let credentials = match credentials {
            Err(throttled) => return Ok(throttled),
            Ok(credentials) => credentials,
        };
        let hash = credentials.as_ref().and_then(|c| c.password_hash.clone());
        let matched =
            password_work(move || verify_password_or_dummy(&password, hash.as_ref())).await?;
        let repos = self.repos.clone();
        let outcome = blocking(move || {
            let user = credentials.map(|c| c.user).filter(|_| matched);
            let membership = match &user {
                Some(user) => repos.list_memberships(user.id)?.into_iter().next(),
                None => None,
            };
            let (Some(user), Some(membership)) = (user, membership) else {
                repos.record_login_failure(&key, now)?;
                return Ok(SignIn::Refused);
            };
            repos.clear_login_failures(&key)?;
            let token = SecretToken::generate(&mut OsRng);
            repos.create_session(NewSession {
                user_id: user.id,
                account_id: membership.account_id,
                token_hash: token.hash(),
                at: now,
            })?;
            Ok(SignIn::SignedIn(token))
        })
        .await?;
        Ok(outcome)
    }

    /// Whether `typed` is `user`'s password; a wrong one counts as a failed sign-in does.
    pub async fn password_matches(
        &self,
        user: &User,
        key: ThrottleKey,
        typed: String,
    ) -> Result<bool, ApiError> {
        let now = Utc::now();
        let (repos, id, looking) = (self.repos.clone(), user.id, key.clone());
        let hash = blocking(move || {
            if !may_try(&*repos, &looking, now)? {
                return Ok(None);
            }
            Ok(Some(repos.get_credentials(id)?.password_hash))
        })
        .await?;
        let Some(hash) = hash else {
            return Ok(false);
        };
        let matched =
            password_work(move || verify_password_or_dummy(&typed, hash.as_ref())).await?;
        if !matched {
            let repos = self.repos.clone();
            blocking(move || repos.record_login_failure(&key, now)).await?;
        }
        Ok(matched)
    }

    /// The session's password was typed again just now.
    pub async fn confirm_password(&self, session: SessionId) -> Result<(), ApiError> {
        let repos = self.repos.clone();
        blocking(move || repos.confirm_session_password(session, Utc::now())).await?;
        Ok(())
    }

    /// Ends the session, here and in every process.
    pub async fn sign_out(&self, user: UserId, session: SessionId) -> Result<(), ApiError> {
        let repos = self.repos.clone();
        blocking(move || repos.delete_session(user, session)).await
    }

    /// The session shows `environment` from now on.
    pub async fn switch_environment(
        &self,
        session: SessionId,
        environment: Environment,
    ) -> Result<(), ApiError> {
        let repos = self.repos.clone();
        blocking(move || repos.switch_session_environment(session, environment)).await?;
        Ok(())
    }

    /// The user's live sessions (the account page's list).
    pub async fn sessions(&self, user: UserId) -> Result<Vec<Session>, ApiError> {
        let repos = self.repos.clone();
        blocking(move || repos.list_sessions(user, Utc::now())).await
    }

    /// Ends one of `user`'s sessions (another browser, or this one).
    pub async fn end_session(&self, user: UserId, session: SessionId) -> Result<(), ApiError> {
        let repos = self.repos.clone();
        blocking(move || repos.delete_session(user, session))
            .await
            .map_err(|e| e.naming("session"))
    }

    /// A new password for the signed-in user: their other sessions end, this one counts as
    /// having typed it.
    pub async fn change_password(&self, me: &SignedIn, password: Password) -> Result<(), ApiError> {
        let hash = new_password_hash(password).await?;
        let repos = self.repos.clone();
        let (user, session) = (me.user.id, me.session.id);
        blocking(move || {
            let now = Utc::now();
            repos.set_password(user, &hash, now, Some(session))?;
            repos.confirm_session_password(session, now).map(|_| ())
        })
        .await?;
        Ok(())
    }
}

/// The throttle, written once: whether `key` may try now. A pair over the limit is refused
/// without looking, and the refusal counts as a failure too.
pub(super) fn may_try(
    repos: &dyn Repositories,
    key: &ThrottleKey,
    now: DateTime<Utc>,
) -> RepoResult<bool> {
    let failures = repos.count_login_failures(key, now - LOGIN_FAILURE_WINDOW)?;
    if ThrottleKey::is_throttled(failures) {
        repos.record_login_failure(key, now)?;
        return Ok(false);
    }
    Ok(true)
}

/// Password hashing and checking (Argon2: tens of milliseconds of CPU and memory) on actix's
/// blocking pool: never on an async worker, and never on a storage thread, whose turns are for
/// the database.
pub(crate) async fn password_work<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    actix_web::web::block(work).await.map_err(|e| {
        log::error!("password work did not complete: {e}");
        ApiError::internal()
    })
}

/// A new password's hash, made as [`password_work`] says.
pub(crate) async fn new_password_hash(password: Password) -> Result<PasswordHash, ApiError> {
    password_work(move || hash_password(&password, &mut OsRng))
        .await?
        .map_err(|e| RepoError::Internal(e.to_string()).into())
}
