//! Transactions by hand (the writer's group commits and requests' own transactions need them
//! beyond diesel's closures) and the errors inside one, told apart: a domain outcome, a database
//! that is busy or gone (the client may retry), or a failure.

use crate::connection::AnyConnection;
use diesel::connection::{AnsiTransactionManager, TransactionManager};
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use invoicing_domain::ports::RepoError;

/// libpq's messages span lines ("…\n\tIs the server running…"); a log line must not.
pub(crate) fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Opens a write transaction by hand (SQLite: `BEGIN IMMEDIATE`); diesel tracks it, so a
/// `transaction` inside it becomes a savepoint.
pub(crate) fn begin(conn: &mut AnyConnection) -> diesel::QueryResult<()> {
    match conn {
        AnyConnection::Sqlite(c) => {
            AnsiTransactionManager::begin_transaction_sql(c, "BEGIN IMMEDIATE")
        }
        AnyConnection::Postgresql(c) => AnsiTransactionManager::begin_transaction(c),
    }
}

pub(crate) fn commit(conn: &mut AnyConnection) -> diesel::QueryResult<()> {
    match conn {
        AnyConnection::Sqlite(c) => AnsiTransactionManager::commit_transaction(c),
        AnyConnection::Postgresql(c) => AnsiTransactionManager::commit_transaction(c),
    }
}

pub(crate) fn rollback(conn: &mut AnyConnection) -> diesel::QueryResult<()> {
    match conn {
        AnyConnection::Sqlite(c) => AnsiTransactionManager::rollback_transaction(c),
        AnyConnection::Postgresql(c) => AnsiTransactionManager::rollback_transaction(c),
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
            TxError::Db(e) if is_transient(&e) => RepoError::Unavailable(one_line(&e.to_string())),
            TxError::Db(e) => RepoError::Internal(one_line(&e.to_string())),
        }
    }
}

/// libpq's words for a connection that is gone.
const CONNECTION_LOST: &[&str] = &[
    "server closed the connection",
    "terminating connection",
    "no connection to the server",
    "could not receive data",
    "could not send data",
];

/// The database's state right now, not the request's fault: locked, too slow, failing over.
const DATABASE_BUSY: &[&str] = &[
    "database is locked",
    "database table is locked",
    "database is busy",
    "canceling statement due to statement timeout",
    "canceling statement due to lock timeout",
    "connection to server",
    "the database system is shutting down",
    "the database system is starting up",
    "the database system is in recovery mode",
];

fn message_has(e: &DieselError, words: &[&str]) -> bool {
    match e {
        DieselError::DatabaseError(_, info) => {
            let message = info.message();
            words.iter().any(|w| message.contains(w))
        }
        _ => false,
    }
}

/// The connection itself failed (as opposed to a statement on it).
pub(crate) fn is_connection_lost(e: &DieselError) -> bool {
    matches!(
        e,
        DieselError::DatabaseError(
            DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::UnableToSendCommand,
            _,
        )
    ) || message_has(e, CONNECTION_LOST)
}

/// Failures that say nothing about the request and everything about the database's state right
/// now (gone, failing over, locked, too slow): the client should retry later (503), not be told
/// of an internal error. diesel keeps no SQLSTATE for these, so some are known by message.
fn is_transient(e: &DieselError) -> bool {
    is_connection_lost(e)
        || matches!(
            e,
            DieselError::DatabaseError(DatabaseErrorKind::ReadOnlyTransaction, _)
                | DieselError::BrokenTransactionManager
        )
        || message_has(e, DATABASE_BUSY)
}
