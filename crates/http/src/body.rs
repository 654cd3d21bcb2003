//! The JSON body extractor (SPEC §3, §4): content type, size, syntax, depth, NUL characters,
//! `null`s and field types are checked here, each with its own error, before a handler sees the
//! value. Every body read goes through [`BodyReader`], so none waits forever for a stalled client.
//!
//! `null` is refused everywhere except at the top level of a `PATCH` body, where it clears a
//! field and each parser decides (`validation::double_option`): nowhere else does it mean
//! anything, and reading it as "absent" would accept what the OpenAPI document refuses.

use crate::client::ConnectionSocket;
use crate::error::ApiError;
use crate::unique_keys::{UniqueKeys, REPEATED_KEY};
use actix_web::dev::Payload;
use actix_web::http::header::CONTENT_TYPE;
use actix_web::rt::time::timeout;
use actix_web::web::Bytes;
use actix_web::{FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;
use futures_util::StreamExt;
use invoicing_domain::validation::{refused_characters, Violations};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::time::{Duration, Instant};

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
    let mut body = BodyReader::new(req, payload.take());
    Box::pin(async move {
        if declared.is_some_and(|n| n > MAX_BODY_BYTES) {
            return Err(ApiError::payload_too_large());
        }
        let mut bytes = Vec::with_capacity(declared.unwrap_or(0).min(MAX_BODY_BYTES));
        while let Some(chunk) = body.next_chunk().await? {
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

/// How long a whole body may take: a client dripping a byte every few seconds never stalls
/// for 10 s, and would otherwise hold its connection for as long as it likes.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(60);

/// A request body read chunk by chunk, within [`STALL_TIMEOUT`] of the last chunk and
/// [`BODY_TIMEOUT`] of the first read. Every body read goes through here.
/// On a timeout it also stops reading the connection, which then closes once answered.
pub struct BodyReader {
    payload: Payload,
    stall: Duration,
    until: Instant,
    socket: Option<ConnectionSocket>,
}

impl BodyReader {
    pub fn new(req: &HttpRequest, payload: Payload) -> Self {
        let mut reader = Self::with_limits(payload, STALL_TIMEOUT, BODY_TIMEOUT);
        reader.socket = req.conn_data::<ConnectionSocket>().cloned();
        reader
    }

    fn with_limits(payload: Payload, stall: Duration, total: Duration) -> Self {
        BodyReader {
            payload,
            stall,
            until: Instant::now() + total,
            socket: None,
        }
    }

    /// The next chunk, `None` at the end of the body.
    pub async fn next_chunk(&mut self) -> Result<Option<Bytes>, ApiError> {
        let wait = self
            .stall
            .min(self.until.saturating_duration_since(Instant::now()));
        match timeout(wait, self.payload.next()).await {
            Err(_) => {
                if let Some(socket) = &self.socket {
                    socket.stop_reading_soon();
                }
                Err(ApiError::request_timeout())
            }
            Ok(None) => Ok(None),
            Ok(Some(Ok(chunk))) => Ok(Some(chunk)),
            Ok(Some(Err(_))) => Err(ApiError::invalid_json("The body could not be read")),
        }
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for JsonBody<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        if !is_json(req) {
            return Box::pin(async { Err(ApiError::unsupported_media_type()) });
        }
        let nulls = Nulls::of(req);
        let body = read_body(req, payload, false);
        Box::pin(async move {
            let bytes = body.await?.unwrap_or_default();
            parse_body_with(&bytes, nulls).map(JsonBody)
        })
    }
}

impl<T: DeserializeOwned + Default + 'static> FromRequest for OptionalJsonBody<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        // An optional body is an action's (send, resend, pause…), never a resource's patch:
        // it holds no `null`, whatever the method (`PATCH …/send` included).
        let nulls = Nulls::Nowhere;
        let body = read_body(req, payload, true);
        Box::pin(async move {
            match body.await? {
                None => Ok(OptionalJsonBody(T::default())),
                Some(bytes) => parse_body_with(&bytes, nulls).map(OptionalJsonBody),
            }
        })
    }
}

/// Where a body may hold `null` (see the module header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nulls {
    Nowhere,
    /// A `PATCH` body: its own fields may be `null`, nothing inside them.
    TopLevel,
}

impl Nulls {
    fn of(req: &HttpRequest) -> Nulls {
        if req.method() == actix_web::http::Method::PATCH {
            Nulls::TopLevel
        } else {
            Nulls::Nowhere
        }
    }
}

/// [`parse_body_with`] for a body that holds no `null` anywhere.
pub fn parse_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    parse_body_with(bytes, Nulls::Nowhere)
}

/// Everything after transport: syntax, depth, NUL characters and `null`s, then the typed shape.
pub fn parse_body_with<T: DeserializeOwned>(bytes: &[u8], nulls: Nulls) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::invalid_json(
            "The request body is empty; send a JSON object",
        ));
    }
    let UniqueKeys(mut value) = serde_json::from_slice(bytes).map_err(|e| {
        let text = e.to_string();
        if text.contains("recursion limit") {
            too_deep()
        } else if text.starts_with(REPEATED_KEY) {
            ApiError::invalid_json(format!("The body is refused: {e}"))
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
    let mut refused = Violations::new();
    find_refused(&value, "", nulls == Nulls::TopLevel, &mut refused);
    if !refused.is_empty() {
        return Err(refused.into());
    }
    integral_floats_as_integers(&mut value);
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

/// NUL characters anywhere, and `null` except in the top-level fields when `fields_may_be_null`.
fn find_refused(value: &Value, at: &str, fields_may_be_null: bool, out: &mut Violations) {
    match value {
        Value::String(s) => {
            if let Some(refused) = refused_characters(s) {
                out.push(at, refused);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if item.is_null() {
                    out.push(format!("{at}[{i}]"), "must not be null");
                }
                find_refused(item, &format!("{at}[{i}]"), false, out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let here = invoicing_domain::validation::join_param(at, key);
                if let Some(refused) = refused_characters(key) {
                    out.push(here.clone(), refused);
                }
                if item.is_null() && !fields_may_be_null {
                    out.push(here.clone(), "must not be null");
                }
                find_refused(item, &here, false, out);
            }
        }
        _ => {}
    }
}

/// JSON has one kind of number: `2.0` is the integer 2, and the document's `integer` includes
/// it, so an integral number written with a fraction or an exponent is read as that integer
/// wherever it fits an `i64` (a decimal field reads it just the same).
fn integral_floats_as_integers(value: &mut Value) {
    const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
    match value {
        Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|_| n.is_f64()) {
                if f.fract() == 0.0 && (-TWO_POW_63..TWO_POW_63).contains(&f) {
                    // Exact: an integral f64 below 2^63 in magnitude is an i64.
                    *value = Value::from(f as i64);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_floats_as_integers),
        Value::Object(map) => map.values_mut().for_each(integral_floats_as_integers),
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
    fn null_is_refused_except_in_a_patch_bodys_own_fields() {
        let refused = |body: &str, nulls: Nulls| {
            parse_body_with::<serde_json::Map<String, Value>>(body.as_bytes(), nulls)
                .err()
                .map(|e| (e.code, e.param.clone()))
        };
        let null_at = |p: &str| Some(("validation_failed", Some(p.to_string())));
        assert_eq!(
            refused(r#"{"phone": null}"#, Nulls::Nowhere),
            null_at("phone")
        );
        assert_eq!(refused(r#"{"phone": null}"#, Nulls::TopLevel), None);
        assert_eq!(
            refused(r#"{"address": {"state": null}}"#, Nulls::TopLevel),
            null_at("address.state")
        );
        assert_eq!(
            refused(r#"{"line_items": [null]}"#, Nulls::TopLevel),
            null_at("line_items[0]")
        );
        assert_eq!(
            refused(r#"{"metadata": {"k": null}}"#, Nulls::Nowhere),
            null_at("metadata.k")
        );
    }

    #[test]
    fn integral_numbers_are_integers_however_written() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct Ids {
            a: i64,
            b: i64,
            c: i64,
        }
        let ids: Ids = parse_body(br#"{"a": 373.0, "b": -2e3, "c": 4190559487487390.0}"#).unwrap();
        assert_eq!(
            ids,
            Ids {
                a: 373,
                b: -2000,
                c: 4_190_559_487_487_390
            }
        );
        for not_integral in [
            r#"{"a": 1.5, "b": 1, "c": 1}"#,
            r#"{"a": 1e19, "b": 1, "c": 1}"#,
        ] {
            let e = parse_body::<Ids>(not_integral.as_bytes()).unwrap_err();
            assert_eq!(
                (e.code, e.param.as_deref()),
                ("invalid_parameter", Some("a"))
            );
        }
    }

    #[test]
    fn depth_counts_containers() {
        let v: Value = serde_json::from_str(r#"{"a": [1, {"b": []}]}"#).unwrap();
        assert_eq!(depth(&v), 4);
    }

    /// A body that keeps dripping never stalls, but it still ends when the whole-body limit
    /// does; a steady body within both limits is read whole.
    #[actix_web::test]
    async fn a_dripping_body_ends_at_the_total_limit() {
        use futures_util::stream;
        let drip = |bytes: usize| {
            let chunks = stream::unfold(0usize, move |sent| async move {
                if sent == bytes {
                    return None;
                }
                actix_web::rt::time::sleep(Duration::from_millis(50)).await;
                Some((Ok(Bytes::from_static(b"x")), sent + 1))
            });
            let boxed: actix_http::BoxedPayloadStream = Box::pin(chunks);
            Payload::from(boxed)
        };
        let limits = |payload| {
            BodyReader::with_limits(
                payload,
                Duration::from_millis(200),
                Duration::from_millis(400),
            )
        };
        let mut reader = limits(drip(1000));
        let mut read = 0;
        let ended = loop {
            match reader.next_chunk().await {
                Ok(Some(chunk)) => read += chunk.len(),
                Ok(None) => break None,
                Err(e) => break Some(e),
            }
        };
        assert_eq!(ended.map(|e| e.code), Some("request_timeout"));
        assert!((4..=9).contains(&read), "read {read} bytes in 400 ms");

        let mut reader = limits(drip(3));
        let mut read = 0;
        while let Some(chunk) = reader.next_chunk().await.unwrap() {
            read += chunk.len();
        }
        assert_eq!(read, 3);
    }
}
