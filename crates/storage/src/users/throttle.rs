//! Failed sign-ins per typed email and client network, in the database so that every process
//! counts the same failures.

use crate::connection::AnyConnection;
use crate::rows::to_db;
use crate::schema::login_failures;
use crate::store::TxError;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use invoicing_domain::user::{ThrottleKey, LOGIN_FAILURE_WINDOW};

pub(super) fn record(
    conn: &mut AnyConnection,
    key: &ThrottleKey,
    at: DateTime<Utc>,
) -> Result<(), TxError> {
    diesel::insert_into(login_failures::table)
        .values((
            login_failures::email.eq(&key.email),
            login_failures::ip.eq(&key.ip),
            login_failures::failed_at.eq(to_db(at)),
        ))
        .execute(conn)?;
    Ok(())
}

pub(super) fn count(
    conn: &mut AnyConnection,
    key: &ThrottleKey,
    since: DateTime<Utc>,
) -> Result<u64, TxError> {
    let n: i64 = login_failures::table
        .filter(login_failures::email.eq(&key.email))
        .filter(login_failures::ip.eq(&key.ip))
        .filter(login_failures::failed_at.ge(to_db(since)))
        .count()
        .get_result(conn)?;
    Ok(u64::try_from(n).unwrap_or(0))
}

pub(super) fn clear(conn: &mut AnyConnection, key: &ThrottleKey) -> Result<(), TxError> {
    diesel::delete(
        login_failures::table
            .filter(login_failures::email.eq(&key.email))
            .filter(login_failures::ip.eq(&key.ip)),
    )
    .execute(conn)?;
    Ok(())
}

/// Failures older than the window no longer count for anything.
pub(super) fn purge(conn: &mut AnyConnection, now: DateTime<Utc>) -> Result<usize, TxError> {
    Ok(diesel::delete(
        login_failures::table
            .filter(login_failures::failed_at.lt(to_db(now - LOGIN_FAILURE_WINDOW))),
    )
    .execute(conn)?)
}
