//! The worker side of the one durable-job mechanism (storage's `jobs` module is the other): a
//! fixed number of threads per kind of job, each claiming one due job at a time with a lease,
//! doing it, and recording the outcome through the job's own runner. Webhook deliveries and
//! email are two runners on this loop. A slow job holds one thread for at most its timeout; the
//! others go on. On shutdown each thread finishes the job in flight (or gives an unstarted one
//! back, due again at once) and exits.

use chrono::{DateTime, Utc};
use invoicing_domain::ports::RepoResult;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const IDLE_POLL: Duration = Duration::from_millis(500);

/// One kind of durable job.
pub trait JobRunner: Send + Sync + 'static {
    type Job: Send;
    /// Names the threads and the log lines.
    const NAME: &'static str;
    /// Longer than one job can take, so a live worker never loses its claim.
    const LEASE: Duration;

    fn claim(&self, now: DateTime<Utc>, lease: Duration) -> RepoResult<Vec<Self::Job>>;
    /// Does the job and records its outcome (conditional on the claim).
    fn run(&self, job: Self::Job);
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

fn work<R: JobRunner>(runner: &R, stop: &AtomicBool) {
    while !stop.load(Ordering::SeqCst) {
        let jobs = match runner.claim(Utc::now(), R::LEASE) {
            Ok(jobs) => jobs,
            Err(e) => {
                log::warn!("{}: claiming jobs failed: {e}", R::NAME);
                Vec::new()
            }
        };
        if jobs.is_empty() {
            pause(stop, IDLE_POLL);
            continue;
        }
        for job in jobs {
            if stop.load(Ordering::SeqCst) {
                if let Err(e) = runner.release(&job) {
                    log::warn!("{}: releasing a job: {e}", R::NAME);
                }
                continue;
            }
            // A job that panics must not take its thread (and with it a share of the
            // queue) down: the claim runs out and the job is tried again.
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| runner.run(job)));
            if ran.is_err() {
                log::error!(
                    "{}: a job panicked; it will be tried again when its lease ends",
                    R::NAME
                );
            }
        }
    }
}

fn pause(stop: &AtomicBool, total: Duration) {
    let step = Duration::from_millis(50);
    let until = Instant::now() + total;
    while Instant::now() < until && !stop.load(Ordering::SeqCst) {
        std::thread::sleep(step);
    }
}
