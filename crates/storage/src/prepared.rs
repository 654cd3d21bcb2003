//! Statements prepared once per connection although diesel would parse and plan them on every run.
//!
//! diesel prepares and keeps a statement only when its type alone decides its SQL, and it never
//! trusts an `UPDATE`, an upsert or an `sql_query` to be so (a changeset of `Option`s writes
//! different SQL for different values). PostgreSQL then parses and plans such a statement each
//! time: on the creation of an invoice that was the counter's bump and the event's insert, about
//! a fifth of the database's work (docs/BENCHMARKS.md). [`prepared!`] marks one call site's
//! statement as fixed: its SQL must be the same on every run on one backend (no `Option` in a
//! changeset, no `eq_any` list, no boxed query, no text built from values; a site may pick its
//! text by backend, as each connection prepares its own); bound values may differ.

use diesel::backend::Backend;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::{QueryResult, RunQueryDsl};
use std::marker::PhantomData;

/// `query`, prepared once per connection under the identity of the call site's `Site` type.
pub(crate) struct Prepared<Q, Site> {
    query: Q,
    site: PhantomData<Site>,
}

impl<Q, Site> Prepared<Q, Site> {
    pub(crate) fn new(query: Q) -> Self {
        Prepared {
            query,
            site: PhantomData,
        }
    }
}

impl<Q, Site, DB> QueryFragment<DB> for Prepared<Q, Site>
where
    Q: QueryFragment<DB>,
    DB: Backend,
{
    fn walk_ast<'b>(&'b self, pass: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.query.walk_ast(pass)
    }

    // The call site vouches that its SQL never varies (the module's rule).
    fn is_safe_to_cache_prepared(&self, _backend: &DB) -> QueryResult<bool> {
        Ok(true)
    }
}

impl<Q, Site: 'static> QueryId for Prepared<Q, Site> {
    type QueryId = Site;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<Q: Query, Site> Query for Prepared<Q, Site> {
    type SqlType = Q::SqlType;
}

impl<Q, Site, Conn> RunQueryDsl<Conn> for Prepared<Q, Site> {}

/// `prepared!(query)`: the statement `query`, prepared once per connection, keyed by this call
/// site (a type of its own), so two sites never share a prepared statement.
macro_rules! prepared {
    ($query:expr) => {{
        struct Site;
        $crate::prepared::Prepared::<_, Site>::new($query)
    }};
}
pub(crate) use prepared;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connection::{establish, AnyConnection, DatabaseUrl};
    use diesel::connection::SimpleConnection;
    use diesel::prelude::*;
    use diesel::sql_types::BigInt;

    diesel::table! {
        tallies (id) {
            id -> Integer,
            n -> BigInt,
        }
    }

    #[derive(QueryableByName)]
    struct Count {
        #[diesel(sql_type = BigInt)]
        n: i64,
    }

    /// A session of its own on the local PostgreSQL (its temporary table and prepared
    /// statements die with it); `None` (skip) only outside CI.
    fn postgres() -> Option<AnyConnection> {
        let url = std::env::var("TEST_POSTGRES_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
        match establish(&DatabaseUrl::parse(&url).expect("a PostgreSQL URL")) {
            Ok(conn) => Some(conn),
            Err(e) if std::env::var("CI").as_deref() == Ok("true") => {
                panic!("PostgreSQL is required under CI: {e}")
            }
            Err(_) => None,
        }
    }

    fn prepared_on_tallies(conn: &mut AnyConnection) -> i64 {
        diesel::sql_query(
            "SELECT count(*) AS n FROM pg_prepared_statements WHERE statement LIKE '%tallies%'",
        )
        .get_result::<Count>(conn)
        .expect("pg_prepared_statements")
        .n
    }

    /// diesel plans an `UPDATE` on every run; through `prepared!` it is prepared once per
    /// connection and site, and runs as it would otherwise.
    #[test]
    fn a_marked_update_is_prepared_once_per_site() {
        let Some(mut conn) = postgres() else { return };
        conn.batch_execute(
            "CREATE TEMPORARY TABLE tallies (id INTEGER PRIMARY KEY, n BIGINT NOT NULL); \
             INSERT INTO tallies VALUES (1, 0)",
        )
        .unwrap();
        for _ in 0..3 {
            diesel::update(tallies::table.filter(tallies::id.eq(1)))
                .set(tallies::n.eq(tallies::n + 1))
                .execute(&mut conn)
                .unwrap();
        }
        assert_eq!(
            prepared_on_tallies(&mut conn),
            0,
            "diesel prepares no UPDATE"
        );
        for _ in 0..3 {
            prepared!(diesel::update(tallies::table.filter(tallies::id.eq(1)))
                .set(tallies::n.eq(tallies::n + 1)))
            .execute(&mut conn)
            .unwrap();
        }
        assert_eq!(
            prepared_on_tallies(&mut conn),
            1,
            "one statement for one site"
        );
        let n: i64 = prepared!(diesel::update(tallies::table.filter(tallies::id.eq(1)))
            .set(tallies::n.eq(tallies::n + 1))
            .returning(tallies::n))
        .get_result(&mut conn)
        .unwrap();
        assert_eq!(n, 7);
        assert_eq!(
            prepared_on_tallies(&mut conn),
            2,
            "another site, another statement"
        );
    }
}
