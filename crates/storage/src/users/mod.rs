//! Dashboard users (SPEC §21): users and memberships (`members`), set-password links (`links`),
//! sessions (`sessions`) and the shared sign-in throttle (`throttle`). None of it is tenant data:
//! a user may belong to several accounts, and everything here is found (by email, by a token's
//! hash) before an account is known, so these tables carry no `scoped!` filter; the methods that
//! concern one account name it, and never reach another's rows.

mod links;
mod members;
mod second_factor;
mod sessions;
mod throttle;

use crate::accounts::bootstrap_lock;
use crate::connection::AnyConnection;
use crate::rows::from_db;
use crate::schema::users;
use crate::store::{Store, TxError};
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use invoicing_domain::notice::NewNotice;
use invoicing_domain::ports::{RepoError, RepoResult, UserRepository};
use invoicing_domain::tenant::{AccountId, Environment};
use invoicing_domain::user::{
    Credentials, Invitation, Link, Member, Membership, NewLink, NewSession, PasswordHash,
    PendingInvitation, Role, SecretToken, Session, SessionId, SignedIn, ThrottleKey, TotpSecret,
    User, UserEmail, UserId,
};

#[derive(Queryable, Selectable)]
#[diesel(table_name = users)]
struct UserRow {
    id: i64,
    email: String,
    password_changed_at: Option<NaiveDateTime>,
    created_at: NaiveDateTime,
    #[diesel(select_expression = users::totp_secret.is_not_null())]
    #[diesel(select_expression_type = diesel::dsl::IsNotNull<users::totp_secret>)]
    totp: bool,
}

impl UserRow {
    fn into_domain(self) -> Result<User, TxError> {
        let email = UserEmail::parse(&self.email)
            .map_err(|_| RepoError::Internal(format!("user {} has a bad email", self.id)))?;
        Ok(User {
            id: UserId(self.id),
            email,
            created_at: from_db(self.created_at),
            password_changed_at: self.password_changed_at.map(from_db),
            totp: self.totp,
        })
    }
}

fn parse_role(text: &str) -> Result<Role, TxError> {
    Role::parse(text).ok_or_else(|| RepoError::Internal(format!("unknown role {text:?}")).into())
}

fn load_user(conn: &mut AnyConnection, id: UserId) -> Result<User, TxError> {
    users::table
        .find(id.0)
        .select(UserRow::as_select())
        .first::<UserRow>(conn)?
        .into_domain()
}

fn find_user(conn: &mut AnyConnection, email: &UserEmail) -> Result<Option<User>, TxError> {
    users::table
        .filter(users::email_normalized.eq(email.normalized()))
        .select(UserRow::as_select())
        .first::<UserRow>(conn)
        .optional()?
        .map(UserRow::into_domain)
        .transpose()
}

fn credentials(
    conn: &mut AnyConnection,
    by: users::BoxedQuery<'_, crate::connection::MultiBackend>,
) -> Result<Option<Credentials>, TxError> {
    let found = by
        .select((UserRow::as_select(), users::password_hash))
        .first::<(UserRow, Option<String>)>(conn)
        .optional()?;
    found
        .map(|(row, hash)| {
            Ok(Credentials {
                user: row.into_domain()?,
                password_hash: hash.map(PasswordHash::from_stored),
            })
        })
        .transpose()
}

impl UserRepository for Store {
    fn add_member(&self, account: AccountId, email: &UserEmail, role: Role) -> RepoResult<Member> {
        self.write_retrying_unique(|conn| members::add(conn, account, email, role))
    }

    fn list_members(&self, account: AccountId) -> RepoResult<Vec<Member>> {
        self.read(|conn| members::list(conn, account))
    }

    fn change_member_role(
        &self,
        account: AccountId,
        user: UserId,
        role: Role,
    ) -> RepoResult<Member> {
        self.write(|conn| members::change_role(conn, account, user, role))
    }

    fn remove_member(&self, account: AccountId, user: UserId) -> RepoResult<()> {
        self.write(|conn| members::remove(conn, account, user))
    }

    fn get_user(&self, id: UserId) -> RepoResult<User> {
        self.read(|conn| load_user(conn, id))
    }

    fn find_user_by_email(&self, email: &UserEmail) -> RepoResult<Option<User>> {
        self.read(|conn| find_user(conn, email))
    }

    fn find_credentials(&self, email: &UserEmail) -> RepoResult<Option<Credentials>> {
        self.read(|conn| {
            let by = users::table
                .filter(users::email_normalized.eq(email.normalized()))
                .into_boxed();
            credentials(conn, by)
        })
    }

    fn get_credentials(&self, user: UserId) -> RepoResult<Credentials> {
        self.read(|conn| {
            credentials(conn, users::table.find(user.0).into_boxed())?
                .ok_or_else(|| RepoError::NotFound.into())
        })
    }

    fn change_user_email(&self, user: UserId, email: &UserEmail) -> RepoResult<User> {
        let result = self.try_write(|conn| members::change_email(conn, user, email));
        // Two users renamed to one email at once: the unique index stops the second.
        result.map_err(|e| {
            if e.is_unique_violation() {
                RepoError::InUse(members::EMAIL_TAKEN.into())
            } else {
                e.into_repo()
            }
        })
    }

    fn list_memberships(&self, user: UserId) -> RepoResult<Vec<Membership>> {
        self.read(|conn| members::of_user(conn, user))
    }

    fn set_password(
        &self,
        user: UserId,
        hash: &PasswordHash,
        at: DateTime<Utc>,
        keep: Option<SessionId>,
    ) -> RepoResult<User> {
        self.write(|conn| links::set_password(conn, user, hash, at, keep))
    }

    fn create_link(&self, link: NewLink) -> RepoResult<Link> {
        self.write(|conn| links::create(conn, &link))
    }

    fn find_link(&self, token_hash: &str, now: DateTime<Utc>) -> RepoResult<Option<Link>> {
        self.read(|conn| links::find(conn, token_hash, now))
    }

    fn consume_link(&self, token_hash: &str, now: DateTime<Utc>) -> RepoResult<Option<Link>> {
        self.write(|conn| links::consume(conn, token_hash, now, links::LinkUse::SetPassword))
    }

    fn invite(
        &self,
        email: &UserEmail,
        invitation: Invitation,
        token_hash: &str,
        now: DateTime<Utc>,
        notice: Option<NewNotice>,
    ) -> RepoResult<Link> {
        self.write_retrying_unique(|conn| {
            let link = links::invite(conn, email, invitation, token_hash, now)?;
            if let Some(notice) = &notice {
                crate::notices::queue(conn, notice)?;
            }
            Ok(link)
        })
    }

    fn email_password_reset(
        &self,
        email: &UserEmail,
        token_hash: &str,
        now: DateTime<Utc>,
        notice: NewNotice,
    ) -> RepoResult<bool> {
        self.write(|conn| {
            let Some(user) = find_user(conn, email)? else {
                return Ok(false);
            };
            if members::of_user(conn, user.id)?.is_empty()
                || links::reset_sent_since(conn, user.id, now - chrono::Duration::minutes(1))?
            {
                return Ok(false);
            }
            links::create(conn, &NewLink::emailed_reset(user.id, token_hash, now))?;
            crate::notices::queue(conn, &notice)?;
            Ok(true)
        })
    }

    fn request_email_change(
        &self,
        link: NewLink,
        to_new: NewNotice,
        to_old: NewNotice,
    ) -> RepoResult<bool> {
        let new_email = link
            .new_email
            .clone()
            .ok_or_else(|| RepoError::Internal("an email change without its email".into()))?;
        self.write(|conn| {
            if find_user(conn, &new_email)?.is_some() {
                return Err(RepoError::InUse(members::EMAIL_TAKEN.into()).into());
            }
            let minute_ago = link.created_at - chrono::Duration::minutes(1);
            if links::sent_since(
                conn,
                link.user_id,
                invoicing_domain::user::LinkPurpose::EmailChange,
                minute_ago,
            )? {
                return Ok(false);
            }
            // The newest request is the one that counts.
            links::forget_email_changes(conn, link.user_id)?;
            links::create(conn, &link)?;
            crate::notices::queue(conn, &to_new)?;
            crate::notices::queue(conn, &to_old)?;
            Ok(true)
        })
    }

    fn confirm_email_change(
        &self,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> RepoResult<Option<User>> {
        let result = self.try_write(|conn| {
            let Some(link) = links::consume(conn, token_hash, now, links::LinkUse::ConfirmEmail)?
            else {
                return Ok(None);
            };
            let email = link
                .new_email
                .ok_or_else(|| RepoError::Internal(format!("link {} has no new email", link.id)))?;
            let user = members::change_email(conn, link.user_id, &email)?;
            // A reset link mailed to the old address must not outlive it.
            links::void_own_links(conn, link.user_id)?;
            Ok(Some(user))
        });
        result.map_err(|e| {
            if e.is_unique_violation() {
                RepoError::InUse(members::EMAIL_TAKEN.into())
            } else {
                e.into_repo()
            }
        })
    }

    fn list_invitations(
        &self,
        account: AccountId,
        now: DateTime<Utc>,
    ) -> RepoResult<Vec<PendingInvitation>> {
        self.read(|conn| links::list_invitations(conn, account, now))
    }

    fn revoke_invitation(&self, account: AccountId, id: i64) -> RepoResult<()> {
        self.write(|conn| links::revoke_invitation(conn, account, id))
    }

    fn set_password_with_link(
        &self,
        token_hash: &str,
        hash: &PasswordHash,
        now: DateTime<Utc>,
    ) -> RepoResult<Option<User>> {
        self.write(|conn| {
            match links::consume(conn, token_hash, now, links::LinkUse::SetPassword)? {
                Some(link) => links::set_password(conn, link.user_id, hash, now, None).map(Some),
                None => Ok(None),
            }
        })
    }

    fn enable_totp(
        &self,
        user: UserId,
        secret: &TotpSecret,
        step: i64,
        recovery_hashes: &[String],
    ) -> RepoResult<()> {
        self.write(|conn| second_factor::enable(conn, user, secret, step, recovery_hashes))
    }

    fn disable_totp(&self, user: UserId) -> RepoResult<()> {
        self.write(|conn| second_factor::disable(conn, user))
    }

    fn replace_recovery_codes(&self, user: UserId, recovery_hashes: &[String]) -> RepoResult<()> {
        self.write(|conn| second_factor::new_codes(conn, user, recovery_hashes))
    }

    fn totp_of(&self, user: UserId) -> RepoResult<Option<(TotpSecret, Option<i64>)>> {
        self.read(|conn| second_factor::secret_of(conn, user))
    }

    fn use_totp_step(&self, user: UserId, step: i64) -> RepoResult<bool> {
        self.write(|conn| second_factor::use_step(conn, user, step))
    }

    fn use_recovery_code(&self, user: UserId, hash: &str, at: DateTime<Utc>) -> RepoResult<bool> {
        self.write(|conn| second_factor::use_code(conn, user, hash, at))
    }

    fn recovery_codes_left(&self, user: UserId) -> RepoResult<u32> {
        self.read(|conn| second_factor::codes_left(conn, user))
    }

    fn pending_totp(&self, session: SessionId, fresh: &TotpSecret) -> RepoResult<TotpSecret> {
        self.write(|conn| sessions::pending_totp(conn, session, fresh))
    }

    fn confirm_second_factor(&self, session: SessionId, at: DateTime<Utc>) -> RepoResult<Session> {
        self.write(|conn| sessions::confirm_second_factor(conn, session, at))
    }

    fn require_totp(&self, account: AccountId, required: bool) -> RepoResult<()> {
        self.write(|conn| second_factor::set_required(conn, account, required))
    }

    fn account_requires_totp(&self, account: AccountId) -> RepoResult<bool> {
        self.read(|conn| second_factor::required(conn, account))
    }

    fn create_session(&self, new: NewSession) -> RepoResult<Session> {
        self.write(|conn| sessions::create(conn, &new))
    }

    fn find_session(&self, token_hash: &str, now: DateTime<Utc>) -> RepoResult<Option<SignedIn>> {
        sessions::find(self, token_hash, now)
    }

    fn switch_session_environment(
        &self,
        session: SessionId,
        environment: Environment,
    ) -> RepoResult<Session> {
        self.write(|conn| sessions::switch_environment(conn, session, environment))
    }

    fn confirm_session_password(
        &self,
        session: SessionId,
        at: DateTime<Utc>,
    ) -> RepoResult<Session> {
        self.write(|conn| sessions::confirm_password(conn, session, at))
    }

    fn delete_session(&self, user: UserId, session: SessionId) -> RepoResult<()> {
        self.write(|conn| sessions::delete(conn, user, session))
    }

    fn delete_other_sessions(&self, user: UserId, keep: Option<SessionId>) -> RepoResult<usize> {
        self.write(|conn| sessions::delete_others(conn, user, keep))
    }

    fn list_sessions(&self, user: UserId, now: DateTime<Utc>) -> RepoResult<Vec<Session>> {
        self.read(|conn| sessions::list(conn, user, now))
    }

    fn record_login_failure(&self, key: &ThrottleKey, at: DateTime<Utc>) -> RepoResult<()> {
        self.write(|conn| throttle::record(conn, key, at))
    }

    fn count_login_failures(&self, key: &ThrottleKey, since: DateTime<Utc>) -> RepoResult<u64> {
        self.read(|conn| throttle::count(conn, key, since))
    }

    fn clear_login_failures(&self, key: &ThrottleKey) -> RepoResult<()> {
        self.write(|conn| throttle::clear(conn, key))
    }

    fn purge_user_state(&self, now: DateTime<Utc>) -> RepoResult<usize> {
        self.write(|conn| {
            Ok(
                sessions::purge(conn, now)?
                    + links::purge(conn, now)?
                    + throttle::purge(conn, now)?,
            )
        })
    }

    fn bootstrap_first_owner(
        &self,
        email: &UserEmail,
        token: &SecretToken,
        now: DateTime<Utc>,
    ) -> RepoResult<Option<(AccountId, User)>> {
        self.write(|conn| {
            // The same lock as the account's bootstrap: processes starting together take turns,
            // and the first one's user is what the others find.
            bootstrap_lock(conn)?;
            members::bootstrap_first_owner(conn, email, token, now)
        })
    }
}
