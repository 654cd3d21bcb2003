//! The one durable-job mechanism: a queue is a table whose rows carry `state`,
//! `next_attempt_at`, `claim` and `locked_until`, written in the transaction of the change that
//! needs the work done (an event's webhook deliveries, an email). Workers of any process claim
//! due rows with a lease: on PostgreSQL the due rows are picked with `FOR UPDATE SKIP LOCKED`,
//! so processes sharing the database never claim the same row; on SQLite the write transaction
//! is exclusive anyway. Settling a row is conditional on still holding its claim, so a worker
//! whose lease ran out (it stalled, or died) records nothing, and the row is attempted again:
//! at least once, never lost, never two claimers at a time.
//!
//! Each queue keeps its own columns for what the work is; this module owns only the lease.

use crate::connection::AnyConnection;
use crate::rows::to_db;
use crate::store::TxError;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text, Timestamp};

/// A table the mechanism drains.
pub(crate) struct Queue {
    pub table: &'static str,
    /// The `state` of rows still to be worked on.
    pub pending: &'static str,
    /// A further SQL condition a due row must meet, on the queue's own columns.
    pub ready: &'static str,
}

pub(crate) const WEBHOOK_DELIVERIES: Queue = Queue {
    table: "webhook_deliveries",
    pending: "pending",
    // A disabled endpoint keeps its deliveries until it is enabled again.
    ready: "endpoint_id IN (SELECT id FROM webhook_endpoints WHERE enabled)",
};

pub(crate) const EMAILS: Queue = Queue {
    table: "emails",
    pending: "queued",
    ready: "TRUE",
};

#[derive(QueryableByName)]
struct NextDue {
    #[diesel(sql_type = diesel::sql_types::Nullable<Timestamp>)]
    at: Option<NaiveDateTime>,
}

/// When the next row of the queue falls due (its next attempt, or the end of the lease that
/// holds it), if any is pending: how long an idle worker may sleep when nobody wakes it.
pub(crate) fn next_due(
    conn: &mut AnyConnection,
    queue: &Queue,
) -> Result<Option<DateTime<Utc>>, TxError> {
    let sql = format!(
        "SELECT MIN(CASE WHEN locked_until IS NOT NULL AND locked_until > next_attempt_at \
         THEN locked_until ELSE next_attempt_at END) AS at FROM {table} \
         WHERE state = '{pending}' AND {ready}",
        table = queue.table,
        pending = queue.pending,
        ready = queue.ready,
    );
    let next: Vec<NextDue> = diesel::sql_query(sql).load(conn)?;
    Ok(next
        .into_iter()
        .next()
        .and_then(|n| n.at)
        .map(crate::rows::from_db))
}

#[derive(QueryableByName)]
struct Id {
    #[diesel(sql_type = BigInt)]
    id: i64,
}

/// The lease's end as stored, measured from the same `now` the claim's due check uses.
pub(crate) fn lease_end(now: DateTime<Utc>, lease: std::time::Duration) -> NaiveDateTime {
    let lease = chrono::Duration::from_std(lease).unwrap_or(chrono::Duration::minutes(1));
    to_db(now + lease)
}

/// Due rows, oldest first; locked (skipping rows other claimers hold) when `lock` is set, which
/// needs a transaction. The statement is the same on both backends (parameters numbered in
/// order of appearance; the table and conditions are this crate's constants).
pub(crate) fn due(
    conn: &mut AnyConnection,
    queue: &Queue,
    now: DateTime<Utc>,
    limit: u32,
    lock: bool,
) -> Result<Vec<i64>, TxError> {
    let skip_locked = match conn {
        AnyConnection::Postgresql(_) if lock => " FOR UPDATE SKIP LOCKED",
        _ => "",
    };
    let now = to_db(now);
    let sql = format!(
        "SELECT id FROM {table} WHERE state = '{pending}' AND next_attempt_at <= $1 \
         AND (locked_until IS NULL OR locked_until < $2) AND {ready} \
         ORDER BY next_attempt_at, id LIMIT {limit}{skip_locked}",
        table = queue.table,
        pending = queue.pending,
        ready = queue.ready,
    );
    let ids: Vec<Id> = diesel::sql_query(sql)
        .bind::<Timestamp, _>(now)
        .bind::<Timestamp, _>(now)
        .load(conn)?;
    Ok(ids.into_iter().map(|i| i.id).collect())
}

/// Claims up to `limit` due rows for `lease`: their ids and the claim that proves it. Call in a
/// write transaction; a plain read of [`due`] first keeps idle pollers off the write lock.
pub(crate) fn claim(
    conn: &mut AnyConnection,
    queue: &Queue,
    now: DateTime<Utc>,
    lease: std::time::Duration,
    limit: u32,
) -> Result<(Vec<i64>, String), TxError> {
    let ids = due(conn, queue, now, limit, true)?;
    // A fresh claim token: 128 random bits.
    let claim = crate::rows::random_hex::<16>();
    if !ids.is_empty() {
        let list = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
        diesel::sql_query(format!(
            "UPDATE {} SET claim = $1, locked_until = $2 WHERE id IN ({list})",
            queue.table
        ))
        .bind::<Text, _>(&claim)
        .bind::<Timestamp, _>(lease_end(now, lease))
        .execute(conn)?;
    }
    Ok((ids, claim))
}

/// Extends the lease of a row `claim` still holds, so a job that takes longer than one lease
/// (a slow SMTP server) is not claimed a second time while it runs; `false` if the claim is
/// gone.
pub(crate) fn extend(
    conn: &mut AnyConnection,
    queue: &Queue,
    id: i64,
    claim: &str,
    until: NaiveDateTime,
) -> Result<bool, TxError> {
    let n = diesel::sql_query(format!(
        "UPDATE {} SET locked_until = $1 WHERE id = $2 AND claim = $3",
        queue.table
    ))
    .bind::<Timestamp, _>(until)
    .bind::<BigInt, _>(id)
    .bind::<Text, _>(claim)
    .execute(conn)?;
    Ok(n == 1)
}

/// Takes the claim off the row if `claim` still holds it; `false` when it does not (the lease
/// ran out and another worker claimed the row). On PostgreSQL the update also locks the row, so
/// what the caller writes next in the transaction belongs to this claim alone.
pub(crate) fn settle(
    conn: &mut AnyConnection,
    queue: &Queue,
    id: i64,
    claim: &str,
) -> Result<bool, TxError> {
    let n = diesel::sql_query(format!(
        "UPDATE {} SET claim = NULL, locked_until = NULL WHERE id = $1 AND claim = $2",
        queue.table
    ))
    .bind::<BigInt, _>(id)
    .bind::<Text, _>(claim)
    .execute(conn)?;
    Ok(n == 1)
}
