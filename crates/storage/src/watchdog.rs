//! Deadlines for database work that can block for ever.
//!
//! libpq waits on its socket without a time limit. When the database host freezes (a crashed
//! machine, a network partition, a proxy that stops forwarding but keeps the TCP connection
//! open) a query never returns: TCP keepalives do not help when something still acknowledges the
//! packets, and a server-side `statement_timeout` never reaches us. The only way out is to break
//! the socket from outside, which makes libpq fail the call with a connection error; the broken
//! connection is then dropped from the pool instead of being handed out again.
//!
//! Each connection remembers its socket (found when it is opened, see [`socket_of_new_connection`]);
//! every piece of work on it is [`Watchdog::watch`]ed, and one thread shuts down the sockets whose
//! work is past its deadline.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How many times the watchdog has broken a connection. A database that left one connection
/// without an answer has likely left all that were open then (a frozen host, a partition, a
/// failover): connections opened before the latest break are not trusted again.
static BREAKS: AtomicU64 = AtomicU64::new(0);

/// The current count of breaks; see [`BREAKS`].
pub fn breaks() -> u64 {
    BREAKS.load(Ordering::Acquire)
}

/// A connection's socket, as the operating system knows it.
#[cfg(unix)]
pub type Socket = std::os::fd::RawFd;
#[cfg(not(unix))]
pub type Socket = i32;

/// What a watch breaks when its deadline passes.
enum Target {
    /// An open connection's socket.
    Socket(Socket),
    /// Whatever socket a connection being opened has made so far (a new inode with a database
    /// peer): opening runs queries of its own (libpq's handshake is bounded by
    /// `connect_timeout`, diesel's session setup is not).
    Opening { before: Vec<u64>, ports: Vec<u16> },
}

#[derive(Default)]
struct Watched {
    /// watch id → (what, deadline)
    entries: HashMap<u64, (Target, Instant)>,
    /// When the watchdog thread wakes next by itself (`None`: only when told).
    wakes_at: Option<Instant>,
}

/// The process's one watchdog thread and what it watches.
pub struct Watchdog {
    watched: Mutex<Watched>,
    wake: Condvar,
    next_id: AtomicU64,
}

/// Work in progress on a socket; dropping it ends the watch.
pub struct Watch {
    id: u64,
    dog: &'static Watchdog,
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Ok(mut w) = self.dog.watched.lock() {
            w.entries.remove(&self.id);
        }
    }
}

impl Watchdog {
    /// The process-wide watchdog; its thread starts with the first watch.
    pub fn global() -> &'static Watchdog {
        static DOG: OnceLock<&'static Watchdog> = OnceLock::new();
        DOG.get_or_init(|| {
            let dog: &'static Watchdog = Box::leak(Box::new(Watchdog {
                watched: Mutex::new(Watched::default()),
                wake: Condvar::new(),
                next_id: AtomicU64::new(1),
            }));
            let spawned = std::thread::Builder::new()
                .name("db-watchdog".into())
                .spawn(move || dog.run());
            if let Err(e) = spawned {
                log::error!("cannot start the database watchdog: {e}");
            }
            dog
        })
    }

    /// Watches work on `socket` until the returned guard drops; past `limit` the socket is
    /// shut down, which fails the work with a connection error.
    pub fn watch(&'static self, socket: Socket, limit: Duration) -> Watch {
        self.add(Target::Socket(socket), limit)
    }

    fn add(&'static self, target: Target, limit: Duration) -> Watch {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let deadline = Instant::now() + limit;
        let earlier = match self.watched.lock() {
            Ok(mut w) => {
                w.entries.insert(id, (target, deadline));
                w.wakes_at.is_none_or(|at| deadline < at)
            }
            Err(_) => false,
        };
        // Every database call is watched: wake the thread only when this deadline comes
        // before the one it already sleeps towards (rarely: limits are the same length).
        if earlier {
            self.wake.notify_one();
        }
        Watch { id, dog: self }
    }

    fn run(&self) {
        let Ok(mut w) = self.watched.lock() else {
            return;
        };
        loop {
            let now = Instant::now();
            let overdue: Vec<u64> = w
                .entries
                .iter()
                .filter(|(_, (_, deadline))| *deadline <= now)
                .map(|(id, _)| *id)
                .collect();
            for id in overdue {
                let Some((target, _)) = w.entries.remove(&id) else {
                    continue;
                };
                log::warn!("the database did not answer in time; dropping its connection");
                BREAKS.fetch_add(1, Ordering::AcqRel);
                match target {
                    // Still under the lock: the watch has not ended, so the connection (and
                    // with it the descriptor) is still open and still the one we watched.
                    Target::Socket(socket) => shut_down(socket),
                    // Opening is serialised, so a new socket with a database peer is the one
                    // being opened. (A descriptor closed and reused between the listing and
                    // the shutdown could be another socket: rare, and only during an outage.)
                    Target::Opening { before, ports } => {
                        for (fd, inode) in sockets() {
                            if !before.contains(&inode) && peer_is_database(fd, &ports) {
                                shut_down(fd);
                            }
                        }
                    }
                }
            }
            let next = w.entries.values().map(|(_, d)| *d).min();
            w.wakes_at = next;
            let wait = next.map_or(Duration::from_secs(3600), |d| {
                d.saturating_duration_since(Instant::now())
            });
            w = match self.wake.wait_timeout(w, wait) {
                Ok((guard, _)) => guard,
                Err(_) => return,
            };
        }
    }
}

#[cfg(unix)]
#[allow(unsafe_code)] // a raw descriptor from libpq: see SAFETY below
fn shut_down(socket: Socket) {
    use std::mem::ManuallyDrop;
    use std::os::fd::FromRawFd;
    // SAFETY: the descriptor belongs to a connection whose work is being watched, so it is open
    // (see `run`); ManuallyDrop keeps us from closing it, which stays libpq's job. shutdown(2)
    // works on any connected socket, TCP or Unix.
    let stream = ManuallyDrop::new(unsafe { std::net::TcpStream::from_raw_fd(socket) });
    if let Err(e) = stream.shutdown(std::net::Shutdown::Both) {
        log::debug!("shutting down a database socket: {e}");
    }
}

#[cfg(not(unix))]
fn shut_down(_socket: Socket) {}

/// Serialises connection opening so that the socket a connection adds can be told apart.
static OPENING: Mutex<()> = Mutex::new(());

/// Opens a connection with `open` and finds the socket it created: one that was not there before
/// (told apart by its inode: a descriptor number may be reused as another thread closes one)
/// and whose peer is one of `ports` (or a Unix socket). Other threads may open sockets meanwhile
/// (accepted clients, webhook calls); only an unambiguous match is kept.
/// Opening itself is watched: past `limit` its socket is broken.
pub fn socket_of_new_connection<T, E>(
    ports: &[u16],
    limit: Duration,
    open: impl FnOnce() -> Result<T, E>,
) -> Result<(T, Option<Socket>), E> {
    let _serial = OPENING.lock().unwrap_or_else(|p| p.into_inner());
    let before: Vec<u64> = sockets().into_iter().map(|(_, inode)| inode).collect();
    let opening = Target::Opening {
        before: before.clone(),
        ports: ports.to_vec(),
    };
    let watch = Watchdog::global().add(opening, limit);
    let conn = open();
    drop(watch);
    let conn = conn?;
    let found: Vec<Socket> = sockets()
        .into_iter()
        .filter(|(fd, inode)| !before.contains(inode) && peer_is_database(*fd, ports))
        .map(|(fd, _)| fd)
        .collect();
    if cfg!(target_os = "linux") && found.len() != 1 {
        log::warn!(
            "cannot tell which socket a new database connection uses ({} candidates): \
             a database that stops answering will hold it until TCP gives up",
            found.len()
        );
    }
    Ok((conn, (found.len() == 1).then(|| found[0])))
}

/// Open sockets as (descriptor, inode).
#[cfg(target_os = "linux")]
fn sockets() -> Vec<(Socket, u64)> {
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok())
        .filter_map(|e| {
            let target = std::fs::read_link(e.path()).ok()?;
            let inode = target
                .to_str()?
                .strip_prefix("socket:[")?
                .strip_suffix(']')?
                .parse()
                .ok()?;
            Some((e.file_name().to_str()?.parse().ok()?, inode))
        })
        .collect()
}

#[cfg(not(target_os = "linux"))]
fn sockets() -> Vec<(Socket, u64)> {
    Vec::new()
}

#[cfg(unix)]
#[allow(unsafe_code)] // a raw descriptor from libpq: see SAFETY below
fn peer_is_database(socket: Socket, ports: &[u16]) -> bool {
    use std::mem::ManuallyDrop;
    use std::os::fd::FromRawFd;
    // SAFETY: `socket` was listed as open an instant ago; a descriptor closed and reused in
    // between is still a socket, and we only read its peer address and never close it.
    let tcp = ManuallyDrop::new(unsafe { std::net::TcpStream::from_raw_fd(socket) });
    match tcp.peer_addr() {
        Ok(addr) => ports.contains(&addr.port()),
        // Not an IP socket: libpq's Unix-domain connection to a local server.
        Err(_) => {
            let unix =
                ManuallyDrop::new(unsafe { std::os::unix::net::UnixStream::from_raw_fd(socket) });
            unix.peer_addr().is_ok()
        }
    }
}

#[cfg(not(unix))]
fn peer_is_database(_socket: Socket, _ports: &[u16]) -> bool {
    false
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn an_overdue_read_is_broken_and_a_finished_one_is_left_alone() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (mut client, socket) =
            socket_of_new_connection(&[port], Duration::from_secs(5), || {
                TcpStream::connect(("127.0.0.1", port))
            })
            .unwrap();
        let socket = socket.expect("the new socket is found");
        let (_server, _) = listener.accept().unwrap();

        // A watch that ends in time leaves the socket usable.
        drop(Watchdog::global().watch(socket, Duration::from_millis(50)));
        std::thread::sleep(Duration::from_millis(150));
        client
            .set_read_timeout(Some(Duration::from_millis(50)))
            .unwrap();
        let mut buf = [0u8; 1];
        assert!(
            client.read(&mut buf).is_err(),
            "still open, nothing to read"
        );

        // The server never answers: the watch breaks the blocked read.
        client.set_read_timeout(None).unwrap();
        let started = Instant::now();
        let _watch = Watchdog::global().watch(socket, Duration::from_millis(200));
        let n = client.read(&mut buf).unwrap_or(0);
        assert_eq!(n, 0, "the read ends as if the peer had closed");
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}

/// Whether an idle connection's socket is still open with nothing unread: one peek, no round
/// trip. Nothing arrives on an idle PostgreSQL connection unless the server is ending it (end of
/// stream, or an error message before it), so either means the connection is gone.
#[cfg(unix)]
#[allow(unsafe_code)] // a raw descriptor from libpq: see SAFETY below
pub fn idle_socket_is_open(socket: Socket) -> bool {
    let mut byte = [0u8; 1];
    // SAFETY: `socket` is a connection's open descriptor for as long as the connection lives,
    // and the connection is not in use by anyone else while the pool checks it.
    let read = unsafe {
        libc::recv(
            socket,
            byte.as_mut_ptr().cast(),
            1,
            libc::MSG_PEEK | libc::MSG_DONTWAIT,
        )
    };
    if read < 0 {
        let err = std::io::Error::last_os_error();
        return matches!(
            err.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
        );
    }
    false
}

#[cfg(not(unix))]
pub fn idle_socket_is_open(_socket: Socket) -> bool {
    true
}
