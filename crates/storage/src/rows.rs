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

/// `N` random bytes from the OS, hex: the unguessable names storage makes (claims, payment
/// links, webhook endpoints, refunds' idempotency keys).
pub(crate) fn random_hex<const N: usize>() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; N];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
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

/// `CAST(SUM(expr) AS BIGINT)`: PostgreSQL sums BIGINT into NUMERIC, and no sum of cents or
/// counts nears 2^63. An expression of its own rather than diesel's `sql()` literal, which marks
/// its whole statement as never to be prepared: a list's page read its total through one, and
/// PostgreSQL parsed and planned that page on every request (docs/BENCHMARKS.md).
#[derive(Debug, Clone, Copy, diesel::query_builder::QueryId)]
pub(crate) struct BigIntSum<E>(pub(crate) E);

impl<E> diesel::Expression for BigIntSum<E>
where
    E: diesel::Expression<SqlType = diesel::sql_types::BigInt>,
{
    type SqlType = diesel::sql_types::Nullable<diesel::sql_types::BigInt>;
}

impl<E, GroupBy> diesel::expression::ValidGrouping<GroupBy> for BigIntSum<E> {
    type IsAggregate = diesel::expression::is_aggregate::Yes;
}

impl<E: diesel::AppearsOnTable<QS>, QS> diesel::AppearsOnTable<QS> for BigIntSum<E> where
    Self: diesel::Expression
{
}

impl<E: diesel::SelectableExpression<QS>, QS> diesel::SelectableExpression<QS> for BigIntSum<E> where
    Self: diesel::AppearsOnTable<QS>
{
}

impl<E, DB> diesel::query_builder::QueryFragment<DB> for BigIntSum<E>
where
    E: diesel::query_builder::QueryFragment<DB>,
    DB: diesel::backend::Backend,
{
    fn walk_ast<'b>(
        &'b self,
        mut out: diesel::query_builder::AstPass<'_, 'b, DB>,
    ) -> diesel::QueryResult<()> {
        out.push_sql("CAST(SUM(");
        self.0.walk_ast(out.reborrow())?;
        out.push_sql(") AS BIGINT)");
        Ok(())
    }
}

/// `id IN (page LIMIT n [OFFSET ?])`: the ids of one page of a list, cut from `page` (a query of
/// the list's ids in its order), for a statement that reads the page's rows beside their lines.
/// The limit is written into the SQL, not bound: PostgreSQL takes a bound `LIMIT $n` as a tenth
/// of the rows it limits, and a page of thousands estimated would join each row's lines by
/// scanning all of an account's lines under a generic plan. Written as a number, the estimate is
/// the page (a connection prepares one statement per page size it is asked for).
#[derive(Debug, Clone)]
pub(crate) struct InPage<Id, Q> {
    pub(crate) id: Id,
    pub(crate) page: Q,
    pub(crate) limit: i64,
    pub(crate) offset: i64,
}

impl<Id, Q> diesel::Expression for InPage<Id, Q> {
    type SqlType = diesel::sql_types::Bool;
}

impl<Id, Q, GroupBy> diesel::expression::ValidGrouping<GroupBy> for InPage<Id, Q> {
    type IsAggregate = diesel::expression::is_aggregate::Never;
}

impl<Id: diesel::AppearsOnTable<QS>, Q, QS> diesel::AppearsOnTable<QS> for InPage<Id, Q> {}

impl<Id, Q> diesel::query_builder::QueryId for InPage<Id, Q> {
    type QueryId = ();
    // The limit is in the SQL text: the statement cache must key this by its text.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Id, Q, DB> diesel::query_builder::QueryFragment<DB> for InPage<Id, Q>
where
    Id: diesel::query_builder::QueryFragment<DB>,
    Q: diesel::query_builder::QueryFragment<DB>,
    DB: diesel::backend::Backend,
    i64: diesel::serialize::ToSql<diesel::sql_types::BigInt, DB>,
    DB: diesel::sql_types::HasSqlType<diesel::sql_types::BigInt>,
{
    fn walk_ast<'b>(
        &'b self,
        mut out: diesel::query_builder::AstPass<'_, 'b, DB>,
    ) -> diesel::QueryResult<()> {
        self.id.walk_ast(out.reborrow())?;
        out.push_sql(" IN (");
        self.page.walk_ast(out.reborrow())?;
        out.push_sql(&format!(" LIMIT {}", self.limit));
        // A bound offset is taken as a tenth of the rows too; the first page needs none.
        if self.offset != 0 {
            out.push_sql(" OFFSET ");
            out.push_bind_param::<diesel::sql_types::BigInt, i64>(&self.offset)?;
        }
        out.push_sql(")");
        Ok(())
    }
}

/// `(column = ? OR column = ? …)` for `N` values. A fixed count keeps the statement's type, and
/// so its cache key, static: diesel then finds the prepared statement by its type instead of
/// writing the SQL out on every call to look it up by its text (a boxed query does that; it
/// was a tenth of the server's CPU per batched get).
#[derive(Debug, Clone, Copy)]
pub(crate) struct AnyOf<C, const N: usize> {
    pub(crate) column: C,
    pub(crate) values: [i64; N],
}

/// [`AnyOf`]'s key in the statement cache: one statement per column and count.
pub(crate) struct AnyOfKey<C, const N: usize>(std::marker::PhantomData<C>);

impl<C, const N: usize> diesel::Expression for AnyOf<C, N> {
    type SqlType = diesel::sql_types::Bool;
}

impl<C, GroupBy, const N: usize> diesel::expression::ValidGrouping<GroupBy> for AnyOf<C, N> {
    type IsAggregate = diesel::expression::is_aggregate::Never;
}

impl<C: diesel::AppearsOnTable<QS>, QS, const N: usize> diesel::AppearsOnTable<QS> for AnyOf<C, N> {}

impl<C: diesel::query_builder::QueryId, const N: usize> diesel::query_builder::QueryId
    for AnyOf<C, N>
{
    type QueryId = AnyOfKey<C::QueryId, N>;
    const HAS_STATIC_QUERY_ID: bool = C::HAS_STATIC_QUERY_ID;
}

impl<C, DB, const N: usize> diesel::query_builder::QueryFragment<DB> for AnyOf<C, N>
where
    C: diesel::query_builder::QueryFragment<DB>,
    DB: diesel::backend::Backend,
    i64: diesel::serialize::ToSql<diesel::sql_types::BigInt, DB>,
    DB: diesel::sql_types::HasSqlType<diesel::sql_types::BigInt>,
{
    fn walk_ast<'b>(
        &'b self,
        mut out: diesel::query_builder::AstPass<'_, 'b, DB>,
    ) -> diesel::QueryResult<()> {
        out.push_sql("(");
        for (i, value) in self.values.iter().enumerate() {
            if i > 0 {
                out.push_sql(" OR ");
            }
            self.column.walk_ast(out.reborrow())?;
            out.push_sql(" = ");
            out.push_bind_param::<diesel::sql_types::BigInt, i64>(value)?;
        }
        out.push_sql(")");
        Ok(())
    }
}
