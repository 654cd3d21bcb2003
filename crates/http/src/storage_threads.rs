//! The threads that run requests' storage calls: as many as the database pool has connections,
//! each taking the next call as soon as it finishes one, first come, first served.
//!
//! On actix's blocking pool every call took a thread of its own and then waited in the pool
//! for a connection: a saturated server kept a thread per request, each woken to start, put to
//! sleep for a connection, woken again, on the two cores it shares with the database, and the
//! pool served its waiters in no particular order. Here a busy thread goes from one call to the
//! next without sleeping, and calls wait in one queue without a thread. Measured on the list at
//! a million invoices and on get: docs/BENCHMARKS.md (2026-11-27).
//!
//! Calls of one kind may also wait in a [`Batch`], whose rounds take every key waiting at once
//! (one statement for many gets); a round takes its turn in the same queue.

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
        let (answer, answered) = oneshot::channel();
        let claimed = state.clone();
        self.0.queue.push(Box::new(move || {
            if claimed
                .compare_exchange(QUEUED, STARTED, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                let _ = answer.send(catch_unwind(AssertUnwindSafe(f)).map_err(|_| NotRun::Failed));
            }
        }));
        awaited(queued, &state, answered, turn, limit).await
    }

    /// Answers `key` from `batch`: with the keys asked of it while its last round ran, in one
    /// call of its `answer_all` on one of the threads; the turn and limit as for [`Self::run`]
    /// (the turn ends when a round takes the key). At most `rounds` (the batch's) rounds run at
    /// once, each taking every key waiting when it starts, so under load the keys wait in the
    /// batch, not in the queue, and one round answers many.
    pub async fn run_batched<K, A>(
        &self,
        batch: &Arc<Batch<K, A>>,
        key: K,
        turn: Duration,
        limit: Duration,
    ) -> Result<A, NotRun>
    where
        K: Send + 'static,
        A: Send + 'static,
    {
        let queued = Instant::now();
        let state = Arc::new(AtomicU8::new(QUEUED));
        let (answer, answered) = oneshot::channel();
        let start_round = {
            let mut gathered = batch.lock();
            gathered.waiting.push(Waiting {
                key,
                state: state.clone(),
                answer,
            });
            let start = gathered.rounds < batch.rounds;
            gathered.rounds += usize::from(start);
            start
        };
        if start_round {
            Batch::queue_round(batch.clone(), self.0.queue.clone());
        }
        awaited(queued, &state, answered, turn, limit).await
    }
}

/// Waits for a call's answer: at most `turn` for it to start (else it never does), then what
/// is left of `limit`.
async fn awaited<A>(
    queued: Instant,
    state: &AtomicU8,
    mut answered: oneshot::Receiver<Result<A, NotRun>>,
    turn: Duration,
    limit: Duration,
) -> Result<A, NotRun> {
    let answer = match timeout(turn.min(limit), &mut answered).await {
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

/// Calls of one kind answered together: the keys waiting when a round starts go to one call
/// of `answer_all` (one statement instead of one each, and one thread's trip to the database).
pub struct Batch<K, A> {
    gathered: Mutex<Gathered<K, A>>,
    /// Answers every key, in their order.
    answer_all: Box<dyn Fn(Vec<K>) -> Vec<A> + Send + Sync>,
    /// How many rounds may run (or wait for a thread) at once.
    rounds: usize,
}

struct Gathered<K, A> {
    waiting: Vec<Waiting<K, A>>,
    rounds: usize,
}

struct Waiting<K, A> {
    key: K,
    state: Arc<AtomicU8>,
    answer: oneshot::Sender<Result<A, NotRun>>,
}

impl<K, A> Batch<K, A> {
    /// `answer_all` must answer every key it is given, in their order.
    pub fn new(
        rounds: usize,
        answer_all: impl Fn(Vec<K>) -> Vec<A> + Send + Sync + 'static,
    ) -> Batch<K, A> {
        Batch {
            gathered: Mutex::new(Gathered {
                waiting: Vec::new(),
                rounds: 0,
            }),
            answer_all: Box::new(answer_all),
            rounds: rounds.max(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Gathered<K, A>> {
        // Pushing and taking leave the list whole; rounds run outside the lock.
        self.gathered.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues a round of the batch behind the calls already waiting for a thread.
    fn queue_round(batch: Arc<Self>, queue: Arc<Queue>)
    where
        K: Send + 'static,
        A: Send + 'static,
    {
        let next = queue.clone();
        queue.push(Box::new(move || batch.round(next)));
    }

    /// Answers the keys waiting, round after round, until none waits; when calls wait for a
    /// thread, the next round queues behind them, so keys asked all the time never keep a
    /// thread from other calls.
    fn round(self: Arc<Self>, queue: Arc<Queue>)
    where
        K: Send + 'static,
        A: Send + 'static,
    {
        while let Some(waiting) = self.take_or_end() {
            self.answer(waiting);
            if queue.has_calls() {
                Batch::queue_round(self, queue);
                return;
            }
        }
    }

    fn answer(&self, waiting: Vec<Waiting<K, A>>) {
        // Keys whose callers gave up on their turn are left out, as a late call never runs.
        let (keys, answers): (Vec<K>, Vec<_>) = waiting
            .into_iter()
            .filter(|w| {
                w.state
                    .compare_exchange(QUEUED, STARTED, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
            })
            .map(|w| (w.key, w.answer))
            .unzip();
        let asked = keys.len();
        if asked == 0 {
            return;
        }
        match catch_unwind(AssertUnwindSafe(|| (self.answer_all)(keys))) {
            Ok(answered) if answered.len() == asked => {
                for (answer, a) in answers.into_iter().zip(answered) {
                    let _ = answer.send(Ok(a));
                }
            }
            _ => {
                for answer in answers {
                    let _ = answer.send(Err(NotRun::Failed));
                }
            }
        }
    }

    /// The keys waiting, or `None` when none is: the round then ends (under the same lock a
    /// new key looks for a running round).
    fn take_or_end(&self) -> Option<Vec<Waiting<K, A>>> {
        let mut gathered = self.lock();
        if gathered.waiting.is_empty() {
            gathered.rounds -= 1;
            return None;
        }
        Some(std::mem::take(&mut gathered.waiting))
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

    fn has_calls(&self) -> bool {
        !self.lock().calls.is_empty()
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

    /// Keys asked while a round runs wait for the next, and one call answers them all, each
    /// its own answer, after the calls queued meanwhile; a key whose caller gave up on its
    /// turn is never asked.
    #[actix_web::test]
    async fn a_batch_answers_the_keys_gathered_while_its_round_ran() {
        let threads = StorageThreads::start(1).unwrap();
        let (release, gate) = mpsc::channel::<()>();
        let gate = Mutex::new(gate);
        let started = Arc::new(AtomicBool::new(false));
        let rounds = Arc::new(Mutex::new(Vec::new()));
        let (seen, first_started) = (rounds.clone(), started.clone());
        let batch = Arc::new(Batch::new(1, move |keys: Vec<u32>| {
            if keys.contains(&0) {
                first_started.store(true, Ordering::SeqCst);
                let _ = gate.lock().unwrap().recv();
            }
            seen.lock().unwrap().push(keys.clone());
            keys.iter().map(|k| k * 10).collect::<Vec<_>>()
        }));
        let first = threads.run_batched(&batch, 0, LONG, LONG);
        let late = async {
            while !started.load(Ordering::SeqCst) {
                actix_web::rt::time::sleep(Duration::from_millis(5)).await;
            }
            let abandoned = threads.run_batched(&batch, 9, Duration::from_millis(20), LONG);
            let rest = futures_util::future::join_all(
                (1..4).map(|k| threads.run_batched(&batch, k, LONG, LONG)),
            );
            let plain = {
                let order = rounds.clone();
                threads.run(LONG, LONG, move || order.lock().unwrap().push(vec![100]))
            };
            let releaser = async {
                actix_web::rt::time::sleep(Duration::from_millis(80)).await;
                release.send(()).unwrap();
            };
            let (abandoned, rest, (plain, ())) = futures_util::future::join3(
                abandoned,
                rest,
                futures_util::future::join(plain, releaser),
            )
            .await;
            assert_eq!(plain, Ok(()));
            (abandoned, rest)
        };
        let (first, (abandoned, rest)) = futures_util::future::join(first, late).await;
        assert_eq!(first, Ok(0));
        assert_eq!(abandoned, Err(NotRun::NoTurn));
        assert_eq!(rest, vec![Ok(10), Ok(20), Ok(30)]);
        // A call that came during the first round ran before the second: keys asked all the
        // time do not keep a thread from other calls.
        assert_eq!(
            *rounds.lock().unwrap(),
            vec![vec![0], vec![100], vec![1, 2, 3]]
        );
        // The batch ends its rounds once no key waits, and starts one for the next key.
        assert_eq!(threads.run_batched(&batch, 5, LONG, LONG).await, Ok(50));
    }

    /// A round that panics, or answers the wrong number of keys, answers each of its keys
    /// `Failed`; the batch goes on answering.
    #[actix_web::test]
    async fn a_failed_round_fails_its_keys_only() {
        let threads = StorageThreads::start(1).unwrap();
        let batch = Arc::new(Batch::new(1, |keys: Vec<u32>| match keys[0] {
            0 => panic!("a failing round"),
            1 => Vec::new(),
            _ => keys,
        }));
        assert_eq!(
            threads.run_batched(&batch, 0, LONG, LONG).await,
            Err(NotRun::Failed)
        );
        assert_eq!(
            threads.run_batched(&batch, 1, LONG, LONG).await,
            Err(NotRun::Failed)
        );
        assert_eq!(threads.run_batched(&batch, 2, LONG, LONG).await, Ok(2));
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
