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
use crate::{blocking, AppState};
use actix_web::http::header::CONTENT_TYPE;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::profile::{ImageKind, Logo, LOGO_MAX_BYTES, LOGO_MAX_SIDE};
use invoicing_domain::validation::Violations;
use std::io::Cursor;

fn refuse(message: impl Into<String>) -> ApiError {
    Violations::single("logo", message).into()
}

/// What the bytes are, if they decode as a PNG or a JPEG within the limits.
pub(crate) fn check_logo(bytes: &[u8]) -> Result<ImageKind, ApiError> {
    let unreadable = || refuse("is not a readable PNG or JPEG image");
    let (kind, format) = match image::guess_format(bytes) {
        Ok(image::ImageFormat::Png) => (ImageKind::Png, image::ImageFormat::Png),
        Ok(image::ImageFormat::Jpeg) => (ImageKind::Jpeg, image::ImageFormat::Jpeg),
        _ => return Err(unreadable()),
    };
    // The header first, so a small file claiming huge dimensions is refused before decoding.
    let reader = image::ImageReader::with_format(Cursor::new(bytes), format);
    let (width, height) = reader.into_dimensions().map_err(|_| unreadable())?;
    if width == 0 || height == 0 {
        return Err(unreadable());
    }
    if width > LOGO_MAX_SIDE || height > LOGO_MAX_SIDE {
        return Err(refuse(format!(
            "must be at most {LOGO_MAX_SIDE}×{LOGO_MAX_SIDE} pixels (this one is {width}×{height})"
        )));
    }
    // Then every pixel: a truncated or corrupt file fails here.
    image::load_from_memory_with_format(bytes, format).map_err(|_| unreadable())?;
    Ok(kind)
}

/// Upload the logo shown on pages, PDFs and emails (replaces any earlier one).
#[utoipa::path(put, path = "/api/v1/account/logo", tag = "account",
    request_body(description = "A PNG or JPEG image, at most 512 KiB and 2000×2000 px, sent as `image/png` or `image/jpeg` (the bytes decide which it is)",
        content((Vec<u8> = "image/*"))),
    responses(
        (status = 204, description = "Stored"),
        (status = 422, description = "Not a readable PNG or JPEG within the limits (`validation_failed`)", body = crate::openapi::ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn put_logo(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let payload = payload.into_inner();
    let scope = auth.require(ApiResource::Account, Access::Write)?;
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
    let repos = state.repos();
    blocking(move || match check_logo(&bytes) {
        Err(e) => Ok(Err(e)),
        Ok(kind) => repos.put_logo(scope, Logo { kind, bytes }).map(Ok),
    })
    .await??;
    Ok(HttpResponse::NoContent().finish())
}

/// The logo as uploaded.
#[utoipa::path(get, path = "/api/v1/account/logo", tag = "account",
    responses(
        (status = 200, description = "The image as uploaded",
            content((Vec<u8> = "image/png"), (Vec<u8> = "image/jpeg"))),
        (status = 404, description = "No logo (`resource_missing`)", body = crate::openapi::ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn get_logo(state: web::Data<AppState>, auth: Auth) -> Result<HttpResponse, ApiError> {
    let scope = auth.require(ApiResource::Account, Access::Read)?;
    let repos = state.repos();
    match blocking(move || repos.get_logo(scope)).await? {
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
    let scope = auth.require(ApiResource::Account, Access::Write)?;
    let repos = state.repos();
    blocking(move || repos.delete_logo(scope)).await?;
    Ok(HttpResponse::NoContent().finish())
}
