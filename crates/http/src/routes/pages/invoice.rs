//! The customer's page of an invoice (SPEC §9).

use super::{limit_public, missing_as, money, query_token, render, DocumentParts, DocumentView};
use crate::error::ApiError;
use crate::{blocking, AppState};
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use invoicing_domain::invoice::PublicInvoice;
use invoicing_domain::invoice_status::InvoiceStatus;

#[derive(Template)]
#[template(path = "invoice.html")]
struct InvoicePage {
    doc: DocumentView,
    status: &'static str,
    status_label: &'static str,
    due_date: String,
    show_due: bool,
    amount_due: String,
}

fn label(status: InvoiceStatus) -> &'static str {
    match status {
        InvoiceStatus::Draft => "Draft",
        InvoiceStatus::Sent | InvoiceStatus::Viewed => "Awaiting payment",
        InvoiceStatus::Overdue => "Overdue",
        InvoiceStatus::Paid => "Paid",
        InvoiceStatus::Cancelled => "Cancelled",
    }
}

impl From<PublicInvoice> for InvoicePage {
    fn from(p: PublicInvoice) -> Self {
        let inv = p.invoice;
        InvoicePage {
            status: inv.status.as_str(),
            status_label: label(inv.status),
            due_date: inv.due_date.to_string(),
            show_due: inv.status.is_open(),
            amount_due: money(inv.amount_due_cents, inv.currency),
            doc: DocumentView::from(DocumentParts {
                merchant: p.merchant_name,
                customer: p.customer,
                number: inv.invoice_number,
                issue_date: inv.issue_date,
                currency: inv.currency,
                lines: inv.line_items,
                subtotal_cents: inv.subtotal_cents,
                tax_cents: inv.tax_cents,
                total_cents: inv.total_cents,
                notes: inv.notes,
            }),
        }
    }
}

/// The customer's page of a sent invoice (HTML; the first view marks it viewed).
#[utoipa::path(get, path = "/invoice/{number}", tag = "public pages", operation_id = "invoice_page",
    params(
        ("number" = String, Path, description = "Invoice number, e.g. INV-2026-000001"),
        ("token" = String, Query, description = "The capability token of the payment link"),
    ),
    responses(
        (status = 200, description = "The invoice page", content_type = "text/html"),
        (status = 404, description = "Unknown number, wrong or missing token, or a draft", body = crate::openapi::ErrorBody),
        (status = 429, description = "Too many page views from this address (`rate_limited`)", body = crate::openapi::ErrorBody),
    ))]
pub async fn page(
    state: web::Data<AppState>,
    req: HttpRequest,
    number: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    limit_public(&state, &req)?;
    let missing = missing_as("invoice");
    let token = query_token(&req).ok_or_else(|| ApiError::resource_missing("invoice"))?;
    let number = number.into_inner();
    let repos = state.repos.clone();
    let public = blocking(move || repos.view_public_invoice(&number, &token))
        .await
        .map_err(missing)?;
    render(InvoicePage::from(public))
}
