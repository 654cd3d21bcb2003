//! Re-authentication (SPEC §21): creating API keys, changing webhook URLs, inviting or changing
//! people ask for the password again when it was not typed in the last five minutes. The post
//! that needs it is answered with a page asking for the password that carries the post's own
//! fields, so confirming repeats the post; nothing changes before that.
//!
//! Every password typed into a signed-in page goes through [`password_matches`]: the sign-in
//! throttle counts its failures, so a stolen session cannot guess the password either.

use super::chrome::Chrome;
use super::form::Form;
use super::session::Visitor;
use super::{page, Answer, Refusal};
use crate::client::client_ip;
use crate::ops::identity::Identity;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use askama::Template;
use chrono::Utc;
use invoicing_domain::user::ThrottleKey;

/// The field of the confirming form; never carried on.
const FIELD: &str = "reauth_password";

#[derive(Template)]
#[template(path = "dashboard/reauth.html")]
struct ReauthPage {
    c: Chrome,
    action: String,
    fields: Vec<(String, String)>,
    wrong: bool,
}

/// Whether `typed` is the signed-in user's password. A wrong one counts against the pair of
/// their email and this client, as a failed sign-in does; a throttled pair is refused without
/// looking.
pub(crate) async fn password_matches(
    state: &AppState,
    req: &HttpRequest,
    me: &Visitor,
    typed: String,
) -> Result<bool, Refusal> {
    let user = &me.signed_in.user;
    let key = ThrottleKey::new(user.email.as_str(), client_ip(req, &state.config));
    Ok(Identity::new(state)
        .password_matches(user, key, typed)
        .await?)
}

/// `None` when the post may go ahead: the password was typed in the last five minutes, or just
/// now in the confirming form (which then counts as typed). Otherwise the page that asks for it.
pub(crate) async fn ask_unless_recent(
    state: &AppState,
    req: &HttpRequest,
    me: &Visitor,
    form: &Form,
    chrome: impl FnOnce() -> Chrome,
) -> Result<Option<HttpResponse>, Refusal> {
    let session = &me.signed_in.session;
    if session.password_is_recent(Utc::now()) {
        return Ok(None);
    }
    let typed = form.get(FIELD).map(str::to_string);
    let wrong = match typed {
        None => false,
        Some(typed) => {
            if password_matches(state, req, me, typed).await? {
                Identity::new(state).confirm_password(session.id).await?;
                return Ok(None);
            }
            true
        }
    };
    let status = if wrong {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    let answer: Answer = page(
        status,
        ReauthPage {
            c: chrome(),
            action: req.path().to_string(),
            fields: form
                .pairs()
                .iter()
                .filter(|(name, _)| name != FIELD && name != "username")
                .cloned()
                .collect(),
            wrong,
        },
    );
    answer.map(Some)
}

/// How a form that carries secrets stands with the password: such a form cannot go through the
/// asking page (which copies the post's fields into itself), so it asks for the password in a
/// field of its own, shown while [`password_is_recent`] is false.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InForm {
    /// Typed in the last five minutes, or right in this form (which then counts as typed).
    Confirmed,
    /// Not recent, and the form's password field was left empty.
    Missing,
    /// Not recent, and the form's password field held a wrong one.
    Wrong,
}

/// Whether the signed-in user typed their password in the last five minutes.
pub(crate) fn password_is_recent(me: &Visitor) -> bool {
    me.signed_in.session.password_is_recent(Utc::now())
}

/// [`InForm`] for `form`, whose password is in `reauth_password`; a right one is remembered as
/// typed now, a wrong one counts as a failed sign-in does.
pub(crate) async fn confirmed_in_form(
    state: &AppState,
    req: &HttpRequest,
    me: &Visitor,
    form: &Form,
) -> Result<InForm, Refusal> {
    if password_is_recent(me) {
        return Ok(InForm::Confirmed);
    }
    let Some(typed) = form.get(FIELD).filter(|p| !p.is_empty()) else {
        return Ok(InForm::Missing);
    };
    if !password_matches(state, req, me, typed.to_string()).await? {
        return Ok(InForm::Wrong);
    }
    Identity::new(state)
        .confirm_password(me.signed_in.session.id)
        .await?;
    Ok(InForm::Confirmed)
}
