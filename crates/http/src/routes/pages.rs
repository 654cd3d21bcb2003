//! Public pages for customers (SPEC §9): server-rendered HTML, no JavaScript, no external
//! assets, opened by a capability token; limited per client IP.

use crate::client::client_ip;
use crate::error::ApiError;
use crate::ratelimit::BucketKey;
use crate::{blocking, AppState};
use actix_web::http::header::{self, HeaderValue};
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use invoicing_domain::invoice::PublicInvoice;
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::money::Money;
use std::collections::HashMap;

struct LineRow {
    description: String,
    quantity: String,
    unit_price: String,
    tax_rate: String,
    subtotal: String,
}

#[derive(Template)]
#[template(path = "invoice.html")]
struct InvoicePage {
    merchant: String,
    number: String,
    status: &'static str,
    status_label: &'static str,
    customer_name: String,
    customer_company: Option<String>,
    customer_email: String,
    address_lines: Vec<String>,
    issue_date: String,
    due_date: String,
    currency: &'static str,
    lines: Vec<LineRow>,
    subtotal: String,
    tax: String,
    total: String,
    show_due: bool,
    amount_due: String,
    notes: Option<String>,
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

fn money(minor: i64, currency: invoicing_domain::currency::Currency) -> String {
    Money::new(minor)
        .map(|m| m.format(currency))
        .unwrap_or_else(|_| minor.to_string())
}

impl From<PublicInvoice> for InvoicePage {
    fn from(p: PublicInvoice) -> Self {
        let inv = p.invoice;
        let cur = inv.currency;
        let address_lines = p
            .customer
            .address
            .map(|a| {
                let city_line = [a.postal_code, a.city, a.state]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(" ");
                [a.line1, a.line2, Some(city_line), a.country]
                    .into_iter()
                    .flatten()
                    .filter(|l| !l.trim().is_empty())
                    .collect()
            })
            .unwrap_or_default();
        InvoicePage {
            merchant: p.merchant_name,
            number: inv.invoice_number,
            status: inv.status.as_str(),
            status_label: label(inv.status),
            customer_name: p.customer.name,
            customer_company: p.customer.company,
            customer_email: p.customer.email.as_str().to_string(),
            address_lines,
            issue_date: inv.issue_date.to_string(),
            due_date: inv.due_date.to_string(),
            currency: cur.code(),
            lines: inv
                .line_items
                .into_iter()
                .map(|l| LineRow {
                    description: l.description,
                    quantity: l.quantity.to_string(),
                    unit_price: money(l.unit_price_cents, cur),
                    tax_rate: l.tax_rate.to_string(),
                    subtotal: money(l.subtotal_cents, cur),
                })
                .collect(),
            subtotal: money(inv.subtotal_cents, cur),
            tax: money(inv.tax_cents, cur),
            total: money(inv.total_cents, cur),
            show_due: inv.status.is_open(),
            amount_due: money(inv.amount_due_cents, cur),
            notes: inv.notes,
        }
    }
}

/// Takes a token from the client IP's public-page bucket.
pub(crate) fn limit_public(state: &AppState, req: &HttpRequest) -> Result<(), ApiError> {
    let ip = client_ip(req, &state.config);
    let decision = state
        .limiter
        .check(BucketKey::PublicIp(ip), state.config.public_rate);
    if decision.allowed {
        Ok(())
    } else {
        Err(ApiError::rate_limited(decision.retry_after))
    }
}

pub(crate) fn query_token(req: &HttpRequest) -> Option<String> {
    serde_urlencoded::from_str::<HashMap<String, String>>(req.query_string())
        .ok()?
        .remove("token")
        .filter(|t| !t.is_empty() && t.len() <= 128)
}

/// Headers for pages that carry a capability in their URL: never cached, never referred on.
pub(crate) fn html(body: String) -> HttpResponse {
    let mut res = HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(body);
    let headers = res.headers_mut();
    for (name, value) in [
        (header::CACHE_CONTROL, "no-store"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
        ),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    res
}

/// The customer's page of a sent invoice (HTML; the first view marks it viewed).
#[utoipa::path(get, path = "/invoice/{number}", tag = "public pages",
    params(
        ("number" = String, Path, description = "Invoice number, e.g. INV-2026-000001"),
        ("token" = String, Query, description = "The capability token of the payment link"),
    ),
    responses(
        (status = 200, description = "The invoice page", content_type = "text/html"),
        (status = 404, description = "Unknown number, wrong or missing token, or a draft", body = crate::openapi::ErrorBody),
        (status = 429, description = "Too many page views from this address (`rate_limited`)", body = crate::openapi::ErrorBody),
    ))]
pub async fn invoice(
    state: web::Data<AppState>,
    req: HttpRequest,
    number: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    limit_public(&state, &req)?;
    let missing = || ApiError::resource_missing("invoice");
    let token = query_token(&req).ok_or_else(missing)?;
    let number = number.into_inner();
    let repos = state.repos.clone();
    let public = blocking(move || repos.view_public_invoice(&number, &token))
        .await
        .map_err(|e| {
            if e.code == "resource_missing" {
                missing()
            } else {
                e
            }
        })?;
    let page = InvoicePage::from(public).render().map_err(|e| {
        log::error!("rendering the invoice page: {e}");
        ApiError::internal()
    })?;
    Ok(html(page))
}
