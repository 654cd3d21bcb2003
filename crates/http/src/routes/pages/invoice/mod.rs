//! The customer's page of an invoice (SPEC §9), with a "report a payment" form while the invoice
//! is open (SPEC §13). The form posts back without JavaScript; a report records a pending
//! payment for the merchant to verify and redirects (303) to the page, which thanks the
//! customer, so reloading never posts twice. It never marks the invoice paid by itself.
//! This file holds the page and its PDF; the page's view in `view.rs`, the report in
//! `report.rs`, the form it posts in `report_body.rs`.

pub mod report;
mod report_body;
mod view;

use crate::error::ApiError;
use crate::ops::gateways::card_offer;
use crate::routes::pages::public_pdf;
use crate::routes::pages::{
    allow_form_target, limit_public, missing_as, money, query_token, render,
};
use crate::{blocking, AppState};
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::gateway::GatewayKind;
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::locale::Locale;
use invoicing_domain::ports::Repositories;
use std::collections::HashMap;
use view::InvoicePage;

pub(super) fn thanks(t: Locale, merchant: &str) -> String {
    t.fill("report.thanks", &[("merchant", merchant)])
}

/// The customer's page of a sent invoice (HTML; the first view marks it viewed).
#[utoipa::path(get, path = "/invoice/{number}", tag = "public pages", operation_id = "invoice_page",
    params(
        ("number" = String, Path, description = "Invoice number, e.g. INV-2026-000001"),
        ("token" = String, Query, description = "The capability token of the payment link"),
        ("reported" = Option<String>, Query, description = "Set by the redirect after a payment report: the page thanks the customer"),
        ("card" = Option<String>, Query, description = "Set by the return from a card payment: `paid`, `confirming`, `unavailable` or `cancelled`"),
    ),
    responses(
        (status = 200, description = "The invoice page, with a form to report a payment while it is open", body = String, content_type = "text/html"),
        (status = 404, description = "Unknown number, wrong or missing token, or a draft", body = crate::openapi::error_body::ErrorBody),
        (status = 429, description = "Too many page views from this address (`rate_limited`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn page(
    state: web::Data<AppState>,
    req: HttpRequest,
    number: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    limit_public(&state, &req)?;
    let token = query_token(&req).ok_or_else(|| ApiError::resource_missing("invoice"))?;
    let query = serde_urlencoded::from_str::<HashMap<String, String>>(req.query_string())
        .unwrap_or_default();
    let number = number.into_inner();
    let repos = state.repos();
    let shown = token.clone();
    let gateway = state.config.gateway.clone();
    let asks_gateway = gateway.is_some();
    let (public, connected) = blocking(move || {
        let public = repos.view_public_invoice(&number, &token)?;
        let connected = asks_gateway
            && public.invoice.status.is_open()
            && repos
                .invoice_gateway(&number, &token, GatewayKind::Stripe)?
                .1
                .is_some();
        Ok((public, connected))
    })
    .await
    .map_err(missing_as("invoice"))?;
    let merchant = public.parties.issuer.display_name().to_string();
    let t = public.parties.locale();
    let offered = card_offer(gateway.as_deref(), connected, &public.invoice);
    let paid = public.invoice.status == InvoiceStatus::Paid;
    let due = money(t, public.invoice.amount_due_cents, public.invoice.currency);
    let mut page = InvoicePage::new(public, shown);
    page.doc.offer_portal(state.config.mail_enabled);
    if query.contains_key("reported") {
        page.thanks = Some(thanks(t, &merchant));
    }
    page.card_note = match query.get("card").map(String::as_str) {
        Some("paid" | "confirming") if paid => {
            Some(t.fill("card.paid", &[("merchant", &merchant)]))
        }
        Some("paid" | "confirming") => Some(t.text("card.confirming").to_string()),
        Some("unavailable") => Some(t.text("card.unavailable").to_string()),
        _ => None,
    };
    if offered {
        page.card_button = Some(t.fill("card.pay", &[("amount", &due)]));
    }
    let mut res = render(page)?;
    if let (true, Some(g)) = (offered, gateway) {
        allow_form_target(&mut res, &g.checkout_origin());
    }
    Ok(res)
}

/// The invoice's PDF for its customer; opening it does not mark the invoice viewed.
#[utoipa::path(get, path = "/invoice/{number}/pdf", tag = "public pages", operation_id = "invoice_pdf",
    params(
        ("number" = String, Path, description = "Invoice number"),
        ("token" = String, Query, description = "The capability token of the payment link"),
    ),
    responses(
        (status = 200, description = "The PDF", content_type = "application/pdf", body = Vec<u8>),
        (status = 404, description = "Unknown number, wrong or missing token, or a draft", body = crate::openapi::error_body::ErrorBody),
        (status = 429, description = "Too many page views from this address (`rate_limited`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn pdf(
    state: web::Data<AppState>,
    req: HttpRequest,
    number: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let find = |repos: &dyn Repositories, number: &str, token: &str| {
        repos.find_public_invoice(number, token)
    };
    let number = number.into_inner();
    public_pdf(
        &state,
        &req,
        number,
        "invoice",
        find,
        crate::pdf::invoice_document,
    )
    .await
}
