//! Forms that carry a file (`multipart/form-data`, as browsers send an `<input type="file">`):
//! read whole within a limit, then split into text fields and the one file the form names. The
//! dashboard's logo upload and the invoice page's proof of transfer read them the same way.

use crate::body::BodyReader;
use crate::error::ApiError;
use actix_web::http::header::CONTENT_TYPE;
use actix_web::{web, HttpRequest};

/// Room for a form's other fields and its parts' headers beside the file.
pub const FORM_OVERHEAD: usize = 16 * 1024;

/// What a file form posted.
pub struct Upload {
    pub fields: Vec<(String, String)>,
    /// The file's name as the browser gave it and its bytes (absent when none was chosen).
    pub file: Option<(String, Vec<u8>)>,
    /// The file was larger than allowed (and dropped); the other fields were read.
    pub file_too_large: bool,
}

impl Upload {
    pub fn field(&self, name: &str) -> Option<String> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    }
}

/// Why a file form could not be read.
#[derive(Debug)]
pub enum UploadError {
    /// Not a multipart form.
    NotMultipart,
    /// The whole post is larger than `max_file` and the overhead.
    TooLarge,
    Unreadable,
    /// The transport's own refusal (a stalled client).
    Body(ApiError),
}

pub fn is_multipart(req: &HttpRequest) -> bool {
    boundary(req).is_some()
}

fn boundary(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| multer::parse_boundary(v).ok())
}

/// Reads the post (at most `max_file` bytes of file and [`FORM_OVERHEAD`]); the file is the
/// part named `file_field` that came as a file.
pub async fn read_upload(
    req: &HttpRequest,
    payload: web::Payload,
    max_file: usize,
    file_field: &str,
) -> Result<Upload, UploadError> {
    let boundary = boundary(req).ok_or(UploadError::NotMultipart)?;
    let mut body = BodyReader::new(req, payload.into_inner());
    let mut bytes = Vec::new();
    while let Some(chunk) = body.next_chunk().await.map_err(UploadError::Body)? {
        if bytes.len() + chunk.len() > max_file + FORM_OVERHEAD {
            return Err(UploadError::TooLarge);
        }
        bytes.extend_from_slice(&chunk);
    }
    let stream = futures_util::stream::once(async move {
        Ok::<_, std::convert::Infallible>(bytes::Bytes::from(bytes))
    });
    let mut parts = multer::Multipart::new(stream, boundary);
    let mut upload = Upload {
        fields: Vec::new(),
        file: None,
        file_too_large: false,
    };
    while let Some(field) = parts
        .next_field()
        .await
        .map_err(|_| UploadError::Unreadable)?
    {
        let name = field.name().unwrap_or_default().to_string();
        let file_name = field.file_name().map(str::to_string);
        let data = field.bytes().await.map_err(|_| UploadError::Unreadable)?;
        match file_name {
            Some(file_name) if name == file_field => {
                if data.len() > max_file {
                    upload.file_too_large = true;
                } else if !(file_name.is_empty() && data.is_empty()) {
                    // A file input left empty still sends its part, with no name and no bytes.
                    upload.file = Some((file_name, data.to_vec()));
                }
            }
            _ => upload
                .fields
                .push((name, String::from_utf8_lossy(&data).into_owned())),
        }
    }
    Ok(upload)
}
