//! Waking idle job workers instead of having them poll.
//!
//! A worker with nothing to do sleeps on the process's [`bell`] until the next queued job
//! falls due (`jobs::next_due`) or someone rings: storage rings it when it queues a
//! job in this process, and on PostgreSQL a listener thread rings it when any process commits
//! one (a trigger on the queue tables sends `NOTIFY invoicing_jobs` at commit, migration
//! 000013). An idle server therefore issues next to no queries, and a new job starts at once.

use crate::connection::{pg_target, DatabaseUrl};
use crate::watchdog::{socket_of_new_connection, Socket};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::Duration;

/// Rung when jobs may have become due; waiters compare generations so that a ring between
/// their last look at the queue and their wait is never lost.
pub struct Bell {
    generation: Mutex<u64>,
    rung: Condvar,
}

/// The process's one bell.
pub fn bell() -> &'static Bell {
    static BELL: OnceLock<Bell> = OnceLock::new();
    BELL.get_or_init(|| Bell {
        generation: Mutex::new(0),
        rung: Condvar::new(),
    })
}

impl Bell {
    pub fn ring(&self) {
        if let Ok(mut g) = self.generation.lock() {
            *g = g.wrapping_add(1);
            self.rung.notify_all();
        }
    }

    /// The generation to wait on: read it before looking at the queue.
    pub fn generation(&self) -> u64 {
        self.generation.lock().map(|g| *g).unwrap_or(0)
    }

    /// Sleeps until the bell rang after `seen`, or for `timeout`.
    pub fn wait(&self, seen: u64, timeout: Duration) {
        let Ok(guard) = self.generation.lock() else {
            std::thread::sleep(timeout);
            return;
        };
        let _ = self.rung.wait_timeout_while(guard, timeout, |g| *g == seen);
    }
}

/// Notifications the listener received in this process (what the tests observe).
static NOTIFIED: AtomicU64 = AtomicU64::new(0);

pub fn notifications_received() -> u64 {
    NOTIFIED.load(Ordering::Acquire)
}

/// The channel the queue tables' trigger notifies.
pub const CHANNEL: &str = "invoicing_jobs";

/// On PostgreSQL, starts the thread that listens on [`CHANNEL`] and rings the bell for every
/// notification; it reconnects (ringing once, since notifications may have been missed) when
/// its connection fails. Nothing to do on SQLite.
pub fn listen(url: &str) {
    let Ok(url) = DatabaseUrl::parse(url) else {
        return;
    };
    if url.backend != crate::Backend::Postgres {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("job-listener".into())
        .spawn(move || loop {
            if let Err(e) = listen_once(&url) {
                log::warn!("job listener: {e}; reconnecting");
            }
            bell().ring();
            std::thread::sleep(Duration::from_secs(1));
        });
    if let Err(e) = spawned {
        log::error!("cannot start the job listener: {e}; workers fall back to polling");
    }
}

/// How long the listener waits for a notification before checking that its connection lives.
const LISTEN_CHECK: Duration = Duration::from_secs(30);

fn listen_once(url: &DatabaseUrl) -> Result<(), String> {
    let (target, ports) = pg_target(url);
    let (mut conn, socket) = socket_of_new_connection(&ports, Duration::from_secs(10), || {
        diesel::PgConnection::establish(&target)
    })
    .map_err(|e| e.to_string())?;
    let socket = socket.ok_or("the listener's socket is unknown")?;
    conn.batch_execute(&format!("LISTEN {CHANNEL}"))
        .map_err(|e| e.to_string())?;
    loop {
        if !readable(socket, LISTEN_CHECK)? {
            // Quiet for a while: one round trip proves the connection (and the LISTEN) alive.
            conn.batch_execute("SELECT 1").map_err(|e| e.to_string())?;
            continue;
        }
        let mut received = 0;
        for note in conn.notifications_iter() {
            note.map_err(|e| e.to_string())?;
            received += 1;
        }
        if received > 0 {
            // Ring before counting: whoever sees the count move may rely on the bell having rung.
            bell().ring();
            NOTIFIED.fetch_add(received, Ordering::Release);
        } else {
            // Readable with no notification: the server closed the connection, or sent
            // something else; a round trip tells which.
            conn.batch_execute("SELECT 1").map_err(|e| e.to_string())?;
        }
    }
}

/// Whether `socket` has something to read within `timeout`.
#[cfg(unix)]
#[allow(unsafe_code)] // poll(2) on the listener's own socket: see SAFETY below
fn readable(socket: Socket, timeout: Duration) -> Result<bool, String> {
    let mut fds = [libc::pollfd {
        fd: socket,
        events: libc::POLLIN,
        revents: 0,
    }];
    let ms = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
    // SAFETY: one valid pollfd for the listener's own open socket.
    let n = unsafe { libc::poll(fds.as_mut_ptr(), 1, ms) };
    if n < 0 {
        let err = std::io::Error::last_os_error();
        if err.kind() == std::io::ErrorKind::Interrupted {
            return Ok(false);
        }
        return Err(err.to_string());
    }
    Ok(n > 0)
}

#[cfg(not(unix))]
fn readable(_socket: Socket, timeout: Duration) -> Result<bool, String> {
    std::thread::sleep(timeout);
    Ok(true)
}
