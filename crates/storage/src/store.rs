//! The pool, transactions that behave the same on both backends, migrations, and the mapping of
//! diesel failures to [`RepoError`].

use crate::connection::{AnyConnection, Backend, DatabaseUrl, Manager};
use diesel::connection::{AnsiTransactionManager, SimpleConnection, TransactionManager};
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

pub type Pool = r2d2::Pool<Manager>;

/// The storage handle the application holds: cheap to clone, safe to share across threads.
#[derive(Clone)]
pub struct Store {
    pool: Pool,
    backend: Backend,
    /// Base of payment links, which are part of documents as the API (and events) show them.
    public_url: Arc<str>,
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
        let pool = r2d2::Pool::builder()
            .max_size(max_connections.max(1))
            .min_idle(Some(1))
            .connection_timeout(Duration::from_secs(5))
            .build(Manager::new(url))
            .map_err(|e| StoreError::Connect(e.to_string()))?;
        Ok(Store {
            pool,
            backend,
            public_url: Arc::from("https://localhost:8443"),
        })
    }

    /// Sets the base of the public pages used in payment links.
    pub fn with_public_url(mut self, public_url: &str) -> Store {
        self.public_url = Arc::from(public_url.trim_end_matches('/'));
        self
    }

    pub fn public_url(&self) -> Arc<str> {
        self.public_url.clone()
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Applies pending migrations; on PostgreSQL under an advisory lock so that processes
    /// starting together apply each migration once.
    pub fn migrate(&self) -> Result<(), StoreError> {
        let mut conn = self
            .pool
            .get()
            .map_err(|e| StoreError::Connect(e.to_string()))?;
        let conn = &mut *conn;
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
        let mut conn = self.checkout()?;
        f(&mut conn).map_err(TxError::into_repo)
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
    /// violations.
    pub(crate) fn try_write<T>(
        &self,
        f: impl FnOnce(&mut AnyConnection) -> Result<T, TxError>,
    ) -> Result<T, TxError> {
        let mut conn = self.checkout()?;
        write_tx(&mut conn, f)
    }

    fn checkout(&self) -> RepoResult<r2d2::PooledConnection<Manager>> {
        self.pool
            .get()
            .map_err(|e| RepoError::Unavailable(e.to_string()))
    }
}

fn write_tx<T>(
    conn: &mut AnyConnection,
    f: impl FnOnce(&mut AnyConnection) -> Result<T, TxError>,
) -> Result<T, TxError> {
    if let AnyConnection::Sqlite(c) = conn {
        AnsiTransactionManager::begin_transaction_sql(c, "BEGIN IMMEDIATE")?;
        let result = f(conn);
        let AnyConnection::Sqlite(c) = conn else {
            unreachable!("the variant of a connection cannot change")
        };
        return match result {
            Ok(v) => {
                AnsiTransactionManager::commit_transaction(c)?;
                Ok(v)
            }
            Err(e) => {
                if let Err(rollback) = AnsiTransactionManager::rollback_transaction(c) {
                    log::error!("rollback failed: {rollback}");
                }
                Err(e)
            }
        };
    }
    conn.transaction(f)
}

impl HealthCheck for Store {
    fn ping(&self) -> RepoResult<()> {
        self.read(|c| c.batch_execute("SELECT 1").map_err(TxError::from))
    }
}

/// Errors inside a transaction: a domain outcome that rolls it back, or a database failure.
#[derive(Debug)]
pub(crate) enum TxError {
    Repo(RepoError),
    Db(DieselError),
}

impl From<DieselError> for TxError {
    fn from(e: DieselError) -> Self {
        TxError::Db(e)
    }
}

impl From<RepoError> for TxError {
    fn from(e: RepoError) -> Self {
        TxError::Repo(e)
    }
}

impl TxError {
    pub(crate) fn is_foreign_key_violation(&self) -> bool {
        matches!(
            self,
            TxError::Db(DieselError::DatabaseError(
                DatabaseErrorKind::ForeignKeyViolation,
                _
            ))
        )
    }

    pub(crate) fn is_unique_violation(&self) -> bool {
        matches!(
            self,
            TxError::Db(DieselError::DatabaseError(
                DatabaseErrorKind::UniqueViolation,
                _
            ))
        )
    }

    pub(crate) fn into_repo(self) -> RepoError {
        match self {
            TxError::Repo(e) => e,
            TxError::Db(DieselError::NotFound) => RepoError::NotFound,
            TxError::Db(DieselError::DatabaseError(
                DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::UnableToSendCommand,
                info,
            )) => RepoError::Unavailable(info.message().to_string()),
            TxError::Db(e) => RepoError::Internal(e.to_string()),
        }
    }
}
