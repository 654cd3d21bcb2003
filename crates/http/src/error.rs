//! The error contract (SPEC §4). Every failure, whatever produced it, becomes an [`ApiError`]
//! here, and [`render`] is the only place its JSON body is written.

use crate::escape::for_log;
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use invoicing_domain::einvoice::Missing;
use invoicing_domain::gateway::GatewayError;
use invoicing_domain::ports::RepoError;
use invoicing_domain::validation::{FieldError, Violations};
use serde::Serialize;
use std::fmt;

/// What a 503 tells clients to wait before retrying: about how long a failover takes.
const RETRY_UNAVAILABLE_SECS: u64 = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorType {
    InvalidRequestError,
    AuthenticationError,
    PermissionError,
    RateLimitError,
    ApiError,
}

/// Every `code` an error body can carry: the codes of the constructors below, listed once so
/// the document's `ErrorCode` enum is this list (a test holds the constructors to it).
pub const ERROR_CODES: &[&str] = &[
    "api_key_expired",
    "email_not_configured",
    "form_refused",
    "gateway_unavailable",
    "gateway_refused",
    "gateway_not_connected",
    "invalid_signature",
    "https_required",
    "idempotency_key_in_use",
    "idempotency_key_reused",
    "insufficient_permissions",
    "internal_error",
    "einvoice_incomplete",
    "invalid_api_key",
    "invalid_json",
    "invalid_parameter",
    "invalid_state_transition",
    "method_not_allowed",
    "missing_api_key",
    "payload_too_large",
    "rate_limited",
    "request_timeout",
    "resource_forbidden",
    "resource_in_use",
    "resource_missing",
    "route_not_found",
    "service_unavailable",
    "unsupported_media_type",
    "validation_failed",
];

/// The schema of an error's `code`: one of [`ERROR_CODES`].
pub struct ErrorCode;

impl utoipa::PartialSchema for ErrorCode {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .enum_values(Some(ERROR_CODES.iter().copied()))
            .into()
    }
}

impl utoipa::ToSchema for ErrorCode {}

/// A failure on its way to the client: status, SPEC §4 type and code, and extra headers
/// (`Allow`, `Retry-After`) that belong with it. Boxed so `Result<_, ApiError>` stays small.
#[derive(Clone, Debug)]
pub struct ApiError(Box<ApiErrorData>);

#[derive(Clone, Debug)]
pub struct ApiErrorData {
    pub status: StatusCode,
    pub kind: ErrorType,
    pub code: &'static str,
    pub message: String,
    pub param: Option<String>,
    pub details: Vec<FieldError>,
    /// What an e-invoice lacks (SPEC §23), answered as the details instead.
    pub missing: Vec<Missing>,
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// Set only where the error leaves without passing the envelope's re-rendering.
    pub request_id: Option<String>,
}

impl std::ops::Deref for ApiError {
    type Target = ApiErrorData;

    fn deref(&self) -> &ApiErrorData {
        &self.0
    }
}

impl std::ops::DerefMut for ApiError {
    fn deref_mut(&mut self) -> &mut ApiErrorData {
        &mut self.0
    }
}

impl ApiError {
    pub fn new(
        status: StatusCode,
        kind: ErrorType,
        code: &'static str,
        message: impl Into<String>,
    ) -> Self {
        ApiError(Box::new(ApiErrorData {
            status,
            kind,
            code,
            message: message.into(),
            param: None,
            details: Vec::new(),
            missing: Vec::new(),
            headers: Vec::new(),
            request_id: None,
        }))
    }

    fn invalid(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError::new(status, ErrorType::InvalidRequestError, code, message)
    }

    pub fn with_param(mut self, param: impl Into<String>) -> Self {
        self.param = Some(param.into());
        self
    }

    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.push((name, value));
        self
    }

    pub fn invalid_json(message: impl Into<String>) -> Self {
        ApiError::invalid(StatusCode::BAD_REQUEST, "invalid_json", message)
    }

    pub fn invalid_parameter(param: impl Into<String>, message: impl Into<String>) -> Self {
        let param = param.into();
        let message = message.into();
        ApiError::invalid(
            StatusCode::BAD_REQUEST,
            "invalid_parameter",
            format!("{param}: {message}"),
        )
        .with_param(param)
    }

    pub fn missing_api_key() -> Self {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            ErrorType::AuthenticationError,
            "missing_api_key",
            "No API key given: send it as `Authorization: Bearer sk_test_…`",
        )
    }

    pub fn invalid_api_key() -> Self {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            ErrorType::AuthenticationError,
            "invalid_api_key",
            "The API key is not valid (unknown, malformed or revoked)",
        )
    }

    pub fn api_key_expired() -> Self {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            ErrorType::AuthenticationError,
            "api_key_expired",
            "The API key has expired: use its replacement or create a new one",
        )
    }

    pub fn https_required() -> Self {
        ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorType::PermissionError,
            "https_required",
            "The API is served over HTTPS only. This request travelled in clear text, so any API \
             key it carried must be treated as leaked: revoke or rotate it.",
        )
    }

    /// What only a test key may do (copying the test profile into live, SPEC §27), asked with
    /// a live one.
    pub fn test_key_required(what: &str) -> Self {
        ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorType::PermissionError,
            "insufficient_permissions",
            format!("{what} takes a test key"),
        )
    }

    pub fn insufficient_permissions(scope: &str) -> Self {
        ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorType::PermissionError,
            "insufficient_permissions",
            format!("The API key lacks the scope {scope}"),
        )
    }

    /// What only an account's owners may do (its people and API keys, SPEC §21).
    pub fn owners_only() -> Self {
        ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorType::PermissionError,
            "insufficient_permissions",
            "Only the account's owners manage its people and API keys",
        )
    }

    /// A dashboard form post that did not come from the dashboard's own page (SPEC §21: the
    /// same-origin check or the session's CSRF token failed).
    pub fn form_refused(message: impl Into<String>) -> Self {
        ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorType::PermissionError,
            "form_refused",
            message,
        )
    }

    pub fn resource_forbidden() -> Self {
        ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorType::PermissionError,
            "resource_forbidden",
            "The resource belongs to another account or environment",
        )
    }

    pub fn resource_missing(what: &str) -> Self {
        ApiError::invalid(
            StatusCode::NOT_FOUND,
            "resource_missing",
            format!("No such {what}"),
        )
    }

    /// Storage's "not found" names no resource; this names the one the route serves.
    pub fn naming(self, what: &str) -> Self {
        if self.code == "resource_missing" {
            ApiError::resource_missing(what)
        } else {
            self
        }
    }

    pub fn route_not_found(method: &str, path: &str) -> Self {
        ApiError::invalid(
            StatusCode::NOT_FOUND,
            "route_not_found",
            format!("No route for {method} {path}"),
        )
    }

    pub fn method_not_allowed(method: &str, allow: &str) -> Self {
        let mut e = ApiError::invalid(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            format!("{method} is not allowed here; allowed: {allow}"),
        );
        if let Ok(v) = HeaderValue::from_str(allow) {
            e.headers.push((actix_web::http::header::ALLOW, v));
        }
        e
    }

    pub fn payload_too_large() -> Self {
        ApiError::invalid(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            "The request body is larger than 1 MiB",
        )
    }

    pub fn unsupported_media_type() -> Self {
        ApiError::invalid(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "Send the body as JSON with `Content-Type: application/json`",
        )
    }

    /// The public pages' forms are smaller than API bodies.
    pub fn form_too_large() -> Self {
        ApiError::invalid(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            "The form is larger than 16 KiB",
        )
    }

    /// A body that stopped arriving (SPEC §3): answered rather than waited for forever.
    pub fn request_timeout() -> Self {
        ApiError::invalid(
            StatusCode::REQUEST_TIMEOUT,
            "request_timeout",
            "The request body stopped arriving (nothing came for 10 s) or took over 60 s in all",
        )
    }

    /// The public pages' forms: the same code, with the content type they do take.
    pub fn unsupported_form_type() -> Self {
        ApiError::invalid(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "Send the form as `application/x-www-form-urlencoded`, as a browser does",
        )
    }

    pub fn resource_in_use(message: impl Into<String>) -> Self {
        ApiError::invalid(StatusCode::CONFLICT, "resource_in_use", message)
    }

    /// A request asks for mail and `SMTP_URL` is not set (SPEC §18).
    pub fn email_not_configured() -> Self {
        ApiError::invalid(
            StatusCode::UNPROCESSABLE_ENTITY,
            "email_not_configured",
            "This server sends no email: its operator has not set SMTP_URL",
        )
        .with_param("email")
    }

    /// 422: the document cannot be written as an EN 16931 e-invoice; `error.details` lists every
    /// business term missing, as `…/einvoice/check` does.
    pub fn einvoice_incomplete(missing: Vec<Missing>) -> Self {
        let mut e = ApiError::invalid(
            StatusCode::UNPROCESSABLE_ENTITY,
            "einvoice_incomplete",
            format!(
                "The document lacks what EN 16931 requires: {}",
                missing
                    .iter()
                    .map(|m| format!("{} ({})", m.field, m.term))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
        e.param = missing.first().map(|m| m.field.clone());
        e.missing = missing;
        e
    }

    pub fn invalid_state_transition(message: impl Into<String>) -> Self {
        ApiError::invalid(StatusCode::CONFLICT, "invalid_state_transition", message)
    }

    pub fn idempotency_key_in_use() -> Self {
        ApiError::invalid(
            StatusCode::CONFLICT,
            "idempotency_key_in_use",
            "A request with this Idempotency-Key is still running: retry once it has finished",
        )
        .with_param("Idempotency-Key")
    }

    pub fn idempotency_key_reused() -> Self {
        ApiError::invalid(
            StatusCode::UNPROCESSABLE_ENTITY,
            "idempotency_key_reused",
            "This Idempotency-Key was used with another method, path or body: use a new key",
        )
        .with_param("Idempotency-Key")
    }

    pub fn rate_limited(retry_after_secs: u64) -> Self {
        let mut e = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorType::RateLimitError,
            "rate_limited",
            format!("Too many requests: retry in {retry_after_secs} s"),
        );
        e.headers.push((
            actix_web::http::header::RETRY_AFTER,
            HeaderValue::from(retry_after_secs),
        ));
        e
    }

    pub fn internal() -> Self {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorType::ApiError,
            "internal_error",
            "Something went wrong on our side; it has been logged with the request id",
        )
    }

    pub fn service_unavailable() -> Self {
        let mut e = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorType::ApiError,
            "service_unavailable",
            "The database is not answering; retry later",
        );
        e.headers.push((
            actix_web::http::header::RETRY_AFTER,
            HeaderValue::from(RETRY_UNAVAILABLE_SECS),
        ));
        e
    }

    /// For errors that did not start as an [`ApiError`] (actix's own), keyed by their status.
    pub fn from_status(status: StatusCode) -> Self {
        match status {
            StatusCode::NOT_FOUND => ApiError::invalid(status, "route_not_found", "No such route"),
            StatusCode::METHOD_NOT_ALLOWED => {
                ApiError::invalid(status, "method_not_allowed", "Method not allowed")
            }
            StatusCode::PAYLOAD_TOO_LARGE => ApiError::payload_too_large(),
            StatusCode::REQUEST_TIMEOUT => ApiError::request_timeout(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE => ApiError::unsupported_media_type(),
            StatusCode::SERVICE_UNAVAILABLE => ApiError::service_unavailable(),
            s if s.is_client_error() => ApiError::invalid(
                StatusCode::BAD_REQUEST,
                "invalid_parameter",
                "The request could not be read",
            ),
            _ => ApiError::internal(),
        }
    }
}

impl From<Violations> for ApiError {
    fn from(v: Violations) -> Self {
        let mut e = ApiError::invalid(
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_failed",
            v.to_string(),
        );
        e.param = v.errors().first().map(|f| f.param.clone());
        e.details = v.into_errors();
        e
    }
}

impl ApiError {
    /// Card payment is not set up for this environment (or this server has no gateway).
    pub fn gateway_not_connected() -> Self {
        ApiError::invalid(
            StatusCode::NOT_FOUND,
            "gateway_not_connected",
            "No Stripe account is connected in this environment (PUT /api/v1/account/gateways/stripe)",
        )
    }
}

impl From<GatewayError> for ApiError {
    fn from(e: GatewayError) -> Self {
        match e {
            GatewayError::Unreachable(cause) | GatewayError::Malformed(cause) => {
                log::warn!("payment gateway: {cause}", cause = for_log(&cause));
                ApiError::new(
                    StatusCode::BAD_GATEWAY,
                    ErrorType::ApiError,
                    "gateway_unavailable",
                    "Stripe is not answering right now; nothing was changed, retry later",
                )
            }
            GatewayError::Unauthorized(_) => ApiError::new(
                StatusCode::BAD_GATEWAY,
                ErrorType::ApiError,
                "gateway_refused",
                "Stripe refused the saved secret key; save valid keys in Settings → Payments",
            ),
            GatewayError::Refused { message, .. } => ApiError::new(
                StatusCode::BAD_GATEWAY,
                ErrorType::ApiError,
                "gateway_refused",
                format!("Stripe refused the request: {message}"),
            ),
            GatewayError::BadSignature(why) => ApiError::invalid(
                StatusCode::BAD_REQUEST,
                "invalid_signature",
                format!("The Stripe-Signature does not verify: {why}"),
            ),
        }
    }
}

impl From<RepoError> for ApiError {
    fn from(e: RepoError) -> Self {
        match e {
            RepoError::NotFound => ApiError::resource_missing("resource"),
            RepoError::Forbidden => ApiError::resource_forbidden(),
            RepoError::InUse(message) => ApiError::resource_in_use(message),
            RepoError::InvalidTransition(message) => ApiError::invalid_state_transition(message),
            RepoError::Invalid(violations) => violations.into(),
            RepoError::Unavailable(cause) => {
                log::error!("database unavailable: {cause}", cause = for_log(&cause));
                ApiError::service_unavailable()
            }
            RepoError::Internal(cause) => {
                log::error!("storage failure: {cause}", cause = for_log(&cause));
                ApiError::internal()
            }
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.status.as_u16(),
            self.code,
            self.message
        )
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    /// The request id is not known here; the envelope middleware re-renders the body with it.
    fn error_response(&self) -> HttpResponse {
        render(self, self.request_id.as_deref().unwrap_or(""))
    }
}

#[derive(Serialize)]
struct Body<'a> {
    error: Inner<'a>,
}

#[derive(Serialize)]
struct Inner<'a> {
    #[serde(rename = "type")]
    kind: ErrorType,
    code: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    param: Option<&'a str>,
    #[serde(skip_serializing_if = "Details::is_empty")]
    details: Details<'a>,
    request_id: &'a str,
}

/// Fields that failed, or the business terms an e-invoice lacks (each with its field as
/// `param` too, so every detail has the SPEC §4 shape).
#[derive(Serialize)]
#[serde(untagged)]
enum Details<'a> {
    Fields(&'a [FieldError]),
    Terms(Vec<TermDetail<'a>>),
}

impl Details<'_> {
    fn is_empty(&self) -> bool {
        match self {
            Details::Fields(f) => f.is_empty(),
            Details::Terms(t) => t.is_empty(),
        }
    }
}

#[derive(Serialize)]
struct TermDetail<'a> {
    param: &'a str,
    #[serde(flatten)]
    missing: &'a Missing,
}

/// Writes the SPEC §4 body, with the extra headers the error carries.
pub fn render(e: &ApiError, request_id: &str) -> HttpResponse {
    let mut res = HttpResponse::build(e.status);
    if matches!(
        e.status,
        StatusCode::REQUEST_TIMEOUT | StatusCode::PAYLOAD_TOO_LARGE
    ) {
        // The rest of the body was never read: the connection cannot carry another request,
        // and a stalled client must not keep it (SPEC §3).
        res.force_close();
    }
    for (name, value) in &e.headers {
        res.insert_header((name.clone(), value.clone()));
    }
    res.json(Body {
        error: Inner {
            kind: e.kind,
            code: e.code,
            message: &e.message,
            param: e.param.as_deref(),
            details: if e.missing.is_empty() {
                Details::Fields(&e.details)
            } else {
                Details::Terms(
                    e.missing
                        .iter()
                        .map(|m| TermDetail {
                            param: &m.field,
                            missing: m,
                        })
                        .collect(),
                )
            },
            request_id,
        },
    })
}

/// Maps any error actix hands back to the contract: ours as they are, the rest by status.
pub fn from_actix(err: &actix_web::Error) -> ApiError {
    match err.as_error::<ApiError>() {
        Some(e) => e.clone(),
        None => ApiError::from_status(err.as_response_error().status_code()),
    }
}

#[cfg(test)]
mod codes {
    use super::*;

    /// The document's `ErrorCode` enum is [`ERROR_CODES`]: every constructor's code is in it.
    #[test]
    fn every_code_is_listed() {
        let mut made = vec![
            ApiError::invalid_json("x"),
            ApiError::invalid_parameter("p", "x"),
            ApiError::missing_api_key(),
            ApiError::invalid_api_key(),
            ApiError::api_key_expired(),
            ApiError::https_required(),
            ApiError::insufficient_permissions("customers:read"),
            ApiError::resource_forbidden(),
            ApiError::form_refused("x"),
            ApiError::resource_missing("customer"),
            ApiError::route_not_found("GET", "/x"),
            ApiError::method_not_allowed("GET", "POST"),
            ApiError::payload_too_large(),
            ApiError::unsupported_media_type(),
            ApiError::form_too_large(),
            ApiError::request_timeout(),
            ApiError::unsupported_form_type(),
            ApiError::resource_in_use("x"),
            ApiError::invalid_state_transition("x"),
            ApiError::email_not_configured(),
            ApiError::idempotency_key_in_use(),
            ApiError::idempotency_key_reused(),
            ApiError::rate_limited(1),
            ApiError::internal(),
            ApiError::service_unavailable(),
            ApiError::from(Violations::default()),
        ];
        for status in 400..600 {
            if let Ok(status) = StatusCode::from_u16(status) {
                made.push(ApiError::from_status(status));
            }
        }
        for e in made {
            assert!(ERROR_CODES.contains(&e.code), "{} is not listed", e.code);
        }
    }
}
