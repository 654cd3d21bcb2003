//! One connection type for both backends, and a pool manager that picks the backend from the
//! URL scheme and keeps the real connection error (diesel's derived `establish` loses it).

use crate::watchdog::{self, socket_of_new_connection, Socket, Watch, Watchdog};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::r2d2::R2D2Connection;
use std::time::Duration;

#[derive(diesel::MultiConnection)]
pub enum AnyConnection {
    Postgresql(diesel::PgConnection),
    Sqlite(diesel::SqliteConnection),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}

/// Where the database is, parsed from `DATABASE_URL`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatabaseUrl {
    pub backend: Backend,
    /// What the driver is given: the URL for PostgreSQL, the file path for SQLite.
    pub target: String,
}

impl DatabaseUrl {
    pub fn parse(url: &str) -> Result<Self, String> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(DatabaseUrl {
                backend: Backend::Postgres,
                target: url.to_string(),
            })
        } else if let Some(path) = url.strip_prefix("sqlite://") {
            if path.is_empty() {
                return Err(
                    "sqlite:// needs a file path, e.g. sqlite://./data/invoicing.db".into(),
                );
            }
            Ok(DatabaseUrl {
                backend: Backend::Sqlite,
                target: path.to_string(),
            })
        } else {
            Err("DATABASE_URL must start with sqlite:// or postgres://".into())
        }
    }
}

/// How long one piece of database work (a query, a transaction's step, a pool check) may take
/// before the watchdog breaks its connection. Above the server-side statement timeout, so that a
/// merely slow statement is cancelled cleanly by the server first.
pub const WORK_LIMIT: Duration = Duration::from_secs(8);
/// PostgreSQL cancels a statement after this long (`statement_timeout`).
const STATEMENT_TIMEOUT_MS: u32 = 6_000;
/// A transaction left open by a client that went silent is ended by the server after this long,
/// so its locks (and an idempotency key's claim) never outlive a dead process for long.
const IDLE_IN_TRANSACTION_MS: u32 = 10_000;
/// SQLite waits this long for another writer before answering "database is locked" (a 503).
const SQLITE_BUSY_MS: u32 = 5_000;

/// libpq's `connect_timeout` below; opening a connection may take this long per host (and
/// diesel's session setup after it).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// What libpq is told when the URL does not say otherwise: give up connecting to a host after
/// 3 s, and let the kernel detect a silent peer (keepalives, unacknowledged data).
const PG_DEFAULTS: &[(&str, &str)] = &[
    ("connect_timeout", "3"),
    ("keepalives", "1"),
    ("keepalives_idle", "10"),
    ("keepalives_interval", "3"),
    ("keepalives_count", "3"),
    ("tcp_user_timeout", "10000"),
];

/// A pool check should take a round trip; a connection that needs longer is not one to use.
const CHECK_LIMIT: Duration = Duration::from_secs(2);

/// A pooled connection and the socket the watchdog can break (unknown on SQLite and where the
/// operating system does not tell).
pub struct PooledConn {
    pub conn: AnyConnection,
    pub socket: Option<Socket>,
    /// The watchdog's count of breaks when this connection was opened.
    breaks_at_open: u64,
    /// Set when work on it failed for want of a connection: the pool drops it.
    pub lost: bool,
}

impl PooledConn {
    fn new(conn: AnyConnection, socket: Option<Socket>) -> PooledConn {
        PooledConn {
            conn,
            socket,
            breaks_at_open: watchdog::breaks(),
            lost: false,
        }
    }

    /// Watches the work that follows until the guard drops (see `crate::watchdog`).
    pub fn watch(&self) -> Option<Watch> {
        self.watch_for(WORK_LIMIT)
    }

    pub(crate) fn watch_for(&self, limit: Duration) -> Option<Watch> {
        self.socket.map(|s| Watchdog::global().watch(s, limit))
    }

    /// Opened before the watchdog last had to break a connection: likely dead the same way.
    fn suspect(&self) -> bool {
        self.socket.is_some() && self.breaks_at_open < watchdog::breaks()
    }
}

pub struct Manager {
    url: DatabaseUrl,
    statements: Statements,
    /// SQLite: whether its connections may write. Only the one writer's may (see
    /// [`crate::writer`]); PostgreSQL's all may.
    writes: bool,
}

impl Manager {
    pub fn new(url: DatabaseUrl) -> Self {
        let writes = url.backend == Backend::Postgres;
        Manager {
            url,
            statements: Statements::default(),
            writes,
        }
    }

    /// The manager of SQLite's one writer, counting its statements with the readers'.
    pub(crate) fn writer(url: DatabaseUrl, statements: Statements) -> Self {
        Manager {
            url,
            statements,
            writes: true,
        }
    }

    pub fn statements(&self) -> Statements {
        self.statements.clone()
    }
}

/// How many statements the pool's connections have sent (BEGIN and COMMIT included): what the
/// statement budgets of the hot endpoints are measured in.
#[derive(Clone, Default)]
pub struct Statements(std::sync::Arc<std::sync::atomic::AtomicU64>);

impl Statements {
    pub fn sent(&self) -> u64 {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl diesel::connection::Instrumentation for Statements {
    fn on_connection_event(&mut self, event: diesel::connection::InstrumentationEvent<'_>) {
        if let diesel::connection::InstrumentationEvent::StartQuery { .. } = event {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// Opens one connection that may write, set up as the pool would set it up (for tools and
/// tests, outside the server's one writer).
pub fn establish(url: &DatabaseUrl) -> Result<AnyConnection, ConnectionError> {
    open(url, true).map(|c| c.conn)
}

fn open(url: &DatabaseUrl, writes: bool) -> Result<PooledConn, ConnectionError> {
    match url.backend {
        Backend::Postgres => {
            let target = with_pg_defaults(&url.target);
            let ports = pg_ports(&url.target);
            let limit = CONNECT_TIMEOUT * (ports.len() as u32) + CHECK_LIMIT;
            let (conn, socket) = socket_of_new_connection(&ports, limit, || {
                diesel::PgConnection::establish(&target)
            })?;
            let mut conn = PooledConn::new(AnyConnection::Postgresql(conn), socket);
            let watch = conn.watch();
            conn.conn
                .batch_execute(&format!(
                    "SET statement_timeout = {STATEMENT_TIMEOUT_MS}; \
                     SET idle_in_transaction_session_timeout = {IDLE_IN_TRANSACTION_MS}; \
                     SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 3; \
                     SET tcp_keepalives_count = 3;"
                ))
                .map_err(ConnectionError::CouldntSetupConfiguration)?;
            drop(watch);
            Ok(conn)
        }
        Backend::Sqlite => {
            let mut conn = diesel::SqliteConnection::establish(&url.target)?;
            // busy_timeout first: the WAL switch itself may wait for another writer. FULL: an
            // acknowledged write survives a power loss (SPEC §12).
            // A reader is query_only: a write on it fails at once, never waits for the lock.
            conn.batch_execute(&format!(
                "PRAGMA busy_timeout = {SQLITE_BUSY_MS}; PRAGMA journal_mode = WAL; \
                     PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; \
                     PRAGMA query_only = {};",
                if writes { "OFF" } else { "ON" }
            ))
            .map_err(ConnectionError::CouldntSetupConfiguration)?;
            Ok(PooledConn::new(AnyConnection::Sqlite(conn), None))
        }
    }
}

/// What libpq is given for a PostgreSQL URL (its defaults added) and the ports it may connect
/// to, for connections outside the pool.
pub(crate) fn pg_target(url: &DatabaseUrl) -> (String, Vec<u16>) {
    (with_pg_defaults(&url.target), pg_ports(&url.target))
}

/// The URL with [`PG_DEFAULTS`] added where it names none of its own.
fn with_pg_defaults(url: &str) -> String {
    let mut out = url.to_string();
    for (name, value) in PG_DEFAULTS {
        let given = url
            .split_once('?')
            .is_some_and(|(_, q)| q.split('&').any(|p| p.split('=').next() == Some(*name)));
        if !given {
            out.push(if out.contains('?') { '&' } else { '?' });
            out.push_str(&format!("{name}={value}"));
        }
    }
    out
}

/// The ports a PostgreSQL URL may connect to: each host's (`h1:5432,h2:5433`), a `port=`
/// parameter's, and the default.
fn pg_ports(url: &str) -> Vec<u16> {
    let mut ports = vec![5432];
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let (authority, query) = match rest.split_once('/') {
        Some((a, r)) => (a, r.split_once('?').map_or("", |(_, q)| q)),
        None => rest.split_once('?').unwrap_or((rest, "")),
    };
    let hosts = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    for host in hosts.split(',') {
        let port = match host.rsplit_once(']') {
            Some((_, p)) => p.strip_prefix(':'),
            None => host.rsplit_once(':').map(|(_, p)| p),
        };
        ports.extend(port.and_then(|p| p.parse::<u16>().ok()));
    }
    for param in query.split('&') {
        if let Some(list) = param.strip_prefix("port=") {
            ports.extend(list.split(',').filter_map(|p| p.parse::<u16>().ok()));
        }
    }
    ports
}

impl r2d2::ManageConnection for Manager {
    type Connection = PooledConn;
    type Error = ConnectionError;

    fn connect(&self) -> Result<PooledConn, ConnectionError> {
        let mut conn = open(&self.url, self.writes)?;
        conn.conn.set_instrumentation(self.statements.clone());
        Ok(conn)
    }

    fn is_valid(&self, conn: &mut PooledConn) -> Result<(), ConnectionError> {
        if conn.suspect() {
            return Err(ConnectionError::BadConnection(
                "opened before the database last stopped answering".into(),
            ));
        }
        // No round trip per checkout: an idle connection whose server closed it (a restart, a
        // failover, an idle timeout) has its end of stream or the server's farewell waiting on
        // the socket. One that died silently (a frozen host) is caught by the watchdog and the
        // keepalives instead, and the request that meets it gets 503, never a retry of a
        // statement that may have run.
        match conn.socket {
            Some(socket) if !watchdog::idle_socket_is_open(socket) => Err(
                ConnectionError::BadConnection("the server closed the connection".into()),
            ),
            _ => Ok(()),
        }
    }

    fn has_broken(&self, conn: &mut PooledConn) -> bool {
        conn.lost || conn.suspect() || conn.conn.is_broken()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheme_picks_the_backend() {
        let pg = DatabaseUrl::parse("postgres://postgres@127.0.0.1/x").unwrap();
        assert_eq!(pg.backend, Backend::Postgres);
        let lite = DatabaseUrl::parse("sqlite://./data/invoicing.db").unwrap();
        assert_eq!(lite.backend, Backend::Sqlite);
        assert_eq!(lite.target, "./data/invoicing.db");
        assert!(DatabaseUrl::parse("mysql://x").is_err());
        assert!(DatabaseUrl::parse("sqlite://").is_err());
    }

    #[test]
    fn postgres_urls_get_timeouts_unless_they_set_their_own() {
        let plain = with_pg_defaults("postgres://u@h/db");
        assert!(plain.starts_with("postgres://u@h/db?connect_timeout=3&keepalives=1"));
        let own = with_pg_defaults("postgres://u@h/db?connect_timeout=9&sslmode=disable");
        assert!(own.contains("connect_timeout=9&sslmode=disable&keepalives=1"));
        assert!(!own.contains("connect_timeout=3"));
    }

    #[test]
    fn a_postgres_connection_knows_its_socket() {
        let url = std::env::var("TEST_POSTGRES_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
        let url = DatabaseUrl::parse(&url).unwrap();
        match open(&url, true) {
            Ok(conn) => assert!(conn.socket.is_some(), "the watchdog can break it"),
            Err(e) if std::env::var("CI").as_deref() != Ok("true") => {
                eprintln!("skipping: PostgreSQL unreachable ({e})")
            }
            Err(e) => panic!("PostgreSQL is required under CI: {e}"),
        }
    }

    #[test]
    fn every_port_of_a_multi_host_url_is_known() {
        let ports =
            pg_ports("postgres://u:p@h1:5433,[::1]:5434,h3/db?target_session_attrs=read-write");
        assert_eq!(ports, vec![5432, 5433, 5434]);
        assert_eq!(pg_ports("postgres://h/db?port=6432"), vec![5432, 6432]);
        assert_eq!(pg_ports("postgres://h"), vec![5432]);
    }
}
