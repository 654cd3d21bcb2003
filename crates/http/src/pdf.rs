//! PDFs of documents (SPEC §17): what a document's page shows, mapped into the render layer's
//! document and rendered off the async workers. The API and the public routes answer with the
//! same bytes for the same document.

use crate::binary::{self, Binary};
use crate::error::ApiError;
use actix_web::{web, HttpResponse};
use invoicing_render as render;
pub use render::{invoice_document, quotation_document};
use std::sync::OnceLock;
use tokio::sync::Semaphore;

/// A render per core at a time: a long document is a lot of CPU, and a burst of them must
/// queue rather than take every core from the requests behind them.
fn render_slots() -> &'static Semaphore {
    static SLOTS: OnceLock<Semaphore> = OnceLock::new();
    SLOTS
        .get_or_init(|| Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get())))
}

/// Renders on a blocking thread and answers `application/pdf`, shown inline, named after the
/// document's number.
pub async fn respond(doc: render::Document) -> Result<HttpResponse, ApiError> {
    let filename = format!("{}.pdf", doc.number);
    let _slot = render_slots()
        .acquire()
        .await
        .map_err(|_| ApiError::internal())?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn document() -> render::Document {
        let party = render::Party {
            name: "Ada".into(),
            ..Default::default()
        };
        render::Document {
            kind: render::DocumentKind::Invoice,
            number: "INV-1".into(),
            issue_date: chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap(),
            due_date: None,
            supply: None,
            valid_until: None,
            currency: invoicing_domain::currency::Currency::parse("EUR").unwrap(),
            seller: party.clone(),
            logo: None,
            brand_color: None,
            buyer: party,
            body: render::Body::Lines {
                lines: Vec::new(),
                totals: render::Totals {
                    subtotal: invoicing_domain::money::Money::ZERO,
                    taxes: Vec::new(),
                    total: invoicing_domain::money::Money::ZERO,
                    credited: None,
                    paid: None,
                    due: None,
                },
            },
            payment_instructions: None,
            payment_link: None,
            notes: None,
            footer: None,
            mark: render::Mark::None,
            locale: render::Locale::En,
            factur_x: None,
        }
    }

    #[actix_web::test]
    async fn a_render_waits_for_a_free_slot() {
        let slots = render_slots();
        let all = u32::try_from(slots.available_permits()).unwrap();
        let held = slots.acquire_many(all).await.unwrap();
        let waiting = tokio::time::timeout(Duration::from_millis(300), respond(document())).await;
        assert!(waiting.is_err(), "rendered with every slot taken");
        drop(held);
        let answered = respond(document()).await.unwrap();
        assert_eq!(answered.status(), 200);
    }
}
