//! Settings → Payments (SPEC §25, owners): the environment's own Stripe account. Not connected:
//! a form for its keys and where to find them. Connected: what recognises the keys (never
//! them), how their last check went, the webhook address to paste into Stripe with the events
//! to select, whether its signing secret is saved, a form for new keys, and Disconnect. The
//! operations check the keys (with Stripe) and decide who may; this screen shows their answer.
//!
//! The secrets are never written into any page: not pre-filled, not carried over a refusal, and
//! not through the page that asks for the password again (which copies a post's fields), so
//! the keys' form asks for the password in a field of its own.

use super::section_chrome;
use crate::dashboard::chrome::Chrome;
use crate::dashboard::form::{field_errors, is_field_mistake};
use crate::dashboard::reauth::{ask_unless_recent, confirmed_in_form, password_is_recent, InForm};
use crate::dashboard::session::Visitor;
use crate::dashboard::views::moment;
use crate::dashboard::Posted;
use crate::dashboard::{page, see_other, Answer};
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::gateway::{GatewayKeysInput, GatewaySettings};
use std::collections::HashMap;

const HERE: &str = "/dashboard/settings/payments";

/// The connection as the screen shows it: enough to recognise the keys, never them.
pub(crate) struct Connection {
    pub publishable_key: String,
    pub secret_ending: String,
    pub connected_at: String,
    pub checked_at: Option<String>,
    pub check_ok: bool,
    pub webhook_url: String,
    pub webhook_events: Vec<&'static str>,
    pub webhook_secret_set: bool,
}

impl Connection {
    fn of(c: &Chrome, s: &GatewaySettings) -> Connection {
        Connection {
            publishable_key: s.publishable_key.clone(),
            secret_ending: c.t.fill(
                "dash.stripe.secret_ending",
                &[("last4", &s.secret_key_last4)],
            ),
            connected_at: moment(c.t, s.connected_at),
            checked_at: s.checked_at.map(|t| moment(c.t, t)),
            check_ok: s.check_ok,
            webhook_url: s.webhook_url.clone(),
            webhook_events: s.webhook_events.clone(),
            webhook_secret_set: s.webhook_secret_set,
        }
    }
}

#[derive(Template)]
#[template(path = "dashboard/stripe.html")]
struct StripePage {
    c: Chrome,
    section: &'static str,
    connected: Option<Connection>,
    /// Whether this server takes card payments at all (a gateway is configured).
    available: bool,
    /// The publishable key as typed (not a secret); the secrets' fields are always empty.
    publishable_key: String,
    errors: HashMap<String, String>,
    /// What stopped the save that names no field (Stripe not answering).
    problem: Option<String>,
    /// Whether the keys' form asks for the password (not typed in the last five minutes).
    ask_password: bool,
}

impl StripePage {
    fn err(&self, field: &str) -> Option<&str> {
        self.errors.get(field).map(String::as_str)
    }
}

/// What went wrong, to show again.
#[derive(Default)]
struct Refused {
    status: Option<StatusCode>,
    publishable_key: String,
    errors: HashMap<String, String>,
    problem: Option<String>,
}

async fn show(state: &AppState, req: &HttpRequest, me: &Visitor, refused: Refused) -> Answer {
    let settings = match me.ops(state).stripe_settings().await {
        Ok(s) => Some(s),
        // Nothing connected yet: the form to connect.
        Err(e) if e.code == "gateway_not_connected" => None,
        Err(e) => return Err(e.into()),
    };
    let c = section_chrome(me, req, "dash.stripe.heading");
    let status = refused
        .status
        .unwrap_or(crate::dashboard::form::status_of(&refused.errors));
    page(
        status,
        StripePage {
            connected: settings.as_ref().map(|s| Connection::of(&c, s)),
            available: state.config.gateway.is_some(),
            publishable_key: if refused.publishable_key.is_empty() {
                settings.map(|s| s.publishable_key).unwrap_or_default()
            } else {
                refused.publishable_key
            },
            errors: refused.errors,
            problem: refused.problem,
            ask_password: !password_is_recent(me),
            section: "payments",
            c,
        },
    )
}

/// The environment's Stripe connection, or the form to make it (owners).
#[utoipa::path(get, path = "/dashboard/settings/payments", tag = "dashboard", operation_id = "dashboard_stripe",
    responses(
        (status = 200, description = "The connection (never a secret), or the form for the keys", content_type = "text/html", body = String),
        (status = 403, description = "Not an owner", content_type = "text/html", body = String),
    ))]
pub(crate) async fn settings(me: Visitor, state: web::Data<AppState>, req: HttpRequest) -> Answer {
    show(&state, &req, &me, Refused::default()).await
}

/// Connects Stripe (or replaces the keys), as `PUT /api/v1/account/gateways/stripe` does: the
/// secret key is checked with Stripe before anything is saved.
#[utoipa::path(post, path = "/dashboard/settings/payments", tag = "dashboard", operation_id = "dashboard_stripe_connect",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `secret_key`, `publishable_key`, `webhook_secret` (optional: empty keeps the saved one); `reauth_password` when the page asks for it"),
    responses(
        (status = 303, description = "Connected", headers(("Location" = String, description = "The connection"))),
        (status = 404, description = "This server takes no card payments", content_type = "text/html", body = String),
        (status = 422, description = "The form again (its secrets empty), each refusal beside its field: keys of the other environment, malformed, refused by Stripe; or the password missing or wrong", content_type = "text/html", body = String),
        (status = 502, description = "The form again: Stripe did not answer, nothing was saved", content_type = "text/html", body = String),
    ))]
pub(crate) async fn connect(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Answer {
    let ops = me.ops(&state);
    ops.caller().require_owner()?;
    let publishable_key = form.raw("publishable_key");
    let password = match confirmed_in_form(&state, &req, &me, &form).await? {
        InForm::Confirmed => None,
        InForm::Missing => Some("dash.stripe.password_needed"),
        InForm::Wrong => Some("dash.account.wrong_password"),
    };
    if let Some(key) = password {
        let t = crate::dashboard::locale_of(&req);
        let refused = Refused {
            publishable_key,
            errors: HashMap::from([("reauth_password".to_string(), t.text(key).to_string())]),
            ..Refused::default()
        };
        return show(&state, &req, &me, refused).await;
    }
    let input = GatewayKeysInput {
        secret_key: form.text("secret_key"),
        publishable_key: form.text("publishable_key"),
        webhook_secret: form.text("webhook_secret"),
    };
    match ops.connect_stripe(input).await {
        Ok(_) => Ok(see_other(&format!("{HERE}?done=stripe_connected"))),
        Err(e) if is_field_mistake(&e) => {
            let refused = Refused {
                publishable_key,
                errors: field_errors(&e, &req),
                ..Refused::default()
            };
            show(&state, &req, &me, refused).await
        }
        Err(e) if e.status == StatusCode::BAD_GATEWAY => {
            let t = crate::dashboard::locale_of(&req);
            let problem = if e.code == "gateway_unavailable" {
                t.text("dash.stripe.unreachable").to_string()
            } else {
                e.message.clone()
            };
            let refused = Refused {
                status: Some(e.status),
                publishable_key,
                problem: Some(problem),
                ..Refused::default()
            };
            show(&state, &req, &me, refused).await
        }
        Err(e) => Err(e.into()),
    }
}

/// Disconnects Stripe, as `DELETE /api/v1/account/gateways/stripe` does: card payment stops
/// being offered; payments already taken stay. Owners, after typing their password again.
#[utoipa::path(post, path = "/dashboard/settings/payments/disconnect", tag = "dashboard", operation_id = "dashboard_stripe_disconnect",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`; `reauth_password` when asked"),
    responses(
        (status = 303, description = "Disconnected", headers(("Location" = String, description = "The settings, to connect again"))),
        (status = 200, description = "The page asking for the password again", content_type = "text/html", body = String),
        (status = 404, description = "Nothing connected", content_type = "text/html", body = String),
        (status = 422, description = "A wrong password", content_type = "text/html", body = String),
    ))]
pub(crate) async fn disconnect(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Answer {
    let ops = me.ops(&state);
    ops.caller().require_owner()?;
    if let Some(ask) = ask_unless_recent(&state, &req, &me, &form, || {
        section_chrome(&me, &req, "dash.stripe.heading")
    })
    .await?
    {
        return Ok(ask);
    }
    ops.disconnect_stripe().await?;
    Ok(see_other(&format!("{HERE}?done=stripe_disconnected")))
}
