//! The buckets every process on PostgreSQL shares, taken for a whole queue at once, with a
//! short lease of spares while a bucket is far from empty.
//!
//! While a take for a bucket is in flight, the requests that arrive for the same bucket wait,
//! and the next take asks for all of them in one statement. Each take also asks for as many
//! spares as the process served since its last take; the database grants spares only while
//! the bucket keeps half its capacity after them, and the process hands them out for
//! [`LEASE`]. A request on its own still costs one statement; under load most requests are
//! served from the lease, so the limiter's share of the database's work falls as the load
//! rises (the `get` benchmark, #20).
//!
//! Counting stays exact where it matters: a request passes only with a cell its process took
//! from the shared bucket, so the fleet never passes more than the bucket allows; a take grants
//! its waiters in the order they came. What a lease costs: a spare handed out up to [`LEASE`]
//! after it was taken passes as if it came then (at most `rate × LEASE` early), and spares a
//! process does not use within the lease are lost, only ever while the bucket is at least half
//! full.

use super::{BucketKey, Decision};
use crate::config::RateConfig;
use invoicing_domain::ports::Taken;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// How long a process may hand out spares after taking them.
pub const LEASE: Duration = Duration::from_millis(100);

/// How long a request waits for its turn at the shared bucket before its own process decides:
/// longer than a take can last (storage gives it 1 s for a connection and 1 s for the
/// statement), so a request normally has the shared bucket's answer.
const WAIT_LIMIT: Duration = Duration::from_secs(3);

/// Spares asked in one take at most.
const MAX_SPARE: u32 = 10_000;

/// Buckets kept at most before idle ones are swept.
const SWEEP_AT: usize = 10_000;

/// One take from the shared bucket named by the first argument, for the waiting requests and
/// spares of the second and third, at the fourth's rate; `None` when it could not answer (the
/// caller then limits in its own process).
pub type TakeShared = Arc<
    dyn Fn(String, u32, u32, RateConfig) -> Pin<Box<dyn Future<Output = Option<Taken>>>>
        + Send
        + Sync,
>;

type Waiter = oneshot::Sender<Option<Decision>>;

/// A bucket as this process sees it.
struct Bucket {
    rate: RateConfig,
    waiting: Vec<Waiter>,
    /// Whether a drain is running for this bucket (then it answers `waiting`).
    draining: bool,
    /// Spares left to hand out until `lease_until`, with the bucket as the take left it.
    spares: u32,
    lease_until: Instant,
    ahead_secs: f64,
    /// Requests passed since the last take: how many spares the next one asks for.
    served: u32,
}

impl Bucket {
    fn new(rate: RateConfig, now: Instant) -> Self {
        Bucket {
            rate,
            waiting: Vec::new(),
            draining: false,
            spares: 0,
            lease_until: now,
            ahead_secs: 0.0,
            served: 0,
        }
    }

    /// Passes a request with a spare, if one is left and its lease still runs.
    fn hand_out(&mut self, now: Instant) -> Option<Decision> {
        if self.spares == 0 || now >= self.lease_until {
            self.spares = 0;
            return None;
        }
        self.spares -= 1;
        self.served = self.served.saturating_add(1);
        // The spares still held count as room in the bucket.
        let interval = super::gcra(self.rate).0.as_secs_f64();
        let ahead = self.ahead_secs - f64::from(self.spares) * interval;
        Some(Decision::from_shared(self.rate, true, ahead))
    }

    /// Passes queued requests on spares, in the order they came, while spares last; forgets
    /// requests that are gone (they gave up waiting, or their client left), so that nothing
    /// is taken for them.
    fn pass_waiting(&mut self, now: Instant) {
        let mut still = Vec::new();
        for waiter in std::mem::take(&mut self.waiting) {
            if waiter.is_closed() {
                continue;
            }
            if still.is_empty() {
                if let Some(decision) = self.hand_out(now) {
                    // Gone since the check above: the spare is lost, as an unused one is.
                    let _ = waiter.send(Some(decision));
                    continue;
                }
            }
            still.push(waiter);
        }
        self.waiting = still;
    }

    /// Nobody waits and the last lease has run out: the bucket can be forgotten. Until then
    /// it remembers how many requests passed, which sizes the next take's spares.
    fn idle(&self, now: Instant) -> bool {
        !self.draining && now >= self.lease_until
    }
}

/// The buckets this process has used lately.
#[derive(Default, Clone)]
pub struct SharedBuckets {
    buckets: Arc<Mutex<HashMap<String, Bucket>>>,
}

impl SharedBuckets {
    /// This request's decision from `key`'s shared bucket: at once from a lease, else after
    /// the take it joins; `None` when the bucket could not answer.
    pub async fn check(
        &self,
        key: BucketKey,
        rate: RateConfig,
        take: &TakeShared,
    ) -> Option<Decision> {
        let name = key.shared_name();
        let now = Instant::now();
        let (sender, receiver) = oneshot::channel();
        {
            let mut buckets = self.lock();
            if buckets.len() >= SWEEP_AT {
                buckets.retain(|_, b| !b.idle(now));
            }
            let bucket = buckets
                .entry(name.clone())
                .or_insert_with(|| Bucket::new(rate, now));
            bucket.rate = rate;
            // Spares go to those already waiting first.
            if bucket.waiting.is_empty() {
                if let Some(decision) = bucket.hand_out(now) {
                    return Some(decision);
                }
            }
            bucket.waiting.push(sender);
            if !bucket.draining {
                bucket.draining = true;
                let drain = Drain {
                    buckets: self.clone(),
                    name,
                    take: take.clone(),
                    finished: false,
                };
                actix_web::rt::spawn(drain.run());
            }
        }
        // The take itself gives up after a second (storage's limit); this bounds the wait for
        // the blocking pool and for a take in flight before it too.
        match actix_web::rt::time::timeout(WAIT_LIMIT, receiver).await {
            Ok(answer) => answer.ok().flatten(),
            Err(_) => None,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Bucket>> {
        self.buckets.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Takes for one bucket until nobody waits. Dropped half-way (the runtime stopping), it still
/// forgets the bucket, so no later request waits on a take nobody runs.
struct Drain {
    buckets: SharedBuckets,
    name: String,
    take: TakeShared,
    /// Set once the bucket was left with nobody waiting.
    finished: bool,
}

/// One take's worth: the rate, the requests waiting, and the spares to ask for.
type Batch = (RateConfig, Vec<Waiter>, u32);

impl Drain {
    async fn run(mut self) {
        loop {
            let Some((rate, waiting, spare)) = self.next_batch() else {
                self.finished = true;
                return;
            };
            let asked = u32::try_from(waiting.len()).unwrap_or(u32::MAX);
            // The lease runs from when the spares may have been taken, not from the answer.
            let asked_at = Instant::now();
            let taken = (self.take)(self.name.clone(), asked, spare, rate).await;
            self.settle(rate, taken, waiting, asked_at);
        }
    }

    /// The requests waiting now that no spare can pass, or `None` (the drain ends) when there
    /// are none.
    fn next_batch(&self) -> Option<Batch> {
        let now = Instant::now();
        let mut buckets = self.buckets.lock();
        let bucket = buckets.get_mut(&self.name)?;
        bucket.pass_waiting(now);
        if bucket.waiting.is_empty() {
            bucket.draining = false;
            if bucket.idle(now) {
                buckets.remove(&self.name);
            }
            return None;
        }
        if now >= bucket.lease_until {
            // Demand from before the last lease ran out says nothing about now.
            bucket.served = 0;
        }
        let spare = std::mem::take(&mut bucket.served).min(MAX_SPARE);
        let waiting = std::mem::take(&mut bucket.waiting);
        Some((bucket.rate, waiting, spare))
    }

    /// Answers a take's waiters, keeps its spares for the lease, and passes those who came
    /// meanwhile on them.
    fn settle(
        &self,
        rate: RateConfig,
        taken: Option<Taken>,
        waiting: Vec<Waiter>,
        asked_at: Instant,
    ) {
        let count = waiting.len();
        for (decision, waiter) in decide(rate, taken, count).into_iter().zip(waiting) {
            let _ = waiter.send(decision);
        }
        let Some(taken) = taken else { return };
        let granted = usize::try_from(taken.granted).unwrap_or(usize::MAX);
        let passed = granted.min(count);
        let mut buckets = self.buckets.lock();
        if let Some(bucket) = buckets.get_mut(&self.name) {
            bucket.served = bucket
                .served
                .saturating_add(u32::try_from(passed).unwrap_or(u32::MAX));
            bucket.spares = u32::try_from(granted - passed).unwrap_or(0);
            bucket.lease_until = asked_at + LEASE;
            bucket.ahead_secs = taken.ahead_secs;
            bucket.pass_waiting(Instant::now());
        }
    }
}

impl Drop for Drain {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        // Stopped half-way: the waiters' senders go with the bucket, so they get `None`.
        self.buckets.lock().remove(&self.name);
    }
}

/// Each of `count` waiting requests' decision from one take: the first ones granted pass, each
/// seeing the bucket as if they had come one by one before the spares were taken; the rest
/// are refused with the bucket as it is now.
fn decide(rate: RateConfig, taken: Option<Taken>, count: usize) -> Vec<Option<Decision>> {
    let Some(taken) = taken else {
        return vec![None; count];
    };
    let interval = super::gcra(rate).0.as_secs_f64();
    let granted = usize::try_from(taken.granted).unwrap_or(usize::MAX);
    let passed = granted.min(count);
    (0..count)
        .map(|i| {
            Some(if i < passed {
                // Request i left the bucket `granted - 1 - i` intervals less far ahead.
                let later = (granted - 1 - i) as f64 * interval;
                Decision::from_shared(rate, true, taken.ahead_secs - later)
            } else {
                Decision::from_shared(rate, false, taken.ahead_secs)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEN: RateConfig = RateConfig {
        per_minute: 60,
        burst: 10,
    };
    const THOUSAND: RateConfig = RateConfig {
        per_minute: 60,
        burst: 1000,
    };

    type Asked = Arc<Mutex<Vec<(u32, u32)>>>;

    /// A bucket of `capacity` at one request a second in memory, granting as the database does
    /// (spares only while half stays), that records what each take asked for; the first take
    /// waits for `gate`, so requests pile up behind it.
    fn bucket(capacity: u32, gate: Option<oneshot::Receiver<()>>) -> (TakeShared, Asked) {
        let asked = Arc::new(Mutex::new(Vec::new()));
        let gate = Arc::new(Mutex::new(gate));
        let left = Arc::new(Mutex::new(capacity));
        let record = asked.clone();
        let take: TakeShared = Arc::new(move |_name, requests, spare, _rate| {
            let (record, gate, left) = (record.clone(), gate.clone(), left.clone());
            Box::pin(async move {
                let first = gate.lock().unwrap().take();
                if let Some(gate) = first {
                    gate.await.unwrap();
                }
                record.lock().unwrap().push((requests, spare));
                let mut left = left.lock().unwrap();
                let spares = spare.min(left.saturating_sub(requests + capacity.div_ceil(2)));
                let granted = (requests + spares).min(*left);
                *left -= granted;
                Some(Taken {
                    granted,
                    ahead_secs: f64::from(capacity - *left),
                })
            })
        });
        (take, asked)
    }

    async fn check(buckets: &SharedBuckets, rate: RateConfig, take: &TakeShared) -> Decision {
        buckets
            .check(BucketKey::ApiKey(1), rate, take)
            .await
            .unwrap()
    }

    /// A take held open, and `queued` requests waiting behind it on a bucket of ten.
    struct Pileup {
        open: oneshot::Sender<()>,
        first: actix_web::rt::task::JoinHandle<Decision>,
        queued: Vec<actix_web::rt::task::JoinHandle<Decision>>,
        asked: Asked,
        buckets: SharedBuckets,
    }

    async fn pile_up(queued: usize) -> Pileup {
        let (open, gate) = oneshot::channel();
        let (take, asked) = bucket(10, Some(gate));
        let buckets = SharedBuckets::default();
        let spawn = || {
            let (buckets, take) = (buckets.clone(), take.clone());
            actix_web::rt::spawn(async move { check(&buckets, TEN, &take).await })
        };
        let first = spawn();
        actix_web::rt::task::yield_now().await;
        let queued = (0..queued).map(|_| spawn()).collect();
        for _ in 0..4 {
            actix_web::rt::task::yield_now().await;
        }
        Pileup {
            open,
            first,
            queued,
            asked,
            buckets,
        }
    }

    /// Twenty-four requests that arrive while the first take is in flight are taken by one
    /// statement; the bucket of ten grants ten in all, the first nine of the queue in order,
    /// each told what it left.
    #[actix_web::test]
    async fn requests_waiting_on_a_take_join_the_next_one() {
        let Pileup {
            open,
            first,
            queued,
            asked,
            buckets,
        } = pile_up(24).await;
        open.send(()).unwrap();
        let first = first.await.unwrap();
        assert!(first.allowed);
        assert_eq!(first.remaining, 9);
        let mut decisions = Vec::new();
        for handle in queued {
            decisions.push(handle.await.unwrap());
        }
        // The second take asks for one spare (one request passed since the first); the
        // bucket keeps half of itself back from spares, so none is granted.
        assert_eq!(*asked.lock().unwrap(), vec![(1, 0), (24, 1)]);
        let remaining: Vec<u32> = decisions
            .iter()
            .filter(|d| d.allowed)
            .map(|d| d.remaining)
            .collect();
        assert_eq!(remaining, vec![8, 7, 6, 5, 4, 3, 2, 1, 0]);
        assert!(decisions[9..]
            .iter()
            .all(|d| !d.allowed && d.retry_after == 1));
        assert!(buckets
            .lock()
            .values()
            .all(|b| !b.draining && b.waiting.is_empty()));
    }

    /// With room in the bucket, each take asks for as many spares as requests passed since
    /// the one before, and requests pass on those without a take: twenty requests, six takes,
    /// and every answer counts down as if each had gone to the bucket.
    #[actix_web::test]
    async fn spares_pass_requests_without_a_take() {
        let (take, asked) = bucket(1000, None);
        let buckets = SharedBuckets::default();
        let mut remaining = Vec::new();
        for _ in 0..20 {
            let decision = check(&buckets, THOUSAND, &take).await;
            assert!(decision.allowed);
            remaining.push(decision.remaining);
        }
        assert_eq!(
            *asked.lock().unwrap(),
            vec![(1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5)]
        );
        assert_eq!(remaining, (980..1000).rev().collect::<Vec<u32>>());
    }

    /// Spares not handed out within the lease are dropped: the next request takes again.
    #[actix_web::test]
    async fn spares_expire_with_their_lease() {
        let (take, asked) = bucket(1000, None);
        let buckets = SharedBuckets::default();
        check(&buckets, THOUSAND, &take).await;
        check(&buckets, THOUSAND, &take).await;
        assert_eq!(buckets.lock().values().next().unwrap().spares, 1);
        actix_web::rt::time::sleep(LEASE + Duration::from_millis(20)).await;
        check(&buckets, THOUSAND, &take).await;
        // Nor is the demand behind them remembered: the third take asks for no spare.
        assert_eq!(*asked.lock().unwrap(), vec![(1, 0), (1, 1), (1, 0)]);
    }

    /// Requests that stopped waiting (their client left) are not taken for.
    #[actix_web::test]
    async fn requests_gone_are_not_taken_for() {
        let Pileup {
            open,
            first,
            queued,
            asked,
            ..
        } = pile_up(3).await;
        queued[0].abort();
        queued[2].abort();
        actix_web::rt::task::yield_now().await;
        open.send(()).unwrap();
        assert!(first.await.unwrap().allowed);
        let mut queued = queued.into_iter();
        let (_, kept, _) = (queued.next(), queued.next().unwrap(), queued.next());
        assert!(kept.await.unwrap().allowed);
        assert_eq!(*asked.lock().unwrap(), vec![(1, 0), (1, 1)]);
    }

    /// A bucket that cannot answer answers `None` to everyone waiting, and leaves no bucket
    /// behind for the next request to wait on.
    #[actix_web::test]
    async fn a_failed_take_answers_none_and_leaves_no_queue() {
        let take: TakeShared = Arc::new(|_name, _requests, _spare, _rate| Box::pin(async { None }));
        let buckets = SharedBuckets::default();
        for _ in 0..2 {
            assert_eq!(buckets.check(BucketKey::ApiKey(1), TEN, &take).await, None);
        }
        assert!(buckets.lock().is_empty());
    }
}
