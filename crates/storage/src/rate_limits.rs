//! Rate-limit buckets every process on one PostgreSQL shares (SPEC §6, §12): GCRA, one row per
//! bucket holding its theoretical arrival time, moved by one `INSERT … ON CONFLICT DO UPDATE`
//! outside any business transaction, timed by the database's clock. One statement takes every
//! request a process has waiting on the bucket and grants as many as fit; a refusal is the
//! same statement granting none, so it also reads how long to wait. SQLite serves one process,
//! whose limiter stays in memory.

use crate::connection::Backend;
use crate::store::Store;
use diesel::prelude::*;
use diesel::sql_types::{Double, Integer, Text};
use invoicing_domain::ports::{RateLimits, RepoResult, Taken};
use std::sync::LazyLock;
use std::time::Duration;

#[derive(QueryableByName)]
struct Granted {
    #[diesel(sql_type = Integer)]
    granted: i32,
    #[diesel(sql_type = Double)]
    ahead: f64,
}

/// A limiter that waits must not make a request slow: when the database does not answer
/// within this, the caller limits in its own process instead.
const TAKE_LIMIT: Duration = Duration::from_secs(1);

/// GCRA for `$2` requests at once: with the bucket `ahead` seconds ahead of now (never less
/// than 0), request j (from 0) fits when `ahead + j × interval ≤ tolerance`. A microsecond of
/// slack absorbs the rounding of timestamps, which are kept to the microsecond.
const GRANTED: &str = "GREATEST(0, LEAST($2, \
     floor(($4 - EXTRACT(EPOCH FROM GREATEST(r.tat, now()) - now()) + 0.000001) / $3) + 1))";

impl RateLimits for Store {
    fn shares_rate_limits(&self) -> bool {
        self.backend() == Backend::Postgres
    }

    fn take(
        &self,
        bucket: &str,
        requests: u32,
        interval: Duration,
        tolerance: Duration,
    ) -> RepoResult<Taken> {
        let requests = i32::try_from(requests).unwrap_or(i32::MAX);
        static SQL: LazyLock<String> = LazyLock::new(|| {
            format!(
            "INSERT INTO rate_limits AS r (bucket, tat, granted) \
             VALUES ($1, now() + make_interval(secs => $3 * LEAST($2, floor($4 / $3 + 0.000001) + 1)), \
                     LEAST($2, floor($4 / $3 + 0.000001) + 1)) \
             ON CONFLICT (bucket) DO UPDATE \
             SET granted = {GRANTED}, \
                 tat = GREATEST(r.tat, now()) + make_interval(secs => $3 * {GRANTED}) \
             RETURNING granted, EXTRACT(EPOCH FROM (tat - now()))::float8 AS ahead"
            )
        });
        self.quick(TAKE_LIMIT, |conn| {
            let row = diesel::sql_query(SQL.as_str())
                .bind::<Text, _>(bucket)
                .bind::<Integer, _>(requests)
                .bind::<Double, _>(interval.as_secs_f64())
                .bind::<Double, _>(tolerance.as_secs_f64())
                .get_result::<Granted>(conn)?;
            Ok(Taken {
                granted: u32::try_from(row.granted).unwrap_or(0),
                ahead_secs: row.ahead.max(0.0),
            })
        })
    }

    fn purge_rate_limits(&self) -> RepoResult<usize> {
        if !self.shares_rate_limits() {
            return Ok(0);
        }
        self.read(|conn| {
            Ok(diesel::sql_query("DELETE FROM rate_limits WHERE tat < now()").execute(conn)?)
        })
    }
}
