//! The outermost middleware: request ids, the plain-HTTP redirect of public pages, panics caught,
//! every error body rendered with its request id, HSTS, and the access log line.

use crate::client::is_https;
use crate::error::{from_actix, render, ApiError};
use crate::escape;
use crate::paths::{is_api_path, routing_path};
use crate::AppState;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage, HttpResponse};
use futures_util::FutureExt;
use rand::distributions::{Alphanumeric, DistString};
use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

/// The id of the request being served; also in its log line and error body.
#[derive(Clone, Debug)]
pub struct RequestId(pub String);

fn request_id(req: &ServiceRequest) -> String {
    let given = req
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| {
            (1..=128).contains(&v.len())
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
        });
    match given {
        Some(id) => id.to_string(),
        None => format!(
            "req_{}",
            Alphanumeric.sample_string(&mut rand::thread_rng(), 24)
        ),
    }
}

pub async fn envelope(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let started = Instant::now();
    let id = request_id(&req);
    req.extensions_mut().insert(RequestId(id.clone()));
    let state = req.app_data::<web::Data<AppState>>().cloned();
    let https = state
        .as_ref()
        .is_some_and(|s| is_https(req.request(), &s.config));
    let method = req.method().clone();
    let path = routing_path(&req).to_string();
    let log = |status: u16| {
        if log::log_enabled!(log::Level::Info) {
            let line = access_line(&id, method.as_str(), &path, status, started.elapsed());
            log::info!("{line}");
        }
    };

    let mut res = if !https && !is_api_path(&path) {
        let base = state
            .as_ref()
            .map(|s| s.config.public_url.as_str())
            .unwrap_or("");
        // The path as sent, still percent-encoded: the decoded one may hold CR LF.
        let (raw, query) = (req.uri().path(), req.query_string());
        let target = if query.is_empty() {
            format!("{base}{raw}")
        } else {
            format!("{base}{raw}?{query}")
        };
        let res = match HeaderValue::from_str(&escape::for_header(&target)) {
            Ok(location) => HttpResponse::MovedPermanently()
                .insert_header((header::LOCATION, location))
                .finish(),
            Err(_) => render(
                &ApiError::invalid_parameter("path", "not a valid URL path"),
                &id,
            ),
        };
        req.into_response(res)
    } else {
        // The request cannot be kept for these two rare paths (routing needs it unshared), so
        // they answer through an error that carries its own request id.
        let threads = state.as_ref().and_then(|s| s.storage_threads.clone());
        let handling = crate::with_storage_budget(threads, next.call(req));
        match AssertUnwindSafe(handling).catch_unwind().await {
            Ok(Ok(res)) => with_error_body(res.map_into_boxed_body(), &id),
            Ok(Err(err)) => {
                let e = from_actix(&err);
                log(e.status.as_u16());
                return Err(e.for_request(&id, https).into());
            }
            Err(panic) => {
                let cause = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                let cause = escape::for_log(&cause);
                let path = escape::for_log(&path);
                log::error!("{id} {method} {path} panicked: {cause}");
                log(500);
                return Err(ApiError::internal().for_request(&id, https).into());
            }
        }
    };

    let headers = res.headers_mut();
    for (name, value) in transport_headers(&id, https) {
        headers.insert(name, value);
    }
    log(res.status().as_u16());
    Ok(res)
}

/// The access log line of a request. Everything in it that the client chose is escaped, so a
/// CR or LF in a path cannot start a forged line.
pub fn access_line(id: &str, method: &str, path: &str, status: u16, took: Duration) -> String {
    let (id, method, path) = (
        escape::for_log(id),
        escape::for_log(method),
        escape::for_log(path),
    );
    format!("{id} {method} {path} {status} {}ms", took.as_millis())
}

fn transport_headers(id: &str, https: bool) -> Vec<(header::HeaderName, HeaderValue)> {
    let mut out = Vec::new();
    if let Ok(v) = HeaderValue::from_str(id) {
        out.push((header::HeaderName::from_static("x-request-id"), v));
    }
    if https {
        out.push((
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static("max-age=31536000; includeSubDomains"),
        ));
    }
    out
}

impl ApiError {
    /// An error rendered by actix itself, still carrying the request id and transport headers.
    fn for_request(mut self, id: &str, https: bool) -> ApiError {
        self.request_id = Some(id.to_string());
        self.headers.extend(transport_headers(id, https));
        self
    }
}

/// A response that carries an error gets the SPEC §4 body with the request id (or, for a
/// person's browser outside the API, a page), keeping the headers added on the way out (rate
/// limits, `Allow`, `Retry-After`).
fn with_error_body(res: ServiceResponse<BoxBody>, id: &str) -> ServiceResponse<BoxBody> {
    let Some(err) = res.response().error() else {
        return res;
    };
    let api_error = from_actix(err);
    if api_error.status == StatusCode::INTERNAL_SERVER_ERROR && err.as_error::<ApiError>().is_none()
    {
        // Actix's own errors may quote the request (a path segment, a header).
        let err = escape::for_log(&err.to_string()).into_owned();
        log::error!("{id} unhandled error: {err}");
    }
    let (req, old) = res.into_parts();
    // A person's browser outside the API gets a page in its language (SPEC §27).
    let page = if crate::people::wants_a_page(&req) {
        crate::people::error_page(&req, api_error.status)
    } else {
        None
    };
    let mut new = page.unwrap_or_else(|| render(&api_error, id));
    for (name, value) in old.headers() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            new.headers_mut().insert(name.clone(), value.clone());
        }
    }
    ServiceResponse::new(req, new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hostile_path_stays_on_one_log_line() {
        let line = access_line(
            "req_1",
            "GET",
            "/invoice/x\nFORGED GET /api/v1/customers 200 1ms\r\n\u{85}\u{2028}\x1b[31m\x00",
            404,
            Duration::from_millis(3),
        );
        assert_eq!(line.lines().count(), 1, "{line}");
        assert!(!line.chars().any(|c| c.is_control()), "{line}");
        assert!(!line.contains('\u{2028}'), "{line}");
        assert!(
            line.starts_with("req_1 GET /invoice/x\\nFORGED GET"),
            "{line}"
        );
        assert!(line.ends_with(" 404 3ms"), "{line}");
    }
}
