//! The threads that run requests' storage calls: as many as the database pool has connections,
//! each taking the next call as soon as it finishes one, first come, first served.
//!
//! On actix's blocking pool every call took a thread of its own and then waited in the pool
//! for a connection: a saturated server kept a thread per request, each woken to start, put to
//! sleep for a connection, woken again, on the two cores it shares with the database, and the
//! pool served its waiters in no particular order. Here a busy thread goes from one call to the
//! next without sleeping, and calls wait in one queue without a thread. Measured on the list at
//! a million invoices and on get: docs/BENCHMARKS.md (2026-11-27).

use actix_web::rt::time::timeout;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// A handle on the threads; they end once every handle is dropped and the queue is empty.
#[derive(Clone)]
pub struct StorageThreads(Arc<Handle>);

/// Why a call gave no answer.
#[derive(Debug, PartialEq, Eq)]
pub enum NotRun {
    /// It did not start within its turn (and will not run).
    NoTurn,
    /// It started but did not finish within its limit (it finishes in the background).
    TooSlow,
    /// It panicked.
    Failed,
}

struct Handle {
    queue: Arc<Queue>,
}

struct Queue {
    state: Mutex<State>,
    ready: Condvar,
}

struct State {
    calls: VecDeque<Call>,
    closed: bool,
}

/// Runs the call and sends its answer (or nothing, when no one waits for it any more).
type Call = Box<dyn FnOnce() + Send>;

impl StorageThreads {
    /// Starts `threads` threads.
    pub fn start(threads: usize) -> std::io::Result<StorageThreads> {
        let queue = Arc::new(Queue {
            state: Mutex::new(State {
                calls: VecDeque::new(),
                closed: false,
            }),
            ready: Condvar::new(),
        });
        for i in 0..threads.max(1) {
            let queue = queue.clone();
            std::thread::Builder::new()
                .name(format!("storage-{i}"))
                .spawn(move || queue.work())?;
        }
        Ok(StorageThreads(Arc::new(Handle { queue })))
    }

    /// Runs `f` on one of the threads once every call queued before it has started: waits at
    /// most `turn` for it to start, then at most what is left of `limit` for its answer. A
    /// call that has not started when its turn runs out never runs.
    pub async fn run<T, F>(&self, turn: Duration, limit: Duration, f: F) -> Result<T, NotRun>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let queued = Instant::now();
        // Who moved first: the thread starting the call, or its caller giving up on it. One
        // wake-up per call (the answer), where a "started" message would cost a second.
        let state = Arc::new(AtomicU8::new(QUEUED));
        let (answer, mut answered) = oneshot::channel();
        let claimed = state.clone();
        self.0.queue.push(Box::new(move || {
            if claimed
                .compare_exchange(QUEUED, STARTED, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                let _ = answer.send(catch_unwind(AssertUnwindSafe(f)).map_err(|_| NotRun::Failed));
            }
        }));
        let first = turn.min(limit);
        let answer = match timeout(first, &mut answered).await {
            Ok(answer) => answer,
            Err(_) => {
                let gave_up = state
                    .compare_exchange(QUEUED, ABANDONED, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok();
                if gave_up {
                    return Err(NotRun::NoTurn);
                }
                match timeout(limit.saturating_sub(queued.elapsed()), answered).await {
                    Ok(answer) => answer,
                    Err(_) => return Err(NotRun::TooSlow),
                }
            }
        };
        // Dropped unanswered only by a panic past `catch_unwind`, which cannot happen.
        answer.unwrap_or(Err(NotRun::Failed))
    }
}

const QUEUED: u8 = 0;
const STARTED: u8 = 1;
const ABANDONED: u8 = 2;

impl Queue {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Pushing and popping leave the state whole; calls run outside the lock.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn push(&self, call: Call) {
        self.lock().calls.push_back(call);
        self.ready.notify_one();
    }

    fn work(&self) {
        loop {
            let call = {
                let mut state = self.lock();
                loop {
                    if let Some(call) = state.calls.pop_front() {
                        break call;
                    }
                    if state.closed {
                        return;
                    }
                    state = self.ready.wait(state).unwrap_or_else(|p| p.into_inner());
                }
            };
            call();
        }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.queue.lock().closed = true;
        self.queue.ready.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::mpsc;

    const LONG: Duration = Duration::from_secs(5);

    /// With every thread busy, calls start in the order they were made.
    #[actix_web::test]
    async fn calls_start_in_the_order_they_were_made() {
        let threads = StorageThreads::start(1).unwrap();
        let (release, gate) = mpsc::channel::<()>();
        let blocker = threads.run(LONG, LONG, move || gate.recv().is_ok());
        let order = Arc::new(Mutex::new(Vec::new()));
        let calls = (0..5).map(|i| {
            let order = order.clone();
            threads.run(LONG, LONG, move || order.lock().unwrap().push(i))
        });
        let all = futures_util::future::join_all(calls);
        let releaser = async {
            actix_web::rt::time::sleep(Duration::from_millis(50)).await;
            release.send(()).unwrap();
        };
        let (blocked, answers, ()) = futures_util::future::join3(blocker, all, releaser).await;
        assert_eq!(blocked, Ok(true));
        assert!(answers.iter().all(Result::is_ok));
        assert_eq!(*order.lock().unwrap(), vec![0, 1, 2, 3, 4]);
    }

    /// A call that cannot start within its turn is answered `NoTurn` and never runs; one that
    /// starts but outlasts its limit is `TooSlow`.
    #[actix_web::test]
    async fn calls_wait_no_longer_than_their_turn_and_limit() {
        let threads = StorageThreads::start(1).unwrap();
        let ran = Arc::new(AtomicBool::new(false));
        let slow = threads.run(LONG, Duration::from_millis(200), || {
            std::thread::sleep(Duration::from_millis(400))
        });
        let late = {
            let ran = ran.clone();
            threads.run(Duration::from_millis(50), LONG, move || {
                ran.store(true, Ordering::SeqCst)
            })
        };
        let (slow, late) = futures_util::future::join(slow, late).await;
        assert_eq!((slow, late), (Err(NotRun::TooSlow), Err(NotRun::NoTurn)));
        // The thread is free again once the slow call ends; the late call was dropped.
        assert_eq!(threads.run(LONG, LONG, || 7).await, Ok(7));
        assert!(
            !ran.load(Ordering::SeqCst),
            "a call past its turn never runs"
        );
    }

    /// A call that panics is answered `Failed`; its thread goes on to the next call.
    #[actix_web::test]
    async fn a_panicking_call_leaves_its_thread_working() {
        let threads = StorageThreads::start(1).unwrap();
        let failed = threads.run(LONG, LONG, || -> u8 { panic!("a failing call") });
        assert_eq!(failed.await, Err(NotRun::Failed));
        assert_eq!(threads.run(LONG, LONG, || 1).await, Ok(1));
    }

    /// The threads end once the last handle is gone.
    #[actix_web::test]
    async fn the_threads_end_with_their_last_handle() {
        let threads = StorageThreads::start(2).unwrap();
        let queue = Arc::downgrade(&threads.0.queue);
        let copy = threads.clone();
        drop(threads);
        assert_eq!(
            copy.run(LONG, LONG, || 2).await,
            Ok(2),
            "a copy still works"
        );
        drop(copy);
        for _ in 0..500 {
            if queue.upgrade().is_none() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("the threads still hold their queue");
    }
}
