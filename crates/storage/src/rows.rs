//! Conversions between stored rows and domain types: timestamps are naive UTC in the database.

use chrono::{DateTime, NaiveDateTime, Utc};

pub(crate) fn to_db(t: DateTime<Utc>) -> NaiveDateTime {
    invoicing_domain::time::whole_seconds(t).naive_utc()
}

pub(crate) fn from_db(t: NaiveDateTime) -> DateTime<Utc> {
    DateTime::from_naive_utc_and_offset(t, Utc)
}

pub(crate) fn now_db() -> NaiveDateTime {
    to_db(Utc::now())
}

/// Restricts a tenant table to one scope. Every tenant query starts here, so the account and
/// environment filters cannot be left out.
macro_rules! scoped {
    ($table:ident, $scope:expr) => {{
        let scope: invoicing_domain::tenant::Scope = $scope;
        $table::table
            .filter($table::account_id.eq(scope.account_id.0))
            .filter($table::livemode.eq(scope.livemode()))
    }};
}
pub(crate) use scoped;

/// A list query's rows below the page's keyset cursor, if it has one (lists are newest first:
/// `created_at`, then `id`). `created_at <= t` lets the index of the order start at the cursor.
macro_rules! below {
    ($query:expr, $table:ident, $page:expr) => {{
        let query = $query;
        match $page.cursor() {
            None => query,
            Some(c) => {
                let t = $crate::rows::to_db(c.created_at);
                query
                    .filter($table::created_at.le(t))
                    .filter($table::created_at.lt(t).or($table::id.lt(c.id)))
            }
        }
    }};
}
pub(crate) use below;

/// Takes the row lock of one scoped row until the transaction ends, so a check-then-write (is it
/// still a draft?) cannot interleave with a concurrent change on PostgreSQL. A no-op update is
/// the lock both backends understand; SQLite's write transactions are exclusive anyway.
macro_rules! lock_scoped {
    ($conn:expr, $table:ident, $scope:expr, $id:expr) => {
        diesel::update($crate::rows::scoped!($table, $scope).filter($table::id.eq($id)))
            .set($table::updated_at.eq($table::updated_at))
            .execute($conn)
    };
}
pub(crate) use lock_scoped;

/// For an id the scope does not see: 403 if another tenant has it, 404 if nobody does.
macro_rules! missing_or_forbidden {
    ($conn:expr, $table:ident, $id:expr) => {{
        let exists: bool = diesel::select(diesel::dsl::exists(
            $table::table.filter($table::id.eq($id)),
        ))
        .get_result($conn)?;
        if exists {
            invoicing_domain::ports::RepoError::Forbidden
        } else {
            invoicing_domain::ports::RepoError::NotFound
        }
    }};
}
pub(crate) use missing_or_forbidden;

/// The columns of `T` for a `RETURNING` clause. `as_select()` is tied to one backend and does not
/// compile through the shared connection; the column tuple does.
pub(crate) fn returning<T>(
) -> <T as diesel::Selectable<crate::connection::MultiBackend>>::SelectExpression
where
    T: diesel::Selectable<crate::connection::MultiBackend>,
{
    T::construct_selection()
}

diesel::define_sql_function! {
    /// SQL's `lower`: searches compare lower-cased text on both backends (SQLite's `LIKE` ignores
    /// ASCII case only, PostgreSQL's none).
    fn lower(text: diesel::sql_types::Text) -> diesel::sql_types::Text;
}
