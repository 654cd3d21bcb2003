//! The delivery queue the webhook workers drain, on the leases of [`crate::jobs`]: a worker
//! that dies holding a delivery loses it when the lease runs out, and the delivery is attempted
//! again (at least once, never lost).

use crate::connection::AnyConnection;
use crate::events::load_event;
use crate::jobs::{self, WEBHOOK_DELIVERIES};
use crate::rows::{now_db, to_db};
use crate::schema::{webhook_attempts, webhook_deliveries, webhook_endpoints};
use crate::store::{Store, TxError};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use invoicing_domain::event::EventId;
use invoicing_domain::ports::{DeliveryQueue, RepoError, RepoResult};
use invoicing_domain::tenant::{AccountId, Environment, Scope};
use invoicing_domain::webhook::WebhookEndpointId;
use invoicing_domain::webhook_delivery::{
    AttemptOutcome, DeliveryJob, DeliveryState, NextStep, RetrySchedule,
};
use invoicing_domain::webhook_signature::WebhookSecret;

type DeliveryParts = (i64, bool, i64, i64, i32);

fn job_for(conn: &mut AnyConnection, id: i64, claim: &str) -> Result<DeliveryJob, TxError> {
    let (account_id, livemode, endpoint_id, event_id, attempts): DeliveryParts =
        webhook_deliveries::table
            .filter(webhook_deliveries::id.eq(id))
            .select((
                webhook_deliveries::account_id,
                webhook_deliveries::livemode,
                webhook_deliveries::endpoint_id,
                webhook_deliveries::event_id,
                webhook_deliveries::attempts,
            ))
            .first(conn)?;
    let scope = Scope::new(AccountId(account_id), Environment::from_livemode(livemode));
    let (url, secret): (String, String) = webhook_endpoints::table
        .filter(webhook_endpoints::account_id.eq(account_id))
        .filter(webhook_endpoints::id.eq(endpoint_id))
        .select((webhook_endpoints::url, webhook_endpoints::secret))
        .first(conn)?;
    let secret = WebhookSecret::parse(&secret).map_err(|_| {
        RepoError::Internal(format!("webhook {endpoint_id} has an unusable secret"))
    })?;
    let event = load_event(conn, scope, EventId(event_id))?;
    let payload = serde_json::to_string(&event)
        .map_err(|e| RepoError::Internal(format!("serialising event {event_id}: {e}")))?;
    Ok(DeliveryJob {
        delivery_id: id,
        claim: claim.to_string(),
        scope,
        endpoint_id: WebhookEndpointId(endpoint_id),
        url,
        secret,
        event_id: event.id,
        event_type: event.event_type,
        payload,
        attempt: u32::try_from(attempts).unwrap_or(0).saturating_add(1),
    })
}

impl DeliveryQueue for Store {
    fn next_delivery_due(&self) -> RepoResult<Option<DateTime<Utc>>> {
        self.read(|conn| jobs::next_due(conn, &WEBHOOK_DELIVERIES))
    }

    fn claim_deliveries(
        &self,
        now: DateTime<Utc>,
        lease: std::time::Duration,
        limit: u32,
    ) -> RepoResult<Vec<DeliveryJob>> {
        // Idle workers poll often: a plain read first keeps them from taking SQLite's write lock
        // (or opening a PostgreSQL transaction) when nothing is due.
        if self
            .read(|conn| jobs::due(conn, &WEBHOOK_DELIVERIES, now, 1, false))?
            .is_empty()
        {
            return Ok(Vec::new());
        }
        self.write(|conn| {
            let (ids, claim) = jobs::claim(conn, &WEBHOOK_DELIVERIES, now, lease, limit)?;
            ids.into_iter()
                .map(|id| job_for(conn, id, &claim))
                .collect()
        })
    }

    fn record_attempt(
        &self,
        job: &DeliveryJob,
        outcome: &AttemptOutcome,
        schedule: &RetrySchedule,
        now: DateTime<Utc>,
    ) -> RepoResult<bool> {
        self.write(|conn| {
            if !jobs::settle(conn, &WEBHOOK_DELIVERIES, job.delivery_id, &job.claim)? {
                return Ok(false);
            }
            let (state, next_at) = match schedule.after(job.attempt, outcome) {
                NextStep::Succeeded => (DeliveryState::Succeeded, None),
                NextStep::Failed => (DeliveryState::Failed, None),
                NextStep::RetryIn(delay) => {
                    let delay =
                        chrono::Duration::from_std(delay).unwrap_or(chrono::Duration::zero());
                    (DeliveryState::Pending, Some(to_db(now + delay)))
                }
            };
            let attempt = i32::try_from(job.attempt).unwrap_or(i32::MAX);
            let stamp = now_db();
            let row = webhook_deliveries::table.filter(webhook_deliveries::id.eq(job.delivery_id));
            diesel::update(row)
                .set((
                    webhook_deliveries::state.eq(state.as_str()),
                    webhook_deliveries::attempts.eq(attempt),
                    webhook_deliveries::updated_at.eq(stamp),
                ))
                .execute(conn)?;
            if let Some(at) = next_at {
                diesel::update(row)
                    .set(webhook_deliveries::next_attempt_at.eq(at))
                    .execute(conn)?;
            }
            diesel::insert_into(webhook_attempts::table)
                .values((
                    webhook_attempts::account_id.eq(job.scope.account_id.0),
                    webhook_attempts::livemode.eq(job.scope.livemode()),
                    webhook_attempts::delivery_id.eq(job.delivery_id),
                    webhook_attempts::endpoint_id.eq(job.endpoint_id.0),
                    webhook_attempts::event_id.eq(job.event_id.0),
                    webhook_attempts::event_type.eq(&job.event_type),
                    webhook_attempts::attempt.eq(attempt),
                    webhook_attempts::status_code.eq(outcome.status_code.map(i32::from)),
                    webhook_attempts::duration_ms.eq(outcome.duration_ms),
                    webhook_attempts::error.eq(&outcome.error),
                    webhook_attempts::response_excerpt.eq(&outcome.response_excerpt),
                    webhook_attempts::state.eq(state.as_str()),
                    webhook_attempts::next_attempt_at.eq(next_at),
                    webhook_attempts::created_at.eq(stamp),
                ))
                .execute(conn)?;
            Ok(true)
        })
    }

    fn extend_delivery(
        &self,
        job: &DeliveryJob,
        now: DateTime<Utc>,
        lease: std::time::Duration,
    ) -> RepoResult<bool> {
        self.write(|conn| {
            jobs::extend(
                conn,
                &WEBHOOK_DELIVERIES,
                job.delivery_id,
                &job.claim,
                jobs::lease_end(now, lease),
            )
        })
    }

    fn release_delivery(&self, job: &DeliveryJob) -> RepoResult<()> {
        self.write(|conn| {
            jobs::settle(conn, &WEBHOOK_DELIVERIES, job.delivery_id, &job.claim)?;
            Ok(())
        })
    }
}
