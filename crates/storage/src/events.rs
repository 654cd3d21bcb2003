//! The event log: written by the repositories inside the transaction of each change (with its
//! webhook deliveries), read by the events API and the webhook workers.

use crate::connection::AnyConnection;
use crate::rows::{from_db, missing_or_forbidden, now_db, returning, scoped};
use crate::schema::events;
use crate::store::{Store, TxError};
use crate::webhooks::fan_out;
use chrono::NaiveDateTime;
use diesel::prelude::*;
use invoicing_domain::event::{Event, EventData, EventFilter, EventId};
use invoicing_domain::paging::{Page, PageRequest};
use invoicing_domain::ports::{EventRepository, RepoError, RepoResult};
use invoicing_domain::tenant::Scope;
use serde::Serialize;

#[derive(Queryable, Selectable)]
#[diesel(table_name = events)]
struct EventRow {
    id: i64,
    livemode: bool,
    event_type: String,
    data: String,
    created_at: NaiveDateTime,
}

impl EventRow {
    fn into_domain(self) -> Result<Event, TxError> {
        let object = serde_json::from_str(&self.data)
            .map_err(|e| RepoError::Internal(format!("event {} data: {e}", self.id)))?;
        Ok(Event {
            id: EventId(self.id),
            object: Event::OBJECT,
            event_type: self.event_type,
            created_at: from_db(self.created_at),
            livemode: self.livemode,
            data: EventData { object },
        })
    }
}

/// Writes an event carrying `object` as the API returns it; call inside the change's transaction.
pub(crate) fn record(
    conn: &mut AnyConnection,
    scope: Scope,
    event_type: &str,
    object: &impl Serialize,
) -> Result<Event, TxError> {
    let data = serde_json::to_string(object)
        .map_err(|e| RepoError::Internal(format!("serialising {event_type}: {e}")))?;
    let event = diesel::insert_into(events::table)
        .values((
            events::account_id.eq(scope.account_id.0),
            events::livemode.eq(scope.livemode()),
            events::event_type.eq(event_type),
            events::data.eq(data),
            events::created_at.eq(now_db()),
        ))
        .returning(returning::<EventRow>())
        .get_result::<EventRow>(conn)?
        .into_domain()?;
    fan_out(conn, scope, event.id.0, event_type)?;
    Ok(event)
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
            let total: i64 = count.count().get_result(conn)?;
            let data = rows
                .order((events::created_at.desc(), events::id.desc()))
                .limit(page.limit())
                .offset(page.offset())
                .select(EventRow::as_select())
                .load::<EventRow>(conn)?
                .into_iter()
                .map(EventRow::into_domain)
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Page::new(data, page, total))
        })
    }

    fn get_event(&self, scope: Scope, id: EventId) -> RepoResult<Event> {
        self.read(|conn| load_event(conn, scope, id))
    }
}
