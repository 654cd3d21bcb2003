//! The worker side of the one durable-job mechanism (storage's `jobs` module is the other): a
//! fixed number of threads per kind of job, each claiming one due job at a time with a lease,
//! doing it, and recording the outcome through the job's own runner. Webhook deliveries and
//! email are two runners on this loop. A slow job holds one thread for at most its timeout; the
//! others go on. On shutdown each thread finishes the job in flight (or gives an unstarted one
//! back, due again at once) and exits.

use chrono::{DateTime, Utc};
use invoicing_domain::ports::RepoResult;
use invoicing_storage::wakeup::bell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The longest an idle worker sleeps without being woken: a bound for what no bell announces
/// (a job queued by another process on SQLite, a listener that is reconnecting).
const IDLE_MAX: Duration = Duration::from_secs(30);

/// One kind of durable job.
pub trait JobRunner: Send + Sync + 'static {
    type Job: Send + Sync;
    /// Names the threads and the log lines.
    const NAME: &'static str;
    /// How long a claim lasts without renewal: how soon a job a dead process held is tried
    /// again. A live worker renews it every third of that while the job runs, however long the
    /// job takes, so it is never claimed twice while it runs.
    const LEASE: Duration;

    fn claim(&self, now: DateTime<Utc>, lease: Duration) -> RepoResult<Vec<Self::Job>>;
    /// When the next job falls due, if one is pending.
    fn next_due(&self) -> RepoResult<Option<DateTime<Utc>>>;
    /// Renews the lease of a job that is still running; `false` when its claim is gone.
    fn extend(&self, job: &Self::Job, now: DateTime<Utc>, lease: Duration) -> RepoResult<bool>;
    /// Does the job and records its outcome (conditional on the claim).
    fn run_ref(&self, job: &Self::Job);
    /// Gives a claimed job back undone.
    fn release(&self, job: &Self::Job) -> RepoResult<()>;
}

pub struct Workers {
    name: &'static str,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Workers {
    pub fn start<R: JobRunner>(runner: Arc<R>, threads: usize) -> Workers {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..threads.max(1))
            .map(|n| {
                let (runner, stop) = (runner.clone(), stop.clone());
                std::thread::Builder::new()
                    .name(format!("{}-{n}", R::NAME))
                    .spawn(move || work(&*runner, &stop))
                    .unwrap_or_else(|e| panic!("cannot start a {} worker thread: {e}", R::NAME))
            })
            .collect();
        Workers {
            name: R::NAME,
            stop,
            threads,
        }
    }

    /// Lets jobs in flight finish, then returns.
    pub fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
        for t in self.threads {
            if t.join().is_err() {
                log::error!("a {} worker panicked", self.name);
            }
        }
    }
}

/// After a ring, how many quick looks (50 ms, doubling) a worker takes before it sleeps again:
/// the bell rings while the queuing transaction is still open, and a worker that looked before
/// its commit would otherwise miss the job (PostgreSQL's notification at commit covers that
/// case too; SQLite has only this).
const LOOKS_AFTER_RING: u32 = 6;

fn work<R: JobRunner>(runner: &R, stop: &AtomicBool) {
    let bell = bell();
    let mut after_ring: Option<u32> = None;
    while !stop.load(Ordering::SeqCst) {
        // Read before looking at the queue, so a job queued meanwhile still wakes the wait.
        let seen = bell.generation();
        let jobs = match runner.claim(Utc::now(), R::LEASE) {
            Ok(jobs) => jobs,
            Err(e) => {
                log::warn!("{}: claiming jobs failed: {e}", R::NAME);
                Vec::new()
            }
        };
        if jobs.is_empty() {
            after_ring = match after_ring {
                Some(n) if n < LOOKS_AFTER_RING => {
                    pause(stop, Duration::from_millis(50 << n));
                    Some(n + 1)
                }
                _ => idle(runner, stop, seen).then_some(0),
            };
            continue;
        }
        after_ring = None;
        for job in jobs {
            if stop.load(Ordering::SeqCst) {
                if let Err(e) = runner.release(&job) {
                    log::warn!("{}: releasing a job: {e}", R::NAME);
                }
                continue;
            }
            // A job that panics must not take its thread (and with it a share of the
            // queue) down: the claim runs out and the job is tried again.
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_renewing(runner, job)
            }));
            if ran.is_err() {
                log::error!(
                    "{}: a job panicked; it will be tried again when its lease ends",
                    R::NAME
                );
            }
        }
    }
}

/// Runs the job while a helper thread renews its lease, until the job is done.
fn run_renewing<R: JobRunner>(runner: &R, job: R::Job) {
    let done = AtomicBool::new(false);
    let job = &job;
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::SeqCst) {
                pause(&done, R::LEASE / 3);
                if done.load(Ordering::SeqCst) {
                    break;
                }
                match runner.extend(job, Utc::now(), R::LEASE) {
                    Ok(true) => {}
                    Ok(false) => {
                        log::warn!("{}: a running job lost its claim", R::NAME);
                        break;
                    }
                    Err(e) => log::warn!("{}: renewing a lease: {e}", R::NAME),
                }
            }
        });
        runner.run_ref(job);
        done.store(true, Ordering::SeqCst);
    });
}

/// Sleeps until the next job falls due, the bell rings, or the workers are stopped; whether the
/// bell rang.
fn idle<R: JobRunner>(runner: &R, stop: &AtomicBool, seen: u64) -> bool {
    let wait = match runner.next_due() {
        Ok(Some(at)) => (at - Utc::now()).to_std().unwrap_or(Duration::ZERO),
        Ok(None) => IDLE_MAX,
        Err(e) => {
            log::warn!("{}: reading the queue failed: {e}", R::NAME);
            Duration::from_secs(1)
        }
    };
    let until = Instant::now() + wait.min(IDLE_MAX);
    // In steps, so that a stop is seen within one (the stop does not ring the bell).
    while !stop.load(Ordering::SeqCst) && bell().generation() == seen {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        bell().wait(seen, left.min(STOP_CHECK));
    }
    bell().generation() != seen
}

/// How often a sleeping worker checks whether it was stopped.
const STOP_CHECK: Duration = Duration::from_millis(200);

fn pause(stop: &AtomicBool, total: Duration) {
    let step = Duration::from_millis(50);
    let until = Instant::now() + total;
    while Instant::now() < until && !stop.load(Ordering::SeqCst) {
        std::thread::sleep(step);
    }
}
