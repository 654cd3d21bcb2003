//! The event log (SPEC §11) and redelivering an event to the webhook endpoints.

use super::Ops;
use crate::error::ApiError;
use crate::path_id::Id;
use crate::query::ListQuery;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::event::{Event, EventFilter, EventId, EVENT_TYPES};
use invoicing_domain::paging::Page;
use invoicing_domain::tenant::Actor;
use std::collections::HashMap;

fn filter(q: &ListQuery) -> Result<EventFilter, ApiError> {
    let known = |t: &str| EVENT_TYPES.iter().find(|k| **k == t).map(|k| k.to_string());
    Ok(EventFilter {
        event_type: q.choice("type", known, &EVENT_TYPES.join(", "))?,
    })
}

impl Ops {
    pub async fn list_events(&self, query: &str) -> Result<Page<Event>, ApiError> {
        self.list(
            ApiResource::Events,
            query,
            &["type"],
            filter,
            |r, s, f, p| r.list_events(s, f, p),
        )
        .await
    }

    pub async fn event(&self, id: Id<EventId>) -> Result<Event, ApiError> {
        let scope = self.caller.require(ApiResource::Events, Access::Read)?;
        let id = id.get()?;
        self.run(scope, "event", move |r, s| r.get_event(s, id))
            .await
    }

    /// Queues the event again for every endpoint that wants it; answers how many.
    pub async fn redeliver_event(&self, id: Id<EventId>) -> Result<usize, ApiError> {
        let scope = self.caller.require(ApiResource::Webhooks, Access::Write)?;
        let id = id.get()?;
        self.run(scope, "event", move |r, s| r.redeliver_event(s, id))
            .await
    }
}

/// A document's events, the oldest first, with the names of the people and keys that caused
/// them.
pub struct Timeline {
    pub events: Vec<Event>,
    /// Each user's email address and each key's visible part (`sk_test_…4f2a`), by id: read only
    /// when an event names one.
    pub names: HashMap<Actor, String>,
}

impl Ops {
    /// A document's events, the oldest first (at most 200): its timeline.
    pub async fn timeline(&self, kind: &'static str, id: i64) -> Result<Timeline, ApiError> {
        let scope = self.caller.require(ApiResource::Events, Access::Read)?;
        self.run(scope, "event", move |r, s| {
            let events = r.object_events(s, kind, id, 200)?;
            let mut names = HashMap::new();
            if events.iter().any(|e| matches!(e.actor, Actor::User(_))) {
                for m in r.list_members(s.account_id)? {
                    names.insert(Actor::User(m.user.id.0), m.user.email.to_string());
                }
            }
            if events.iter().any(|e| matches!(e.actor, Actor::ApiKey(_))) {
                for k in r.list_keys(s.account_id)? {
                    names.insert(Actor::ApiKey(k.id.0), format!("{}…{}", k.prefix, k.last4));
                }
            }
            Ok(Timeline { events, names })
        })
        .await
    }
}
