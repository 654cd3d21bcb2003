//! Webhook endpoints (SPEC §11, §21, owners): the environment's endpoints, a new one (its
//! signing secret shown once), one endpoint's settings (URL, events, description, enabled), a
//! new secret (shown once), its delivery log with each attempt, and redelivering an event
//! (`endpoint.rs`). Targets pass the API's SSRF rules (the same operations). Creating one,
//! changing its URL and a new secret ask for the password again when it is not recent.
//! This file holds the list and creating an endpoint.

pub mod endpoint;
mod form;

use crate::dashboard::chrome::Chrome;
use crate::dashboard::form::status_of;
use crate::dashboard::form::{field_errors, is_field_mistake, non_blank};
use crate::dashboard::reauth::ask_unless_recent;
use crate::dashboard::session::Visitor;
use crate::dashboard::settings::section_chrome;
use crate::dashboard::Posted;
use crate::dashboard::{page, Answer};
use crate::AppState;
use actix_web::{web, HttpRequest};
use askama::Template;
use form::Typed;
use invoicing_domain::event::EVENT_TYPES;
use invoicing_domain::webhook::{WebhookEndpoint, WebhookInput};
use std::collections::HashMap;

#[derive(Template)]
#[template(path = "dashboard/webhooks.html")]
struct HooksPage {
    c: Chrome,
    section: &'static str,
    hooks: Vec<WebhookEndpoint>,
    typed: Typed,
    event_types: &'static [&'static str],
    errors: HashMap<String, String>,
    secret: Option<(i64, String)>,
}

impl HooksPage {
    fn err(&self, field: &str) -> Option<&str> {
        self.errors.get(field).map(String::as_str)
    }
    fn ticked(&self, event: &str) -> bool {
        self.typed.events.iter().any(|e| e == event)
    }
}

async fn show_list(
    state: &AppState,
    req: &HttpRequest,
    me: &Visitor,
    typed: Typed,
    errors: HashMap<String, String>,
    secret: Option<(i64, String)>,
) -> Answer {
    let hooks = me.ops(state).list_webhooks("per_page=100").await?;
    page(
        status_of(&errors),
        HooksPage {
            c: section_chrome(me, req, "dash.hooks.title"),
            section: "webhooks",
            hooks: hooks.data,
            typed,
            event_types: EVENT_TYPES,
            errors,
            secret,
        },
    )
}

/// The environment's webhook endpoints and the form for a new one.
#[utoipa::path(get, path = "/dashboard/settings/webhooks", tag = "dashboard", operation_id = "dashboard_webhooks",
    responses(
        (status = 200, description = "The endpoints and the form for a new one", content_type = "text/html", body = String),
        (status = 403, description = "Not an owner", content_type = "text/html", body = String),
    ))]
pub(crate) async fn list(me: Visitor, state: web::Data<AppState>, req: HttpRequest) -> Answer {
    let typed = Typed {
        all: true,
        ..Typed::default()
    };
    show_list(&state, &req, &me, typed, HashMap::new(), None).await
}

/// Creates an endpoint and shows its signing secret, this once.
#[utoipa::path(post, path = "/dashboard/settings/webhooks", tag = "dashboard", operation_id = "dashboard_webhook_create",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `url`, `description`; `all` (every event) or `event` repeated; `reauth_password` when asked"),
    responses(
        (status = 200, description = "The endpoints with the new one's secret, shown once; or the page asking for the password again", content_type = "text/html", body = String),
        (status = 422, description = "The form again, each refusal beside its field (a target the SSRF rules refuse included); or a wrong password", content_type = "text/html", body = String),
    ))]
pub(crate) async fn create(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Answer {
    me.ops(&state).caller().require_owner()?;
    if let Some(ask) = ask_unless_recent(&state, &req, &me, &form, || {
        section_chrome(&me, &req, "dash.hooks.title")
    })
    .await?
    {
        return Ok(ask);
    }
    let typed = Typed::read(&form);
    let input = WebhookInput {
        url: Some(typed.url.trim().to_string()),
        events: Some(typed.events()),
        description: non_blank(&typed.description),
    };
    match me.ops(&state).create_webhook(input).await {
        Ok(hook) => {
            let secret = hook.secret.clone().map(|s| (hook.id.0, s));
            let fresh = Typed {
                all: true,
                ..Typed::default()
            };
            show_list(&state, &req, &me, fresh, HashMap::new(), secret).await
        }
        Err(e) if is_field_mistake(&e) => {
            show_list(&state, &req, &me, typed, field_errors(&e, &req), None).await
        }
        Err(e) => Err(e.into()),
    }
}
