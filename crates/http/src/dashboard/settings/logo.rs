//! The logo (SPEC §16, §21, owners): uploaded from the settings page as a browser sends a file
//! (`multipart/form-data`, the session's `csrf` beside it), shown there as its preview, and
//! removed. The same operations as `PUT /api/v1/account/logo` decide what is a logo.

use crate::binary::{self, Binary};
use crate::dashboard::form::Form;
use crate::dashboard::session::check_post;
use crate::dashboard::{see_other, Refusal};
use crate::dashboard::{Answer, Posted, Visitor};
use crate::error::ApiError;
use crate::multipart::{read_upload, UploadError};
use crate::ops::refuse_logo;
use crate::AppState;
use actix_web::{web, HttpRequest};
use invoicing_domain::profile::LOGO_MAX_BYTES;
use std::collections::HashMap;

/// Reads the upload form: its fields and the logo's bytes.
async fn read_logo(
    req: &HttpRequest,
    payload: web::Payload,
) -> Result<(Vec<(String, String)>, Option<Vec<u8>>), ApiError> {
    match read_upload(req, payload, LOGO_MAX_BYTES, "logo").await {
        Ok(upload) if !upload.file_too_large => {
            Ok((upload.fields, upload.file.map(|(_, bytes)| bytes)))
        }
        Ok(_) | Err(UploadError::TooLarge) => Err(refuse_logo(format!(
            "must be at most {} KiB",
            LOGO_MAX_BYTES / 1024
        ))),
        Err(UploadError::NotMultipart) => Err(refuse_logo(
            "must be sent from the settings page's upload form",
        )),
        Err(UploadError::Unreadable) => Err(refuse_logo(
            "the upload could not be read; choose the file again",
        )),
        Err(UploadError::Body(e)) => Err(e),
    }
}

/// Stores an uploaded logo; a refusal shows the settings again with it beside the field.
#[utoipa::path(post, path = "/dashboard/settings/logo", tag = "dashboard", operation_id = "dashboard_logo_upload",
    request_body(content = crate::dashboard::DashboardForm, content_type = "multipart/form-data",
        description = "`csrf` and `logo`: a PNG or JPEG file, at most 512 KiB and 2000×2000 px"),
    responses(
        (status = 303, description = "Stored", headers(("Location" = String, description = "The settings, showing it"))),
        (status = 422, description = "The settings again, the refusal beside the logo", content_type = "text/html", body = String),
    ))]
pub(crate) async fn upload(
    me: Visitor,
    state: web::Data<AppState>,
    req: HttpRequest,
    payload: web::Payload,
) -> Answer {
    super::super::session::same_origin(&req)?;
    let ops = me.ops(&state);
    // Refused before the body is read.
    ops.caller()
        .require(
            invoicing_domain::api_key::ApiResource::Account,
            invoicing_domain::api_key::Access::Write,
        )
        .map_err(Refusal::from)?;
    let stored = match read_logo(&req, payload).await {
        Ok((fields, file)) => {
            check_post(&me, &req, &Form::from_pairs(fields))?;
            match file.filter(|f| !f.is_empty()) {
                Some(file) => ops.put_logo(file).await,
                None => Err(refuse_logo("choose a PNG or JPEG file first")),
            }
        }
        Err(e) => Err(e),
    };
    match stored {
        Ok(()) => Ok(see_other("/dashboard/settings?done=logo#logo")),
        Err(e) if e.param.as_deref() == Some("logo") => {
            let message = e
                .details
                .first()
                .map(|d| d.message.clone())
                .unwrap_or_else(|| e.message.clone());
            let errors = HashMap::from([("logo".to_string(), message)]);
            super::profile::show_current(&state, &req, &me, errors).await
        }
        Err(e) => Err(e.into()),
    }
}

/// The logo as stored, for the settings' preview.
#[utoipa::path(get, path = "/dashboard/settings/logo", tag = "dashboard", operation_id = "dashboard_logo",
    responses(
        (status = 200, description = "The image as uploaded", content((Vec<u8> = "image/png"), (Vec<u8> = "image/jpeg"))),
        (status = 403, description = "Not allowed to read the profile", content_type = "text/html", body = String),
        (status = 404, description = "No logo", content_type = "text/html", body = String),
    ))]
pub(crate) async fn image(me: Visitor, state: web::Data<AppState>) -> Answer {
    match me.ops(&state).logo().await? {
        Some(logo) => Ok(binary::respond(Binary {
            content_type: logo.kind.content_type(),
            cache_control: "no-store",
            filename: None,
            bytes: logo.bytes,
        })),
        None => Err(ApiError::resource_missing("logo").into()),
    }
}

/// Removes the logo.
#[utoipa::path(post, path = "/dashboard/settings/logo/delete", tag = "dashboard", operation_id = "dashboard_logo_delete",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`"),
    responses(
        (status = 303, description = "Removed (or there was none)", headers(("Location" = String, description = "The settings"))),
    ))]
pub(crate) async fn delete(Posted { me, .. }: Posted, state: web::Data<AppState>) -> Answer {
    me.ops(&state).delete_logo().await?;
    Ok(see_other("/dashboard/settings?done=logo_removed#logo"))
}
