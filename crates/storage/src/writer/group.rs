//! Group commit: the writers queued behind one another share one SQLite transaction and one
//! commit. Under load the commit's flush to disk, not the work, is most of a write's turn (the
//! benchmark's cores sat 40 % idle with 64 writers queued); paying it once per group instead of
//! once per writer lets the queue move as fast as the work.
//!
//! Each writer still runs its own work, on its own thread, in its turn: the first of a group
//! opens the transaction (`BEGIN IMMEDIATE`), the ones after it run in a savepoint of it, so
//! a failing writer takes back only its own changes. A writer whose turn ends with nobody
//! queued behind it commits for the whole group; one that sees writers waiting leaves the
//! transaction open for them and waits for that commit. Nobody is answered before the commit
//! that holds their change is on disk; if it fails, every writer of the group gets the error.

use super::{Turn, Turns};
use crate::connection::{AnyConnection, Manager};
use crate::tx::{self, TxError};
use diesel::connection::{AnsiTransactionManager, TransactionManager};
use diesel::Connection;
use invoicing_domain::ports::RepoError;
use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// At most this many writers share a commit, so the first of a group waits a bounded time.
const GROUP_MAX: u32 = 32;

/// A transaction left open for the writers queued behind it.
struct Open {
    conn: r2d2::PooledConnection<Manager>,
    generation: u64,
    members: u32,
}

#[derive(Default)]
struct Ledger {
    open: Option<Open>,
    /// The next group's number.
    next: u64,
    /// Every group up to this one has committed or failed.
    settled: u64,
    /// Groups whose commit failed, with why (kept a while for their writers to read).
    failed: BTreeMap<u64, String>,
}

/// The open group, if any, and what became of the groups before it.
#[derive(Default)]
pub(crate) struct Groups {
    ledger: Mutex<Ledger>,
    settled: Condvar,
}

/// How a writer's part in a group ended, once its turn is over.
enum Part<T> {
    /// Committed, or failed on its own (its savepoint rolled back): the answer as it is.
    Done(Result<T, TxError>),
    /// Succeeded; the answer waits for the group's commit.
    AwaitCommit(T, u64),
}

impl Groups {
    fn lock(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.ledger.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` as one writer of a group (see the module's documentation). `turns` is where the
    /// turn was taken, to see whether writers are waiting behind it.
    pub(crate) fn write<T>(
        &self,
        pool: &r2d2::Pool<Manager>,
        turns: &Arc<Turns>,
        turn: Turn,
        f: impl FnOnce(&mut AnyConnection) -> Result<T, TxError>,
    ) -> Result<T, TxError> {
        let part = self.take_part(pool, turns, f);
        drop(turn);
        match part {
            Part::Done(answer) => answer,
            Part::AwaitCommit(value, generation) => {
                self.await_commit(turns, generation)?;
                Ok(value)
            }
        }
    }

    fn take_part<T>(
        &self,
        pool: &r2d2::Pool<Manager>,
        turns: &Arc<Turns>,
        f: impl FnOnce(&mut AnyConnection) -> Result<T, TxError>,
    ) -> Part<T> {
        let open = self.lock().open.take();
        let (mut open, first) = match open {
            Some(open) => (open, false),
            None => {
                let mut conn = match pool.get() {
                    Ok(c) => c,
                    Err(e) => {
                        let e = RepoError::Unavailable(tx::one_line(&e.to_string()));
                        return Part::Done(Err(e.into()));
                    }
                };
                if let Err(e) = tx::begin(&mut conn.conn) {
                    return Part::Done(Err(e.into()));
                }
                let mut ledger = self.lock();
                let generation = ledger.next;
                ledger.next += 1;
                (
                    Open {
                        conn,
                        generation,
                        members: 0,
                    },
                    true,
                )
            }
        };
        open.members += 1;
        // The first writer's work is the transaction's own: on failure it is rolled back whole
        // (the statements are those of a lone transaction). The ones after it get a savepoint.
        let result = if first {
            f(&mut open.conn.conn)
        } else {
            open.conn.conn.transaction(f)
        };
        if first && result.is_err() {
            let rolled = tx::rollback(&mut open.conn.conn);
            self.settle(open.generation, rolled.err().map(|e| e.to_string()));
            return Part::Done(result);
        }
        if !still_open(&mut open.conn.conn) {
            // The database ended the transaction itself (a full disk, an I/O error): every
            // change of the group is gone, and so is every writer's answer.
            let why = "the write transaction was ended by the database".to_string();
            let _ = tx::rollback(&mut open.conn.conn);
            open.conn.lost = true;
            self.settle(open.generation, Some(why.clone()));
            return Part::Done(Err(result
                .err()
                .unwrap_or_else(|| RepoError::Unavailable(why).into())));
        }
        let generation = open.generation;
        if turns.waiting() > 0 && open.members < GROUP_MAX {
            self.lock().open = Some(open);
            return match result {
                Ok(v) => Part::AwaitCommit(v, generation),
                Err(e) => Part::Done(Err(e)),
            };
        }
        let committed = tx::commit(&mut open.conn.conn);
        let failure = committed.as_ref().err().map(|e| e.to_string());
        if failure.is_some() {
            let _ = tx::rollback(&mut open.conn.conn);
        }
        self.settle(generation, failure);
        match (result, committed) {
            (Ok(v), Ok(())) => Part::Done(Ok(v)),
            (Err(e), _) => Part::Done(Err(e)),
            (Ok(_), Err(e)) => Part::Done(Err(e.into())),
        }
    }

    /// Records how group `generation` ended and wakes its writers.
    fn settle(&self, generation: u64, failure: Option<String>) {
        let mut ledger = self.lock();
        if let Some(why) = failure {
            ledger.failed.insert(generation, why);
        }
        ledger.settled = ledger.settled.max(generation + 1);
        // Writers read their group's failure at once; a thousand groups later it can go.
        let keep_from = ledger.settled.saturating_sub(1000);
        ledger.failed = ledger.failed.split_off(&keep_from);
        drop(ledger);
        self.settled.notify_all();
    }

    /// Waits until group `generation` has committed (or failed). A group is committed by the
    /// writer queued behind the last member; should that writer give up its place, a member
    /// takes a turn and commits it.
    fn await_commit(&self, turns: &Arc<Turns>, generation: u64) -> Result<(), TxError> {
        let mut ledger = self.lock();
        loop {
            if ledger.settled > generation {
                return match ledger.failed.get(&generation) {
                    None => Ok(()),
                    Some(why) => {
                        Err(RepoError::Unavailable(format!("the commit failed: {why}")).into())
                    }
                };
            }
            let (next, timeout) = self
                .settled
                .wait_timeout(ledger, Duration::from_millis(200))
                .unwrap_or_else(|p| p.into_inner());
            ledger = next;
            if timeout.timed_out() && ledger.settled <= generation {
                drop(ledger);
                if let Some(turn) = turns.wait(Duration::from_secs(5)) {
                    self.commit_open();
                    // With the turn held nobody is inside a group: one still unsettled and not
                    // open was lost with its writer (its transaction died with the connection).
                    let mut ledger = self.lock();
                    if ledger.settled <= generation && ledger.open.is_none() {
                        for lost in ledger.settled..=generation {
                            ledger
                                .failed
                                .insert(lost, "the group's transaction was lost".into());
                        }
                        ledger.settled = generation + 1;
                        self.settled.notify_all();
                    }
                    drop(ledger);
                    drop(turn);
                }
                ledger = self.lock();
            }
        }
    }

    /// Commits the open group, if there is one. Called with the turn held: before a keyed
    /// request or a migration takes the writer for a transaction of its own.
    pub(crate) fn commit_open(&self) {
        let open = self.lock().open.take();
        if let Some(mut open) = open {
            let committed = tx::commit(&mut open.conn.conn);
            let failure = committed.err().map(|e| e.to_string());
            if failure.is_some() {
                let _ = tx::rollback(&mut open.conn.conn);
            }
            self.settle(open.generation, failure);
        }
    }
}

/// Whether the group's transaction is still whole. SQLite ends a transaction by itself on some
/// errors (a full disk, an I/O error); a savepoint's rollback or release then fails, and diesel
/// marks the transaction broken.
fn still_open(conn: &mut AnyConnection) -> bool {
    let depth = match conn {
        AnyConnection::Sqlite(c) => AnsiTransactionManager::transaction_manager_status_mut(c)
            .transaction_depth()
            .ok()
            .flatten(),
        AnyConnection::Postgresql(c) => AnsiTransactionManager::transaction_manager_status_mut(c)
            .transaction_depth()
            .ok()
            .flatten(),
    };
    depth.is_some()
}
