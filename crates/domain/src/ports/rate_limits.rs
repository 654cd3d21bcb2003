//! Rate-limit buckets shared by a fleet (SPEC §14).

use super::RepoResult;

/// What a process asks of a shared rate-limit bucket in one take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BucketTake {
    /// Requests waiting now; as many as fit are granted, the first ones first.
    pub requests: u32,
    /// Requests to grant ahead of demand, for the process to hand out during a short lease;
    /// granted only while the bucket keeps at least half its capacity after them, so spares
    /// never take what other processes' requests would need.
    pub spare: u32,
    /// The bucket refills one request per `interval` and holds `tolerance / interval + 1`.
    pub interval: std::time::Duration,
    pub tolerance: std::time::Duration,
}

/// What a take from a shared rate-limit bucket granted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Taken {
    /// Requests granted: the waiting ones first (up to `requests`), then spares.
    pub granted: u32,
    /// How far the bucket's theoretical arrival time (GCRA) is ahead of now after the
    /// decision, in seconds: 0 for a full bucket, `burst × interval` for an empty one.
    pub ahead_secs: f64,
}

/// Rate-limit buckets shared by every process on one database (GCRA: a bucket is one time).
pub trait RateLimits {
    /// Whether buckets are shared here; when not, each process limits on its own.
    fn shares_rate_limits(&self) -> bool;
    /// Takes from `bucket` what `ask` asks, as much as fits, by the database's clock, in one
    /// statement.
    fn take(&self, bucket: &str, ask: BucketTake) -> RepoResult<Taken>;
    /// Forgets buckets that are full again (they mean the same as no row); how many.
    fn purge_rate_limits(&self) -> RepoResult<usize>;
}
