//! Dashboard sessions, found by their token's SHA-256 on every dashboard request. Finding one is
//! a read; it writes only to note a use (at most once a minute) or to delete an ended session.

use super::members::role_in;
use super::{parse_role, UserRow};
use crate::connection::AnyConnection;
use crate::rows::{from_db, returning, to_db};
use crate::schema::{accounts, memberships, user_sessions, users};
use crate::store::{Store, TxError};
use chrono::{DateTime, Duration, NaiveDateTime, Utc};
use diesel::prelude::*;
use invoicing_domain::ports::{RepoError, RepoResult};
use invoicing_domain::tenant::{AccountId, Environment};
use invoicing_domain::user::{
    NewSession, Session, SessionId, SignedIn, UserId, SESSION_IDLE_TIMEOUT, SESSION_LIFETIME,
};

/// A use is noted when the last one noted is older than this: one write a minute per busy
/// session instead of one per request. The idle limit then counts from up to a minute before
/// the true last use, so a session ends up to a minute early, never late.
const TOUCH_EVERY: Duration = Duration::minutes(1);

#[derive(Queryable, Selectable)]
#[diesel(table_name = user_sessions)]
struct SessionRow {
    id: i64,
    user_id: i64,
    account_id: i64,
    livemode: bool,
    created_at: NaiveDateTime,
    last_seen_at: NaiveDateTime,
    password_entered_at: NaiveDateTime,
    second_factor_at: Option<NaiveDateTime>,
}

impl SessionRow {
    fn into_domain(self) -> Session {
        Session {
            id: SessionId(self.id),
            user_id: UserId(self.user_id),
            account_id: AccountId(self.account_id),
            environment: Environment::from_livemode(self.livemode),
            created_at: from_db(self.created_at),
            last_seen_at: from_db(self.last_seen_at),
            password_entered_at: from_db(self.password_entered_at),
            second_factor_at: self.second_factor_at.map(from_db),
        }
    }
}

pub(super) fn create(conn: &mut AnyConnection, new: &NewSession) -> Result<Session, TxError> {
    if role_in(conn, new.account_id, new.user_id)?.is_none() {
        return Err(RepoError::Forbidden.into());
    }
    let at = to_db(new.at);
    Ok(diesel::insert_into(user_sessions::table)
        .values((
            user_sessions::token_hash.eq(&new.token_hash),
            user_sessions::user_id.eq(new.user_id.0),
            user_sessions::account_id.eq(new.account_id.0),
            user_sessions::livemode.eq(false),
            user_sessions::created_at.eq(at),
            user_sessions::last_seen_at.eq(at),
            user_sessions::password_entered_at.eq(at),
        ))
        .returning(returning::<SessionRow>())
        .get_result::<SessionRow>(conn)?
        .into_domain())
}

pub(super) fn find(
    store: &Store,
    token_hash: &str,
    now: DateTime<Utc>,
) -> RepoResult<Option<SignedIn>> {
    // One statement on every dashboard request: the session, its user and their role now.
    let found = store.read(|conn| {
        let Some((session, user, role, requires)) = user_sessions::table
            .inner_join(users::table)
            .inner_join(accounts::table.on(accounts::id.eq(user_sessions::account_id)))
            .left_join(
                memberships::table.on(memberships::account_id
                    .eq(user_sessions::account_id)
                    .and(memberships::user_id.eq(user_sessions::user_id))),
            )
            .filter(user_sessions::token_hash.eq(token_hash))
            .select((
                SessionRow::as_select(),
                UserRow::as_select(),
                memberships::role.nullable(),
                accounts::require_totp,
            ))
            .first::<(SessionRow, UserRow, Option<String>, bool)>(conn)
            .optional()?
        else {
            return Ok(None);
        };
        let role = role.as_deref().map(parse_role).transpose()?;
        Ok(Some((
            session.into_domain(),
            user.into_domain()?,
            role,
            requires,
        )))
    })?;
    let Some((mut session, user, role, account_requires_totp)) = found else {
        return Ok(None);
    };
    let Some(role) = role.filter(|_| !session.is_expired(now)) else {
        // Ended, or its membership is gone: it never comes back, so it goes now.
        store.write(|conn| {
            diesel::delete(user_sessions::table.find(session.id.0)).execute(conn)?;
            Ok(())
        })?;
        return Ok(None);
    };
    if now - session.last_seen_at >= TOUCH_EVERY {
        let at = to_db(now);
        store.write(|conn| {
            diesel::update(
                user_sessions::table
                    .find(session.id.0)
                    .filter(user_sessions::last_seen_at.lt(at)),
            )
            .set(user_sessions::last_seen_at.eq(at))
            .execute(conn)?;
            Ok(())
        })?;
        session.last_seen_at = from_db(at);
    }
    Ok(Some(SignedIn {
        session,
        user,
        role,
        account_requires_totp,
    }))
}

/// The session as one `UPDATE … RETURNING` left it; `NotFound` when there was none.
fn changed(row: Option<SessionRow>) -> Result<Session, TxError> {
    Ok(row.ok_or(RepoError::NotFound)?.into_domain())
}

pub(super) fn switch_environment(
    conn: &mut AnyConnection,
    id: SessionId,
    environment: Environment,
) -> Result<Session, TxError> {
    changed(
        diesel::update(user_sessions::table.find(id.0))
            .set(user_sessions::livemode.eq(environment.is_live()))
            .returning(returning::<SessionRow>())
            .get_result::<SessionRow>(conn)
            .optional()?,
    )
}

pub(super) fn confirm_password(
    conn: &mut AnyConnection,
    id: SessionId,
    at: DateTime<Utc>,
) -> Result<Session, TxError> {
    changed(
        diesel::update(user_sessions::table.find(id.0))
            .set(user_sessions::password_entered_at.eq(to_db(at)))
            .returning(returning::<SessionRow>())
            .get_result::<SessionRow>(conn)
            .optional()?,
    )
}

/// The secret being set up in this session: the one kept, else `fresh`, kept from now on.
pub(super) fn pending_totp(
    conn: &mut AnyConnection,
    id: SessionId,
    fresh: &invoicing_domain::user::TotpSecret,
) -> Result<invoicing_domain::user::TotpSecret, TxError> {
    diesel::update(
        user_sessions::table
            .find(id.0)
            .filter(user_sessions::pending_totp.is_null()),
    )
    .set(user_sessions::pending_totp.eq(Some(fresh.base32())))
    .execute(conn)?;
    let kept: Option<String> = user_sessions::table
        .find(id.0)
        .select(user_sessions::pending_totp)
        .first(conn)
        .optional()?
        .ok_or(RepoError::NotFound)?;
    kept.as_deref()
        .and_then(invoicing_domain::user::TotpSecret::parse)
        .ok_or_else(|| RepoError::Internal(format!("session {id}: a bad pending secret")).into())
}

pub(super) fn confirm_second_factor(
    conn: &mut AnyConnection,
    id: SessionId,
    at: DateTime<Utc>,
) -> Result<Session, TxError> {
    changed(
        diesel::update(user_sessions::table.find(id.0))
            .set(user_sessions::second_factor_at.eq(Some(to_db(at))))
            .returning(returning::<SessionRow>())
            .get_result::<SessionRow>(conn)
            .optional()?,
    )
}

pub(super) fn delete(conn: &mut AnyConnection, user: UserId, id: SessionId) -> Result<(), TxError> {
    let deleted = diesel::delete(
        user_sessions::table
            .find(id.0)
            .filter(user_sessions::user_id.eq(user.0)),
    )
    .execute(conn)?;
    if deleted == 0 {
        return Err(RepoError::NotFound.into());
    }
    Ok(())
}

pub(super) fn delete_others(
    conn: &mut AnyConnection,
    user: UserId,
    keep: Option<SessionId>,
) -> Result<usize, TxError> {
    let sessions = user_sessions::table.filter(user_sessions::user_id.eq(user.0));
    Ok(match keep {
        Some(keep) => {
            diesel::delete(sessions.filter(user_sessions::id.ne(keep.0))).execute(conn)?
        }
        None => diesel::delete(sessions).execute(conn)?,
    })
}

pub(super) fn list(
    conn: &mut AnyConnection,
    user: UserId,
    now: DateTime<Utc>,
) -> Result<Vec<Session>, TxError> {
    Ok(user_sessions::table
        .filter(user_sessions::user_id.eq(user.0))
        .order((user_sessions::created_at.desc(), user_sessions::id.desc()))
        .select(SessionRow::as_select())
        .load::<SessionRow>(conn)?
        .into_iter()
        .map(SessionRow::into_domain)
        .filter(|s| !s.is_expired(now))
        .collect())
}

pub(super) fn purge(conn: &mut AnyConnection, now: DateTime<Utc>) -> Result<usize, TxError> {
    Ok(diesel::delete(
        user_sessions::table.filter(
            user_sessions::last_seen_at
                .le(to_db(now - SESSION_IDLE_TIMEOUT))
                .or(user_sessions::created_at.le(to_db(now - SESSION_LIFETIME))),
        ),
    )
    .execute(conn)?)
}
