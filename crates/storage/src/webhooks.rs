//! Webhook endpoints: registration, changes, secret rotation, the delivery log, redelivery, and
//! the fan-out that turns each event into deliveries inside the event's own transaction.

use crate::capped::{capped_page, count_up_to_cap};
use crate::connection::AnyConnection;
use crate::rows::{from_db, lock_scoped, missing_or_forbidden, now_db, scoped};
use crate::schema::{events, webhook_attempts, webhook_deliveries, webhook_endpoints};
use crate::store::{Store, TxError};
use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Text, Timestamp};
use invoicing_domain::event::EventId;
use invoicing_domain::paging::{Page, PageRequest};
use invoicing_domain::ports::{RepoError, RepoResult, WebhookRepository};
use invoicing_domain::tenant::Scope;
use invoicing_domain::webhook::{
    EventSelection, NewWebhookEndpoint, WebhookEndpoint, WebhookEndpointId, WebhookPatch,
};
use invoicing_domain::webhook_delivery::{DeliveryAttempt, DeliveryState};
use invoicing_domain::webhook_signature::WebhookSecret;

#[derive(Queryable, Selectable)]
#[diesel(table_name = webhook_endpoints)]
struct EndpointRow {
    id: i64,
    livemode: bool,
    url: String,
    events: String,
    description: Option<String>,
    enabled: bool,
    created_at: NaiveDateTime,
    updated_at: NaiveDateTime,
}

pub(crate) fn selection_of(stored: &str) -> EventSelection {
    EventSelection::from_list(serde_json::from_str(stored).unwrap_or_default())
}

fn selection_json(selection: &EventSelection) -> String {
    serde_json::Value::from(selection.to_list()).to_string()
}

impl EndpointRow {
    fn into_domain(self, secret: Option<String>) -> WebhookEndpoint {
        WebhookEndpoint {
            id: WebhookEndpointId(self.id),
            object: WebhookEndpoint::OBJECT,
            url: self.url,
            events: selection_of(&self.events).to_list(),
            description: self.description,
            enabled: self.enabled,
            livemode: self.livemode,
            secret,
            created_at: from_db(self.created_at),
            updated_at: from_db(self.updated_at),
        }
    }
}

fn load(
    conn: &mut AnyConnection,
    scope: Scope,
    id: WebhookEndpointId,
) -> Result<EndpointRow, TxError> {
    match scoped!(webhook_endpoints, scope)
        .filter(webhook_endpoints::id.eq(id.0))
        .select(EndpointRow::as_select())
        .first::<EndpointRow>(conn)
        .optional()?
    {
        Some(row) => Ok(row),
        None => Err(missing_or_forbidden!(conn, webhook_endpoints, id.0).into()),
    }
}

/// Queues one delivery of the event for every enabled endpoint of its scope that takes its type.
/// Called in the transaction that writes the event, so the two commit together.
pub(crate) fn fan_out(
    conn: &mut AnyConnection,
    scope: Scope,
    event_id: i64,
    event_type: &str,
) -> Result<usize, TxError> {
    // One `INSERT … SELECT` for every enabled endpoint whose stored selection (a JSON list of
    // known event types, or ["*"]) names this type. `_` is LIKE's one-character wildcard, so it
    // is escaped to match itself.
    let listed = selection_pattern(event_type);
    let now = now_db();
    let endpoints = scoped!(webhook_endpoints, scope)
        .filter(webhook_endpoints::enabled.eq(true))
        .filter(
            webhook_endpoints::events
                .eq(ALL_EVENTS)
                .or(webhook_endpoints::events.like(listed).escape('\\')),
        )
        .select((
            webhook_endpoints::account_id,
            webhook_endpoints::livemode,
            webhook_endpoints::id,
            event_id.into_sql::<BigInt>(),
            DeliveryState::Pending.as_str().into_sql::<Text>(),
            0.into_sql::<Integer>(),
            now.into_sql::<Timestamp>(),
            now.into_sql::<Timestamp>(),
            now.into_sql::<Timestamp>(),
        ));
    let queued = diesel::insert_into(webhook_deliveries::table)
        .values(endpoints)
        .into_columns((
            webhook_deliveries::account_id,
            webhook_deliveries::livemode,
            webhook_deliveries::endpoint_id,
            webhook_deliveries::event_id,
            webhook_deliveries::state,
            webhook_deliveries::attempts,
            webhook_deliveries::next_attempt_at,
            webhook_deliveries::created_at,
            webhook_deliveries::updated_at,
        ))
        .execute(conn)?;
    if queued > 0 {
        crate::wakeup::bell().ring();
    }
    Ok(queued)
}

/// How an endpoint that takes every event stores its selection.
pub(crate) const ALL_EVENTS: &str = "[\"*\"]";

/// A `LIKE` pattern (escape `\`) matching a stored selection (a JSON list of known event
/// types) that names `event_type`; `_` is LIKE's one-character wildcard, so it is escaped.
pub(crate) fn selection_pattern(event_type: &str) -> String {
    format!("%\"{}\"%", event_type.replace('_', "\\_"))
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = webhook_attempts)]
struct AttemptRow {
    id: i64,
    event_id: i64,
    event_type: String,
    attempt: i32,
    status_code: Option<i32>,
    duration_ms: i64,
    error: Option<String>,
    response_excerpt: Option<String>,
    state: String,
    next_attempt_at: Option<NaiveDateTime>,
    created_at: NaiveDateTime,
}

impl AttemptRow {
    fn into_domain(self) -> Result<DeliveryAttempt, TxError> {
        let state = DeliveryState::parse(&self.state).ok_or_else(|| {
            RepoError::Internal(format!("attempt {} has state {:?}", self.id, self.state))
        })?;
        Ok(DeliveryAttempt {
            id: self.id,
            object: DeliveryAttempt::OBJECT,
            event_id: self.event_id,
            event_type: self.event_type,
            attempt: self.attempt,
            status_code: self.status_code,
            duration_ms: self.duration_ms,
            error: self.error,
            response_excerpt: self.response_excerpt,
            state,
            next_attempt_at: self.next_attempt_at.map(from_db),
            created_at: from_db(self.created_at),
        })
    }
}

impl WebhookRepository for Store {
    fn create_webhook(&self, scope: Scope, new: NewWebhookEndpoint) -> RepoResult<WebhookEndpoint> {
        self.write(|conn| {
            let now = now_db();
            let row = diesel::insert_into(webhook_endpoints::table)
                .values((
                    webhook_endpoints::account_id.eq(scope.account_id.0),
                    webhook_endpoints::livemode.eq(scope.livemode()),
                    webhook_endpoints::url.eq(new.url.as_str()),
                    webhook_endpoints::events.eq(selection_json(&new.events)),
                    webhook_endpoints::description.eq(&new.description),
                    webhook_endpoints::secret.eq(new.secret.as_str()),
                    webhook_endpoints::enabled.eq(true),
                    webhook_endpoints::created_at.eq(now),
                    webhook_endpoints::updated_at.eq(now),
                ))
                .returning(crate::rows::returning::<EndpointRow>())
                .get_result::<EndpointRow>(conn)?;
            Ok(row.into_domain(Some(new.secret.as_str().to_string())))
        })
    }

    fn list_webhooks(&self, scope: Scope, page: PageRequest) -> RepoResult<Page<WebhookEndpoint>> {
        self.read(|conn| {
            let total: i64 = scoped!(webhook_endpoints, scope).count().get_result(conn)?;
            let data = crate::rows::below!(
                scoped!(webhook_endpoints, scope).into_boxed(),
                webhook_endpoints,
                page
            )
            .order((
                webhook_endpoints::created_at.desc(),
                webhook_endpoints::id.desc(),
            ))
            .limit(page.limit())
            .offset(page.offset())
            .select(EndpointRow::as_select())
            .load::<EndpointRow>(conn)?
            .into_iter()
            .map(|r| r.into_domain(None))
            .collect();
            Ok(Page::new(data, page, total))
        })
    }

    fn get_webhook(&self, scope: Scope, id: WebhookEndpointId) -> RepoResult<WebhookEndpoint> {
        self.read(|conn| Ok(load(conn, scope, id)?.into_domain(None)))
    }

    fn update_webhook(
        &self,
        scope: Scope,
        id: WebhookEndpointId,
        patch: WebhookPatch,
    ) -> RepoResult<WebhookEndpoint> {
        self.write(|conn| {
            load(conn, scope, id)?;
            let target = scoped!(webhook_endpoints, scope).filter(webhook_endpoints::id.eq(id.0));
            if let Some(url) = &patch.url {
                diesel::update(target)
                    .set(webhook_endpoints::url.eq(url.as_str()))
                    .execute(conn)?;
            }
            if let Some(events) = &patch.events {
                diesel::update(target)
                    .set(webhook_endpoints::events.eq(selection_json(events)))
                    .execute(conn)?;
            }
            if let Some(enabled) = patch.enabled {
                diesel::update(target)
                    .set(webhook_endpoints::enabled.eq(enabled))
                    .execute(conn)?;
            }
            if let Some(description) = &patch.description {
                diesel::update(target)
                    .set(webhook_endpoints::description.eq(description))
                    .execute(conn)?;
            }
            if patch != WebhookPatch::default() {
                diesel::update(target)
                    .set(webhook_endpoints::updated_at.eq(now_db()))
                    .execute(conn)?;
            }
            Ok(load(conn, scope, id)?.into_domain(None))
        })
    }

    fn delete_webhook(&self, scope: Scope, id: WebhookEndpointId) -> RepoResult<()> {
        self.write(|conn| {
            load(conn, scope, id)?;
            lock_scoped!(conn, webhook_endpoints, scope, id.0)?;
            // Deliveries before attempts: deleting a delivery a worker is recording waits for
            // its transaction, so the attempt it wrote is committed, and deleted, before the
            // endpoint goes (the other order left that attempt pointing at no endpoint).
            diesel::delete(
                scoped!(webhook_deliveries, scope).filter(webhook_deliveries::endpoint_id.eq(id.0)),
            )
            .execute(conn)?;
            diesel::delete(
                scoped!(webhook_attempts, scope).filter(webhook_attempts::endpoint_id.eq(id.0)),
            )
            .execute(conn)?;
            diesel::delete(
                scoped!(webhook_endpoints, scope).filter(webhook_endpoints::id.eq(id.0)),
            )
            .execute(conn)?;
            Ok(())
        })
    }

    fn rotate_webhook_secret(
        &self,
        scope: Scope,
        id: WebhookEndpointId,
        secret: WebhookSecret,
    ) -> RepoResult<WebhookEndpoint> {
        self.write(|conn| {
            load(conn, scope, id)?;
            diesel::update(
                scoped!(webhook_endpoints, scope).filter(webhook_endpoints::id.eq(id.0)),
            )
            .set((
                webhook_endpoints::secret.eq(secret.as_str()),
                webhook_endpoints::updated_at.eq(now_db()),
            ))
            .execute(conn)?;
            Ok(load(conn, scope, id)?.into_domain(Some(secret.as_str().to_string())))
        })
    }

    fn list_delivery_attempts(
        &self,
        scope: Scope,
        id: WebhookEndpointId,
        page: PageRequest,
    ) -> RepoResult<Page<DeliveryAttempt>> {
        self.read(|conn| {
            load(conn, scope, id)?;
            let of_endpoint =
                || scoped!(webhook_attempts, scope).filter(webhook_attempts::endpoint_id.eq(id.0));
            // Attempts grow with every event: counted up to the cap (SPEC §5).
            let counted = count_up_to_cap(conn, of_endpoint().select(webhook_attempts::id))?;
            let rows = crate::rows::below!(of_endpoint().into_boxed(), webhook_attempts, page)
                .order((
                    webhook_attempts::created_at.desc(),
                    webhook_attempts::id.desc(),
                ))
                .limit(page.limit() + 1)
                .offset(page.offset())
                .select(AttemptRow::as_select())
                .load::<AttemptRow>(conn)?;
            capped_page(rows, page, counted, |rows| {
                rows.into_iter().map(AttemptRow::into_domain).collect()
            })
        })
    }

    fn redeliver_event(&self, scope: Scope, id: EventId) -> RepoResult<usize> {
        self.write(|conn| {
            let event_type: Option<String> = scoped!(events, scope)
                .filter(events::id.eq(id.0))
                .select(events::event_type)
                .first(conn)
                .optional()?;
            match event_type {
                Some(t) => fan_out(conn, scope, id.0, &t),
                None => Err(missing_or_forbidden!(conn, events, id.0).into()),
            }
        })
    }
}
