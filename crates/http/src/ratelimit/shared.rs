//! The buckets every process on PostgreSQL shares, taken for a whole queue at once.
//!
//! While a take for a bucket is in flight, the requests that arrive for the same bucket wait,
//! and the next take asks for all of them in one statement. A request on its own still costs
//! one statement; under load one statement serves every request waiting at that moment, so the
//! limiter's share of the database's work falls as the load rises (the `get` benchmark, #20).
//! Counting stays exact across the fleet: a request passes only with a cell its process took
//! from the shared bucket for it, and a take grants its waiters in the order they came.

use super::{BucketKey, Decision};
use crate::config::RateConfig;
use invoicing_domain::ports::Taken;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::oneshot;

/// One take from the shared bucket named by the first argument, for as many requests as the
/// second, at the third's rate; `None` when it could not answer (the caller then limits in
/// its own process).
pub type TakeShared = Arc<
    dyn Fn(String, u32, RateConfig) -> Pin<Box<dyn Future<Output = Option<Taken>>>> + Send + Sync,
>;

struct Queue {
    rate: RateConfig,
    waiting: Vec<oneshot::Sender<Option<Decision>>>,
}

/// The queues of the buckets with a take in flight; a bucket is here exactly while one is.
#[derive(Default, Clone)]
pub struct SharedBuckets {
    queues: Arc<Mutex<HashMap<String, Queue>>>,
}

impl SharedBuckets {
    /// Waits for this request's turn in `key`'s shared bucket; `None` when the bucket could
    /// not answer.
    pub async fn check(&self, key: BucketKey, rate: RateConfig, take: &TakeShared) -> Option<Decision> {
        let name = key.shared_name();
        let (sender, receiver) = oneshot::channel();
        let first = {
            let mut queues = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
            match queues.get_mut(&name) {
                Some(queue) => {
                    queue.waiting.push(sender);
                    false
                }
                None => {
                    queues.insert(
                        name.clone(),
                        Queue {
                            rate,
                            waiting: vec![sender],
                        },
                    );
                    true
                }
            }
        };
        if first {
            let drain = Drain {
                buckets: self.clone(),
                name,
                take: take.clone(),
                finished: false,
            };
            actix_web::rt::spawn(drain.run());
        }
        receiver.await.ok().flatten()
    }
}

/// Takes for one bucket's queue until it is empty. Dropped half-way (the runtime stopping),
/// it still removes the queue, so no later request waits on a take nobody runs.
struct Drain {
    buckets: SharedBuckets,
    name: String,
    take: TakeShared,
    /// Set when the queue was removed empty: a queue under the same name is a new drain's.
    finished: bool,
}

impl Drain {
    async fn run(mut self) {
        loop {
            let Some((rate, waiting)) = self.next_batch() else {
                self.finished = true;
                return;
            };
            let asked = u32::try_from(waiting.len()).unwrap_or(u32::MAX);
            let taken = (self.take)(self.name.clone(), asked, rate).await;
            for (decision, waiter) in decide(rate, taken, waiting.len()).into_iter().zip(waiting) {
                // A waiter that went away (its client disconnected) needs no answer.
                let _ = waiter.send(decision);
            }
        }
    }

    /// The requests waiting now, or `None` (and the queue removed) when there are none.
    fn next_batch(&self) -> Option<(RateConfig, Vec<oneshot::Sender<Option<Decision>>>)> {
        let mut queues = self.buckets.queues.lock().unwrap_or_else(PoisonError::into_inner);
        let queue = queues.get_mut(&self.name)?;
        if queue.waiting.is_empty() {
            queues.remove(&self.name);
            return None;
        }
        Some((queue.rate, std::mem::take(&mut queue.waiting)))
    }
}

impl Drop for Drain {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        // Stopped half-way: the waiters' senders go with the queue, so they get `None`.
        let mut queues = self.buckets.queues.lock().unwrap_or_else(PoisonError::into_inner);
        queues.remove(&self.name);
    }
}

/// Each of `count` requests' decision from one take: the first `granted` pass, each seeing the
/// bucket as if they had come one by one; the rest are refused with the bucket as it is now.
fn decide(rate: RateConfig, taken: Option<Taken>, count: usize) -> Vec<Option<Decision>> {
    let Some(taken) = taken else {
        return vec![None; count];
    };
    let interval = super::gcra(rate).0.as_secs_f64();
    let granted = usize::try_from(taken.granted).unwrap_or(usize::MAX).min(count);
    (0..count)
        .map(|i| {
            Some(if i < granted {
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

    const RATE: RateConfig = RateConfig {
        per_minute: 60,
        burst: 10,
    };

    /// A bucket of ten in memory that records how many each take asked for; the first take
    /// waits for `gate`, so requests pile up behind it.
    fn bucket_of_ten(gate: oneshot::Receiver<()>) -> (TakeShared, Arc<Mutex<Vec<u32>>>) {
        let asked = Arc::new(Mutex::new(Vec::new()));
        let gate = Arc::new(Mutex::new(Some(gate)));
        let left = Arc::new(Mutex::new(10u32));
        let record = asked.clone();
        let take: TakeShared = Arc::new(move |_name, requests, _rate| {
            let (record, gate, left) = (record.clone(), gate.clone(), left.clone());
            Box::pin(async move {
                let first = gate.lock().unwrap().take();
                if let Some(gate) = first {
                    gate.await.unwrap();
                }
                record.lock().unwrap().push(requests);
                let mut left = left.lock().unwrap();
                let granted = requests.min(*left);
                *left -= granted;
                Some(Taken {
                    granted,
                    ahead_secs: f64::from(10 - *left),
                })
            })
        });
        (take, asked)
    }

    /// Twenty-four requests that arrive while the first take is in flight are taken by one
    /// statement; the bucket of ten grants ten in all, the first nine of the queue in order,
    /// each told what it left.
    #[actix_web::test]
    async fn requests_waiting_on_a_take_join_the_next_one() {
        let (open, gate) = oneshot::channel();
        let (take, asked) = bucket_of_ten(gate);
        let buckets = SharedBuckets::default();
        let key = BucketKey::ApiKey(1);
        let first = {
            let (buckets, take) = (buckets.clone(), take.clone());
            actix_web::rt::spawn(async move { buckets.check(key, RATE, &take).await })
        };
        actix_web::rt::task::yield_now().await;
        let queued: Vec<_> = (0..24)
            .map(|_| {
                let (buckets, take) = (buckets.clone(), take.clone());
                actix_web::rt::spawn(async move { buckets.check(key, RATE, &take).await })
            })
            .collect();
        for _ in 0..4 {
            actix_web::rt::task::yield_now().await;
        }
        open.send(()).unwrap();
        let first = first.await.unwrap().unwrap();
        assert!(first.allowed);
        assert_eq!(first.remaining, 9);
        let mut decisions = Vec::new();
        for handle in queued {
            decisions.push(handle.await.unwrap().unwrap());
        }
        assert_eq!(*asked.lock().unwrap(), vec![1, 24]);
        let remaining: Vec<u32> = decisions
            .iter()
            .filter(|d| d.allowed)
            .map(|d| d.remaining)
            .collect();
        assert_eq!(remaining, vec![8, 7, 6, 5, 4, 3, 2, 1, 0]);
        assert!(decisions[9..].iter().all(|d| !d.allowed && d.retry_after == 1));
        assert!(buckets.queues.lock().unwrap().is_empty());
    }

    /// A bucket that cannot answer answers `None` to everyone waiting, and leaves no queue
    /// behind for the next request to wait on.
    #[actix_web::test]
    async fn a_failed_take_answers_none_and_leaves_no_queue() {
        let take: TakeShared = Arc::new(|_name, _requests, _rate| Box::pin(async { None }));
        let buckets = SharedBuckets::default();
        for _ in 0..2 {
            assert_eq!(buckets.check(BucketKey::ApiKey(1), RATE, &take).await, None);
        }
        assert!(buckets.queues.lock().unwrap().is_empty());
    }
}
