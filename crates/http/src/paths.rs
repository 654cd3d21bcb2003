//! Which door a request came to: the JSON API's paths, as opposed to pages for people.

use actix_web::dev::ServiceRequest;

/// The path as the router matches it (percent-encoding decoded), so `/%61pi/…` is treated as the
/// `/api/…` it routes to, not as a public page.
pub fn routing_path(req: &ServiceRequest) -> &str {
    req.match_info().as_str()
}

/// Paths that belong to the JSON API, as opposed to public pages.
pub fn is_api_path(path: &str) -> bool {
    path == "/api" || path.starts_with("/api/") || path == "/v1" || path.starts_with("/v1/")
}
