//! A form post's body as browsers send it (`application/x-www-form-urlencoded`, SPEC §3: at
//! most 16 KiB), read for the public pages and the dashboard alike.

use crate::body::BodyReader;
use crate::error::ApiError;
use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::web::{Bytes, BytesMut};
use actix_web::{FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;

/// The pages' forms post `application/x-www-form-urlencoded`, as browsers send them.
pub(crate) fn require_form(req: &HttpRequest) -> Result<(), ApiError> {
    let is_form = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| {
            m.trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        });
    if is_form {
        Ok(())
    } else {
        Err(ApiError::unsupported_form_type())
    }
}

/// SPEC §3: the pages' forms are small.
pub const MAX_FORM_BYTES: usize = 16 * 1024;

/// A page form's raw body, read like API bodies: bounded, and answered 408 when the client
/// stalls. The content type is the handler's to check, after the rate limit.
pub struct FormBody(pub Bytes);

impl FromRequest for FormBody {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let reading = read_form(req, payload.take());
        Box::pin(async move { reading.await.map(FormBody) })
    }
}

/// Reads a page form's body within [`MAX_FORM_BYTES`].
pub(crate) fn read_form(
    req: &HttpRequest,
    payload: Payload,
) -> impl std::future::Future<Output = Result<Bytes, ApiError>> + 'static {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    let mut body = BodyReader::new(req, payload);
    async move {
        if declared.is_some_and(|n| n > MAX_FORM_BYTES) {
            return Err(ApiError::form_too_large());
        }
        let mut bytes = BytesMut::new();
        while let Some(chunk) = body.next_chunk().await.map_err(not_json)? {
            if bytes.len() + chunk.len() > MAX_FORM_BYTES {
                return Err(ApiError::form_too_large());
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(bytes.freeze())
    }
}

/// A form that could not be read is no JSON syntax error.
fn not_json(e: ApiError) -> ApiError {
    if e.code == "invalid_json" {
        ApiError::invalid_parameter("body", "the form could not be read")
    } else {
        e
    }
}
