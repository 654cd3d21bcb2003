//! `/api/v1/events` (SPEC §11): the event log of the caller's account and environment.

use crate::auth::Auth;
use crate::body::{NoBody, OptionalJsonBody};
use crate::csv_export;
use crate::error::ApiError;
use crate::openapi::error_body::ErrorBody;
use crate::ops::Ops;
use crate::path_id::Id;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::event::{Event, EventId, EVENT_TYPES};
use serde::Serialize;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;
use utoipa::ToSchema;

crate::page_schema! {
    /// A page of events (SPEC §5 envelope).
    EventList of Event
}

/// The `type` filter's schema: one of [`EVENT_TYPES`], the list the filter checks against, so
/// the document and the server cannot disagree on it.
pub struct EventTypeName;

impl utoipa::PartialSchema for EventTypeName {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(EVENT_TYPES.iter().copied()))
            .into()
    }
}

/// Named `EventType`: the filter, `Event.type` and the webhooks' `events` refer to it.
impl ToSchema for EventTypeName {
    fn name() -> std::borrow::Cow<'static, str> {
        "EventType".into()
    }
}

/// List events, newest first.
#[utoipa::path(get, path = "/api/v1/events", tag = "events",
    params(
        ("type" = Option<EventTypeName>, Query, description = "Only events of this type, e.g. invoice.paid"),
        ("page" = Option<u32>, Query, description = "Page number, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
        ("format" = Option<String>, Query, description = "`csv`: every matching row as CSV (as `Accept: text/csv` asks); anything else: JSON"),
    ),
    responses((status = 200, description = "A page of events; or, asked for CSV, every matching one (UTF-8 with a byte-order mark)",
        content((EventList = "application/json"), (String = "text/csv")))),
    security(("api_key" = [])))]
pub async fn list(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    EVENTS
        .answer(
            req.query_string(),
            csv_export::wanted(&req),
            Ops::for_key(&state, &auth),
        )
        .await
}

/// Retrieve an event.
#[utoipa::path(get, path = "/api/v1/events/{id}", tag = "events",
    params(("id" = i64, Path, description = "Event id")),
    responses(
        (status = 200, description = "The event", body = Event),
        (status = 404, description = "No such event", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn get(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<EventId>,
) -> Result<HttpResponse, ApiError> {
    let event = Ops::for_key(&state, &auth).event(id).await?;
    Ok(HttpResponse::Ok().json(event))
}

/// What a redelivery queued.
#[derive(Serialize, ToSchema)]
pub struct Redelivery {
    /// Always `event_redelivery`.
    pub object: &'static str,
    pub event_id: i64,
    /// How many endpoints the event was queued for.
    pub queued: usize,
}

impl Redelivery {
    pub const OBJECT: &'static str = "event_redelivery";
}

/// Queue the event again for every enabled endpoint that takes its type (same `webhook-id`).
#[utoipa::path(post, path = "/api/v1/events/{id}/redeliver", tag = "events",
    params(("id" = i64, Path, description = "Event id")),
    responses(
        (status = 202, description = "Queued", body = Redelivery),
        (status = 404, description = "No such event", body = ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn redeliver(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<EventId>,
    _body: OptionalJsonBody<NoBody>,
) -> Result<HttpResponse, ApiError> {
    let queued = Ops::for_key(&state, &auth).redeliver_event(id).await?;
    Ok(HttpResponse::Accepted().json(Redelivery {
        object: Redelivery::OBJECT,
        // Redelivered, so the id was good.
        event_id: id.get()?.0,
        queued,
    }))
}

/// The log as CSV, for this route and the dashboard's export link: who did what to which
/// object (the object itself is the JSON's).
pub(crate) const EVENTS: csv_export::Export<Event> = csv_export::Export {
    file: "events.csv",
    columns: &[
        csv_export::text("id"),
        csv_export::text("type"),
        csv_export::text("created_at"),
        csv_export::text("actor_type"),
        csv_export::text("actor_id"),
        csv_export::text("object"),
        csv_export::text("object_id"),
    ],
    row: event_row,
    list: |ops, q| Box::pin(async move { ops.list_events(&q).await }),
};

fn event_row(e: &Event) -> Vec<csv_export::Cell> {
    use csv_export::Cell::{Int, Text, Time};
    let object = &e.data.object;
    vec![
        Int(e.id.0),
        Text(e.event_type.clone()),
        Time(Some(e.created_at)),
        Text(e.actor.kind().as_str().to_string()),
        csv_export::maybe_int(e.actor.id()),
        Text(object["object"].as_str().unwrap_or_default().to_string()),
        csv_export::maybe_int(object["id"].as_i64()),
    ]
}
