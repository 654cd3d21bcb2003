//! Rate limits (SPEC §6): per API key, per client IP for requests without a valid key, and per
//! client IP for public pages.
//!
//! On PostgreSQL the API's buckets are shared by every server on the database (GCRA in storage,
//! one statement for all the requests a process has waiting on a bucket: `shared`), so a
//! fleet holds one limit per key; this module turns the shared bucket's answer into the same
//! decision and headers. On SQLite, for public pages, and
//! whenever the shared bucket cannot answer within a second (fail open: never a 500 for a
//! limiter), the token buckets here in process memory decide.

mod shared;

pub use shared::{SharedBuckets, TakeShared};

use crate::config::RateConfig;
use actix_web::http::header::{HeaderMap, HeaderName, HeaderValue};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// What a bucket is keyed by; the variants keep the three populations apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BucketKey {
    ApiKey(i64),
    AnonymousIp(IpAddr),
    PublicIp(IpAddr),
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    updated: Instant,
}

/// The outcome of taking one token, with everything the response headers report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    pub allowed: bool,
    pub rate: RateConfig,
    /// Whole requests available now (after this one, if allowed).
    pub remaining: u32,
    /// Seconds until the bucket is full again.
    pub reset_after: u64,
    /// Seconds until one request is possible (≥ 1) when refused.
    pub retry_after: u64,
}

/// Sweeping idle buckets once the map passes this size keeps memory bounded under IP churn.
const SWEEP_AT: usize = 100_000;

#[derive(Default)]
pub struct RateLimiter {
    buckets: Mutex<HashMap<BucketKey, Bucket>>,
}

fn per_second(rate: RateConfig) -> f64 {
    f64::from(rate.per_minute.max(1)) / 60.0
}

impl RateLimiter {
    pub fn new() -> Self {
        RateLimiter::default()
    }

    pub fn check(&self, key: BucketKey, rate: RateConfig) -> Decision {
        self.check_at(key, rate, Instant::now())
    }

    pub fn check_at(&self, key: BucketKey, rate: RateConfig, now: Instant) -> Decision {
        let capacity = f64::from(rate.burst.max(1));
        let refill = per_second(rate);
        let mut buckets = match self.buckets.lock() {
            Ok(guard) => guard,
            // A panic elsewhere while holding the lock leaves counts that are still usable.
            Err(poisoned) => poisoned.into_inner(),
        };
        if buckets.len() >= SWEEP_AT {
            buckets.retain(|_, b| {
                (b.tokens + now.duration_since(b.updated).as_secs_f64() * refill) < capacity
            });
        }
        let bucket = buckets.entry(key).or_insert(Bucket {
            tokens: capacity,
            updated: now,
        });
        let elapsed = now.saturating_duration_since(bucket.updated).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * refill).min(capacity);
        bucket.updated = now;
        let allowed = bucket.tokens >= 1.0;
        if allowed {
            bucket.tokens -= 1.0;
        }
        let tokens = bucket.tokens;
        Decision {
            allowed,
            rate,
            remaining: tokens.floor().max(0.0) as u32,
            reset_after: ((capacity - tokens) / refill).ceil().max(0.0) as u64,
            retry_after: if allowed {
                0
            } else {
                ((1.0 - tokens) / refill).ceil().max(1.0) as u64
            },
        }
    }
}

impl BucketKey {
    /// The bucket's name where every process sees it.
    pub fn shared_name(self) -> String {
        match self {
            BucketKey::ApiKey(id) => format!("key:{id}"),
            BucketKey::AnonymousIp(ip) => format!("ip:{ip}"),
            BucketKey::PublicIp(ip) => format!("page:{ip}"),
        }
    }
}

/// GCRA's parameters for a rate: one request per `interval`, and a bucket of `burst`, i.e. a
/// theoretical arrival time at most `tolerance` ahead of now before a request.
pub fn gcra(rate: RateConfig) -> (Duration, Duration) {
    let interval = Duration::from_secs(60) / rate.per_minute.max(1);
    (interval, interval * (rate.burst.max(1) - 1))
}

impl Decision {
    /// The decision a shared GCRA bucket took, as the headers report it.
    pub fn from_shared(rate: RateConfig, allowed: bool, ahead_secs: f64) -> Decision {
        let (interval, tolerance) = gcra(rate);
        let (interval, tolerance) = (interval.as_secs_f64(), tolerance.as_secs_f64());
        let ahead = ahead_secs.max(0.0);
        // A whisker of slack, so that float rounding of the database's times never costs a
        // request in the count.
        let room = ((tolerance - ahead) / interval + 1e-9).floor() + 1.0;
        Decision {
            allowed,
            rate,
            remaining: if allowed {
                room.clamp(0.0, f64::from(rate.burst)) as u32
            } else {
                0
            },
            reset_after: (ahead - 1e-9).ceil().max(0.0) as u64,
            retry_after: if allowed {
                0
            } else {
                (ahead - tolerance - 1e-9).ceil().max(1.0) as u64
            },
        }
    }

    /// The SPEC §6 headers, on every API response.
    pub fn write_headers(&self, headers: &mut HeaderMap) {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or(Duration::ZERO)
            .as_secs();
        let burst_window =
            (u64::from(self.rate.burst) * 60).div_ceil(u64::from(self.rate.per_minute.max(1)));
        let pairs = [
            ("x-ratelimit-limit", self.rate.per_minute.to_string()),
            ("x-ratelimit-remaining", self.remaining.to_string()),
            ("x-ratelimit-reset", (now + self.reset_after).to_string()),
            (
                "ratelimit-policy",
                format!(
                    "\"burst\";q={};w={burst_window}, \"minute\";q={};w=60",
                    self.rate.burst, self.rate.per_minute
                ),
            ),
            (
                "ratelimit",
                format!("\"burst\";r={};t={}", self.remaining, self.reset_after),
            ),
        ];
        for (name, value) in pairs {
            if let Ok(value) = HeaderValue::from_str(&value) {
                headers.insert(HeaderName::from_static(name), value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: RateConfig = RateConfig {
        per_minute: 60,
        burst: 10,
    };

    /// The shared bucket's answers read as the in-process buckets' do: 10 in a burst with 9..0
    /// remaining, then a refusal that says retry in 1 s and full again in 10 s.
    #[test]
    fn shared_decisions_match_the_local_ones() {
        let (interval, tolerance) = gcra(RATE);
        assert_eq!(
            (interval, tolerance),
            (Duration::from_secs(1), Duration::from_secs(9))
        );
        for taken in 1..=10u32 {
            let d = Decision::from_shared(RATE, true, f64::from(taken) - 1e-7);
            assert_eq!((d.remaining, d.reset_after), (10 - taken, u64::from(taken)));
        }
        let refused = Decision::from_shared(RATE, false, 10.0);
        assert_eq!(
            (refused.remaining, refused.retry_after, refused.reset_after),
            (0, 1, 10)
        );
        let slow = RateConfig {
            per_minute: 6,
            burst: 2,
        };
        let refused = Decision::from_shared(slow, false, 19.5);
        assert_eq!(refused.retry_after, 10);
    }

    #[test]
    fn burst_then_one_per_second() {
        let limiter = RateLimiter::new();
        let key = BucketKey::ApiKey(1);
        let t0 = Instant::now();
        for i in 0..10 {
            let d = limiter.check_at(key, RATE, t0);
            assert!(d.allowed, "request {i} refused");
            assert_eq!(d.remaining, 9 - i);
        }
        let refused = limiter.check_at(key, RATE, t0);
        assert!(!refused.allowed);
        assert_eq!(refused.retry_after, 1);
        assert_eq!(refused.reset_after, 10);
        assert!(
            limiter
                .check_at(key, RATE, t0 + Duration::from_millis(1000))
                .allowed
        );
        assert!(
            !limiter
                .check_at(key, RATE, t0 + Duration::from_millis(1100))
                .allowed
        );
    }

    #[test]
    fn buckets_are_independent() {
        let limiter = RateLimiter::new();
        let t0 = Instant::now();
        let tiny = RateConfig {
            per_minute: 1,
            burst: 1,
        };
        assert!(limiter.check_at(BucketKey::ApiKey(1), tiny, t0).allowed);
        assert!(!limiter.check_at(BucketKey::ApiKey(1), tiny, t0).allowed);
        assert!(limiter.check_at(BucketKey::ApiKey(2), tiny, t0).allowed);
        let ip = "127.0.0.1".parse().unwrap();
        assert!(
            limiter
                .check_at(BucketKey::AnonymousIp(ip), tiny, t0)
                .allowed
        );
        assert!(limiter.check_at(BucketKey::PublicIp(ip), tiny, t0).allowed);
    }

    #[test]
    fn headers_follow_the_spec_shape() {
        let limiter = RateLimiter::new();
        let d = limiter.check(BucketKey::ApiKey(7), RATE);
        let mut h = HeaderMap::new();
        d.write_headers(&mut h);
        assert_eq!(h.get("x-ratelimit-limit").unwrap(), "60");
        assert_eq!(h.get("x-ratelimit-remaining").unwrap(), "9");
        assert_eq!(
            h.get("ratelimit-policy").unwrap(),
            "\"burst\";q=10;w=10, \"minute\";q=60;w=60"
        );
        assert_eq!(h.get("ratelimit").unwrap(), "\"burst\";r=9;t=1");
    }
}
