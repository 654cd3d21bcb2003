//! `/api/v1/account/logo`: a PNG or JPEG, proven by decoding it (never trusted by its content
//! type), at most 512 KiB and 2000×2000 pixels (SPEC §16). It is served back byte for byte, with
//! the type its bytes are.
//!
//! The upload must be declared an image (`image/png`, `image/jpeg`, any `image/…`; anything else
//! is 422), but which image it is is what the bytes say: a label is never evidence, and
//! generated clients send one fixed type for an operation that takes several.

use crate::auth::Auth;
use crate::binary::{self, Binary};
use crate::body::BodyReader;
use crate::error::ApiError;
use crate::ops::{refuse_logo as refuse, Ops};
use crate::AppState;
use actix_web::http::header::CONTENT_TYPE;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::profile::LOGO_MAX_BYTES;

/// Upload the logo shown on pages, PDFs and emails (replaces any earlier one).
#[utoipa::path(put, path = "/api/v1/account/logo", tag = "account",
    request_body(description = "A PNG or JPEG image, at most 512 KiB and 2000×2000 px, sent as `image/png` or `image/jpeg` (the bytes decide which it is)",
        content((Vec<u8> = "image/*"))),
    responses(
        (status = 204, description = "Stored"),
        (status = 422, description = "Not a readable PNG or JPEG within the limits (`validation_failed`)", body = crate::openapi::error_body::ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn put_logo(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let payload = payload.into_inner();
    let ops = Ops::for_key(&state, &auth);
    // Refused before its body is read.
    ops.caller().require(ApiResource::Account, Access::Write)?;
    let content_type = req
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default();
    if !content_type.starts_with("image/") {
        return Err(refuse(
            "must be sent as image/png or image/jpeg (Content-Type), with the image as the body",
        ));
    }
    let mut bytes = Vec::new();
    let mut body = BodyReader::new(&req, payload);
    while let Some(chunk) = body.next_chunk().await? {
        if bytes.len() + chunk.len() > LOGO_MAX_BYTES {
            return Err(refuse(format!(
                "must be at most {} KiB",
                LOGO_MAX_BYTES / 1024
            )));
        }
        bytes.extend_from_slice(&chunk);
    }
    ops.put_logo(bytes).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The logo as uploaded.
#[utoipa::path(get, path = "/api/v1/account/logo", tag = "account",
    responses(
        (status = 200, description = "The image as uploaded",
            content((Vec<u8> = "image/png"), (Vec<u8> = "image/jpeg"))),
        (status = 404, description = "No logo (`resource_missing`)", body = crate::openapi::error_body::ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn get_logo(state: web::Data<AppState>, auth: Auth) -> Result<HttpResponse, ApiError> {
    match Ops::for_key(&state, &auth).logo().await? {
        Some(logo) => Ok(binary::respond(Binary {
            content_type: logo.kind.content_type(),
            cache_control: "private, no-cache",
            filename: None,
            bytes: logo.bytes,
        })),
        None => Err(ApiError::resource_missing("logo")),
    }
}

/// Remove the logo; documents already sent keep theirs.
#[utoipa::path(delete, path = "/api/v1/account/logo", tag = "account",
    responses((status = 204, description = "Removed (or there was none)")),
    security(("api_key" = [])))]
pub async fn delete_logo(state: web::Data<AppState>, auth: Auth) -> Result<HttpResponse, ApiError> {
    Ops::for_key(&state, &auth).delete_logo().await?;
    Ok(HttpResponse::NoContent().finish())
}
