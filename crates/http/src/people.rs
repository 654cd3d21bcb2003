//! Pages for people (SPEC §27): a browser that reaches no page outside the JSON API (an unknown
//! path, a public link that lost a character, a refusal) gets an HTML page in its language with
//! a way on, where an API client keeps SPEC §4's JSON; `/`, a trailing slash and `/favicon.ico`
//! lead to where people mean.

use crate::escape;
use crate::paths::is_api_path;
use actix_web::http::{header, Method, StatusCode};
use actix_web::{HttpRequest, HttpResponse};
use askama::Template;
use invoicing_domain::locale::Locale;

/// The cookie the dashboard's language menu sets.
pub(crate) const LANGUAGE_COOKIE: &str = "__Host-language";

/// The language the dashboard and these pages speak to this visitor: the one they chose (a cookie set from the
/// language menu), else the first of their browser's languages among the six, else English.
pub fn locale_of(req: &HttpRequest) -> Locale {
    if let Some(chosen) = req
        .cookie(LANGUAGE_COOKIE)
        .and_then(|c| Locale::parse(c.value()))
    {
        return chosen;
    }
    req.headers()
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.split(',')
                .map(|part| part.split(';').next().unwrap_or("").trim())
                .filter_map(|tag| Locale::parse(&tag.get(..2)?.to_ascii_lowercase()))
                .next()
        })
        .unwrap_or(Locale::DEFAULT)
}

#[derive(Template)]
#[template(path = "people_error.html")]
struct ErrorPage<'a> {
    lang: &'a str,
    heading: &'a str,
    message: &'a str,
    way_on: &'a str,
    way_on_href: &'a str,
}

/// Whether `req` is a person's browser outside the API: it asks for HTML.
pub fn wants_a_page(req: &HttpRequest) -> bool {
    !is_api_path(req.match_info().as_str())
        && req
            .headers()
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|accept| accept.contains("text/html"))
}

/// The page a person gets instead of an error's JSON, with the same status.
pub fn error_page(req: &HttpRequest, status: StatusCode) -> Option<HttpResponse> {
    let t = locale_of(req);
    let (heading, message) = match status.as_u16() {
        404 | 405 => ("people.missing_title", "people.missing_body"),
        429 => ("people.error_title", "people.busy_body"),
        500..=599 => ("people.error_title", "people.down_body"),
        _ => ("people.error_title", "people.other_body"),
    };
    // A customer whose portal link ended asks for a new one; anyone else may be a merchant.
    let (way_on, way_on_href) = if req.path().starts_with("/portal") {
        ("people.portal", "/portal/login")
    } else {
        ("people.merchant", "/dashboard")
    };
    let body = ErrorPage {
        lang: t.code(),
        heading: t.text(heading),
        message: t.text(message),
        way_on: t.text(way_on),
        way_on_href,
    }
    .render()
    .ok()?;
    Some(
        HttpResponse::build(status)
            .content_type("text/html; charset=utf-8")
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .insert_header((
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'none'; \
                 frame-ancestors 'none'; base-uri 'none'",
            ))
            .body(body),
    )
}

/// Where a `GET` of a path no route serves leads, outside the API: `/` to the dashboard, a
/// path with a trailing slash to the same without it (its query kept), `/favicon.ico` to the
/// icon. Never to another host: a path that would read as one (`//host/`) leads nowhere.
pub fn redirect(req: &HttpRequest) -> Option<HttpResponse> {
    if !matches!(*req.method(), Method::GET | Method::HEAD) {
        return None;
    }
    let path = req.uri().path();
    if is_api_path(req.match_info().as_str()) {
        return None;
    }
    let target = match path {
        "/" => "/dashboard".to_string(),
        "/favicon.ico" => "/dashboard/assets/favicon.svg".to_string(),
        _ => {
            let trimmed = path.trim_end_matches('/');
            if trimmed.len() == path.len() || trimmed.is_empty() || trimmed.starts_with("//") {
                return None;
            }
            match req.query_string() {
                "" => trimmed.to_string(),
                q => format!("{trimmed}?{q}"),
            }
        }
    };
    if target.contains('\\') {
        return None;
    }
    let status = if path == "/" {
        StatusCode::SEE_OTHER
    } else {
        StatusCode::MOVED_PERMANENTLY
    };
    Some(
        HttpResponse::build(status)
            .insert_header((header::LOCATION, escape::for_header(&target).into_owned()))
            .finish(),
    )
}
