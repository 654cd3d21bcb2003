//! The logo (SPEC §16, §21, owners): uploaded from the settings page as a browser sends a file
//! (`multipart/form-data`, the session's `csrf` beside it), shown there as its preview, and
//! removed. The same operations as `PUT /api/v1/account/logo` decide what is a logo.

use crate::binary::{self, Binary};
use crate::body::BodyReader;
use crate::dashboard::form::Form;
use crate::dashboard::session::{check_post, visitor};
use crate::dashboard::{respond, see_other, Refusal};
use crate::error::ApiError;
use crate::ops::refuse_logo;
use crate::routes::pages::FormBody;
use crate::AppState;
use actix_web::http::header::CONTENT_TYPE;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::profile::LOGO_MAX_BYTES;
use std::collections::HashMap;

/// Room for the form's other fields and the parts' headers beside the image.
const FORM_OVERHEAD: usize = 16 * 1024;

/// What the upload form posted: its `csrf` and the file's bytes.
struct Upload {
    fields: Vec<(String, String)>,
    file: Option<Vec<u8>>,
}

/// Reads the whole post (at most the logo's limit and a little) and splits its parts.
async fn read_upload(req: &HttpRequest, payload: web::Payload) -> Result<Upload, ApiError> {
    let boundary = req
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| multer::parse_boundary(v).ok())
        .ok_or_else(|| refuse_logo("must be sent from the settings page's upload form"))?;
    let mut body = BodyReader::new(req, payload.into_inner());
    let mut bytes = Vec::new();
    while let Some(chunk) = body.next_chunk().await? {
        if bytes.len() + chunk.len() > LOGO_MAX_BYTES + FORM_OVERHEAD {
            return Err(refuse_logo(format!(
                "must be at most {} KiB",
                LOGO_MAX_BYTES / 1024
            )));
        }
        bytes.extend_from_slice(&chunk);
    }
    let stream = futures_util::stream::once(async move {
        Ok::<_, std::convert::Infallible>(bytes::Bytes::from(bytes))
    });
    let mut parts = multer::Multipart::new(stream, boundary);
    let unreadable = |_| refuse_logo("the upload could not be read; choose the file again");
    let mut upload = Upload {
        fields: Vec::new(),
        file: None,
    };
    while let Some(field) = parts.next_field().await.map_err(unreadable)? {
        let name = field.name().unwrap_or_default().to_string();
        let is_file = field.file_name().is_some();
        let data = field.bytes().await.map_err(unreadable)?;
        if name == "logo" && is_file {
            upload.file = Some(data.to_vec());
        } else {
            upload
                .fields
                .push((name, String::from_utf8_lossy(&data).into_owned()));
        }
    }
    Ok(upload)
}

/// Stores an uploaded logo; a refusal shows the settings again with it beside the field.
#[utoipa::path(post, path = "/dashboard/settings/logo", tag = "dashboard", operation_id = "dashboard_logo_upload",
    request_body(content = crate::dashboard::DashboardForm, content_type = "multipart/form-data",
        description = "`csrf` and `logo`: a PNG or JPEG file, at most 512 KiB and 2000×2000 px"),
    responses(
        (status = 303, description = "Stored", headers(("Location" = String, description = "The settings, showing it"))),
        (status = 403, description = "Not posted from the dashboard's own page, no valid `csrf`, or not an owner", content_type = "text/html", body = String),
        (status = 422, description = "The settings again, the refusal beside the logo", content_type = "text/html", body = String),
    ))]
pub async fn upload(
    state: web::Data<AppState>,
    req: HttpRequest,
    payload: web::Payload,
) -> HttpResponse {
    let answer = async {
        let me = visitor(&state, &req).await?;
        super::super::session::same_origin(&req)?;
        let ops = me.ops(&state);
        // Refused before the body is read.
        ops.caller()
            .require(
                invoicing_domain::api_key::ApiResource::Account,
                invoicing_domain::api_key::Access::Write,
            )
            .map_err(Refusal::from)?;
        let stored = match read_upload(&req, payload).await {
            Ok(upload) => {
                check_post(&me, &req, &Form::from_pairs(upload.fields))?;
                match upload.file.filter(|f| !f.is_empty()) {
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
                super::show_current(&state, &req, &me, errors).await
            }
            Err(e) => Err(e.into()),
        }
    }
    .await;
    respond(&req, answer)
}

/// The logo as stored, for the settings' preview.
#[utoipa::path(get, path = "/dashboard/settings/logo", tag = "dashboard", operation_id = "dashboard_logo",
    responses(
        (status = 200, description = "The image as uploaded", content((Vec<u8> = "image/png"), (Vec<u8> = "image/jpeg"))),
        (status = 403, description = "Not allowed to read the profile", content_type = "text/html", body = String),
        (status = 404, description = "No logo", content_type = "text/html", body = String),
    ))]
pub async fn image(state: web::Data<AppState>, req: HttpRequest) -> HttpResponse {
    let answer = async {
        let me = visitor(&state, &req).await?;
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
    .await;
    respond(&req, answer)
}

/// Removes the logo.
#[utoipa::path(post, path = "/dashboard/settings/logo/delete", tag = "dashboard", operation_id = "dashboard_logo_delete",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`"),
    responses(
        (status = 303, description = "Removed (or there was none)", headers(("Location" = String, description = "The settings"))),
        (status = 403, description = "Not posted from the dashboard's own page, no valid `csrf`, or not an owner", content_type = "text/html", body = String),
    ))]
pub async fn delete(state: web::Data<AppState>, req: HttpRequest, body: FormBody) -> HttpResponse {
    let answer = async {
        let me = visitor(&state, &req).await?;
        check_post(&me, &req, &Form::read(&req, &body)?)?;
        me.ops(&state).delete_logo().await?;
        Ok(see_other("/dashboard/settings?done=logo_removed#logo"))
    }
    .await;
    respond(&req, answer)
}
