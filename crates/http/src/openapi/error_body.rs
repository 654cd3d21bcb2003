//! The SPEC §4 error body as the documents describe it.

use crate::error::{ErrorCode, ErrorType};
use serde::Serialize;
use utoipa::ToSchema;

/// The SPEC §4 error body.
#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    pub error: ErrorObject,
}

/// Documents what `error::render` writes: `param` and `details` are left out when empty (never
/// `null`), so they are the only optional fields.
#[derive(Serialize, ToSchema)]
pub struct ErrorObject {
    #[serde(rename = "type")]
    #[schema(value_type = ErrorType)]
    pub kind: String,
    #[schema(value_type = ErrorCode)]
    pub code: String,
    pub message: String,
    #[schema(nullable = false)]
    pub param: Option<String>,
    #[schema(nullable = false)]
    pub details: Option<Vec<ErrorDetail>>,
    pub request_id: String,
}

#[derive(Serialize, ToSchema)]
pub struct ErrorDetail {
    pub param: String,
    pub message: String,
}
