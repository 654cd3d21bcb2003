//! Users and their memberships. Changes to an account's members take the account's row lock
//! first, so on PostgreSQL two owners demoting each other at once cannot both pass the
//! last-owner check (SQLite's write transactions are exclusive anyway).

use super::{find_user, load_user, parse_role, UserRow};
use crate::connection::AnyConnection;
use crate::rows::{now_db, returning};
use crate::schema::{accounts, memberships, user_sessions, user_tokens, users};
use crate::store::TxError;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use invoicing_domain::ports::RepoError;
use invoicing_domain::tenant::AccountId;
use invoicing_domain::user::{
    LinkPurpose, Member, Membership, NewLink, Role, SecretToken, User, UserEmail, UserId,
};

pub(super) const EMAIL_TAKEN: &str = "another user has this email";
const LAST_OWNER: &str = "an account keeps at least one owner: make another member owner first";

/// Locks the account's row until the transaction ends; `NotFound` for no such account.
fn lock_account(conn: &mut AnyConnection, account: AccountId) -> Result<(), TxError> {
    let locked = diesel::update(accounts::table.find(account.0))
        .set(accounts::name.eq(accounts::name))
        .execute(conn)?;
    if locked == 0 {
        return Err(RepoError::NotFound.into());
    }
    Ok(())
}

fn insert_user(conn: &mut AnyConnection, email: &UserEmail) -> Result<User, TxError> {
    let now = now_db();
    diesel::insert_into(users::table)
        .values((
            users::email.eq(email.as_str()),
            users::email_normalized.eq(email.normalized()),
            users::created_at.eq(now),
            users::updated_at.eq(now),
        ))
        .returning(returning::<UserRow>())
        .get_result::<UserRow>(conn)?
        .into_domain()
}

fn insert_membership(
    conn: &mut AnyConnection,
    account: AccountId,
    user: UserId,
    role: Role,
) -> Result<(), TxError> {
    let now = now_db();
    diesel::insert_into(memberships::table)
        .values((
            memberships::account_id.eq(account.0),
            memberships::user_id.eq(user.0),
            memberships::role.eq(role.as_str()),
            memberships::created_at.eq(now),
            memberships::updated_at.eq(now),
        ))
        .execute(conn)?;
    Ok(())
}

/// The member's role in the account, if they are one.
pub(super) fn role_in(
    conn: &mut AnyConnection,
    account: AccountId,
    user: UserId,
) -> Result<Option<Role>, TxError> {
    memberships::table
        .find((account.0, user.0))
        .select(memberships::role)
        .first::<String>(conn)
        .optional()?
        .map(|r| parse_role(&r))
        .transpose()
}

/// The user with `email`, created (without a password) if there is none, with the account's
/// row locked.
pub(super) fn find_or_create(
    conn: &mut AnyConnection,
    account: AccountId,
    email: &UserEmail,
) -> Result<User, TxError> {
    lock_account(conn, account)?;
    match find_user(conn, email)? {
        Some(user) => Ok(user),
        None => insert_user(conn, email),
    }
}

/// An invitation used: `user` becomes a member with `role`, unless they are one already (then
/// their role stays as it is).
pub(super) fn join(
    conn: &mut AnyConnection,
    account: AccountId,
    user: UserId,
    role: Role,
) -> Result<(), TxError> {
    lock_account(conn, account)?;
    if role_in(conn, account, user)?.is_none() {
        insert_membership(conn, account, user, role)?;
    }
    Ok(())
}

pub(super) fn add(
    conn: &mut AnyConnection,
    account: AccountId,
    email: &UserEmail,
    role: Role,
) -> Result<Member, TxError> {
    let user = find_or_create(conn, account, email)?;
    if role_in(conn, account, user.id)?.is_some() {
        return Err(RepoError::InUse(format!(
            "{} is already a member of account {account}",
            user.email
        ))
        .into());
    }
    insert_membership(conn, account, user.id, role)?;
    Ok(Member { user, role })
}

pub(super) fn list(conn: &mut AnyConnection, account: AccountId) -> Result<Vec<Member>, TxError> {
    memberships::table
        .inner_join(users::table)
        .filter(memberships::account_id.eq(account.0))
        .order((users::email_normalized.asc(), users::id.asc()))
        .select((UserRow::as_select(), memberships::role))
        .load::<(UserRow, String)>(conn)?
        .into_iter()
        .map(|(row, role)| {
            Ok(Member {
                user: row.into_domain()?,
                role: parse_role(&role)?,
            })
        })
        .collect()
}

/// Refuses to take the owner role from `user` when they hold the account's last one.
fn keep_an_owner(
    conn: &mut AnyConnection,
    account: AccountId,
    current: Role,
) -> Result<(), TxError> {
    if current != Role::Owner {
        return Ok(());
    }
    let owners: i64 = memberships::table
        .filter(memberships::account_id.eq(account.0))
        .filter(memberships::role.eq(Role::Owner.as_str()))
        .count()
        .get_result(conn)?;
    if owners <= 1 {
        return Err(RepoError::InvalidTransition(LAST_OWNER.into()).into());
    }
    Ok(())
}

pub(super) fn change_role(
    conn: &mut AnyConnection,
    account: AccountId,
    user: UserId,
    role: Role,
) -> Result<Member, TxError> {
    lock_account(conn, account)?;
    let current = role_in(conn, account, user)?.ok_or(RepoError::NotFound)?;
    if role != Role::Owner {
        keep_an_owner(conn, account, current)?;
    }
    diesel::update(memberships::table.find((account.0, user.0)))
        .set((
            memberships::role.eq(role.as_str()),
            memberships::updated_at.eq(now_db()),
        ))
        .execute(conn)?;
    Ok(Member {
        user: load_user(conn, user)?,
        role,
    })
}

pub(super) fn remove(
    conn: &mut AnyConnection,
    account: AccountId,
    user: UserId,
) -> Result<(), TxError> {
    lock_account(conn, account)?;
    let current = role_in(conn, account, user)?.ok_or(RepoError::NotFound)?;
    keep_an_owner(conn, account, current)?;
    diesel::delete(memberships::table.find((account.0, user.0))).execute(conn)?;
    // What they invited is theirs to vouch for: it goes with them.
    diesel::delete(
        user_tokens::table
            .filter(user_tokens::account_id.eq(account.0))
            .filter(user_tokens::invited_by.eq(user.0)),
    )
    .execute(conn)?;
    diesel::delete(
        user_sessions::table
            .filter(user_sessions::user_id.eq(user.0))
            .filter(user_sessions::account_id.eq(account.0)),
    )
    .execute(conn)?;
    Ok(())
}

pub(super) fn change_email(
    conn: &mut AnyConnection,
    user: UserId,
    email: &UserEmail,
) -> Result<User, TxError> {
    let changed = diesel::update(users::table.find(user.0))
        .set((
            users::email.eq(email.as_str()),
            users::email_normalized.eq(email.normalized()),
            users::updated_at.eq(now_db()),
        ))
        .execute(conn)?;
    if changed == 0 {
        return Err(RepoError::NotFound.into());
    }
    load_user(conn, user)
}

pub(super) fn of_user(conn: &mut AnyConnection, user: UserId) -> Result<Vec<Membership>, TxError> {
    memberships::table
        .filter(memberships::user_id.eq(user.0))
        .order(memberships::account_id.asc())
        .select((memberships::account_id, memberships::role))
        .load::<(i64, String)>(conn)?
        .into_iter()
        .map(|(account, role)| {
            Ok(Membership {
                account_id: AccountId(account),
                user_id: user,
                role: parse_role(&role)?,
            })
        })
        .collect()
}

/// The first start's owner (the caller holds the bootstrap lock): only while no user exists.
pub(super) fn bootstrap_first_owner(
    conn: &mut AnyConnection,
    email: &UserEmail,
    token: &SecretToken,
    now: DateTime<Utc>,
) -> Result<Option<(AccountId, User)>, TxError> {
    let users_exist: bool =
        diesel::select(diesel::dsl::exists(users::table.select(users::id))).get_result(conn)?;
    if users_exist {
        return Ok(None);
    }
    let Some(first) = accounts::table
        .order(accounts::id.asc())
        .select(accounts::id)
        .first::<i64>(conn)
        .optional()?
    else {
        return Ok(None);
    };
    let account = AccountId(first);
    let user = insert_user(conn, email)?;
    insert_membership(conn, account, user.id, Role::Owner)?;
    let link = NewLink::new(user.id, LinkPurpose::Invitation, token, now);
    super::links::create(conn, &link)?;
    Ok(Some((account, user)))
}
