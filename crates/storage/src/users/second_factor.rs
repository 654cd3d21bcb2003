//! The second factor's state: a user's TOTP secret and the last step used, their recovery codes
//! (by hash), and an account's demand for it. Using a step or a code is one conditional update,
//! so of racing requests with the same code exactly one succeeds.

use crate::connection::AnyConnection;
use crate::rows::to_db;
use crate::schema::{accounts, recovery_codes, user_sessions, users};
use crate::store::TxError;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use invoicing_domain::ports::RepoError;
use invoicing_domain::tenant::AccountId;
use invoicing_domain::user::{TotpSecret, UserId};

fn replace_codes(conn: &mut AnyConnection, user: UserId, hashes: &[String]) -> Result<(), TxError> {
    diesel::delete(recovery_codes::table.filter(recovery_codes::user_id.eq(user.0)))
        .execute(conn)?;
    for hash in hashes {
        diesel::insert_into(recovery_codes::table)
            .values((
                recovery_codes::user_id.eq(user.0),
                recovery_codes::code_hash.eq(hash),
            ))
            .execute(conn)?;
    }
    Ok(())
}

pub(super) fn enable(
    conn: &mut AnyConnection,
    user: UserId,
    secret: &TotpSecret,
    step: i64,
    hashes: &[String],
) -> Result<(), TxError> {
    let changed = diesel::update(users::table.find(user.0))
        .set((
            users::totp_secret.eq(Some(secret.base32())),
            users::totp_last_step.eq(Some(step)),
        ))
        .execute(conn)?;
    if changed == 0 {
        return Err(RepoError::NotFound.into());
    }
    diesel::update(user_sessions::table.filter(user_sessions::user_id.eq(user.0)))
        .set(user_sessions::pending_totp.eq(None::<String>))
        .execute(conn)?;
    replace_codes(conn, user, hashes)
}

pub(super) fn disable(conn: &mut AnyConnection, user: UserId) -> Result<(), TxError> {
    diesel::update(users::table.find(user.0))
        .set((
            users::totp_secret.eq(None::<String>),
            users::totp_last_step.eq(None::<i64>),
        ))
        .execute(conn)?;
    replace_codes(conn, user, &[])
}

pub(super) fn new_codes(
    conn: &mut AnyConnection,
    user: UserId,
    hashes: &[String],
) -> Result<(), TxError> {
    replace_codes(conn, user, hashes)
}

pub(super) fn secret_of(
    conn: &mut AnyConnection,
    user: UserId,
) -> Result<Option<(TotpSecret, Option<i64>)>, TxError> {
    let (secret, last) = users::table
        .find(user.0)
        .select((users::totp_secret, users::totp_last_step))
        .first::<(Option<String>, Option<i64>)>(conn)?;
    match secret {
        None => Ok(None),
        Some(text) => {
            let secret = TotpSecret::parse(&text)
                .ok_or_else(|| RepoError::Internal(format!("user {user}: a bad TOTP secret")))?;
            Ok(Some((secret, last)))
        }
    }
}

pub(super) fn use_step(conn: &mut AnyConnection, user: UserId, step: i64) -> Result<bool, TxError> {
    let n = diesel::update(
        users::table.find(user.0).filter(
            users::totp_secret.is_not_null().and(
                users::totp_last_step
                    .is_null()
                    .or(users::totp_last_step.lt(step)),
            ),
        ),
    )
    .set(users::totp_last_step.eq(Some(step)))
    .execute(conn)?;
    Ok(n == 1)
}

pub(super) fn use_code(
    conn: &mut AnyConnection,
    user: UserId,
    hash: &str,
    at: DateTime<Utc>,
) -> Result<bool, TxError> {
    let n = diesel::update(
        recovery_codes::table
            .filter(recovery_codes::user_id.eq(user.0))
            .filter(recovery_codes::code_hash.eq(hash))
            .filter(recovery_codes::used_at.is_null()),
    )
    .set(recovery_codes::used_at.eq(Some(to_db(at))))
    .execute(conn)?;
    Ok(n >= 1)
}

pub(super) fn codes_left(conn: &mut AnyConnection, user: UserId) -> Result<u32, TxError> {
    let n: i64 = recovery_codes::table
        .filter(recovery_codes::user_id.eq(user.0))
        .filter(recovery_codes::used_at.is_null())
        .count()
        .get_result(conn)?;
    Ok(u32::try_from(n).unwrap_or(0))
}

pub(super) fn set_required(
    conn: &mut AnyConnection,
    account: AccountId,
    required: bool,
) -> Result<(), TxError> {
    let n = diesel::update(accounts::table.find(account.0))
        .set(accounts::require_totp.eq(required))
        .execute(conn)?;
    if n == 0 {
        return Err(RepoError::NotFound.into());
    }
    Ok(())
}

pub(super) fn required(conn: &mut AnyConnection, account: AccountId) -> Result<bool, TxError> {
    Ok(accounts::table
        .find(account.0)
        .select(accounts::require_totp)
        .first::<bool>(conn)?)
}
