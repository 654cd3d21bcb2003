//! One connection type for both backends, and a pool manager that picks the backend from the
//! URL scheme and keeps the real connection error (diesel's derived `establish` loses it).

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::r2d2::R2D2Connection;

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

pub struct Manager {
    url: DatabaseUrl,
}

impl Manager {
    pub fn new(url: DatabaseUrl) -> Self {
        Manager { url }
    }
}

/// Opens one connection, set up as the pool would set it up.
pub fn establish(url: &DatabaseUrl) -> Result<AnyConnection, ConnectionError> {
    match url.backend {
        Backend::Postgres => {
            diesel::PgConnection::establish(&url.target).map(AnyConnection::Postgresql)
        }
        Backend::Sqlite => {
            let mut conn = diesel::SqliteConnection::establish(&url.target)?;
            // busy_timeout first: the WAL switch itself may wait for another writer.
            conn.batch_execute(
                "PRAGMA busy_timeout = 10000; PRAGMA journal_mode = WAL; \
                     PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;",
            )
            .map_err(ConnectionError::CouldntSetupConfiguration)?;
            Ok(AnyConnection::Sqlite(conn))
        }
    }
}

impl r2d2::ManageConnection for Manager {
    type Connection = AnyConnection;
    type Error = ConnectionError;

    fn connect(&self) -> Result<AnyConnection, ConnectionError> {
        establish(&self.url)
    }

    fn is_valid(&self, conn: &mut AnyConnection) -> Result<(), ConnectionError> {
        conn.batch_execute("SELECT 1")
            .map_err(ConnectionError::CouldntSetupConfiguration)
    }

    fn has_broken(&self, conn: &mut AnyConnection) -> bool {
        conn.is_broken()
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
}
