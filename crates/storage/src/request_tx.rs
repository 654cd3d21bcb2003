//! A keyed request's own transaction (SPEC §15): opened when the request starts, joined by every
//! repository call the request makes, and committed together with the answer it stores.
//!
//! While it is open it is the claim on the key: on PostgreSQL an advisory lock of the
//! transaction, on SQLite the database's single writer lock plus this process's list of running
//! keys. A process that dies takes its transaction with it, so the key is free again at once
//! (PostgreSQL also ends transactions whose client went silent, `idle_in_transaction_session_timeout`).

use crate::connection::{AnyConnection, Manager};
use crate::idempotency::record_answer;
use crate::store::{self, Store, TxError};
use crate::writer::Turn;
use invoicing_domain::idempotency::{IdempotencyKey, RequestFingerprint, StoredResponse};
use invoicing_domain::ports::{IdempotentRequest, RepoError, RepoResult, Repositories};
use invoicing_domain::tenant::Scope;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

type PooledConnection = r2d2::PooledConnection<Manager>;

/// The connection a keyed request holds, in its open transaction.
pub(crate) struct Pinned {
    conn: Mutex<PooledConnection>,
    /// False once committed or rolled back: later work must not start a transaction of its own
    /// on this connection behind the request's back.
    open: AtomicBool,
    /// Given back when the transaction ends (or with the connection, if it never does).
    held: Mutex<Option<Held>>,
}

/// What a keyed request holds while its transaction is open, on SQLite: its key in this
/// process's list of running ones, and the turn of the one writer.
pub(crate) struct Held {
    pub _running: Option<RunningKey>,
    pub _turn: Option<Turn>,
}

impl Pinned {
    pub(crate) fn checkout(&self) -> RepoResult<MutexGuard<'_, PooledConnection>> {
        let guard = self
            .conn
            .lock()
            .map_err(|_| RepoError::Internal("a request's connection was poisoned".into()))?;
        if !self.open.load(Ordering::Acquire) {
            return Err(RepoError::Internal(
                "work after its request's transaction ended".into(),
            ));
        }
        Ok(guard)
    }
}

/// A request dropped without commit or rollback (its task was cancelled, or it panicked) rolls
/// back here, on the spot: the key's claim ends with its transaction now, not when the server
/// notices a closed connection.
impl Drop for Pinned {
    fn drop(&mut self) {
        if self.open.swap(false, Ordering::AcqRel) {
            let conn = self.conn.get_mut().unwrap_or_else(|p| p.into_inner());
            let _watch = conn.watch();
            if let Err(e) = store::rollback(&mut conn.conn) {
                log::debug!("rollback of a dropped request transaction: {e}");
            }
        }
    }
}

/// Keys running in this process, per tenant.
#[derive(Clone, Default)]
pub(crate) struct RunningKeys(Arc<Mutex<HashSet<(i64, bool, String)>>>);

/// One entry of [`RunningKeys`], removed on drop.
pub(crate) struct RunningKey {
    keys: RunningKeys,
    entry: (i64, bool, String),
}

impl RunningKeys {
    /// Marks the key running, or `None` if it already is.
    pub(crate) fn claim(&self, scope: Scope, key: &IdempotencyKey) -> Option<RunningKey> {
        let entry = (
            scope.account_id.0,
            scope.livemode(),
            key.as_str().to_string(),
        );
        let mut set = self.0.lock().unwrap_or_else(|p| p.into_inner());
        set.insert(entry.clone()).then(|| RunningKey {
            keys: self.clone(),
            entry,
        })
    }
}

impl Drop for RunningKey {
    fn drop(&mut self) {
        let mut set = self.keys.0.lock().unwrap_or_else(|p| p.into_inner());
        set.remove(&self.entry);
    }
}

/// What [`crate::idempotency`] hands out for a request that runs.
pub(crate) struct RequestTx {
    store: Store,
    pinned: Arc<Pinned>,
    scope: Scope,
    key: IdempotencyKey,
    request: RequestFingerprint,
}

impl RequestTx {
    /// Takes over `conn`, whose transaction is open and holds the claim on `key`.
    pub(crate) fn new(
        base: &Store,
        conn: PooledConnection,
        held: Held,
        scope: Scope,
        key: &IdempotencyKey,
        request: &RequestFingerprint,
    ) -> RequestTx {
        let pinned = Arc::new(Pinned {
            conn: Mutex::new(conn),
            open: AtomicBool::new(true),
            held: Mutex::new(Some(held)),
        });
        let mut store = base.clone();
        store.pinned = Some(pinned.clone());
        RequestTx {
            store,
            pinned,
            scope,
            key: key.clone(),
            request: request.clone(),
        }
    }

    /// Ends the transaction with `end`; whatever happens, it is no longer open afterwards.
    fn finish(
        &self,
        end: impl FnOnce(&mut AnyConnection) -> Result<(), TxError>,
    ) -> RepoResult<()> {
        let mut conn = self.pinned.checkout()?;
        self.pinned.open.store(false, Ordering::Release);
        let _watch = conn.watch();
        let result = end(&mut conn.conn);
        if result.is_err() {
            // What is left of the transaction goes: the pool drops a connection still inside
            // one, and the server rolls it back.
            if let Err(e) = store::rollback(&mut conn.conn) {
                log::debug!("rollback after a failed end of a request transaction: {e}");
            }
        }
        drop(conn);
        if let Ok(mut held) = self.pinned.held.lock() {
            held.take();
        }
        result.map_err(TxError::into_repo)
    }
}

impl IdempotentRequest for RequestTx {
    fn repos(&self) -> Arc<dyn Repositories> {
        Arc::new(self.store.clone())
    }

    fn commit(self: Box<Self>, answer: &StoredResponse) -> RepoResult<()> {
        self.finish(|conn| {
            record_answer(conn, self.scope, &self.key, &self.request, answer)?;
            store::commit(conn)?;
            Ok(())
        })
    }

    fn rollback(self: Box<Self>) -> RepoResult<()> {
        self.finish(|conn| store::rollback(conn).map_err(TxError::from))
    }
}
