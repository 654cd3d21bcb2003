//! PDFs of documents (SPEC §17): what a document's page shows, mapped into the render layer's
//! document and rendered off the async workers. The API and the public routes answer with the
//! same bytes for the same document.

use crate::binary::{self, Binary};
use crate::error::ApiError;
use actix_web::{web, HttpResponse};
use invoicing_render as render;
pub use render::{invoice_document, quotation_document};

/// Renders on a blocking thread and answers `application/pdf`, shown inline, named after the
/// document's number.
pub async fn respond(doc: render::Document) -> Result<HttpResponse, ApiError> {
    let filename = format!("{}.pdf", doc.number);
    let bytes = web::block(move || render::render_pdf(&doc))
        .await
        .map_err(|e| {
            log::error!("a PDF render did not complete: {e}");
            ApiError::internal()
        })?
        .map_err(|e| {
            log::error!("rendering {filename}: {e}");
            ApiError::internal()
        })?;
    Ok(binary::respond(Binary {
        content_type: "application/pdf",
        cache_control: "private, no-store",
        filename: Some(filename),
        bytes,
    }))
}
