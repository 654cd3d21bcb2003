//! People (SPEC §21, owners): the account's members and their roles, pending invitations, and
//! an invitation by email (a one-time link valid 72 hours). The last owner is never removed or
//! demoted (the operations refuse it); a removed member's sessions end at once. Inviting,
//! changing a role and removing ask for the password again when it is not recent.

use super::section_chrome;
use crate::dashboard::chrome::Chrome;
use crate::dashboard::form::{field_errors, is_field_mistake, path_number, Form};
use crate::dashboard::reauth::ask_unless_recent;
use crate::dashboard::session::Visitor;
use crate::dashboard::views::moment;
use crate::dashboard::Posted;
use crate::dashboard::{locale_of, page, see_other, Answer};
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use invoicing_domain::notice::role_key;
use invoicing_domain::user::{Role, UserId};
use std::collections::HashMap;

pub(crate) struct MemberRow {
    pub id: i64,
    pub email: String,
    pub role: &'static str,
    pub me: bool,
    pub has_password: bool,
    pub totp: bool,
}

pub(crate) struct InvitationRow {
    pub id: i64,
    pub email: String,
    pub role: &'static str,
    pub expires: String,
}

#[derive(Template)]
#[template(path = "dashboard/people.html")]
struct PeoplePage {
    c: Chrome,
    section: &'static str,
    members: Vec<MemberRow>,
    invitations: Vec<InvitationRow>,
    roles: Vec<(&'static str, &'static str)>,
    email: String,
    role: String,
    errors: HashMap<String, String>,
    /// The invitation's link, when this server sends no email: the owner passes it on.
    link: Option<String>,
    requires_totp: bool,
}

impl PeoplePage {
    fn err(&self, field: &str) -> Option<&str> {
        self.errors.get(field).map(String::as_str)
    }
}

struct Shown {
    email: String,
    role: String,
    errors: HashMap<String, String>,
    link: Option<String>,
}

async fn show(state: &AppState, req: &HttpRequest, me: &Visitor, shown: Shown) -> Answer {
    let (members, invitations) = me.ops(state).people().await?;
    let c = section_chrome(me, req, "dash.people.title");
    let t = c.t;
    let status = crate::dashboard::form::status_of(&shown.errors);
    page(
        status,
        PeoplePage {
            members: members
                .iter()
                .map(|m| MemberRow {
                    id: m.user.id.0,
                    email: m.user.email.as_str().to_string(),
                    role: m.role.as_str(),
                    me: m.user.id == me.signed_in.user.id,
                    has_password: m.user.has_password(),
                    totp: m.user.totp,
                })
                .collect(),
            invitations: invitations
                .iter()
                .map(|i| InvitationRow {
                    id: i.id,
                    email: i.email.as_str().to_string(),
                    role: t.text(role_key(i.role)),
                    expires: moment(t, i.expires_at),
                })
                .collect(),
            roles: Role::ALL
                .iter()
                .map(|r| (r.as_str(), t.text(role_key(*r))))
                .collect(),
            section: "people",
            email: shown.email,
            role: shown.role,
            errors: shown.errors,
            link: shown.link,
            requires_totp: me.signed_in.account_requires_totp,
            c,
        },
    )
}

fn blank() -> Shown {
    Shown {
        email: String::new(),
        role: Role::Staff.as_str().to_string(),
        errors: HashMap::new(),
        link: None,
    }
}

/// The account's members, pending invitations and the form to invite someone.
#[utoipa::path(get, path = "/dashboard/settings/people", tag = "dashboard", operation_id = "dashboard_people",
    responses(
        (status = 200, description = "Members, invitations and the invitation form", content_type = "text/html", body = String),
        (status = 403, description = "Not an owner", content_type = "text/html", body = String),
    ))]
pub(crate) async fn list(me: Visitor, state: web::Data<AppState>, req: HttpRequest) -> Answer {
    show(&state, &req, &me, blank()).await
}

/// The password again, when not recent, before a change to the account's people.
async fn confirmed(
    state: &AppState,
    req: &HttpRequest,
    me: &Visitor,
    form: &Form,
) -> Result<Option<HttpResponse>, crate::dashboard::Refusal> {
    me.ops(state).caller().require_owner()?;
    ask_unless_recent(state, req, me, form, || {
        section_chrome(me, req, "dash.people.title")
    })
    .await
}

/// Invites someone by email: a one-time link valid 72 hours to set a password (or to join with
/// the password they have).
#[utoipa::path(post, path = "/dashboard/settings/people/invite", tag = "dashboard", operation_id = "dashboard_invite",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `email`, `role` (owner, staff or viewer); `reauth_password` when asked"),
    responses(
        (status = 200, description = "The link to pass on (when this server sends no email); or the page asking for the password again", content_type = "text/html", body = String),
        (status = 303, description = "Invited by email", headers(("Location" = String, description = "The people"))),
        (status = 409, description = "They are a member already", content_type = "text/html", body = String),
        (status = 422, description = "The form again, each refusal beside its field; or a wrong password", content_type = "text/html", body = String),
    ))]
pub(crate) async fn invite(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Answer {
    if let Some(ask) = confirmed(&state, &req, &me, &form).await? {
        return Ok(ask);
    }
    let (email, role) = (form.raw("email"), form.raw("role"));
    let invited = me.ops(&state).invite(&email, &role, locale_of(&req)).await;
    match invited {
        Ok(invited) if invited.link.is_some() => {
            let shown = Shown {
                link: invited.link,
                ..blank()
            };
            show(&state, &req, &me, shown).await
        }
        Ok(_) => Ok(see_other("/dashboard/settings/people?done=invited")),
        Err(e) if is_field_mistake(&e) => {
            let errors = field_errors(&e, &req);
            let shown = Shown {
                email,
                role,
                errors,
                link: None,
            };
            show(&state, &req, &me, shown).await
        }
        Err(e) => Err(e.into()),
    }
}

/// Gives a member another role; the last owner keeps theirs.
#[utoipa::path(post, path = "/dashboard/settings/people/{id}/role", tag = "dashboard", operation_id = "dashboard_member_role",
    params(("id" = String, Path, description = "The member's user id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`, `role`; `reauth_password` when asked"),
    responses(
        (status = 200, description = "The page asking for the password again", content_type = "text/html", body = String),
        (status = 303, description = "Changed", headers(("Location" = String, description = "The people"))),
        (status = 404, description = "No such member of this account", content_type = "text/html", body = String),
        (status = 409, description = "The account's last owner", content_type = "text/html", body = String),
        (status = 422, description = "No such role; or a wrong password", content_type = "text/html", body = String),
    ))]
pub(crate) async fn change_role(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Answer {
    let user = UserId(path_number(&id, "member")?);
    if let Some(ask) = confirmed(&state, &req, &me, &form).await? {
        return Ok(ask);
    }
    me.ops(&state).change_role(user, &form.raw("role")).await?;
    Ok(see_other("/dashboard/settings/people?done=saved"))
}

/// Removes a member: their sessions in this account end at once; never the last owner.
#[utoipa::path(post, path = "/dashboard/settings/people/{id}/remove", tag = "dashboard", operation_id = "dashboard_member_remove",
    params(("id" = String, Path, description = "The member's user id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`; `reauth_password` when asked"),
    responses(
        (status = 200, description = "The page asking for the password again", content_type = "text/html", body = String),
        (status = 303, description = "Removed", headers(("Location" = String, description = "The people (the sign-in page when it was oneself)"))),
        (status = 404, description = "No such member of this account", content_type = "text/html", body = String),
        (status = 409, description = "The account's last owner", content_type = "text/html", body = String),
        (status = 422, description = "A wrong password", content_type = "text/html", body = String),
    ))]
pub(crate) async fn remove(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Answer {
    let user = UserId(path_number(&id, "member")?);
    if let Some(ask) = confirmed(&state, &req, &me, &form).await? {
        return Ok(ask);
    }
    me.ops(&state).remove_member(user).await?;
    if user == me.signed_in.user.id {
        return Ok(see_other("/dashboard/login"));
    }
    Ok(see_other("/dashboard/settings/people?done=removed"))
}

/// Withdraws a pending invitation: its link stops working.
#[utoipa::path(post, path = "/dashboard/settings/people/invitations/{id}/revoke", tag = "dashboard", operation_id = "dashboard_invitation_revoke",
    params(("id" = String, Path, description = "The invitation's id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`"),
    responses(
        (status = 303, description = "Withdrawn", headers(("Location" = String, description = "The people"))),
        (status = 404, description = "No such pending invitation to this account", content_type = "text/html", body = String),
    ))]
pub(crate) async fn revoke_invitation(
    Posted { me, .. }: Posted,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Answer {
    let id = path_number(&id, "invitation")?;
    me.ops(&state).revoke_invitation(id).await?;
    Ok(see_other("/dashboard/settings/people?done=revoked"))
}
