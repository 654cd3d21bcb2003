//! The event log: written by the repositories inside the transaction of each change (with its
//! webhook deliveries), read by the events API and the webhook workers.

use crate::capped::{capped_page, count_up_to_cap};
use crate::connection::AnyConnection;
use crate::prepared::prepared;
use crate::rows::{from_db, missing_or_forbidden, now_db, scoped};
use crate::schema::events;
use crate::store::{Store, TxError};
use crate::webhooks::{fan_out, selection_pattern, ALL_EVENTS};
use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Nullable, Text, Timestamp};
use invoicing_domain::event::{Event, EventData, EventFilter, EventId};
use invoicing_domain::paging::{Page, PageRequest};
use invoicing_domain::ports::{EventRepository, RepoError, RepoResult};
use invoicing_domain::tenant::{Actor, ActorType, Scope};
use invoicing_domain::webhook_delivery::DeliveryState;
use serde::Serialize;
use std::sync::LazyLock;

#[derive(Queryable, Selectable)]
#[diesel(table_name = events)]
struct EventRow {
    id: i64,
    livemode: bool,
    event_type: String,
    data: String,
    created_at: NaiveDateTime,
    actor_type: String,
    actor_id: Option<i64>,
}

impl EventRow {
    fn into_domain(self) -> Result<Event, TxError> {
        let object = serde_json::from_str(&self.data)
            .map_err(|e| RepoError::Internal(format!("event {} data: {e}", self.id)))?;
        let actor = ActorType::parse(&self.actor_type)
            .and_then(|kind| Actor::from_parts(kind, self.actor_id))
            .ok_or_else(|| {
                RepoError::Internal(format!(
                    "event {} actor: {} {:?}",
                    self.id, self.actor_type, self.actor_id
                ))
            })?;
        Ok(Event {
            id: EventId(self.id),
            object: Event::OBJECT,
            event_type: self.event_type,
            created_at: from_db(self.created_at),
            livemode: self.livemode,
            actor,
            data: EventData { object },
        })
    }
}

/// Writes an event carrying `object` as the API returns it, caused by `scope`'s actor, with its
/// webhook deliveries; call inside the change's transaction. On PostgreSQL both are one
/// prepared statement (the event's insert and the fan-out in one `WITH`); SQLite, which has no
/// inserting `WITH`, takes two.
pub(crate) fn record(
    conn: &mut AnyConnection,
    scope: Scope,
    event_type: &str,
    object: &impl Serialize,
) -> Result<(), TxError> {
    let data = serde_json::to_string(object)
        .map_err(|e| RepoError::Internal(format!("serialising {event_type}: {e}")))?;
    let object_id = object_id(&data);
    let now = now_db();
    if let AnyConnection::Postgresql(_) = conn {
        let recorded: Recorded = prepared!(diesel::sql_query(RECORD_WITH_DELIVERIES.as_str())
            .bind::<BigInt, _>(scope.account_id.0)
            .bind::<Bool, _>(scope.livemode())
            .bind::<Text, _>(event_type)
            .bind::<Text, _>(&data)
            .bind::<Timestamp, _>(now)
            .bind::<Text, _>(selection_pattern(event_type))
            .bind::<Text, _>(scope.actor.kind().as_str())
            .bind::<Nullable<BigInt>, _>(scope.actor.id())
            .bind::<Nullable<BigInt>, _>(object_id))
        .get_result(conn)?;
        if recorded.queued > 0 {
            crate::wakeup::bell().ring();
        }
        return Ok(());
    }
    let event_id = diesel::insert_into(events::table)
        .values((
            events::account_id.eq(scope.account_id.0),
            events::livemode.eq(scope.livemode()),
            events::event_type.eq(event_type),
            events::data.eq(data),
            events::created_at.eq(now),
            events::actor_type.eq(scope.actor.kind().as_str()),
            events::actor_id.eq(scope.actor.id()),
            events::object_id.eq(object_id),
        ))
        .returning(events::id)
        .get_result::<i64>(conn)?;
    fan_out(conn, scope, event_id, event_type)?;
    Ok(())
}

/// [`record`]'s one statement on PostgreSQL: the event and a delivery for every enabled endpoint
/// of its scope that takes its type (as [`fan_out`] selects them), answering how many were queued.
static RECORD_WITH_DELIVERIES: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH e AS (INSERT INTO events (account_id, livemode, event_type, data, created_at, \
           actor_type, actor_id, object_id) \
           VALUES ($1, $2, $3, $4, $5, $7, $8, $9) RETURNING id), \
         d AS (INSERT INTO webhook_deliveries (account_id, livemode, endpoint_id, event_id, \
           state, attempts, next_attempt_at, created_at, updated_at) \
           SELECT w.account_id, w.livemode, w.id, e.id, '{pending}', 0, $5, $5, $5 \
           FROM webhook_endpoints w, e \
           WHERE w.account_id = $1 AND w.livemode = $2 AND w.enabled \
             AND (w.events = '{all}' OR w.events LIKE $6 ESCAPE '\\') RETURNING 1) \
         SELECT count(*) AS queued FROM d",
        pending = DeliveryState::Pending.as_str(),
        all = ALL_EVENTS,
    )
});

#[derive(QueryableByName)]
struct Recorded {
    #[diesel(sql_type = BigInt)]
    queued: i64,
}

/// The id of the object an event carries (every event's object has one; a stray shape has none).
fn object_id(data: &str) -> Option<i64> {
    #[derive(serde::Deserialize)]
    struct WithId {
        id: Option<i64>,
    }
    serde_json::from_str::<WithId>(data).ok().and_then(|o| o.id)
}

/// One event of a scope, as the API and webhooks show it.
pub(crate) fn load_event(
    conn: &mut AnyConnection,
    scope: Scope,
    id: EventId,
) -> Result<Event, TxError> {
    match scoped!(events, scope)
        .filter(events::id.eq(id.0))
        .select(EventRow::as_select())
        .first::<EventRow>(conn)
        .optional()?
    {
        Some(row) => row.into_domain(),
        None => Err(missing_or_forbidden!(conn, events, id.0).into()),
    }
}

impl EventRepository for Store {
    fn object_events(
        &self,
        scope: Scope,
        kind: &str,
        id: i64,
        limit: i64,
    ) -> RepoResult<Vec<Event>> {
        let types = format!("{kind}.%");
        self.read(|conn| {
            scoped!(events, scope)
                .filter(events::object_id.eq(id))
                .filter(events::event_type.like(&types))
                .order(events::id.asc())
                .limit(limit)
                .select(EventRow::as_select())
                .load::<EventRow>(conn)?
                .into_iter()
                .map(EventRow::into_domain)
                .collect()
        })
    }

    fn list_events(
        &self,
        scope: Scope,
        filter: &EventFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Event>> {
        self.read(|conn| {
            let mut count = scoped!(events, scope).into_boxed();
            let mut rows = scoped!(events, scope).into_boxed();
            if let Some(t) = &filter.event_type {
                count = count.filter(events::event_type.eq(t.clone()));
                rows = rows.filter(events::event_type.eq(t.clone()));
            }
            // Every change adds an event: counted up to the cap, never the whole log (SPEC §5).
            let counted = count_up_to_cap(conn, count.select(events::id))?;
            let rows = crate::rows::below!(rows, events, page)
                .order((events::created_at.desc(), events::id.desc()))
                .limit(page.limit() + 1)
                .offset(page.offset())
                .select(EventRow::as_select())
                .load::<EventRow>(conn)?;
            capped_page(rows, page, counted, |rows| {
                rows.into_iter().map(EventRow::into_domain).collect()
            })
        })
    }

    fn get_event(&self, scope: Scope, id: EventId) -> RepoResult<Event> {
        self.read(|conn| load_event(conn, scope, id))
    }
}
