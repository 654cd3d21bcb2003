//! People rather than tenants (SPEC §21): signing in, proving the password again, the second
//! factor, signing out and switching the environment a session shows. Every proof a person gives
//! counts against the pair of their email and client ([`ThrottleKey`]) through one throttle
//! ([`may_try`]), whichever screen asked for it.

use crate::error::ApiError;
use crate::{blocking, AppState};
use chrono::{DateTime, Utc};
use invoicing_domain::notice::NewNotice;
use invoicing_domain::ports::{RepoError, RepoResult, Repositories};
use invoicing_domain::tenant::Environment;
use invoicing_domain::user::{
    hash_password, hash_recovery_code, recovery_codes, verify_password_or_dummy, NewLink,
    NewSession, Password, PasswordHash, SecretToken, Session, SessionId, SignedIn, ThrottleKey,
    TotpSecret, User, UserEmail, UserId, LOGIN_FAILURE_WINDOW,
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

/// What asking for, or using, an email change came to.
pub enum EmailChange {
    Done,
    /// One was asked for less than a minute ago.
    TooSoon,
    /// Another user has the address.
    Taken,
    /// The link is used, expired or unknown.
    Dead,
}

/// What taking up an invitation with a password came to.
pub enum Join {
    Joined,
    Wrong,
    Throttled,
    Dead,
}

/// What a one-time or recovery code came to.
pub enum CodeCheck {
    Accepted,
    Refused,
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

    /// Asks to change a user's email: the link to the new address and the word to the old one
    /// leave together, at most one a minute.
    pub async fn ask_email_change(
        &self,
        request: NewLink,
        to_new: NewNotice,
        to_old: NewNotice,
    ) -> Result<EmailChange, ApiError> {
        let repos = self.repos.clone();
        let asked = blocking(move || Ok(repos.request_email_change(request, to_new, to_old)));
        match asked.await? {
            Ok(true) => Ok(EmailChange::Done),
            Ok(false) => Ok(EmailChange::TooSoon),
            Err(RepoError::InUse(_)) => Ok(EmailChange::Taken),
            Err(e) => Err(e.into()),
        }
    }

    /// Uses an email-change link (its token's hash): `Done`, or why not.
    pub async fn confirm_email_change(&self, link: String) -> Result<EmailChange, ApiError> {
        let repos = self.repos.clone();
        let changed = blocking(move || Ok(repos.confirm_email_change(&link, Utc::now())));
        match changed.await? {
            Ok(Some(_)) => Ok(EmailChange::Done),
            Ok(None) => Ok(EmailChange::Dead),
            Err(RepoError::InUse(_)) => Ok(EmailChange::Taken),
            Err(e) => Err(e.into()),
        }
    }

    /// What a set-password or invitation link (its token's hash) is for while it works: the
    /// email it sets, and the account an invitation to someone with a password joins.
    pub async fn link(&self, link: String) -> Result<Option<(String, Option<String>)>, ApiError> {
        let repos = self.repos.clone();
        blocking(move || {
            let Some(found) = repos.find_link(&link, Utc::now())? else {
                return Ok(None);
            };
            let credentials = repos.get_credentials(found.user_id)?;
            let joins = match found.invitation {
                Some(i) if credentials.password_hash.is_some() => {
                    Some(repos.get_account(i.account_id)?.name)
                }
                _ => None,
            };
            Ok(Some((credentials.user.email.as_str().to_string(), joins)))
        })
        .await
    }

    /// Sets the password through a link, which it uses up; `false` for a dead link.
    pub async fn set_password_with_link(
        &self,
        link: String,
        password: Password,
    ) -> Result<bool, ApiError> {
        let hash = new_password_hash(password).await?;
        let repos = self.repos.clone();
        let set = blocking(move || repos.set_password_with_link(&link, &hash, Utc::now())).await?;
        Ok(set.is_some())
    }

    /// An invitation taken up by someone who has a password: that password (checked and
    /// throttled as a sign-in is) uses the link and makes them a member of its account.
    pub async fn join_with_password(
        &self,
        key: ThrottleKey,
        link: String,
        typed: String,
    ) -> Result<Join, ApiError> {
        let now = Utc::now();
        let (repos, looking, finding) = (self.repos.clone(), key.clone(), link.clone());
        let holder = blocking(move || {
            if !may_try(&*repos, &looking, now)? {
                return Ok(Err(Join::Throttled));
            }
            Ok(match repos.find_link(&finding, now)? {
                Some(found) => Ok(repos.get_credentials(found.user_id)?),
                None => Err(Join::Dead),
            })
        })
        .await?;
        let credentials = match holder {
            Err(outcome) => return Ok(outcome),
            Ok(credentials) => credentials,
        };
        let hash = credentials.password_hash;
        let matched =
            password_work(move || verify_password_or_dummy(&typed, hash.as_ref())).await?;
        let repos = self.repos.clone();
        blocking(move || {
            if !matched {
                repos.record_login_failure(&key, now)?;
                return Ok(Join::Wrong);
            }
            Ok(match repos.consume_link(&link, now)? {
                Some(_) => Join::Joined,
                None => Join::Dead,
            })
        })
        .await
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

    /// New recovery codes in place of the old ones, to show once.
    pub async fn replace_recovery_codes(&self, me: &SignedIn) -> Result<Vec<String>, ApiError> {
        if !me.user.totp {
            return Err(ApiError::invalid_state_transition(
                "the second factor is off",
            ));
        }
        let (codes, hashes) = new_recovery_codes();
        let repos = self.repos.clone();
        let user = me.user.id;
        blocking(move || repos.replace_recovery_codes(user, &hashes)).await?;
        Ok(codes)
    }

    /// Turns the second factor off; never while the account requires one of every member.
    pub async fn disable_second_factor(&self, me: &SignedIn) -> Result<(), ApiError> {
        if me.account_requires_totp {
            return Err(ApiError::invalid_state_transition(
                "this account requires a second factor of every member",
            ));
        }
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

/// The throttle, written once: whether `key` may try now. A pair over the limit is refused
/// without looking, and the refusal counts as a failure too.
fn may_try(repos: &dyn Repositories, key: &ThrottleKey, now: DateTime<Utc>) -> RepoResult<bool> {
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
