//! An account's people (SPEC §21), as its owners manage them: members and their roles, pending
//! invitations, an invitation by email; the settings' test email; and a password reset asked
//! for on the sign-in page. Storage keeps the last owner (`change_member_role`,
//! `remove_member`) and binds an invitation to its account.

use super::Ops;
use crate::error::ApiError;
use crate::{blocking, AppState};
use chrono::Utc;
use invoicing_domain::locale::Locale;
use invoicing_domain::notice::{NewNotice, Notice, NoticeKind, NOTICES_PER_HOUR};
use invoicing_domain::ports::RepoError;
use invoicing_domain::user::{
    set_password_url, Invitation, Member, PendingInvitation, Role, SecretToken, UserEmail, UserId,
};
use invoicing_domain::validation::Violations;
use rand::rngs::OsRng;

const WHAT: &str = "member";

/// The address typed into `param`, as a user's email.
fn email_in(param: &str, typed: &str) -> Result<UserEmail, ApiError> {
    UserEmail::parse(typed).map_err(|m| Violations::single(param, m).into())
}

fn role_in(typed: &str) -> Result<Role, ApiError> {
    Role::parse(typed)
        .ok_or_else(|| Violations::single("role", "must be owner, staff or viewer").into())
}

/// What an invitation gave the owner: the link to pass on themselves when this server sends
/// no email (otherwise it went by email only, and is never shown).
pub struct Invited {
    pub link: Option<String>,
}

impl Ops {
    /// The account's members (by email) and the invitations still pending (newest first).
    pub async fn people(&self) -> Result<(Vec<Member>, Vec<PendingInvitation>), ApiError> {
        let scope = self.caller.require_owner()?;
        self.run(scope, WHAT, move |r, s| {
            Ok((
                r.list_members(s.account_id)?,
                r.list_invitations(s.account_id, Utc::now())?,
            ))
        })
        .await
    }

    /// Refused (429) once the account queued [`NOTICES_PER_HOUR`] invitations and test emails
    /// in the last hour (concurrent requests may pass it by a few: it stops sprays, not races).
    async fn within_hourly_limit(
        &self,
        scope: invoicing_domain::tenant::Scope,
    ) -> Result<(), ApiError> {
        let since = Utc::now() - chrono::Duration::hours(1);
        let queued = self
            .run(scope, "email", move |r, s| {
                r.notices_since(s.account_id, since)
            })
            .await?;
        if queued >= NOTICES_PER_HOUR {
            return Err(ApiError::rate_limited(3600));
        }
        Ok(())
    }

    /// Invites `email` as `role`: a one-time link valid 72 hours, by email in `locale`.
    pub async fn invite(
        &self,
        email: &str,
        role: &str,
        locale: Locale,
    ) -> Result<Invited, ApiError> {
        let scope = self.caller.require_owner()?;
        let (email, role) = (email_in("email", email), role_in(role));
        let (email, role) = (email?, role?);
        let inviter = self.caller.user().ok_or_else(ApiError::owners_only)?;
        let mail = self.mail_enabled;
        if mail {
            self.within_hourly_limit(scope).await?;
        }
        let token = SecretToken::generate(&mut OsRng);
        let link = set_password_url(&self.public_url, &token);
        let shown = (!mail).then(|| link.clone());
        self.run(scope, WHAT, move |r, s| {
            let merchant = r.get_profile(s)?.name;
            let from = r.get_user(inviter)?.email;
            let notice = mail.then(|| {
                NewNotice::invitation(
                    locale,
                    s.account_id,
                    email.clone(),
                    &merchant,
                    &from,
                    role,
                    link,
                )
            });
            let invitation = Invitation {
                account_id: s.account_id,
                role,
                invited_by: inviter,
            };
            r.invite(&email, invitation, &token.hash(), Utc::now(), notice)
        })
        .await?;
        Ok(Invited { link: shown })
    }

    pub async fn revoke_invitation(&self, id: i64) -> Result<(), ApiError> {
        let scope = self.caller.require_owner()?;
        self.run(scope, "invitation", move |r, s| {
            r.revoke_invitation(s.account_id, id)
        })
        .await
    }

    /// Another role for a member; the last owner keeps theirs (409).
    pub async fn change_role(&self, user: UserId, role: &str) -> Result<Member, ApiError> {
        let scope = self.caller.require_owner()?;
        let role = role_in(role)?;
        self.run(scope, WHAT, move |r, s| {
            r.change_member_role(s.account_id, user, role)
        })
        .await
    }

    /// Ends a membership and the person's sessions in the account at once; never the last
    /// owner's (409).
    pub async fn remove_member(&self, user: UserId) -> Result<(), ApiError> {
        let scope = self.caller.require_owner()?;
        self.run(scope, WHAT, move |r, s| r.remove_member(s.account_id, user))
            .await
    }

    /// Requires (or stops requiring) a second factor of every member. An owner without one of
    /// their own cannot require it (409): they would be the first one stopped by it.
    pub async fn require_second_factor(&self, required: bool) -> Result<(), ApiError> {
        let scope = self.caller.require_owner()?;
        let me = self.caller.user().ok_or_else(ApiError::owners_only)?;
        self.run(scope, "account", move |r, s| {
            if required && !r.get_user(me)?.totp {
                return Err(RepoError::InvalidTransition(
                    "turn on your own second factor first".into(),
                ));
            }
            r.require_totp(s.account_id, required)
        })
        .await
    }

    /// A test email to `to` in `locale`, queued like every other.
    pub async fn send_test_email(&self, to: &str, locale: Locale) -> Result<Notice, ApiError> {
        let scope = self.caller.require_owner()?;
        if !self.mail_enabled {
            return Err(ApiError::email_not_configured().with_param("to"));
        }
        let to = email_in("to", to)?;
        self.within_hourly_limit(scope).await?;
        self.run(scope, "email", move |r, s| {
            let merchant = r.get_profile(s)?.name;
            r.queue_notice(NewNotice::test(locale, s.account_id, to, &merchant))
        })
        .await
    }

    /// How the last test email went, if one was sent.
    pub async fn last_test_email(&self) -> Result<Option<Notice>, ApiError> {
        let scope = self.caller.require_owner()?;
        self.run(scope, "email", move |r, s| {
            r.latest_notice(s.account_id, NoticeKind::Test)
        })
        .await
    }
}

/// A password reset asked for on the sign-in page: a link valid 30 minutes emailed to `typed`
/// when it is a member's address (at most one a minute). The asker learns nothing either way.
pub async fn email_password_reset(
    state: &AppState,
    typed: &str,
    locale: Locale,
) -> Result<(), ApiError> {
    let Ok(email) = UserEmail::parse(typed) else {
        return Ok(());
    };
    if !state.config.mail_enabled {
        return Ok(());
    }
    let token = SecretToken::generate(&mut OsRng);
    let link = set_password_url(&state.config.public_url, &token);
    let notice = NewNotice::password_reset(locale, email.clone(), link);
    let repos = state.repos();
    let sent =
        blocking(move || repos.email_password_reset(&email, &token.hash(), Utc::now(), notice))
            .await?;
    log::info!(
        "dashboard: a password reset was asked for on the sign-in page; {}",
        if sent { "emailed" } else { "not emailed" }
    );
    Ok(())
}
