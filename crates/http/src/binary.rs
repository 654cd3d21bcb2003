//! Every answer whose body is a file (PDFs, the logo) goes out through [`respond`], so each carries
//! `X-Content-Type-Options: nosniff` (SPEC §3): a browser must never guess a type other than the
//! one declared, and the next binary route cannot forget the header.

use actix_web::http::header::{HeaderValue, X_CONTENT_TYPE_OPTIONS};
use actix_web::http::header::{CACHE_CONTROL, CONTENT_DISPOSITION, CONTENT_TYPE};
use actix_web::HttpResponse;

/// A file answered with status 200.
pub struct Binary {
    pub content_type: &'static str,
    pub cache_control: &'static str,
    /// Shown inline under this name, when the file has one.
    pub filename: Option<String>,
    pub bytes: Vec<u8>,
}

pub fn respond(file: Binary) -> HttpResponse {
    answer(file, "inline")
}

/// A file to save rather than show (e-invoices).
pub fn respond_attachment(file: Binary) -> HttpResponse {
    answer(file, "attachment")
}

fn answer(file: Binary, disposition: &str) -> HttpResponse {
    let mut res = HttpResponse::Ok();
    res.insert_header((CONTENT_TYPE, file.content_type))
        .insert_header((CACHE_CONTROL, file.cache_control))
        .insert_header((X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")));
    if let Some(name) = file.filename {
        res.insert_header((
            CONTENT_DISPOSITION,
            format!("{disposition}; filename=\"{name}\""),
        ));
    }
    res.body(file.bytes)
}
