//! The dashboard's stylesheet, its two small scripts and the icon, compiled in: no file on disk
//! to deploy, nothing loaded from elsewhere (the CSP allows styles and scripts from this origin
//! only, and no inline ones). Everything works without the scripts.

use actix_web::http::header;
use actix_web::HttpResponse;

const STYLESHEET: &str = include_str!("../../assets/dashboard.css");
const COPY_SCRIPT: &str = include_str!("../../assets/copy.js");
const TOTALS_SCRIPT: &str = include_str!("../../assets/totals.js");
const FAVICON: &str = include_str!("../../assets/favicon.svg");

/// The dashboard's stylesheet.
#[utoipa::path(get, path = "/dashboard/assets/dashboard.css", tag = "dashboard", operation_id = "dashboard_stylesheet",
    responses((status = 200, description = "The dashboard's CSS", content_type = "text/css", body = String)))]
pub(crate) async fn stylesheet() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(STYLESHEET)
}

fn script(body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(body)
}

/// Copy buttons beside secrets shown once.
#[utoipa::path(get, path = "/dashboard/assets/copy.js", tag = "dashboard", operation_id = "dashboard_copy_script",
    responses((status = 200, description = "The dashboard's copy buttons", content_type = "text/javascript", body = String)))]
pub(crate) async fn copy_script() -> HttpResponse {
    script(COPY_SCRIPT)
}

/// The document form's running totals, refreshed as lines are typed (the form's "Update
/// totals" button does the same without it).
#[utoipa::path(get, path = "/dashboard/assets/totals.js", tag = "dashboard", operation_id = "dashboard_totals_script",
    responses((status = 200, description = "The document form's running totals", content_type = "text/javascript", body = String)))]
pub(crate) async fn totals_script() -> HttpResponse {
    script(TOTALS_SCRIPT)
}

/// The icon browsers show beside the tab's title, for the dashboard and every public page
/// (`/favicon.ico` is sent here too).
#[utoipa::path(get, path = "/dashboard/assets/favicon.svg", tag = "dashboard", operation_id = "dashboard_favicon",
    responses((status = 200, description = "The icon", content_type = "image/svg+xml", body = String)))]
pub(crate) async fn favicon() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("image/svg+xml")
        .insert_header((header::CACHE_CONTROL, "public, max-age=86400"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(FAVICON)
}
