//! The dashboard's stylesheet and its one small script, compiled in: no file on disk to deploy,
//! nothing loaded from elsewhere (the CSP allows styles and scripts from this origin only, and
//! no inline ones).

use actix_web::http::header;
use actix_web::HttpResponse;

const STYLESHEET: &str = include_str!("../../assets/dashboard.css");
const COPY_SCRIPT: &str = include_str!("../../assets/copy.js");

/// The dashboard's stylesheet.
#[utoipa::path(get, path = "/dashboard/assets/dashboard.css", tag = "dashboard", operation_id = "dashboard_stylesheet",
    responses((status = 200, description = "The dashboard's CSS", content_type = "text/css", body = String)))]
pub async fn stylesheet() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(STYLESHEET)
}

/// The one script: copy buttons beside secrets shown once. Everything works without it.
#[utoipa::path(get, path = "/dashboard/assets/copy.js", tag = "dashboard", operation_id = "dashboard_copy_script",
    responses((status = 200, description = "The dashboard's copy buttons", content_type = "text/javascript", body = String)))]
pub async fn copy_script() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(COPY_SCRIPT)
}
