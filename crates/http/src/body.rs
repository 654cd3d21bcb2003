//! The JSON body extractor (SPEC §3, §4): content type, size, syntax, depth, NUL characters and
//! field types are checked here, each with its own error, before a handler sees the value. Every
//! body read goes through [`next_chunk`], so none waits forever for a stalled client.

use crate::error::ApiError;
use actix_web::dev::Payload;
use actix_web::http::header::CONTENT_TYPE;
use actix_web::rt::time::timeout;
use actix_web::web::Bytes;
use actix_web::{FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;
use futures_util::StreamExt;
use invoicing_domain::validation::Violations;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::time::Duration;

pub const MAX_BODY_BYTES: usize = 1024 * 1024;
pub const MAX_DEPTH: usize = 32;

/// A request body parsed into `T`.
pub struct JsonBody<T>(pub T);

fn is_json(req: &HttpRequest) -> bool {
    req.headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"))
}

/// A body that may be left out entirely (no bytes at all): then `T::default()`. When a body is
/// sent, it is checked exactly like [`JsonBody`].
pub struct OptionalJsonBody<T>(pub T);

/// The "body" of a route that takes none. A request without one passes, whatever it declares;
/// one sent anyway is checked like any other body (415 without `application/json`, SPEC §3) and
/// must be an empty object, so that a field the route does not take is refused (400
/// `invalid_parameter`) rather than silently dropped while the action goes ahead.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoBody {}

/// Reads the raw body with the checks of SPEC §3; `None` when the request has no body at all and
/// `optional` allows that.
fn read_body(
    req: &HttpRequest,
    payload: &mut Payload,
    optional: bool,
) -> LocalBoxFuture<'static, Result<Option<Vec<u8>>, ApiError>> {
    let json = is_json(req);
    let has_type = req.headers().contains_key(CONTENT_TYPE);
    let declared = req
        .headers()
        .get(actix_web::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    let mut payload = payload.take();
    Box::pin(async move {
        if declared.is_some_and(|n| n > MAX_BODY_BYTES) {
            return Err(ApiError::payload_too_large());
        }
        let mut bytes = Vec::with_capacity(declared.unwrap_or(0).min(MAX_BODY_BYTES));
        while let Some(chunk) = next_chunk(&mut payload).await? {
            if bytes.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(ApiError::payload_too_large());
            }
            bytes.extend_from_slice(&chunk);
        }
        if optional && bytes.is_empty() && (json || !has_type) {
            return Ok(None);
        }
        if !json {
            return Err(ApiError::unsupported_media_type());
        }
        Ok(Some(bytes))
    })
}

/// How long a body may pause between two chunks before the request is answered 408 (SPEC §3).
pub const STALL_TIMEOUT: Duration = Duration::from_secs(10);

/// The next chunk of a request body, `None` at its end. Without a deadline a client that sends
/// part of a body and then nothing would hold its connection and this task forever; the
/// deadline restarts with every chunk, so a slow but steady upload still gets through.
pub async fn next_chunk(payload: &mut Payload) -> Result<Option<Bytes>, ApiError> {
    match timeout(STALL_TIMEOUT, payload.next()).await {
        Err(_) => Err(ApiError::request_timeout()),
        Ok(None) => Ok(None),
        Ok(Some(Ok(chunk))) => Ok(Some(chunk)),
        Ok(Some(Err(_))) => Err(ApiError::invalid_json("The body could not be read")),
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for JsonBody<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        if !is_json(req) {
            return Box::pin(async { Err(ApiError::unsupported_media_type()) });
        }
        let body = read_body(req, payload, false);
        Box::pin(async move {
            let bytes = body.await?.unwrap_or_default();
            parse_body(&bytes).map(JsonBody)
        })
    }
}

impl<T: DeserializeOwned + Default + 'static> FromRequest for OptionalJsonBody<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let body = read_body(req, payload, true);
        Box::pin(async move {
            match body.await? {
                None => Ok(OptionalJsonBody(T::default())),
                Some(bytes) => parse_body(&bytes).map(OptionalJsonBody),
            }
        })
    }
}

/// Everything after transport: syntax, depth, NUL characters, then the typed shape.
pub fn parse_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::invalid_json(
            "The request body is empty; send a JSON object",
        ));
    }
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        if e.to_string().contains("recursion limit") {
            too_deep()
        } else {
            ApiError::invalid_json(format!("The body is not valid JSON: {e}"))
        }
    })?;
    if depth(&value) > MAX_DEPTH {
        return Err(too_deep());
    }
    if !value.is_object() {
        // serde would read an array positionally into a struct: only objects are bodies here.
        return Err(ApiError::invalid_parameter(
            "body",
            "the body must be a JSON object",
        ));
    }
    let mut nul = Violations::new();
    find_nul(&value, "", &mut nul);
    if !nul.is_empty() {
        return Err(nul.into());
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let inner = e.inner().to_string();
        let path = e.path().to_string();
        let path = clean_path(&path);
        // The path already names an unknown field on some serde versions; add it where not.
        let param = match unknown_field(&inner) {
            Some(field) if path != field && !path.ends_with(&format!(".{field}")) => {
                invoicing_domain::validation::join_param(path, &field)
            }
            _ => path.to_string(),
        };
        ApiError::invalid_parameter(
            if param.is_empty() {
                "body".into()
            } else {
                param
            },
            inner,
        )
    })
}

fn too_deep() -> ApiError {
    ApiError::invalid_json(format!("The body is nested deeper than {MAX_DEPTH} levels"))
}

fn clean_path(path: &str) -> &str {
    if path == "." {
        ""
    } else {
        path
    }
}

fn unknown_field(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    rest.split('`').next().map(str::to_string)
}

fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

fn find_nul(value: &Value, at: &str, out: &mut Violations) {
    match value {
        Value::String(s) if s.contains('\0') => out.push(at, "must not contain NUL characters"),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                find_nul(item, &format!("{at}[{i}]"), out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let here = invoicing_domain::validation::join_param(at, key);
                if key.contains('\0') {
                    out.push(here.clone(), "must not contain NUL characters");
                }
                find_nul(item, &here, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use invoicing_domain::customer::CustomerInput;

    #[test]
    fn each_failure_has_its_code() {
        let code = |body: &str| {
            parse_body::<CustomerInput>(body.as_bytes())
                .err()
                .map(|e| (e.code, e.param.clone()))
        };
        assert_eq!(code("{").unwrap().0, "invalid_json");
        assert_eq!(code("").unwrap().0, "invalid_json");
        assert_eq!(
            code(r#"{"name": 5}"#).unwrap(),
            ("invalid_parameter", Some("name".into()))
        );
        assert_eq!(
            code(r#"{"nmae": "x"}"#).unwrap(),
            ("invalid_parameter", Some("nmae".into()))
        );
        assert_eq!(
            code(r#"{"address": {"city": 1}}"#).unwrap(),
            ("invalid_parameter", Some("address.city".into()))
        );
        assert_eq!(
            code(r#"{"name": "a\u0000b"}"#).unwrap(),
            ("validation_failed", Some("name".into()))
        );
        let deep = format!("{}{}", "[".repeat(40), "]".repeat(40));
        assert_eq!(code(&deep).unwrap().0, "invalid_json");
        let very_deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(code(&very_deep).unwrap().0, "invalid_json");
        assert!(code(r#"{"name": "Ada", "email": "ada@example.com"}"#).is_none());
        for not_object in [
            r#"["Ada", "ada@example.com"]"#,
            "[]",
            "42",
            r#""Ada""#,
            "null",
        ] {
            assert_eq!(
                code(not_object).unwrap(),
                ("invalid_parameter", Some("body".into())),
                "{not_object}"
            );
        }
    }

    #[test]
    fn depth_counts_containers() {
        let v: Value = serde_json::from_str(r#"{"a": [1, {"b": []}]}"#).unwrap();
        assert_eq!(depth(&v), 4);
    }
}
