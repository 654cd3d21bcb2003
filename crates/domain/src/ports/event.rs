//! Events (SPEC §11).

use super::RepoResult;
use crate::event::{Event, EventFilter, EventId};
use crate::paging::{Page, PageRequest};
use crate::tenant::Scope;

pub trait EventRepository {
    fn list_events(
        &self,
        scope: Scope,
        filter: &EventFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Event>>;
    fn get_event(&self, scope: Scope, id: EventId) -> RepoResult<Event>;
    /// The events about one object (`kind` is the event types' first word, e.g. `invoice`), the
    /// oldest first, at most `limit`: a document's timeline.
    fn object_events(
        &self,
        scope: Scope,
        kind: &str,
        id: i64,
        limit: i64,
    ) -> RepoResult<Vec<Event>>;
}
