//! The two OpenAPI documents, each made once from its part of the route table, and the routes
//! that serve them.

use crate::openapi;
use crate::AppState;
use actix_web::{web, HttpResponse};
use serde_json::{json, Value};
use std::sync::OnceLock;

/// The API's document (built once), without `servers`.
pub fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| openapi::api_document(super::api_endpoints()))
}

/// The dashboard's document (built once), without `servers`.
pub fn dashboard_document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| openapi::dashboard_document(super::dashboard_endpoints()))
}

/// `doc` as this server serves it: its `servers` entry is the configured `PUBLIC_URL`, under
/// which the API, the public pages and the dashboard answer.
pub fn served(doc: &Value, public_url: &str) -> Value {
    let mut doc = doc.clone();
    doc["servers"] = json!([{"url": public_url}]);
    doc
}

/// The OpenAPI 3.1 document of this API and the customers' public pages.
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "openapi", operation_id = "document",
    responses((status = 200, description = "The OpenAPI 3.1 document", body = Object)))]
pub async fn serve(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(served(document(), &state.config.public_url))
}

/// The OpenAPI 3.1 document of the dashboard's screens and forms.
#[utoipa::path(get, path = "/dashboard/openapi.json", tag = "dashboard", operation_id = "document",
    responses((status = 200, description = "The OpenAPI 3.1 document of the dashboard", body = Object)))]
pub async fn serve_dashboard(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(served(dashboard_document(), &state.config.public_url))
}
