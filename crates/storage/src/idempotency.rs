//! Idempotency keys: the database decides which request runs for a key (the row's primary key),
//! so concurrent retries, also on other server processes, see the first one as in use.

use crate::rows::{now_db, scoped, to_db};
use crate::schema::idempotency_keys as ik;
use crate::store::{Store, TxError};
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Text, Timestamp};
use invoicing_domain::idempotency::{
    IdempotencyClaim, IdempotencyKey, RequestFingerprint, StoredResponse, ABANDONED_AFTER,
};
use invoicing_domain::ports::{IdempotencyRepository, RepoError, RepoResult};
use invoicing_domain::tenant::Scope;

const RUNNING: &str = "running";
const DONE: &str = "done";

#[derive(Queryable, Selectable)]
#[diesel(table_name = ik)]
struct KeyRow {
    method: String,
    path: String,
    body_sha256: String,
    state: String,
    status_code: Option<i32>,
    response_body: Option<String>,
    updated_at: NaiveDateTime,
}

impl IdempotencyRepository for Store {
    fn claim_idempotency_key(
        &self,
        scope: Scope,
        key: &IdempotencyKey,
        request: &RequestFingerprint,
        now: DateTime<Utc>,
    ) -> RepoResult<IdempotencyClaim> {
        self.write(|conn| {
            let stamp = to_db(now);
            // The same statement on both backends; parameters numbered in order of appearance.
            let inserted = diesel::sql_query(
                "INSERT INTO idempotency_keys (account_id, livemode, idem_key, method, path, \
                 body_sha256, state, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING",
            )
            .bind::<BigInt, _>(scope.account_id.0)
            .bind::<Bool, _>(scope.livemode())
            .bind::<Text, _>(key.as_str())
            .bind::<Text, _>(&request.method)
            .bind::<Text, _>(&request.path)
            .bind::<Text, _>(&request.body_sha256)
            .bind::<Text, _>(RUNNING)
            .bind::<Timestamp, _>(stamp)
            .bind::<Timestamp, _>(stamp)
            .execute(conn)?;
            if inserted == 1 {
                return Ok(IdempotencyClaim::Run);
            }
            let target = scoped!(ik, scope).filter(ik::idem_key.eq(key.as_str()));
            let row: KeyRow = target.select(KeyRow::as_select()).first(conn)?;
            let same = row.method == request.method
                && row.path == request.path
                && row.body_sha256 == request.body_sha256;
            if !same {
                return Ok(IdempotencyClaim::Reused);
            }
            if row.state == DONE {
                let status = row
                    .status_code
                    .and_then(|s| u16::try_from(s).ok())
                    .ok_or_else(|| RepoError::Internal("idempotency row without status".into()))?;
                return Ok(IdempotencyClaim::Replay(StoredResponse {
                    status,
                    body: row.response_body.unwrap_or_default(),
                }));
            }
            let abandoned = chrono::Duration::from_std(ABANDONED_AFTER)
                .map(|d| row.updated_at < to_db(now - d))
                .unwrap_or(false);
            if !abandoned {
                return Ok(IdempotencyClaim::InUse);
            }
            // Its process died before answering; whether its effect landed is unknown, and a
            // key that could never be used again would leave the client no way forward.
            diesel::update(target.filter(ik::state.eq(RUNNING)))
                .set(ik::updated_at.eq(stamp))
                .execute(conn)?;
            Ok(IdempotencyClaim::Run)
        })
    }

    fn complete_idempotency_key(
        &self,
        scope: Scope,
        key: &IdempotencyKey,
        response: &StoredResponse,
    ) -> RepoResult<()> {
        self.write(|conn| {
            diesel::update(
                scoped!(ik, scope)
                    .filter(ik::idem_key.eq(key.as_str()))
                    .filter(ik::state.eq(RUNNING)),
            )
            .set((
                ik::state.eq(DONE),
                ik::status_code.eq(i32::from(response.status)),
                ik::response_body.eq(&response.body),
                ik::updated_at.eq(now_db()),
            ))
            .execute(conn)?;
            Ok(())
        })
    }

    fn release_idempotency_key(&self, scope: Scope, key: &IdempotencyKey) -> RepoResult<()> {
        self.write(|conn| {
            diesel::delete(
                scoped!(ik, scope)
                    .filter(ik::idem_key.eq(key.as_str()))
                    .filter(ik::state.eq(RUNNING)),
            )
            .execute(conn)?;
            Ok(())
        })
    }

    fn purge_idempotency_keys(&self, before: DateTime<Utc>) -> RepoResult<usize> {
        self.write(|conn| {
            diesel::delete(ik::table.filter(ik::created_at.lt(to_db(before))))
                .execute(conn)
                .map_err(TxError::from)
        })
    }
}
