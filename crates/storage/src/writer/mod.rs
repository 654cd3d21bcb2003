//! SQLite's one writer (SPEC §12): every write transaction of this process runs on one dedicated
//! connection, taken in turn in the order the writers arrived. SQLite lets one transaction
//! write at a time; left to its busy handler, writers poll the lock with growing sleeps and the
//! unlucky ones wait seconds. Here a writer waits on a condition variable for its turn and
//! starts the moment the one before it commits. The pool's connections are `query_only`, so a
//! write that forgot to take its turn fails loudly instead of waiting in a busy handler.

mod group;

use crate::connection::{AnyConnection, Manager, PooledConn};
use crate::tx::TxError;
use std::collections::BTreeSet;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Turns to write, handed out in arrival order. A waiter sleeps on the condition variable of
/// its ticket's slot, so passing the turn wakes the next writer only, not every one queued (64
/// writers woken for each turn cost more than the writes).
pub(crate) struct Turns {
    state: Mutex<TurnState>,
    slots: [Condvar; SLOTS],
}

/// Condition variables the tickets share, round robin.
const SLOTS: usize = 64;

impl Default for Turns {
    fn default() -> Turns {
        Turns {
            state: Mutex::default(),
            slots: std::array::from_fn(|_| Condvar::new()),
        }
    }
}

fn slot(ticket: u64) -> usize {
    (ticket % SLOTS as u64) as usize
}

#[derive(Default)]
struct TurnState {
    /// The ticket the next arrival takes.
    issued: u64,
    /// The ticket whose turn it is.
    serving: u64,
    /// Tickets whose holders stopped waiting before their turn came: skipped.
    abandoned: BTreeSet<u64>,
}

/// The turn to write, until dropped.
pub(crate) struct Turn {
    turns: Arc<Turns>,
}

impl Turns {
    /// Waits for this caller's turn, at most `limit`; `None` if it did not come by then.
    pub(crate) fn wait(self: &Arc<Self>, limit: Duration) -> Option<Turn> {
        let deadline = Instant::now() + limit;
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let ticket = state.issued;
        state.issued += 1;
        loop {
            if state.serving == ticket {
                return Some(Turn {
                    turns: self.clone(),
                });
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                state.abandoned.insert(ticket);
                return None;
            }
            state = self.slots[slot(ticket)]
                .wait_timeout(state, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// How many writers wait for a turn now (the holder of the turn not counted).
    pub(crate) fn waiting(&self) -> u64 {
        self.queued().saturating_sub(1)
    }

    /// How many writers are waiting or writing now.
    fn queued(&self) -> u64 {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.issued - state.serving - state.abandoned.len() as u64
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let mut state = self.turns.state.lock().unwrap_or_else(|p| p.into_inner());
        state.serving += 1;
        loop {
            let next = state.serving;
            if !state.abandoned.remove(&next) {
                break;
            }
            state.serving += 1;
        }
        let next = slot(state.serving);
        drop(state);
        // Every waiter of the slot wakes; only the one whose ticket is served stays awake.
        self.turns.slots[next].notify_all();
    }
}

/// The writer: its connections, the turns and the groups. Only the turn's holder writes; there
/// are a few connections so that a keyed request's transaction, whose turn ends with its
/// commit, can hand its connection back a moment later without holding up the next writer.
#[derive(Clone)]
pub(crate) struct Writer {
    pool: r2d2::Pool<Manager>,
    turns: Arc<Turns>,
    groups: Arc<group::Groups>,
}

/// How many connections the writer keeps (see [`Writer`]).
pub(crate) const WRITER_CONNECTIONS: u32 = 3;

/// A connection to write on, lent for one write: the pool's on PostgreSQL, the writer's with
/// its turn on SQLite. Fields drop in order: the connection goes back before the turn passes.
pub(crate) struct WriteConn {
    conn: r2d2::PooledConnection<Manager>,
    turn: Option<Turn>,
}

impl WriteConn {
    /// A PostgreSQL connection: its writers take row locks, not turns.
    pub(crate) fn pooled(conn: r2d2::PooledConnection<Manager>) -> WriteConn {
        WriteConn { conn, turn: None }
    }

    /// The connection, and the turn to give up when its transaction ends.
    pub(crate) fn into_parts(self) -> (r2d2::PooledConnection<Manager>, Option<Turn>) {
        (self.conn, self.turn)
    }
}

impl std::ops::Deref for WriteConn {
    type Target = PooledConn;

    fn deref(&self) -> &PooledConn {
        &self.conn
    }
}

impl std::ops::DerefMut for WriteConn {
    fn deref_mut(&mut self) -> &mut PooledConn {
        &mut self.conn
    }
}

/// Why no write could start.
#[derive(Debug)]
pub(crate) enum WriterBusy {
    /// The writers ahead took longer than the limit.
    Queue,
    /// No connection could be (re)opened.
    Connect(String),
}

impl From<WriterBusy> for TxError {
    fn from(busy: WriterBusy) -> TxError {
        invoicing_domain::ports::RepoError::Unavailable(match busy {
            WriterBusy::Queue => "no turn to write came in time".into(),
            WriterBusy::Connect(e) => crate::tx::one_line(&e),
        })
        .into()
    }
}

impl Writer {
    pub(crate) fn new(pool: r2d2::Pool<Manager>) -> Writer {
        Writer {
            pool,
            turns: Arc::default(),
            groups: Arc::default(),
        }
    }

    /// Runs `f` as a write transaction in its turn, committed with the writers queued behind it
    /// (see [`group`]); answers once the commit is on disk.
    pub(crate) fn write<T>(
        &self,
        limit: Duration,
        f: impl FnOnce(&mut AnyConnection) -> Result<T, TxError>,
    ) -> Result<T, TxError> {
        let turn = self.turns.wait(limit).ok_or(WriterBusy::Queue)?;
        self.groups.write(&self.pool, &self.turns, turn, f)
    }

    /// Waits for the turn (at most `limit`), then lends a connection for a transaction of the
    /// caller's own (a keyed request's, a migration): an open group commits first.
    pub(crate) fn take(&self, limit: Duration) -> Result<WriteConn, WriterBusy> {
        let turn = self.turns.wait(limit).ok_or(WriterBusy::Queue)?;
        self.groups.commit_open();
        let conn = self
            .pool
            .get()
            .map_err(|e| WriterBusy::Connect(e.to_string()))?;
        Ok(WriteConn {
            conn,
            turn: Some(turn),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn turns_come_in_arrival_order_and_one_at_a_time() {
        let turns = Arc::new(Turns::default());
        let first = turns.wait(Duration::from_secs(1)).unwrap();
        let order = Arc::new(Mutex::new(Vec::new()));
        let inside = Arc::new(AtomicU64::new(0));
        let mut threads = Vec::new();
        for i in 0..8u64 {
            // Each one queues before the next starts, so arrival order is i.
            let (t, o, n) = (turns.clone(), order.clone(), inside.clone());
            threads.push(std::thread::spawn(move || {
                let turn = t.wait(Duration::from_secs(10)).unwrap();
                assert_eq!(n.fetch_add(1, Ordering::SeqCst), 0, "one writer at a time");
                o.lock().unwrap().push(i);
                std::thread::sleep(Duration::from_millis(2));
                n.fetch_sub(1, Ordering::SeqCst);
                drop(turn);
            }));
            while turns.queued() < i + 2 {
                std::thread::yield_now();
            }
        }
        drop(first);
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*order.lock().unwrap(), (0..8).collect::<Vec<_>>());
    }

    #[test]
    fn a_writer_that_gives_up_is_skipped() {
        let turns = Arc::new(Turns::default());
        let first = turns.wait(Duration::from_secs(1)).unwrap();
        assert!(turns.wait(Duration::from_millis(20)).is_none(), "timed out");
        let t = turns.clone();
        let third = std::thread::spawn(move || t.wait(Duration::from_secs(10)).is_some());
        while turns.queued() < 2 {
            std::thread::yield_now();
        }
        drop(first);
        assert!(
            third.join().unwrap(),
            "the abandoned turn did not block the next"
        );
        assert_eq!(turns.queued(), 0);
    }
}
