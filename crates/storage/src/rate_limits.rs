//! Rate-limit buckets every process on one PostgreSQL shares (SPEC §6, §12): GCRA, one row per
//! bucket holding its theoretical arrival time, moved by one `INSERT … ON CONFLICT DO UPDATE`
//! outside any business transaction, timed by the database's clock. One statement takes every
//! request a process has waiting on the bucket, plus spares for the process's lease while the
//! bucket is far from empty, and grants as many as fit; a refusal is the same statement
//! granting none, so it also reads how long to wait. SQLite serves one process, whose limiter
//! stays in memory.

use crate::connection::Backend;
use crate::prepared::prepared;
use crate::store::Store;
use diesel::prelude::*;
use diesel::sql_types::{Double, Integer, Text};
use invoicing_domain::ports::{BucketTake, RateLimits, RepoResult, Taken};
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

/// The take, with `$2` requests waiting, `$3` spares asked, `$4` the interval and `$5` the
/// tolerance in seconds, `$6` the requests the bucket keeps back from spares (half of it).
/// `FIT` is how many requests fit now: with the bucket `ahead` seconds ahead of now (never
/// less than 0), request j (from 0) fits when `ahead + j × interval ≤ tolerance`. A
/// microsecond of slack absorbs the rounding of timestamps, which are kept to the microsecond.
static TAKE_SQL: LazyLock<String> = LazyLock::new(|| {
    let granted = |ahead: &str| {
        let fit = format!("(floor(($5 - {ahead} + 0.000001) / $4) + 1)");
        format!("GREATEST(0, LEAST({fit}, $2 + GREATEST(0, LEAST($3, {fit} - $2 - $6))))")
    };
    let old = granted("EXTRACT(EPOCH FROM GREATEST(r.tat, now()) - now())");
    let new = granted("0");
    format!(
        "INSERT INTO rate_limits AS r (bucket, tat, granted) \
         VALUES ($1, now() + make_interval(secs => $4 * {new}), {new}) \
         ON CONFLICT (bucket) DO UPDATE \
         SET granted = {old}, tat = GREATEST(r.tat, now()) + make_interval(secs => $4 * {old}) \
         RETURNING granted, EXTRACT(EPOCH FROM (tat - now()))::float8 AS ahead"
    )
});

fn int(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

impl RateLimits for Store {
    fn shares_rate_limits(&self) -> bool {
        self.backend() == Backend::Postgres
    }

    fn take(&self, bucket: &str, ask: BucketTake) -> RepoResult<Taken> {
        let interval = ask.interval.as_secs_f64();
        let tolerance = ask.tolerance.as_secs_f64();
        // The bucket holds `tolerance / interval + 1` requests (a whole number: rounded, as the
        // division of durations may land a hair off it); spares leave half of them.
        let holds = (tolerance / interval).round() + 1.0;
        let keep = (holds / 2.0).ceil().min(f64::from(i32::MAX)) as i32;
        self.quick(TAKE_LIMIT, |conn| {
            // Prepared: planning this upsert cost the database more than running it.
            let row = prepared!(diesel::sql_query(TAKE_SQL.as_str())
                .bind::<Text, _>(bucket)
                .bind::<Integer, _>(int(ask.requests))
                .bind::<Integer, _>(int(ask.spare))
                .bind::<Double, _>(interval)
                .bind::<Double, _>(tolerance)
                .bind::<Integer, _>(keep))
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
