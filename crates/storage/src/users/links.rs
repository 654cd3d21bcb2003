//! One-time set-password links, kept by their token's SHA-256. Using one deletes its row in one
//! statement that answers the row: of racing callers, exactly one deletes it and gets the link.

use super::load_user;
use crate::connection::AnyConnection;
use crate::rows::{from_db, returning, to_db};
use crate::schema::{user_tokens, users};
use crate::store::TxError;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use invoicing_domain::ports::RepoError;
use invoicing_domain::user::{Link, LinkPurpose, NewLink, PasswordHash, SessionId, User, UserId};

#[derive(Queryable, Selectable)]
#[diesel(table_name = user_tokens)]
struct LinkRow {
    id: i64,
    user_id: i64,
    purpose: String,
    created_at: NaiveDateTime,
    expires_at: NaiveDateTime,
}

impl LinkRow {
    fn into_domain(self) -> Result<Link, TxError> {
        let purpose = LinkPurpose::parse(&self.purpose).ok_or_else(|| {
            RepoError::Internal(format!("link {} has purpose {:?}", self.id, self.purpose))
        })?;
        Ok(Link {
            user_id: UserId(self.user_id),
            purpose,
            created_at: from_db(self.created_at),
            expires_at: from_db(self.expires_at),
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

/// The working link with that hash: unused (it still exists) and not expired.
pub(super) fn find(
    conn: &mut AnyConnection,
    token_hash: &str,
    now: DateTime<Utc>,
) -> Result<Option<Link>, TxError> {
    user_tokens::table
        .filter(user_tokens::token_hash.eq(token_hash))
        .filter(user_tokens::expires_at.gt(to_db(now)))
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
) -> Result<Option<Link>, TxError> {
    // A racing consumer's delete waits for ours and then deletes nothing, so only one of them
    // gets the link.
    diesel::delete(
        user_tokens::table
            .filter(user_tokens::token_hash.eq(token_hash))
            .filter(user_tokens::expires_at.gt(to_db(now))),
    )
    .returning(returning::<LinkRow>())
    .get_result::<LinkRow>(conn)
    .optional()?
    .map(LinkRow::into_domain)
    .transpose()
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
    diesel::delete(user_tokens::table.filter(user_tokens::user_id.eq(user.0))).execute(conn)?;
    load_user(conn, user)
}

pub(super) fn purge(conn: &mut AnyConnection, now: DateTime<Utc>) -> Result<usize, TxError> {
    Ok(
        diesel::delete(user_tokens::table.filter(user_tokens::expires_at.le(to_db(now))))
            .execute(conn)?,
    )
}
