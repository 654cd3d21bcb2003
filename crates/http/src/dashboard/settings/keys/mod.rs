//! API keys (SPEC §2, §21, owners): the keys of the environment shown, a form for a new one
//! (scopes from checkboxes, expiry, limits; `form.rs`), revoke, and rotate with a grace period.
//! A new key is shown once, on the page that answers its creation, as selectable text with a
//! copy button. Creating and rotating ask for the password again when it is not recent.

mod form;

use crate::dashboard::chrome::Chrome;
use crate::dashboard::form::{field_errors, is_field_mistake, path_number};
use crate::dashboard::reauth::ask_unless_recent;
use crate::dashboard::session::Visitor;
use crate::dashboard::settings::section_chrome;
use crate::dashboard::views::moment;
use crate::dashboard::Posted;
use crate::dashboard::{page, see_other, Answer};
use crate::error::ApiError;
use crate::ops::IssuedKey;
use crate::AppState;
use actix_web::{web, HttpRequest};
use askama::Template;
use chrono::Utc;
use form::{read, request, Typed};
use invoicing_domain::api_key::{ApiKey, ApiKeyId, ApiResource, KeyRejection, KeyScopes};
use invoicing_domain::validation::Violations;
use std::collections::HashMap;

pub(crate) struct KeyRow {
    pub id: i64,
    pub shown: String,
    pub scopes: String,
    pub expires: String,
    pub limits: String,
    pub last_used: String,
    pub created: String,
    /// `active`, `revoked` or `expired`.
    pub state: &'static str,
}

impl KeyRow {
    fn of(c: &Chrome, k: &ApiKey) -> KeyRow {
        let now = Utc::now();
        let never = c.tr("dash.keys.never");
        let state = match k.check_usable(now) {
            Ok(()) => "active",
            Err(KeyRejection::Revoked) => "revoked",
            Err(KeyRejection::Expired) => "expired",
        };
        let limit = |v: Option<u32>| v.map(|v| v.to_string()).unwrap_or_else(|| "—".into());
        KeyRow {
            id: k.id.0,
            shown: format!("{}…{}", k.prefix, k.last4),
            scopes: match &k.scopes {
                KeyScopes::All => c.tr("dash.keys.all_access").to_string(),
                scopes => scopes.to_strings().join(", "),
            },
            expires: k
                .expires_at
                .map(|t| moment(c.t, t))
                .unwrap_or_else(|| never.to_string()),
            limits: format!("{} / {}", limit(k.rate.per_minute), limit(k.rate.burst)),
            last_used: k
                .last_used_at
                .map(|t| moment(c.t, t))
                .unwrap_or_else(|| never.to_string()),
            created: moment(c.t, k.created_at),
            state,
        }
    }
}

#[derive(Template)]
#[template(path = "dashboard/keys.html")]
struct KeysPage {
    c: Chrome,
    section: &'static str,
    keys: Vec<KeyRow>,
    typed: Typed,
    resources: Vec<&'static str>,
    errors: HashMap<String, String>,
    /// A key just made: its secret, shown this once, and what it replaces.
    issued: Option<(String, KeyRow)>,
}

impl KeysPage {
    fn err(&self, field: &str) -> Option<&str> {
        self.errors.get(field).map(String::as_str)
    }

    fn ticked(&self, scope: &str) -> bool {
        self.typed.scopes.iter().any(|s| s == scope)
    }

    /// The grants the form offers for a resource: its read and its write.
    fn grants(&self, resource: &str) -> [(String, &'static str); 2] {
        [
            (format!("{resource}:read"), "dash.keys.read"),
            (format!("{resource}:write"), "dash.keys.write"),
        ]
    }
}

async fn show(
    state: &AppState,
    req: &HttpRequest,
    me: &Visitor,
    typed: Typed,
    errors: HashMap<String, String>,
    issued: Option<IssuedKey>,
) -> Answer {
    let keys = me.ops(state).api_keys().await?;
    let c = section_chrome(me, req, "dash.keys.title");
    let status = crate::dashboard::form::status_of(&errors);
    page(
        status,
        KeysPage {
            keys: keys.iter().map(|k| KeyRow::of(&c, k)).collect(),
            issued: issued.map(|i| (i.secret.plain().to_string(), KeyRow::of(&c, &i.key))),
            section: "keys",
            typed,
            resources: ApiResource::ALL.iter().map(|r| r.as_str()).collect(),
            errors,
            c,
        },
    )
}

/// The environment's API keys and the form for a new one.
#[utoipa::path(get, path = "/dashboard/settings/keys", tag = "dashboard", operation_id = "dashboard_keys",
    responses(
        (status = 200, description = "The keys and the form for a new one", content_type = "text/html", body = String),
        (status = 403, description = "Not an owner", content_type = "text/html", body = String),
    ))]
pub(crate) async fn list(me: Visitor, state: web::Data<AppState>, req: HttpRequest) -> Answer {
    let typed = Typed {
        all: true,
        ..Typed::default()
    };
    show(&state, &req, &me, typed, HashMap::new(), None).await
}

/// Creates a key and shows it, this once.
#[utoipa::path(post, path = "/dashboard/settings/keys", tag = "dashboard", operation_id = "dashboard_key_create",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`; `all` (every scope) or `scope` repeated (`RESOURCE:read|write`); `expires_on` (YYYY-MM-DD, UTC); `rate_per_minute`, `burst`; `reauth_password` when asked"),
    responses(
        (status = 200, description = "The new key, shown once; or the page asking for the password again", content_type = "text/html", body = String),
        (status = 422, description = "The form again, each refusal beside its field; or a wrong password", content_type = "text/html", body = String),
    ))]
pub(crate) async fn create(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Answer {
    me.ops(&state).caller().require_owner()?;
    if let Some(ask) = ask_unless_recent(&state, &req, &me, &form, || {
        section_chrome(&me, &req, "dash.keys.title")
    })
    .await?
    {
        return Ok(ask);
    }
    let typed = read(&form);
    let made = match request(&typed) {
        Ok(r) => me.ops(&state).create_api_key(r).await,
        Err(e) => Err(e),
    };
    match made {
        Ok(issued) => {
            let fresh = Typed {
                all: true,
                ..Typed::default()
            };
            show(&state, &req, &me, fresh, HashMap::new(), Some(issued)).await
        }
        Err(e) if is_field_mistake(&e) => {
            show(&state, &req, &me, typed, field_errors(&e, &req), None).await
        }
        Err(e) => Err(e.into()),
    }
}

/// Revokes a key at once.
#[utoipa::path(post, path = "/dashboard/settings/keys/{id}/revoke", tag = "dashboard", operation_id = "dashboard_key_revoke",
    params(("id" = String, Path, description = "The key's id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`"),
    responses(
        (status = 303, description = "Revoked", headers(("Location" = String, description = "The keys"))),
        (status = 404, description = "No such key in this account and environment", content_type = "text/html", body = String),
    ))]
pub(crate) async fn revoke(
    Posted { me, .. }: Posted,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Answer {
    let id = ApiKeyId(path_number(&id, "API key")?);
    me.ops(&state).revoke_api_key(id).await?;
    Ok(see_other("/dashboard/settings/keys?done=revoked"))
}

/// A replacement with the same scopes and limits, shown once; the old key works for the grace
/// period chosen.
#[utoipa::path(post, path = "/dashboard/settings/keys/{id}/rotate", tag = "dashboard", operation_id = "dashboard_key_rotate",
    params(("id" = String, Path, description = "The key's id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`, `grace_hours` (0 to 720); `reauth_password` when asked"),
    responses(
        (status = 200, description = "The new key, shown once; or the page asking for the password again", content_type = "text/html", body = String),
        (status = 404, description = "No such key in this account and environment", content_type = "text/html", body = String),
        (status = 409, description = "A revoked key cannot be rotated", content_type = "text/html", body = String),
        (status = 422, description = "The grace period is out of range; or a wrong password", content_type = "text/html", body = String),
    ))]
pub(crate) async fn rotate(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Answer {
    let id = ApiKeyId(path_number(&id, "API key")?);
    me.ops(&state).caller().require_owner()?;
    if let Some(ask) = ask_unless_recent(&state, &req, &me, &form, || {
        section_chrome(&me, &req, "dash.keys.title")
    })
    .await?
    {
        return Ok(ask);
    }
    let grace = form
        .text("grace_hours")
        .unwrap_or_else(|| "24".into())
        .parse::<u32>()
        .map_err(|_| {
            ApiError::from(Violations::single(
                "grace_hours",
                "must be a whole number of hours",
            ))
        })?;
    let issued = me.ops(&state).rotate_api_key(id, grace).await?;
    let fresh = Typed {
        all: true,
        ..Typed::default()
    };
    show(&state, &req, &me, fresh, HashMap::new(), Some(issued)).await
}
