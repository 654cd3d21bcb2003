//! One-time set-password links, kept by their token's SHA-256. Using one deletes its row in one
//! statement that answers the row: of racing callers, exactly one deletes it and gets the link.

use super::{load_user, parse_role};
use crate::connection::AnyConnection;
use crate::rows::{from_db, returning, to_db};
use crate::schema::{user_tokens, users};
use crate::store::TxError;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use invoicing_domain::ports::RepoError;
use invoicing_domain::tenant::AccountId;
use invoicing_domain::user::{
    Invitation, Link, LinkPurpose, NewLink, PasswordHash, PendingInvitation, SessionId, User,
    UserEmail, UserId, INVITATION_VALIDITY,
};

#[derive(Queryable, Selectable)]
#[diesel(table_name = user_tokens)]
struct LinkRow {
    id: i64,
    user_id: i64,
    purpose: String,
    created_at: NaiveDateTime,
    expires_at: NaiveDateTime,
    account_id: Option<i64>,
    role: Option<String>,
    invited_by: Option<i64>,
    new_email: Option<String>,
}

impl LinkRow {
    fn into_domain(self) -> Result<Link, TxError> {
        let purpose = LinkPurpose::parse(&self.purpose).ok_or_else(|| {
            RepoError::Internal(format!("link {} has purpose {:?}", self.id, self.purpose))
        })?;
        let invitation = match (self.account_id, &self.role, self.invited_by) {
            (Some(account), Some(role), Some(by)) => Some(Invitation {
                account_id: AccountId(account),
                role: parse_role(role)?,
                invited_by: UserId(by),
            }),
            _ => None,
        };
        let new_email = match &self.new_email {
            None => None,
            Some(e) => Some(UserEmail::parse(e).map_err(|_| {
                RepoError::Internal(format!("link {} has an unreadable new email", self.id))
            })?),
        };
        Ok(Link {
            id: self.id,
            user_id: UserId(self.user_id),
            purpose,
            created_at: from_db(self.created_at),
            expires_at: from_db(self.expires_at),
            invitation,
            new_email,
        })
    }
}

pub(super) fn create(conn: &mut AnyConnection, link: &NewLink) -> Result<Link, TxError> {
    let inserted = diesel::insert_into(user_tokens::table)
        .values((
            user_tokens::token_hash.eq(&link.token_hash),
            user_tokens::user_id.eq(link.user_id.0),
            user_tokens::purpose.eq(link.purpose.as_str()),
            user_tokens::created_at.eq(to_db(link.created_at)),
            user_tokens::expires_at.eq(to_db(link.expires_at)),
            user_tokens::account_id.eq(link.invitation.map(|i| i.account_id.0)),
            user_tokens::role.eq(link.invitation.map(|i| i.role.as_str())),
            user_tokens::invited_by.eq(link.invitation.map(|i| i.invited_by.0)),
            user_tokens::new_email.eq(link.new_email.as_ref().map(UserEmail::as_str)),
        ))
        .returning(returning::<LinkRow>())
        .get_result::<LinkRow>(conn)
        .map_err(TxError::from);
    match inserted {
        Err(e) if e.is_foreign_key_violation() => Err(RepoError::NotFound.into()),
        Err(e) => Err(e),
        Ok(row) => row.into_domain(),
    }
}

/// Which links a page takes: set-password pages never take an email change's, nor the
/// reverse, so a link works only where it was sent for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum LinkUse {
    SetPassword,
    ConfirmEmail,
}

impl LinkUse {
    /// Whether the links this use takes are email changes.
    fn email_change(self) -> bool {
        self == LinkUse::ConfirmEmail
    }
}

/// The working link with that hash: unused (it still exists) and not expired.
pub(super) fn find(
    conn: &mut AnyConnection,
    token_hash: &str,
    now: DateTime<Utc>,
) -> Result<Option<Link>, TxError> {
    user_tokens::table
        .filter(user_tokens::token_hash.eq(token_hash))
        .filter(user_tokens::expires_at.gt(to_db(now)))
        .filter(
            user_tokens::purpose
                .eq(LinkPurpose::EmailChange.as_str())
                .eq(LinkUse::SetPassword.email_change()),
        )
        .select(LinkRow::as_select())
        .first::<LinkRow>(conn)
        .optional()?
        .map(LinkRow::into_domain)
        .transpose()
}

pub(super) fn consume(
    conn: &mut AnyConnection,
    token_hash: &str,
    now: DateTime<Utc>,
    used_for: LinkUse,
) -> Result<Option<Link>, TxError> {
    // A racing consumer's delete waits for ours and then deletes nothing, so only one of them
    // gets the link.
    let consumed = diesel::delete(
        user_tokens::table
            .filter(user_tokens::token_hash.eq(token_hash))
            .filter(user_tokens::expires_at.gt(to_db(now)))
            .filter(
                user_tokens::purpose
                    .eq(LinkPurpose::EmailChange.as_str())
                    .eq(used_for.email_change()),
            ),
    )
    .returning(returning::<LinkRow>())
    .get_result::<LinkRow>(conn)
    .optional()?
    .map(LinkRow::into_domain)
    .transpose()?;
    if let Some(Link {
        user_id,
        invitation: Some(invitation),
        ..
    }) = &consumed
    {
        super::members::join(conn, invitation.account_id, *user_id, invitation.role)?;
    }
    Ok(consumed)
}

/// Voids the user's unused email-change links.
pub(super) fn forget_email_changes(conn: &mut AnyConnection, user: UserId) -> Result<(), TxError> {
    diesel::delete(
        user_tokens::table
            .filter(user_tokens::user_id.eq(user.0))
            .filter(user_tokens::purpose.eq(LinkPurpose::EmailChange.as_str())),
    )
    .execute(conn)?;
    Ok(())
}

/// See `UserRepository::invite`.
pub(super) fn invite(
    conn: &mut AnyConnection,
    email: &UserEmail,
    invitation: Invitation,
    token_hash: &str,
    now: DateTime<Utc>,
) -> Result<Link, TxError> {
    let user = super::members::find_or_create(conn, invitation.account_id, email)?;
    if super::members::role_in(conn, invitation.account_id, user.id)?.is_some() {
        return Err(
            RepoError::InUse("this person is a member of the account already".into()).into(),
        );
    }
    diesel::delete(
        user_tokens::table
            .filter(user_tokens::user_id.eq(user.id.0))
            .filter(user_tokens::account_id.eq(invitation.account_id.0)),
    )
    .execute(conn)?;
    create(
        conn,
        &NewLink {
            user_id: user.id,
            purpose: LinkPurpose::Invitation,
            token_hash: token_hash.to_string(),
            created_at: now,
            expires_at: now + INVITATION_VALIDITY,
            invitation: Some(invitation),
            new_email: None,
        },
    )
}

pub(super) fn list_invitations(
    conn: &mut AnyConnection,
    account: AccountId,
    now: DateTime<Utc>,
) -> Result<Vec<PendingInvitation>, TxError> {
    user_tokens::table
        .inner_join(users::table.on(users::id.eq(user_tokens::user_id)))
        .filter(user_tokens::account_id.eq(account.0))
        .filter(user_tokens::expires_at.gt(to_db(now)))
        .order(user_tokens::id.desc())
        .select((
            user_tokens::id,
            users::email,
            user_tokens::role,
            user_tokens::expires_at,
        ))
        .load::<(i64, String, Option<String>, NaiveDateTime)>(conn)?
        .into_iter()
        .map(|(id, email, role, expires_at)| {
            Ok(PendingInvitation {
                id,
                email: UserEmail::parse(&email)
                    .map_err(|_| RepoError::Internal(format!("invitation {id}: bad email")))?,
                role: parse_role(role.as_deref().unwrap_or_default())?,
                expires_at: from_db(expires_at),
            })
        })
        .collect()
}

pub(super) fn revoke_invitation(
    conn: &mut AnyConnection,
    account: AccountId,
    id: i64,
) -> Result<(), TxError> {
    let deleted = diesel::delete(
        user_tokens::table
            .filter(user_tokens::id.eq(id))
            .filter(user_tokens::account_id.eq(account.0)),
    )
    .execute(conn)?;
    if deleted == 0 {
        return Err(RepoError::NotFound.into());
    }
    Ok(())
}

pub(super) fn set_password(
    conn: &mut AnyConnection,
    user: UserId,
    hash: &PasswordHash,
    at: DateTime<Utc>,
    keep: Option<SessionId>,
) -> Result<User, TxError> {
    let changed = diesel::update(users::table.find(user.0))
        .set((
            users::password_hash.eq(hash.as_str()),
            users::password_changed_at.eq(to_db(at)),
            users::updated_at.eq(to_db(at)),
        ))
        .execute(conn)?;
    if changed == 0 {
        return Err(RepoError::NotFound.into());
    }
    super::sessions::delete_others(conn, user, keep)?;
    void_own_links(conn, user)?;
    load_user(conn, user)
}

/// Voids the user's set-password and email-change links (invitations to other accounts still
/// stand): after a new password, or a new email whose old mailbox may hold a reset link.
pub(super) fn void_own_links(conn: &mut AnyConnection, user: UserId) -> Result<(), TxError> {
    diesel::delete(
        user_tokens::table
            .filter(user_tokens::user_id.eq(user.0))
            .filter(user_tokens::account_id.is_null()),
    )
    .execute(conn)?;
    Ok(())
}

/// Whether an emailed reset for the user was made at or after `since`.
pub(super) fn reset_sent_since(
    conn: &mut AnyConnection,
    user: UserId,
    since: DateTime<Utc>,
) -> Result<bool, TxError> {
    sent_since(conn, user, LinkPurpose::PasswordReset, since)
}

/// Whether a link of `purpose` for the user was made at or after `since` (mailed links are
/// one a minute: nobody floods an inbox through them).
pub(super) fn sent_since(
    conn: &mut AnyConnection,
    user: UserId,
    purpose: LinkPurpose,
    since: DateTime<Utc>,
) -> Result<bool, TxError> {
    let recent: i64 = user_tokens::table
        .filter(user_tokens::user_id.eq(user.0))
        .filter(user_tokens::purpose.eq(purpose.as_str()))
        .filter(user_tokens::created_at.ge(to_db(since)))
        .count()
        .get_result(conn)?;
    Ok(recent > 0)
}

pub(super) fn purge(conn: &mut AnyConnection, now: DateTime<Utc>) -> Result<usize, TxError> {
    Ok(
        diesel::delete(user_tokens::table.filter(user_tokens::expires_at.le(to_db(now))))
            .execute(conn)?,
    )
}
