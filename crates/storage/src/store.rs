//! The pool, transactions that behave the same on both backends, migrations, and the mapping of
//! diesel failures to [`RepoError`].

use crate::connection::{
    AnyConnection, Backend, DatabaseUrl, Manager, PooledConn, Statements, WORK_LIMIT,
};
use crate::request_tx::{Pinned, RunningKeys};
pub(crate) use crate::tx::{begin, commit, is_connection_lost, one_line, rollback, TxError};
use crate::writer::{WriteConn, Writer, WRITER_CONNECTIONS};
use diesel::connection::{AnsiTransactionManager, SimpleConnection};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use invoicing_domain::ports::{HealthCheck, RepoError, RepoResult};
use std::sync::Arc;
use std::time::Duration;

const PG_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");
const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
/// Arbitrary but fixed: every server process contends for the same advisory lock.
const MIGRATION_LOCK_ID: i64 = 0x0001_4E56_0001;
pub(crate) const BOOTSTRAP_LOCK_ID: i64 = 0x0001_4E56_0002;

/// The versions of the SQLite migrations this binary carries.
pub(crate) fn sqlite_migration_versions() -> Vec<String> {
    diesel::migration::MigrationSource::<diesel::sqlite::Sqlite>::migrations(&SQLITE_MIGRATIONS)
        .map(|all| all.iter().map(|m| m.name().version().to_string()).collect())
        .unwrap_or_default()
}

/// Applies the SQLite migrations a database lacks; their versions.
pub(crate) fn run_sqlite_migrations(
    conn: &mut diesel::SqliteConnection,
) -> Result<Vec<String>, String> {
    conn.run_pending_migrations(SQLITE_MIGRATIONS)
        .map(|applied| applied.iter().map(|v| v.to_string()).collect())
        .map_err(|e| e.to_string())
}

pub type Pool = r2d2::Pool<Manager>;
/// How long a caller waits for a pooled connection (also the first connect at start).
const POOL_WAIT: Duration = Duration::from_secs(4);

/// The storage handle the application holds: cheap to clone, safe to share across threads.
#[derive(Clone)]
pub struct Store {
    pub(crate) pool: Pool,
    statements: Statements,
    pub(crate) key_cache: crate::keys::KeyCache,
    backend: Backend,
    /// Base of payment links, which are part of documents as the API (and events) show them.
    public_url: Arc<str>,
    /// Set on the handle a keyed request works through: all of its work joins that request's
    /// transaction (see [`crate::request_tx`]).
    pub(crate) pinned: Option<Arc<Pinned>>,
    /// Keys of keyed requests running in this process (how SQLite tells a retry "in use").
    pub(crate) running_keys: RunningKeys,
    /// Whether mail can be sent (`SMTP_URL` set): without it, receipts and reminders are not
    /// queued (SPEC §18).
    mail: bool,
    /// SQLite's one writer (see [`crate::writer`]); PostgreSQL writes on the pool.
    writer: Option<Writer>,
    /// SQLite: the claim that a process uses the file, which a restore waits to be alone with.
    _in_use: Option<Arc<crate::backup::InUse>>,
    /// Seals and opens the secrets tenants give us (their gateway keys).
    pub(crate) secrets: Arc<crate::secrets::SecretsKey>,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("invalid DATABASE_URL: {0}")]
    Url(String),
    #[error("cannot connect to the database: {0}")]
    Connect(String),
    #[error("migrations failed: {0}")]
    Migrate(String),
}

impl Store {
    /// Opens a pool. SQLite's parent directory is created so the embedded default just works.
    pub fn connect(url: &str, max_connections: u32) -> Result<Store, StoreError> {
        let url = DatabaseUrl::parse(url).map_err(StoreError::Url)?;
        if url.backend == Backend::Sqlite {
            if let Some(dir) = std::path::Path::new(&url.target).parent() {
                if !dir.as_os_str().is_empty() {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| StoreError::Connect(format!("{}: {e}", dir.display())))?;
                }
            }
        }
        let backend = url.backend;
        let in_use = match backend {
            Backend::Sqlite => Some(Arc::new(crate::backup::InUse::shared(
                std::path::Path::new(&url.target),
            )?)),
            Backend::Postgres => None,
        };
        let manager = Manager::new(url.clone());
        let statements = manager.statements();
        let pool = pool_of(manager, max_connections.max(1))?;
        let writer = match backend {
            Backend::Sqlite => {
                let manager = Manager::writer(url, statements.clone());
                Some(Writer::new(pool_of(manager, WRITER_CONNECTIONS)?))
            }
            Backend::Postgres => None,
        };
        Ok(Store {
            pool,
            statements,
            key_cache: Default::default(),
            backend,
            public_url: Arc::from("https://localhost:8443"),
            pinned: None,
            running_keys: RunningKeys::default(),
            mail: false,
            writer,
            _in_use: in_use,
            secrets: Arc::new(crate::secrets::SecretsKey::ephemeral()),
        })
    }

    /// Sets the base of the public pages used in payment links.
    pub fn with_public_url(mut self, public_url: &str) -> Store {
        self.public_url = Arc::from(public_url.trim_end_matches('/'));
        self
    }

    /// The key tenants' secrets are sealed with (`SECRETS_KEY`); without it, a key of this
    /// process only.
    pub fn with_secrets(mut self, key: crate::secrets::SecretsKey) -> Store {
        self.secrets = Arc::new(key);
        self
    }

    /// Says that mail is configured, so receipts and reminders are queued.
    pub fn with_mail(mut self, enabled: bool) -> Store {
        self.mail = enabled;
        self
    }

    /// Statements sent so far on this pool's connections (see [`Statements`]).
    pub fn statements_sent(&self) -> u64 {
        self.statements.sent()
    }

    pub fn mail_enabled(&self) -> bool {
        self.mail
    }

    pub fn public_url(&self) -> Arc<str> {
        self.public_url.clone()
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Reverts the migrations down to and including the one whose version ends with `version`,
    /// then applies them again: a test of what a migration makes of the data already there.
    #[cfg(feature = "testing")]
    pub fn replay_migrations_from(&self, version: &str) -> Result<(), StoreError> {
        let mut conn = self
            .write_conn()
            .map_err(|e| StoreError::Connect(e.to_string()))?;
        let conn = &mut conn.conn;
        let postgres = matches!(conn, AnyConnection::Postgresql(_));
        let migrations = || {
            if postgres {
                PG_MIGRATIONS
            } else {
                SQLITE_MIGRATIONS
            }
        };
        loop {
            let reverted = conn
                .revert_last_migration(migrations())
                .map_err(|e| StoreError::Migrate(e.to_string()))?;
            if reverted.to_string().ends_with(version) {
                break;
            }
        }
        conn.run_pending_migrations(migrations())
            .map(|_| ())
            .map_err(|e| StoreError::Migrate(e.to_string()))
    }

    /// Applies pending migrations; on PostgreSQL under an advisory lock so that processes
    /// starting together apply each migration once.
    pub fn migrate(&self) -> Result<(), StoreError> {
        let mut conn = self
            .write_conn()
            .map_err(|e| StoreError::Connect(e.to_string()))?;
        let conn = &mut conn.conn;
        let run = |conn: &mut AnyConnection| -> Result<(), StoreError> {
            let migrations = match conn {
                AnyConnection::Postgresql(_) => PG_MIGRATIONS,
                AnyConnection::Sqlite(_) => SQLITE_MIGRATIONS,
            };
            conn.run_pending_migrations(migrations)
                .map(|applied| {
                    for m in applied {
                        log::info!("applied migration {m}");
                    }
                })
                .map_err(|e| StoreError::Migrate(e.to_string()))
        };
        match conn {
            AnyConnection::Postgresql(_) => {
                conn.batch_execute(&format!("SELECT pg_advisory_lock({MIGRATION_LOCK_ID})"))
                    .map_err(|e| StoreError::Migrate(e.to_string()))?;
                let result = run(conn);
                let unlock =
                    conn.batch_execute(&format!("SELECT pg_advisory_unlock({MIGRATION_LOCK_ID})"));
                result?;
                unlock.map_err(|e| StoreError::Migrate(e.to_string()))
            }
            AnyConnection::Sqlite(_) => run(conn),
        }
    }

    /// Runs read-only work on a pooled connection.
    pub(crate) fn read<T>(
        &self,
        f: impl FnOnce(&mut AnyConnection) -> Result<T, TxError>,
    ) -> RepoResult<T> {
        self.checkout()?.run(WORK_LIMIT, f)
    }

    /// Runs reads that must agree with each other (a page and its lines, a document with its
    /// lines and payments) on one snapshot, so a change committed between two of them never
    /// pairs one version's totals with another's lines: PostgreSQL `REPEATABLE READ READ ONLY`,
    /// SQLite a deferred transaction (a WAL reader keeps the snapshot of its first read). Two
    /// round trips more than [`Store::read`]: for reads of more than one statement only. Inside
    /// a keyed request's transaction the reads run in it, as every read there does.
    pub(crate) fn read_snapshot<T>(
        &self,
        f: impl FnOnce(&mut AnyConnection) -> Result<T, TxError>,
    ) -> RepoResult<T> {
        match self.checkout()? {
            pinned @ Checkout::Pinned(_) => pinned.run(WORK_LIMIT, f),
            pooled => pooled.run(WORK_LIMIT, |conn| snapshot_tx(conn, f)),
        }
    }

    /// Runs one statement's work on a pooled connection (never the keyed request's) that must
    /// not hold its caller up: waiting at most `limit` for the connection and `limit` for the
    /// answer, after which the connection is broken and the call fails.
    pub(crate) fn quick<T>(
        &self,
        limit: Duration,
        f: impl FnOnce(&mut AnyConnection) -> Result<T, TxError>,
    ) -> RepoResult<T> {
        let pooled = self
            .pool
            .get_timeout(limit)
            .map_err(|e| RepoError::Unavailable(one_line(&e.to_string())))?;
        Checkout::Pool(pooled).run(limit, f)
    }

    /// Runs `f` in a write transaction. SQLite starts it with `BEGIN IMMEDIATE`, so a transaction
    /// that reads then writes never fails with "database is locked" halfway through.
    pub(crate) fn write<T>(
        &self,
        f: impl FnOnce(&mut AnyConnection) -> Result<T, TxError>,
    ) -> RepoResult<T> {
        self.try_write(f).map_err(TxError::into_repo)
    }

    /// Like [`Store::write`], but keeps the raw failure so callers can react to constraint
    /// violations. Inside a keyed request's transaction, `f` runs in a savepoint of it.
    /// A write that may lose a race on a unique index (a customer or user created by email by
    /// two requests at once): tried up to three times, so a retry finds the winner's row.
    pub(crate) fn write_retrying_unique<T>(
        &self,
        f: impl Fn(&mut AnyConnection) -> Result<T, TxError>,
    ) -> RepoResult<T> {
        let mut attempts = 0;
        loop {
            attempts += 1;
            match self.try_write(&f) {
                Err(e) if e.is_unique_violation() && attempts < 3 => continue,
                result => return result.map_err(TxError::into_repo),
            }
        }
    }

    pub(crate) fn try_write<T>(
        &self,
        f: impl FnOnce(&mut AnyConnection) -> Result<T, TxError>,
    ) -> Result<T, TxError> {
        let mut conn = match (&self.pinned, &self.writer) {
            (Some(pinned), _) => Checkout::Pinned(pinned.checkout()?),
            (None, Some(writer)) => return writer.write(TURN_WAIT, f),
            (None, None) => Checkout::Write(self.write_conn()?),
        };
        let watch = conn.watch();
        let result = match self.pinned {
            Some(_) => conn.conn.transaction(f),
            None => write_tx(&mut conn.conn, f),
        };
        drop(watch);
        conn.note(&result);
        result
    }

    /// A connection for one piece of work: the keyed request's own, or one from the pool.
    fn checkout(&self) -> RepoResult<Checkout<'_>> {
        match &self.pinned {
            Some(pinned) => pinned.checkout().map(Checkout::Pinned),
            None => self.pooled().map(Checkout::Pool),
        }
    }

    pub(crate) fn pooled(&self) -> RepoResult<r2d2::PooledConnection<Manager>> {
        self.pool
            .get()
            .map_err(|e| RepoError::Unavailable(one_line(&e.to_string())))
    }

    /// A connection to write on: on SQLite the writer's, once it is this caller's turn.
    pub(crate) fn write_conn(&self) -> RepoResult<WriteConn> {
        match &self.writer {
            None => self.pooled().map(WriteConn::pooled),
            Some(writer) => writer
                .take(TURN_WAIT)
                .map_err(|busy| TxError::from(busy).into_repo()),
        }
    }
}

/// How long a writer waits for its turn before the request is told to retry (503), as SQLite's
/// busy timeout does for a writer of another process.
const TURN_WAIT: Duration = Duration::from_secs(5);

fn pool_of(manager: Manager, size: u32) -> Result<Pool, StoreError> {
    r2d2::Pool::builder()
        .max_size(size)
        .min_idle(Some(1))
        .connection_timeout(POOL_WAIT)
        .error_handler(Box::new(OneLineErrors))
        .build(manager)
        .map_err(|e| StoreError::Connect(e.to_string()))
}

/// The pool's own reports of failed connection attempts, one log line each.
#[derive(Debug)]
struct OneLineErrors;

impl r2d2::HandleError<diesel::ConnectionError> for OneLineErrors {
    fn handle_error(&self, error: diesel::ConnectionError) {
        log::error!("database connection: {}", one_line(&error.to_string()));
    }
}

impl Checkout<'_> {
    /// Runs `f` on the connection, watched for `limit`, noting a lost connection.
    fn run<T>(
        mut self,
        limit: Duration,
        f: impl FnOnce(&mut AnyConnection) -> Result<T, TxError>,
    ) -> RepoResult<T> {
        let watch = self.watch_for(limit);
        let result = f(&mut self.conn);
        drop(watch);
        self.note(&result);
        result.map_err(TxError::into_repo)
    }

    /// Marks the connection lost when its work failed for want of one, so the pool drops it
    /// instead of lending it again.
    fn note<T>(&mut self, result: &Result<T, TxError>) {
        if let Err(TxError::Db(e)) = result {
            // A read-only answer comes from a former primary that is a standby now (a
            // failover): the connection is useless from here on, like a lost one.
            let read_only = matches!(
                e,
                DieselError::DatabaseError(DatabaseErrorKind::ReadOnlyTransaction, _)
            );
            if is_connection_lost(e) || read_only {
                self.lost = true;
            }
        }
    }
}

/// A connection lent for one piece of work.
enum Checkout<'a> {
    Pool(r2d2::PooledConnection<Manager>),
    Write(WriteConn),
    Pinned(std::sync::MutexGuard<'a, r2d2::PooledConnection<Manager>>),
}

impl std::ops::Deref for Checkout<'_> {
    type Target = PooledConn;

    fn deref(&self) -> &PooledConn {
        match self {
            Checkout::Pool(c) => c,
            Checkout::Write(c) => c,
            Checkout::Pinned(c) => c,
        }
    }
}

impl std::ops::DerefMut for Checkout<'_> {
    fn deref_mut(&mut self) -> &mut PooledConn {
        match self {
            Checkout::Pool(c) => c,
            Checkout::Write(c) => c,
            Checkout::Pinned(c) => c,
        }
    }
}

/// The `BEGIN` of a snapshot read on PostgreSQL.
const SNAPSHOT: &str = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";

fn snapshot_tx<T>(
    conn: &mut AnyConnection,
    f: impl FnOnce(&mut AnyConnection) -> Result<T, TxError>,
) -> Result<T, TxError> {
    match conn {
        AnyConnection::Sqlite(c) => AnsiTransactionManager::begin_transaction_sql(c, "BEGIN")?,
        AnyConnection::Postgresql(c) => AnsiTransactionManager::begin_transaction_sql(c, SNAPSHOT)?,
    }
    let result = f(conn);
    end_tx(conn, result)
}

/// Commits after `result`'s work, or rolls back after its failure.
fn end_tx<T>(conn: &mut AnyConnection, result: Result<T, TxError>) -> Result<T, TxError> {
    match result {
        Ok(v) => {
            commit(conn)?;
            Ok(v)
        }
        Err(e) => {
            if let Err(failed) = rollback(conn) {
                log::error!("rollback failed: {failed}");
            }
            Err(e)
        }
    }
}

fn write_tx<T>(
    conn: &mut AnyConnection,
    f: impl FnOnce(&mut AnyConnection) -> Result<T, TxError>,
) -> Result<T, TxError> {
    begin(conn)?;
    let result = f(conn);
    end_tx(conn, result)
}

impl HealthCheck for Store {
    fn ping(&self) -> RepoResult<()> {
        self.read(|c| c.batch_execute("SELECT 1").map_err(TxError::from))
    }
}

#[cfg(feature = "testing")]
impl Store {
    /// Whether a write on one of the pool's connections fails (on SQLite they are `query_only`:
    /// only the one writer writes).
    pub fn reader_refuses_writes(&self) -> bool {
        self.read(|c| {
            c.batch_execute("CREATE TABLE reader_wrote (x INTEGER)")
                .map_err(TxError::from)
        })
        .is_err()
    }
}
