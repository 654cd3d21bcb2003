//! What people receive by email: set-password and invitation links, and email changes.

use super::{may_try, new_password_hash, password_work, Identity};
use crate::blocking;
use crate::error::ApiError;
use chrono::Utc;
use invoicing_domain::notice::NewNotice;
use invoicing_domain::ports::RepoError;
use invoicing_domain::user::{verify_password_or_dummy, NewLink, Password, ThrottleKey};

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

impl Identity {
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
}
