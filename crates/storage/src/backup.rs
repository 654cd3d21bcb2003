//! Backups and restores of the database (SPEC §24).
//!
//! SQLite: `VACUUM INTO` writes a consistent snapshot while the server reads and writes (never a
//! copy of a live file, which can tear between pages and miss what the WAL holds). The copy is
//! written under a hidden temporary name beside its destination, checked (`integrity_check`,
//! and that it is this service's database), flushed to disk and only then renamed into place,
//! so a backup that dies midway leaves nothing under the final name.
//! PostgreSQL: `pg_dump --format=custom`, when the tool is installed, under the same rule.
//!
//! A restore (SQLite, the server stopped) checks the file, refuses one made by a newer version,
//! migrates an older one forward on a copy, keeps the current database beside it and only then
//! puts the backup in place. Every process that opens the database holds a shared lock on a
//! file beside it ([`InUse`]); a restore takes it exclusively, so it never runs under a server.

use crate::connection::{Backend, DatabaseUrl};
use crate::store::{self, StoreError};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::Text;
use diesel_migrations::MigrationHarness;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("{0}")]
    Url(String),
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("the database: {0}")]
    Database(String),
    #[error("{0} is not a backup of this service: {1}")]
    Foreign(PathBuf, String),
    #[error("{0} was made by a newer version of the server (migration {1} is unknown here)")]
    Newer(PathBuf, String),
    #[error("the file failed SQLite's integrity check: {0}")]
    Check(String),
    #[error("a server (or another command) is using {0}: stop it first")]
    InUse(PathBuf),
    #[error("{0}")]
    Tool(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BackupError + '_ {
    move |error| BackupError::Io {
        path: path.to_path_buf(),
        error,
    }
}

fn db_error(e: impl std::fmt::Display) -> BackupError {
    BackupError::Database(store::one_line(&e.to_string()))
}

/// What a backup wrote.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Written {
    pub path: PathBuf,
    pub bytes: u64,
    pub took_ms: u64,
}

/// Backs the database up to `to`.
pub fn backup(database_url: &str, to: &Path) -> Result<Written, BackupError> {
    backup_with(database_url, to, || {})
}

/// [`backup`], calling `before_rename` once the copy is whole and checked under its temporary
/// name (the tests' crash point).
pub fn backup_with(
    database_url: &str,
    to: &Path,
    before_rename: impl FnOnce(),
) -> Result<Written, BackupError> {
    let url = DatabaseUrl::parse(database_url).map_err(BackupError::Url)?;
    let started = Instant::now();
    if let Some(dir) = to.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    let partial = partial_name(to);
    remove_if_there(&partial)?;
    let made = match url.backend {
        Backend::Sqlite => sqlite_snapshot(&url, &partial)
            .and_then(|()| check_sqlite(&partial))
            .map(drop),
        Backend::Postgres => pg_dump(&url, &partial),
    };
    if let Err(e) = made {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    before_rename();
    put_in_place(&partial, to)?;
    let bytes = std::fs::metadata(to).map_err(io(to))?.len();
    Ok(Written {
        path: to.to_path_buf(),
        bytes,
        took_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
}

/// The hidden name a copy is written under until it is whole and checked.
fn partial_name(to: &Path) -> PathBuf {
    let name = to
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "backup".into());
    to.with_file_name(format!(".{name}.partial"))
}

fn remove_if_there(path: &Path) -> Result<(), BackupError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(path)(e)),
        _ => Ok(()),
    }
}

/// Flushes `partial` and renames it to `to`, then flushes the directory so the rename lasts.
fn put_in_place(partial: &Path, to: &Path) -> Result<(), BackupError> {
    File::open(partial)
        .and_then(|f| f.sync_all())
        .map_err(io(partial))?;
    std::fs::rename(partial, to).map_err(io(to))?;
    if let Some(dir) = to.parent().filter(|d| !d.as_os_str().is_empty()) {
        // Directories cannot be opened for syncing everywhere; where they can, it is needed.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

fn sqlite_snapshot(url: &DatabaseUrl, to: &Path) -> Result<(), BackupError> {
    let mut conn = SqliteConnection::establish(&url.target).map_err(db_error)?;
    conn.batch_execute("PRAGMA busy_timeout = 5000;")
        .map_err(db_error)?;
    diesel::sql_query("VACUUM INTO ?")
        .bind::<Text, _>(to.to_string_lossy())
        .execute(&mut conn)
        .map_err(db_error)?;
    Ok(())
}

#[derive(QueryableByName)]
struct Check {
    #[diesel(sql_type = Text)]
    integrity_check: String,
}

/// The file is a whole SQLite database of this service, with the migrations it has applied.
fn check_sqlite(path: &Path) -> Result<Vec<String>, BackupError> {
    let foreign = |why: String| BackupError::Foreign(path.to_path_buf(), why);
    let mut header = [0u8; 16];
    std::io::Read::read_exact(&mut File::open(path).map_err(io(path))?, &mut header)
        .map_err(|e| foreign(format!("too short to be a database ({e})")))?;
    if &header != b"SQLite format 3\0" {
        return Err(foreign("not an SQLite database".into()));
    }
    let mut conn = SqliteConnection::establish(&path.to_string_lossy()).map_err(db_error)?;
    let found: Vec<Check> = diesel::sql_query("PRAGMA integrity_check")
        .load(&mut conn)
        .map_err(|e| BackupError::Check(store::one_line(&e.to_string())))?;
    let verdict: Vec<&str> = found.iter().map(|c| c.integrity_check.as_str()).collect();
    if verdict != ["ok"] {
        return Err(BackupError::Check(verdict.join("; ")));
    }
    let applied = conn
        .applied_migrations()
        .map_err(|e| foreign(format!("no migrations table ({e})")))?;
    if applied.is_empty() {
        return Err(foreign("no migration was ever applied to it".into()));
    }
    Ok(applied.iter().map(|v| v.to_string()).collect())
}

/// `pg_dump --format=custom` of the database to `to`, then `pg_restore --list` of it as the
/// check that it is whole.
fn pg_dump(url: &DatabaseUrl, to: &Path) -> Result<(), BackupError> {
    let run = |tool: &str, args: &[&std::ffi::OsStr]| {
        let out = std::process::Command::new(tool)
            .args(args)
            .output()
            .map_err(|e| {
                BackupError::Tool(format!("{tool}: {e} (is postgresql-client installed?)"))
            })?;
        if out.status.success() {
            Ok(())
        } else {
            Err(BackupError::Tool(format!(
                "{tool}: {}",
                store::one_line(&String::from_utf8_lossy(&out.stderr))
            )))
        }
    };
    let file = to.as_os_str();
    run(
        "pg_dump",
        &[
            "--format=custom".as_ref(),
            "--file".as_ref(),
            file,
            url.target.as_ref(),
        ],
    )?;
    run("pg_restore", &["--list".as_ref(), file])
}

/// Held by every process that opens an SQLite database: a shared lock on `<database>.in-use`.
/// A restore takes it exclusively, so it never swaps the file under a running server.
pub struct InUse {
    _file: File,
}

fn lock_path(database: &Path) -> PathBuf {
    let mut name = database.as_os_str().to_os_string();
    name.push(".in-use");
    PathBuf::from(name)
}

/// Takes an advisory lock on the file at `path` (made if missing) without waiting: shared or
/// exclusive; `None` when another process holds it the other way.
pub fn try_lock(path: &Path, exclusive: bool) -> std::io::Result<Option<File>> {
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    let taken = if exclusive {
        file.try_lock()
    } else {
        file.try_lock_shared()
    };
    match taken {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

impl InUse {
    pub(crate) fn shared(database: &Path) -> Result<InUse, StoreError> {
        let path = lock_path(database);
        match try_lock(&path, false) {
            Ok(Some(file)) => Ok(InUse { _file: file }),
            Ok(None) => Err(StoreError::Connect(format!(
                "{}: a restore is putting a backup in place",
                database.display()
            ))),
            Err(e) => Err(StoreError::Connect(format!("{}: {e}", path.display()))),
        }
    }

    fn exclusive(database: &Path) -> Result<InUse, BackupError> {
        let path = lock_path(database);
        match try_lock(&path, true).map_err(io(&path))? {
            Some(file) => Ok(InUse { _file: file }),
            None => Err(BackupError::InUse(database.to_path_buf())),
        }
    }
}

/// What a restore did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Restored {
    pub database: PathBuf,
    pub from: PathBuf,
    /// Where the database it replaced was kept (none if there was none).
    pub kept: Option<PathBuf>,
    /// Migrations the backup lacked and were applied to it.
    pub migrated: Vec<String>,
}

/// Puts the backup at `from` in place of the SQLite database at `database_url`.
pub fn restore(database_url: &str, from: &Path) -> Result<Restored, BackupError> {
    let url = DatabaseUrl::parse(database_url).map_err(BackupError::Url)?;
    if url.backend != Backend::Sqlite {
        return Err(BackupError::Url(
            "restore puts an SQLite backup in place; on PostgreSQL use pg_restore (docs/DEPLOYMENT.md)"
                .into(),
        ));
    }
    let database = PathBuf::from(&url.target);
    let _alone = InUse::exclusive(&database)?;
    check_sqlite(from)?;
    // Checked and migrated on a copy beside the database, so nothing changes until it is good.
    let incoming = partial_name(&database);
    remove_if_there(&incoming)?;
    let prepared = std::fs::copy(from, &incoming)
        .map_err(io(&incoming))
        .and_then(|_| migrate_forward(&incoming, from));
    let migrated = match prepared {
        Ok(m) => m,
        Err(e) => {
            let _ = std::fs::remove_file(&incoming);
            return Err(e);
        }
    };
    let kept = if database.exists() {
        let kept = database.with_file_name(format!(
            "{}.before-restore-{}",
            database
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            chrono::Utc::now().format("%Y%m%dT%H%M%SZ")
        ));
        // A snapshot of the current database, what its WAL holds included.
        sqlite_snapshot(&url, &kept)?;
        Some(kept)
    } else {
        None
    };
    // A WAL left beside the old file would be read into the new one: every file goes.
    for suffix in ["", "-wal", "-shm"] {
        let mut name = database.as_os_str().to_os_string();
        name.push(suffix);
        remove_if_there(Path::new(&name))?;
    }
    put_in_place(&incoming, &database)?;
    Ok(Restored {
        database,
        from: from.to_path_buf(),
        kept,
        migrated,
    })
}

/// Applies this binary's migrations that the copy lacks; refuses one that knows migrations this
/// binary does not (made by a newer server).
fn migrate_forward(copy: &Path, from: &Path) -> Result<Vec<String>, BackupError> {
    let applied = check_sqlite(copy)?;
    let mut conn = SqliteConnection::establish(&copy.to_string_lossy()).map_err(db_error)?;
    let known = store::sqlite_migration_versions();
    if let Some(unknown) = applied.iter().find(|v| !known.contains(v)) {
        return Err(BackupError::Newer(from.to_path_buf(), unknown.clone()));
    }
    let migrated = store::run_sqlite_migrations(&mut conn).map_err(db_error)?;
    drop(conn);
    check_sqlite(copy)?;
    Ok(migrated)
}
