//! Who is visiting: the `__Host-session` cookie, the session it names (looked up by its hash, in
//! the database, so every process serves it), and the two checks every form post passes (SPEC
//! §21): the same-origin check on `Origin`/`Sec-Fetch-Site`, and the session's CSRF token.

use super::form::Form;
use super::Refusal;
use crate::error::ApiError;
use crate::form_body::{read_form, FormBody};
use crate::ops::identity::Identity;
use crate::ops::Ops;
use crate::AppState;
use actix_web::cookie::{time, Cookie, SameSite};
use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{web, FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;
use invoicing_domain::user::{csrf_matches, csrf_token, hash_token, SecretToken, SignedIn, Stage};

pub(crate) const SESSION_COOKIE: &str = "__Host-session";
pub(crate) use crate::people::LANGUAGE_COOKIE;

/// A signed-in visitor: their session, user and role, and their cookie's token (from which the
/// forms' CSRF token is derived; it is never stored).
pub(crate) struct Visitor {
    pub signed_in: SignedIn,
    token: String,
}

impl Visitor {
    /// The token every form of this session carries.
    pub fn csrf(&self) -> String {
        csrf_token(&self.token)
    }

    /// The operations, as this user's role allows, in the session's account and environment.
    pub fn ops(&self, state: &AppState) -> Ops {
        Ops::for_session(state, &self.signed_in)
    }
}

/// The app's state, as every handler's `web::Data<AppState>` holds it.
fn state_of(req: &HttpRequest) -> Result<web::Data<AppState>, Refusal> {
    req.app_data::<web::Data<AppState>>()
        .cloned()
        .ok_or_else(|| Refusal::Api(ApiError::internal()))
}

/// A handler that takes a `Visitor` serves signed-in people only (see [`visitor`]).
impl FromRequest for Visitor {
    type Error = Refusal;
    type Future = LocalBoxFuture<'static, Result<Visitor, Refusal>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move { visitor(&*state_of(&req)?, &req).await })
    }
}

/// A signed-in visitor's form post that passed the two checks (see [`check_post`]): the
/// handler that takes it only reads its fields.
pub(crate) struct Posted {
    pub me: Visitor,
    pub form: Form,
}

impl FromRequest for Posted {
    type Error = Refusal;
    type Future = LocalBoxFuture<'static, Result<Posted, Refusal>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let req = req.clone();
        let reading = read_form(&req, payload.take());
        Box::pin(async move {
            let me = visitor(&*state_of(&req)?, &req).await?;
            let body = reading.await?;
            let form = Form::read(&req, &FormBody(body))?;
            check_post(&me, &req, &form)?;
            Ok(Posted { me, form })
        })
    }
}

/// The signed-in visitor: a live session that has given every factor the user and the account
/// ask for. Otherwise the sign-in page, the one-time code's page, or setting one up.
pub(crate) async fn visitor(state: &AppState, req: &HttpRequest) -> Result<Visitor, Refusal> {
    let v = visitor_at_any_stage(state, req).await?;
    match v.signed_in.stage() {
        Stage::Ready => Ok(v),
        Stage::NeedsCode => Err(Refusal::SecondFactor),
        Stage::NeedsSetUp => Err(Refusal::SetUpSecondFactor),
    }
}

/// The session the request's cookie names, while it lives, however far its sign-in has come
/// (the pages of the second factor, and signing out).
pub(crate) async fn visitor_at_any_stage(
    state: &AppState,
    req: &HttpRequest,
) -> Result<Visitor, Refusal> {
    let token = req
        .cookie(SESSION_COOKIE)
        .map(|c| c.value().to_string())
        .filter(|t| SecretToken::has_shape(t))
        .ok_or(Refusal::SignIn)?;
    let found = Identity::new(state).session(hash_token(&token)).await?;
    match found {
        Some(signed_in) => Ok(Visitor { signed_in, token }),
        None => Err(Refusal::SignIn),
    }
}

/// A signed-in visitor's form post: same origin, and the session's CSRF token in `csrf`.
pub(crate) fn check_post(visitor: &Visitor, req: &HttpRequest, form: &Form) -> Result<(), Refusal> {
    same_origin(req)?;
    match form.get("csrf") {
        Some(posted) if csrf_matches(&visitor.token, posted) => Ok(()),
        _ => Err(ApiError::form_refused(
            "The form has expired or did not come from this dashboard; reload the page and try again",
        )
        .into()),
    }
}

/// A state-changing request came from a page of this site: a browser says so in
/// `Sec-Fetch-Site`, and in `Origin`, which must then be the public URL's origin (or the origin
/// the request was addressed to). A request with neither is refused: every browser that runs
/// the dashboard sends `Origin` on a form post.
pub(crate) fn same_origin(req: &HttpRequest) -> Result<(), Refusal> {
    let refuse = || {
        Refusal::Api(ApiError::form_refused(
            "Forms are accepted only from this dashboard's own pages",
        ))
    };
    let headers = req.headers();
    let fetch_site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    if fetch_site.is_some_and(|s| s != "same-origin") {
        return Err(refuse());
    }
    match headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) {
        Some(origin) if own_origins(req).iter().any(|o| o == origin) => Ok(()),
        Some(_) => Err(refuse()),
        None if fetch_site.is_some() => Ok(()),
        None => Err(refuse()),
    }
}

/// The origins the dashboard is served under: PUBLIC_URL's, and the host the browser addressed
/// (its `Host`, over HTTPS: the dashboard is never served over plain HTTP). Never a forwarded
/// host, which any client may claim.
fn own_origins(req: &HttpRequest) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(state) = req.app_data::<actix_web::web::Data<AppState>>() {
        out.push(origin_of(&state.config.public_url));
    }
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| req.uri().authority().map(|a| a.as_str()));
    if let Some(host) = host {
        out.push(format!("https://{host}"));
    }
    out
}

/// `scheme://host[:port]` of a URL.
fn origin_of(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("https", url));
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    format!("{scheme}://{host}")
}

/// The session cookie for a new session's token (SPEC §21: `Secure; HttpOnly; SameSite=Lax;
/// Path=/`, and the `__Host-` prefix so no subdomain can set or shadow it).
pub(crate) fn session_cookie(token: &SecretToken) -> Cookie<'static> {
    Cookie::build(SESSION_COOKIE, token.plain().to_string())
        .secure(true)
        .http_only(true)
        .same_site(SameSite::Lax)
        .path("/")
        .finish()
}

/// Ends the session cookie in the browser.
pub(crate) fn expired_session_cookie() -> Cookie<'static> {
    let mut c = Cookie::build(SESSION_COOKIE, "")
        .secure(true)
        .http_only(true)
        .same_site(SameSite::Lax)
        .path("/")
        .finish();
    c.make_removal();
    c
}

/// The chosen language, kept a year.
pub(crate) fn language_cookie(code: &str) -> Cookie<'static> {
    Cookie::build(LANGUAGE_COOKIE, code.to_string())
        .secure(true)
        .http_only(true)
        .same_site(SameSite::Lax)
        .path("/")
        .max_age(time::Duration::days(365))
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_scheme_and_authority() {
        assert_eq!(
            origin_of("https://billing.example.com/"),
            "https://billing.example.com"
        );
        assert_eq!(
            origin_of("https://localhost:8443"),
            "https://localhost:8443"
        );
        assert_eq!(origin_of("https://h.example/base?x#y"), "https://h.example");
    }
}
