//! One webhook endpoint's screen: its settings and delivery log; saving them, a new signing
//! secret, deleting it, and redelivering an event.

use super::form::Typed;
use crate::dashboard::chrome::Chrome;
use crate::dashboard::form::status_of;
use crate::dashboard::form::{field_errors, is_field_mistake, non_blank, path_number};
use crate::dashboard::reauth::ask_unless_recent;
use crate::dashboard::session::Visitor;
use crate::dashboard::settings::section_chrome;
use crate::dashboard::views::{moment, Pager};
use crate::dashboard::Posted;
use crate::dashboard::{page, see_other, Answer};
use crate::path_id::Id;
use crate::AppState;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::event::EVENT_TYPES;
use invoicing_domain::webhook::{WebhookEndpoint, WebhookPatchInput};
use std::collections::HashMap;

pub(crate) struct AttemptRow {
    pub event_id: i64,
    pub event_type: String,
    pub attempt: i32,
    pub when: String,
    pub outcome: String,
    pub state: &'static str,
    pub duration_ms: i64,
}

#[derive(Template)]
#[template(path = "dashboard/webhook.html")]
struct HookPage {
    c: Chrome,
    section: &'static str,
    hook: WebhookEndpoint,
    typed: Typed,
    event_types: &'static [&'static str],
    errors: HashMap<String, String>,
    secret: Option<String>,
    attempts: Vec<AttemptRow>,
    pager: Pager,
}

impl HookPage {
    fn err(&self, field: &str) -> Option<&str> {
        self.errors.get(field).map(String::as_str)
    }
    fn ticked(&self, event: &str) -> bool {
        self.typed.events.iter().any(|e| e == event)
    }
}

async fn show_one(
    state: &AppState,
    req: &HttpRequest,
    me: &Visitor,
    hook: WebhookEndpoint,
    typed: Option<Typed>,
    errors: HashMap<String, String>,
    secret: Option<String>,
) -> Answer {
    let c = section_chrome(me, req, "dash.hooks.endpoint");
    let query = crate::dashboard::form::without_blanks(req.query_string());
    let id = Id::parse(&hook.id.0.to_string());
    let log = me
        .ops(state)
        .without_totals()
        .delivery_attempts(id, &query)
        .await?;
    let pager = Pager::new(c.t, req.path(), &query, &log);
    let attempts = log
        .data
        .iter()
        .map(|a| AttemptRow {
            event_id: a.event_id,
            event_type: a.event_type.clone(),
            attempt: a.attempt,
            when: moment(c.t, a.created_at),
            outcome: match (&a.status_code, &a.error) {
                (Some(code), _) => format!("HTTP {code}"),
                (None, Some(e)) => e.clone(),
                (None, None) => String::new(),
            },
            state: a.state.as_str(),
            duration_ms: a.duration_ms,
        })
        .collect();
    page(
        status_of(&errors),
        HookPage {
            typed: typed.unwrap_or_else(|| Typed::of(&hook)),
            c,
            section: "webhooks",
            hook,
            event_types: EVENT_TYPES,
            errors,
            secret,
            attempts,
            pager,
        },
    )
}

/// One endpoint: its settings and its delivery log.
#[utoipa::path(get, path = "/dashboard/settings/webhooks/{id}", tag = "dashboard", operation_id = "dashboard_webhook",
    params(("id" = String, Path, description = "The endpoint's id"),
        ("page" = Option<String>, Query, description = "Page of the delivery log")),
    responses(
        (status = 200, description = "The endpoint's form and delivery attempts", content_type = "text/html", body = String),
        (status = 403, description = "Not an owner", content_type = "text/html", body = String),
        (status = 404, description = "No such endpoint in this account and environment", content_type = "text/html", body = String),
    ))]
pub(crate) async fn detail(
    me: Visitor,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Answer {
    let hook = me.ops(&state).webhook(Id::parse(&id)).await?;
    show_one(&state, &req, &me, hook, None, HashMap::new(), None).await
}

/// Saves an endpoint's settings, as `PATCH /api/v1/webhooks/{id}` does; a new URL asks for the
/// password again when it is not recent.
#[utoipa::path(post, path = "/dashboard/settings/webhooks/{id}", tag = "dashboard", operation_id = "dashboard_webhook_save",
    params(("id" = String, Path, description = "The endpoint's id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `url`, `description`, `enabled`; `all` or `event` repeated; `reauth_password` when asked"),
    responses(
        (status = 200, description = "The page asking for the password again", content_type = "text/html", body = String),
        (status = 303, description = "Saved", headers(("Location" = String, description = "The endpoint"))),
        (status = 404, description = "No such endpoint in this account and environment", content_type = "text/html", body = String),
        (status = 422, description = "The form again, each refusal beside its field; or a wrong password", content_type = "text/html", body = String),
    ))]
pub(crate) async fn save(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Answer {
    let hook = me.ops(&state).webhook(Id::parse(&id)).await?;
    let typed = Typed::read(&form);
    let url = typed.url.trim().to_string();
    if url != hook.url {
        if let Some(ask) = ask_unless_recent(&state, &req, &me, &form, || {
            section_chrome(&me, &req, "dash.hooks.endpoint")
        })
        .await?
        {
            return Ok(ask);
        }
    }
    let patch = WebhookPatchInput {
        url: Some(Some(url)),
        events: Some(Some(typed.events())),
        enabled: Some(Some(typed.enabled)),
        description: Some(non_blank(&typed.description)),
    };
    match me.ops(&state).update_webhook(Id::parse(&id), patch).await {
        Ok(saved) => Ok(see_other(&format!(
            "/dashboard/settings/webhooks/{}?done=saved",
            saved.id.0
        ))),
        Err(e) if is_field_mistake(&e) => {
            let errors = field_errors(&e, &req);
            show_one(&state, &req, &me, hook, Some(typed), errors, None).await
        }
        Err(e) => Err(e.into()),
    }
}

/// A new signing secret, shown once; the old one stops at once.
#[utoipa::path(post, path = "/dashboard/settings/webhooks/{id}/rotate", tag = "dashboard", operation_id = "dashboard_webhook_rotate",
    params(("id" = String, Path, description = "The endpoint's id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`; `reauth_password` when asked"),
    responses(
        (status = 200, description = "The endpoint with its new secret, shown once; or the page asking for the password again", content_type = "text/html", body = String),
        (status = 404, description = "No such endpoint in this account and environment", content_type = "text/html", body = String),
        (status = 422, description = "A wrong password", content_type = "text/html", body = String),
    ))]
pub(crate) async fn rotate(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Answer {
    me.ops(&state).webhook(Id::parse(&id)).await?;
    if let Some(ask) = ask_unless_recent(&state, &req, &me, &form, || {
        section_chrome(&me, &req, "dash.hooks.endpoint")
    })
    .await?
    {
        return Ok(ask);
    }
    let hook = me.ops(&state).rotate_webhook_secret(Id::parse(&id)).await?;
    let secret = hook.secret.clone();
    show_one(&state, &req, &me, hook, None, HashMap::new(), secret).await
}

/// Deletes an endpoint and its pending deliveries.
#[utoipa::path(post, path = "/dashboard/settings/webhooks/{id}/delete", tag = "dashboard", operation_id = "dashboard_webhook_delete",
    params(("id" = String, Path, description = "The endpoint's id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`"),
    responses(
        (status = 303, description = "Deleted", headers(("Location" = String, description = "The endpoints"))),
        (status = 404, description = "No such endpoint in this account and environment", content_type = "text/html", body = String),
    ))]
pub(crate) async fn delete(
    Posted { me, .. }: Posted,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Answer {
    me.ops(&state).delete_webhook(Id::parse(&id)).await?;
    Ok(see_other("/dashboard/settings/webhooks?done=deleted"))
}

/// Delivers an event again to every endpoint that takes it, as `POST
/// /api/v1/events/{id}/redeliver` does.
#[utoipa::path(post, path = "/dashboard/settings/webhooks/{id}/redeliver", tag = "dashboard", operation_id = "dashboard_webhook_redeliver",
    params(("id" = String, Path, description = "The endpoint whose log the event is in")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`, `event` (the event's id)"),
    responses(
        (status = 303, description = "Queued", headers(("Location" = String, description = "The endpoint"))),
        (status = 404, description = "No such event or endpoint in this account and environment", content_type = "text/html", body = String),
    ))]
pub(crate) async fn redeliver(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Answer {
    let hook = me.ops(&state).webhook(Id::parse(&id)).await?;
    let event = path_number(&form.raw("event"), "event")?;
    me.ops(&state)
        .redeliver_event(Id::parse(&event.to_string()))
        .await?;
    Ok(see_other(&format!(
        "/dashboard/settings/webhooks/{}?done=redelivered",
        hook.id.0
    )))
}
