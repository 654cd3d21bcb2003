//! Rate-limit buckets every process on one PostgreSQL shares (SPEC §6, §12): GCRA, one row per
//! bucket holding its theoretical arrival time, moved by one `INSERT … ON CONFLICT DO UPDATE …
//! WHERE` outside any business transaction, timed by the database's clock. A refused request
//! reads the bucket once more for the `Retry-After`. SQLite serves one process, whose limiter
//! stays in memory.

use crate::connection::Backend;
use crate::store::Store;
use diesel::prelude::*;
use diesel::sql_types::{Double, Text};
use invoicing_domain::ports::{RateLimits, RepoResult, Taken};
use std::time::Duration;

#[derive(QueryableByName)]
struct Ahead {
    #[diesel(sql_type = Double)]
    ahead: f64,
}

/// A limiter that waits must not make a request slow: when the database does not answer
/// within this, the caller limits in its own process instead.
const TAKE_LIMIT: Duration = Duration::from_secs(1);

impl RateLimits for Store {
    fn shares_rate_limits(&self) -> bool {
        self.backend() == Backend::Postgres
    }

    fn take(&self, bucket: &str, interval: Duration, tolerance: Duration) -> RepoResult<Taken> {
        self.quick(TAKE_LIMIT, |conn| {
            let taken = diesel::sql_query(
                "INSERT INTO rate_limits AS r (bucket, tat) \
                 VALUES ($1, now() + make_interval(secs => $2)) \
                 ON CONFLICT (bucket) DO UPDATE \
                 SET tat = GREATEST(r.tat, now()) + make_interval(secs => $3) \
                 WHERE GREATEST(r.tat, now()) - now() <= make_interval(secs => $4) \
                 RETURNING EXTRACT(EPOCH FROM (tat - now()))::float8 AS ahead",
            )
            .bind::<Text, _>(bucket)
            .bind::<Double, _>(interval.as_secs_f64())
            .bind::<Double, _>(interval.as_secs_f64())
            .bind::<Double, _>(tolerance.as_secs_f64())
            .get_result::<Ahead>(conn)
            .optional()?;
            if let Some(a) = taken {
                return Ok(Taken {
                    allowed: true,
                    ahead_secs: a.ahead,
                });
            }
            let refused = diesel::sql_query(
                "SELECT GREATEST(EXTRACT(EPOCH FROM (tat - now())), 0)::float8 AS ahead \
                 FROM rate_limits WHERE bucket = $1",
            )
            .bind::<Text, _>(bucket)
            .get_result::<Ahead>(conn)
            .optional()?;
            Ok(Taken {
                allowed: false,
                ahead_secs: refused.map_or(0.0, |a| a.ahead),
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
