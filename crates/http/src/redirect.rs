//! The answer to every form post of the pages and the dashboard: a 303 to where the visitor goes
//! next, so reloading never posts twice.

use actix_web::http::header::{self, HeaderValue};
use actix_web::HttpResponse;

/// A 303 to `location` (a Location that is not a valid header value is left out).
pub fn see_other(location: &str) -> HttpResponse {
    let mut res = HttpResponse::SeeOther().finish();
    if let Ok(v) = HeaderValue::from_str(location) {
        res.headers_mut().insert(header::LOCATION, v);
    }
    res
}
