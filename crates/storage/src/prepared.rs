//! Statements prepared once per connection although diesel would parse and plan them on every run.
//!
//! diesel prepares and keeps a statement only when its type alone decides its SQL, and it never
//! trusts an `UPDATE`, an upsert or an `sql_query` to be so (a changeset of `Option`s writes
//! different SQL for different values). PostgreSQL then parses and plans such a statement each
//! time: on the creation of an invoice that was the counter's bump and the event's insert, about
//! a fifth of the database's work (docs/BENCHMARKS.md). [`prepared!`] marks one call site's
//! statement as fixed: its SQL must be the same on every run (no `Option` in a changeset, no
//! `eq_any` list, no boxed query, no text built from values); bound values may differ.

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
