//! `/api/v1/account/logo`: a PNG or JPEG, proven by decoding it (never trusted by its content
//! type), at most 512 KiB and 2000×2000 pixels (SPEC §16). It is served back byte for byte.

use crate::auth::Auth;
use crate::body::next_chunk;
use crate::error::ApiError;
use crate::{blocking, AppState};
use actix_web::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::profile::{ImageKind, Logo, LOGO_MAX_BYTES, LOGO_MAX_SIDE};
use invoicing_domain::validation::Violations;
use std::io::Cursor;

fn refuse(message: impl Into<String>) -> ApiError {
    Violations::single("logo", message).into()
}

/// The image the bytes are, if they are the `kind` they claim and within the limits.
pub(crate) fn check_logo(kind: ImageKind, bytes: &[u8]) -> Result<(), ApiError> {
    let format = match kind {
        ImageKind::Png => image::ImageFormat::Png,
        ImageKind::Jpeg => image::ImageFormat::Jpeg,
    };
    let unreadable = || refuse(format!("is not a readable {}", kind.content_type()));
    // The header first, so a small file claiming huge dimensions is refused before decoding.
    let reader = image::ImageReader::with_format(Cursor::new(bytes), format);
    let (width, height) = reader.into_dimensions().map_err(|_| unreadable())?;
    if width > LOGO_MAX_SIDE || height > LOGO_MAX_SIDE {
        return Err(refuse(format!(
            "must be at most {LOGO_MAX_SIDE}×{LOGO_MAX_SIDE} pixels (this one is {width}×{height})"
        )));
    }
    // Then every pixel: a truncated or corrupt file fails here.
    image::load_from_memory_with_format(bytes, format).map_err(|_| unreadable())?;
    Ok(())
}

/// Upload the logo shown on pages, PDFs and emails (replaces any earlier one).
#[utoipa::path(put, path = "/api/v1/account/logo", tag = "account",
    request_body(description = "The image, at most 512 KiB and 2000×2000 px",
        content((Vec<u8> = "image/png"), (Vec<u8> = "image/jpeg"))),
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
    let mut payload = payload.into_inner();
    let scope = auth.require(ApiResource::Account, Access::Write)?;
    let content_type = req
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default();
    let kind = ImageKind::from_content_type(&content_type).ok_or_else(|| {
        refuse("must be sent as image/png or image/jpeg (Content-Type), with the image as the body")
    })?;
    let mut bytes = Vec::new();
    while let Some(chunk) = next_chunk(&mut payload).await? {
        if bytes.len() + chunk.len() > LOGO_MAX_BYTES {
            return Err(refuse(format!(
                "must be at most {} KiB",
                LOGO_MAX_BYTES / 1024
            )));
        }
        bytes.extend_from_slice(&chunk);
    }
    let repos = state.repos();
    blocking(move || {
        if let Err(e) = check_logo(kind, &bytes) {
            return Ok(Err(e));
        }
        repos.put_logo(scope, Logo { kind, bytes }).map(Ok)
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
        Some(logo) => Ok(HttpResponse::Ok()
            .insert_header((CONTENT_TYPE, logo.kind.content_type()))
            .insert_header((CACHE_CONTROL, "private, no-cache"))
            .body(logo.bytes)),
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
