//! Gap-free document numbers, and the kept counts of documents per status (SPEC §5). Numbers: the counter row is bumped inside the creating transaction, so a
//! rolled-back create gives its number back and concurrent creates queue on the row lock.

use crate::connection::{AnyConnection, MultiBackend};
use crate::prepared::prepared;
use crate::rows::BigIntSum;
use crate::schema::document_counters as dc;
use crate::schema::document_counts as counts;
use crate::store::TxError;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Integer, Nullable, Text};
use invoicing_domain::document::{document_number, DocumentKind};
use invoicing_domain::tenant::Scope;

/// Takes the next number of `kind` in `year` for the scope (`INV-2026-000042`); the counter row
/// stays locked until the transaction ends.
pub(crate) fn take_number(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: DocumentKind,
    year: i32,
) -> Result<String, TxError> {
    Ok(document_number(
        kind,
        year,
        next_number(conn, scope, kind, year)?,
    ))
}

fn next_number(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: DocumentKind,
    year: i32,
) -> Result<i64, TxError> {
    let bump = |conn: &mut AnyConnection| {
        prepared!(diesel::update(
            dc::table
                .filter(dc::account_id.eq(scope.account_id.0))
                .filter(dc::livemode.eq(scope.livemode()))
                .filter(dc::kind.eq(kind.as_str()))
                .filter(dc::year.eq(year)),
        )
        .set(dc::last_value.eq(dc::last_value + 1))
        .returning(dc::last_value))
        .get_result::<i64>(conn)
        .optional()
    };
    // The counter row exists from the first document of its kind in a year on: one statement.
    if let Some(next) = bump(conn)? {
        return Ok(next);
    }
    // The first of the year: create the row (a concurrent first create may win; either way it
    // exists afterwards, and the bump queues on its lock).
    diesel::sql_query(
        "INSERT INTO document_counters (account_id, livemode, kind, year, last_value) \
         VALUES ($1, $2, $3, $4, 0) ON CONFLICT DO NOTHING",
    )
    .bind::<BigInt, _>(scope.account_id.0)
    .bind::<Bool, _>(scope.livemode())
    .bind::<Text, _>(kind.as_str())
    .bind::<Integer, _>(year)
    .execute(conn)?;
    bump(conn)?.ok_or_else(|| {
        invoicing_domain::ports::RepoError::Internal("document counter vanished".into()).into()
    })
}

/// How many rows of `kind` the scope has (in `status`, or in all): the counts triggers keep in
/// the transaction of every change (migrations 000012 and 000015: invoices, quotations,
/// payments, customers), so this reads at most one row per status however large the
/// account.
pub(crate) fn kept_count(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: &str,
    status: Option<&str>,
) -> Result<i64, TxError> {
    Ok(kept_count_query(scope, kind, status)
        .first::<Option<i64>>(conn)?
        .unwrap_or(0))
}

/// The statement of [`kept_count`], for a page's query to read its total in the same round
/// trip (as `.single_value()`, a scalar subquery); `NULL` when the scope has none.
pub(crate) fn kept_count_query(
    scope: Scope,
    kind: &str,
    status: Option<&str>,
) -> counts::BoxedQuery<'static, MultiBackend, Nullable<BigInt>> {
    let mut q = counts::table
        .filter(counts::account_id.eq(scope.account_id.0))
        .filter(counts::livemode.eq(scope.livemode()))
        .filter(counts::kind.eq(kind.to_string()))
        .select(BigIntSum(counts::n))
        .into_boxed();
    if let Some(status) = status {
        q = q.filter(counts::status.eq(status.to_string()));
    }
    q
}
