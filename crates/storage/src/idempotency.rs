//! Idempotency keys (SPEC §15). A keyed request runs in a transaction of its own that claims the
//! key while it is open (see [`crate::request_tx`]); its answer is inserted in that same
//! transaction, so a stored answer exists exactly when the request's effect committed.

use crate::request_tx::{Held, RequestTx};
use crate::rows::{now_db, scoped, to_db};
use crate::schema::idempotency_keys as ik;
use crate::store::{self, Store, TxError};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Integer, Text, Timestamp};
use invoicing_domain::idempotency::{
    IdempotencyClaim, IdempotencyKey, RequestFingerprint, StoredResponse,
};
use invoicing_domain::ports::{IdempotencyRepository, IdempotentRequest, RepoError, RepoResult};
use invoicing_domain::tenant::Scope;

/// Rows are only ever written with their answer; the column remains from claims that were rows.
const DONE: &str = "done";

#[derive(Queryable, Selectable)]
#[diesel(table_name = ik)]
struct KeyRow {
    method: String,
    path: String,
    body_sha256: String,
    status_code: Option<i32>,
    response_body: Option<String>,
}

#[derive(QueryableByName)]
struct Locked {
    #[diesel(sql_type = Bool)]
    locked: bool,
}

type Claim = IdempotencyClaim<Box<dyn IdempotentRequest>>;

impl IdempotencyRepository for Store {
    fn begin_idempotent(
        &self,
        scope: Scope,
        key: &IdempotencyKey,
        request: &RequestFingerprint,
    ) -> RepoResult<Claim> {
        // SQLite has one writer: a second request with the key would only wait for the first,
        // so this process's own list says "in use" at once.
        let running = match self.backend() {
            crate::Backend::Sqlite => match self.running_keys.claim(scope, key) {
                Some(running) => Some(running),
                None => return Ok(IdempotencyClaim::InUse),
            },
            crate::Backend::Postgres => None,
        };
        let (mut conn, turn) = self.write_conn()?.into_parts();
        let watch = conn.watch();
        store::begin(&mut conn.conn).map_err(|e| TxError::from(e).into_repo())?;
        let found = claim_or_find(&mut conn.conn, scope, key, request);
        drop(watch);
        match found {
            Ok(None) => Ok(IdempotencyClaim::Run(Box::new(RequestTx::new(
                self,
                conn,
                Held {
                    _running: running,
                    _turn: turn,
                },
                scope,
                key,
                request,
            )))),
            Ok(Some(answer)) => {
                let watch = conn.watch();
                let ended = store::rollback(&mut conn.conn);
                drop(watch);
                // The connection goes back before the turn passes.
                drop(conn);
                drop(turn);
                ended.map_err(|e| TxError::from(e).into_repo())?;
                Ok(answer)
            }
            // The connection is still inside the transaction: the pool drops it.
            Err(e) => Err(e.into_repo()),
        }
    }

    fn purge_idempotency_keys(&self, before: DateTime<Utc>) -> RepoResult<usize> {
        self.write(|conn| {
            diesel::delete(ik::table.filter(ik::created_at.lt(to_db(before))))
                .execute(conn)
                .map_err(TxError::from)
        })
    }
}

/// Inside the request's fresh transaction: takes the key, or says what the request answers.
fn claim_or_find(
    conn: &mut crate::connection::AnyConnection,
    scope: Scope,
    key: &IdempotencyKey,
    request: &RequestFingerprint,
) -> Result<Option<Claim>, TxError> {
    if let crate::connection::AnyConnection::Postgresql(_) = conn {
        // Released by the end of this transaction, whatever ends it (commit, rollback, a
        // dead client). Once another holder's lock is ours, its commit is visible.
        let lock: Locked = diesel::sql_query(
            "SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked",
        )
        .bind::<Text, _>(format!(
            "idempotency:{}:{}:{}",
            scope.account_id.0,
            scope.livemode(),
            key.as_str()
        ))
        .get_result(conn)?;
        if !lock.locked {
            return Ok(Some(IdempotencyClaim::InUse));
        }
    }
    let row: Option<KeyRow> = scoped!(ik, scope)
        .filter(ik::idem_key.eq(key.as_str()))
        .filter(ik::state.eq(DONE))
        .select(KeyRow::as_select())
        .first(conn)
        .optional()?;
    let Some(row) = row else {
        return Ok(None);
    };
    let same = row.method == request.method
        && row.path == request.path
        && row.body_sha256 == request.body_sha256;
    if !same {
        return Ok(Some(IdempotencyClaim::Reused));
    }
    let status = row
        .status_code
        .and_then(|s| u16::try_from(s).ok())
        .ok_or_else(|| RepoError::Internal("idempotency row without status".into()))?;
    Ok(Some(IdempotencyClaim::Replay(StoredResponse {
        status,
        body: row.response_body.unwrap_or_default(),
    })))
}

/// Keeps the answer, in the request's transaction.
pub(crate) fn record_answer(
    conn: &mut crate::connection::AnyConnection,
    scope: Scope,
    key: &IdempotencyKey,
    request: &RequestFingerprint,
    answer: &StoredResponse,
) -> Result<(), TxError> {
    let stamp = now_db();
    // The same statement on both backends; parameters numbered in order of appearance.
    diesel::sql_query(
        "INSERT INTO idempotency_keys (account_id, livemode, idem_key, method, path, \
         body_sha256, state, status_code, response_body, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
    )
    .bind::<BigInt, _>(scope.account_id.0)
    .bind::<Bool, _>(scope.livemode())
    .bind::<Text, _>(key.as_str())
    .bind::<Text, _>(&request.method)
    .bind::<Text, _>(&request.path)
    .bind::<Text, _>(&request.body_sha256)
    .bind::<Text, _>(DONE)
    .bind::<Integer, _>(i32::from(answer.status))
    .bind::<Text, _>(&answer.body)
    .bind::<Timestamp, _>(stamp)
    .bind::<Timestamp, _>(stamp)
    .execute(conn)?;
    Ok(())
}
