//! The customer portal (SPEC §26): `GET /portal?token=…`, one page per customer and environment
//! with every document of theirs that left draft. Each row leads to the document's own page,
//! which pays, answers and downloads as it does from an email: the portal adds no second way.

use super::{limit_public, money, query_token, render};
use crate::error::ApiError;
use crate::{blocking, AppState};
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use invoicing_domain::credit_note::CreditNoteFilter;
use invoicing_domain::invoice::{Invoice, InvoiceFilter};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::locale::Locale;
use invoicing_domain::paging::{PageRequest, MAX_PER_PAGE};
use invoicing_domain::payment::PaymentFilter;
use invoicing_domain::payment_status::PaymentStatus;
use invoicing_domain::portal::token_hash;
use invoicing_domain::quotation::QuotationFilter;
use invoicing_domain::quotation_status::QuotationStatus;

/// What the base template reads of a page.
pub(crate) struct PortalLook {
    pub lang: &'static str,
    pub brand_color: String,
    pub footer: Option<String>,
}

/// A document as a row of the portal: its number, when, what, where it stands, and its page.
pub(crate) struct Row {
    pub number: String,
    pub date: String,
    pub amount: String,
    pub status: &'static str,
    pub status_label: &'static str,
    pub link: String,
}

/// One table of the portal: its anchor, its heading's key, what its links say, its rows.
pub(crate) struct Section {
    pub id: &'static str,
    pub heading: &'static str,
    pub action: &'static str,
    pub rows: Vec<Row>,
}

#[derive(Template)]
#[template(path = "portal.html")]
pub(crate) struct PortalPage {
    doc: PortalLook,
    t: Locale,
    title: String,
    merchant: String,
    customer: String,
    /// The tables that have rows, open invoices first.
    sections: Vec<Section>,
}

fn invoice_row(t: Locale, inv: &Invoice) -> Row {
    let open = inv.status.is_open();
    Row {
        number: inv.invoice_number.clone(),
        date: t.date(if open { inv.due_date } else { inv.issue_date }),
        amount: money(
            t,
            if open {
                inv.amount_due_cents
            } else {
                inv.total_cents
            },
            inv.currency,
        ),
        status: inv.status.as_str(),
        status_label: t.invoice_status(inv.status),
        link: inv.payment_link.clone(),
    }
}

/// The customer's documents that left draft, newest first, open invoices apart.
#[utoipa::path(get, path = "/portal", tag = "public pages", operation_id = "customer_portal",
    params(("token" = String, Query, description = "The capability token of the portal link")),
    responses(
        (status = 200, description = "The customer's portal", body = String, content_type = "text/html"),
        (status = 404, description = "A token never made, revoked or expired (all alike)", body = crate::openapi::error_body::ErrorBody),
        (status = 429, description = "Too many page views from this address (`rate_limited`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn page(state: web::Data<AppState>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    limit_public(&state, &req)?;
    let missing = || ApiError::resource_missing("portal");
    let token = query_token(&req).ok_or_else(missing)?;
    let now = state.config.clock.now();
    let repos = state.repos();
    let page = PageRequest::new(1, MAX_PER_PAGE).ok_or_else(ApiError::internal)?;
    let read = blocking(move || {
        let (scope, customer_id) = repos.portal_owner(&token_hash(&token), now)?;
        let customer = repos.get_customer(scope, customer_id)?;
        let profile = repos.get_profile(scope)?;
        let of_customer = Some(customer_id);
        let invoices = repos.list_invoices(
            scope,
            &InvoiceFilter {
                customer_id: of_customer,
                ..InvoiceFilter::default()
            },
            page,
        )?;
        let quotations = repos.list_quotations(
            scope,
            &QuotationFilter {
                customer_id: of_customer,
                ..QuotationFilter::default()
            },
            page,
        )?;
        let credit_notes = repos.list_credit_notes(
            scope,
            &CreditNoteFilter {
                customer_id: of_customer,
                invoice_id: None,
            },
            page,
        )?;
        let payments = repos.list_payments(
            scope,
            &PaymentFilter {
                customer_id: of_customer,
                ..PaymentFilter::default()
            },
            page,
        )?;
        Ok((
            customer,
            profile,
            invoices,
            quotations,
            credit_notes,
            payments,
        ))
    })
    .await
    // Whatever is wrong with the token, the answer is the same.
    .map_err(|e| {
        if e.status.as_u16() == 500 {
            e
        } else {
            missing()
        }
    })?;
    let (customer, profile, invoices, quotations, credit_notes, payments) = read;
    let t = customer.locale.unwrap_or(profile.locale);
    let merchant = profile
        .legal_name
        .clone()
        .unwrap_or_else(|| profile.name.clone());
    let numbers: std::collections::HashMap<_, _> = invoices
        .data
        .iter()
        .map(|i| (i.id, (i.invoice_number.clone(), i.payment_link.clone())))
        .collect();
    let shown: Vec<&Invoice> = invoices
        .data
        .iter()
        .filter(|i| i.status != InvoiceStatus::Draft)
        .collect();
    let section = |id, heading, action, rows| Section {
        id,
        heading,
        action,
        rows,
    };
    let sections = vec![
        section(
            "open",
            "portal.open",
            "portal.pay",
            shown
                .iter()
                .filter(|i| i.status.is_open())
                .map(|i| invoice_row(t, i))
                .collect(),
        ),
        section(
            "settled",
            "portal.settled",
            "portal.view",
            shown
                .iter()
                .filter(|i| !i.status.is_open())
                .map(|i| invoice_row(t, i))
                .collect(),
        ),
        section(
            "quotations",
            "portal.quotations",
            "portal.view",
            quotations
                .data
                .iter()
                .filter(|q| q.status != QuotationStatus::Draft)
                .map(|q| Row {
                    number: q.quote_number.clone(),
                    date: t.date(q.valid_until),
                    amount: money(t, q.total_cents, q.currency),
                    status: q.status.as_str(),
                    status_label: t.quotation_status(q.status),
                    link: q.public_url.clone(),
                })
                .collect(),
        ),
        section(
            "credit-notes",
            "portal.credit_notes",
            "portal.view",
            credit_notes
                .data
                .iter()
                .map(|n| {
                    let (invoice, link) = numbers.get(&n.invoice_id).cloned().unwrap_or_default();
                    Row {
                        number: n.credit_note_number.clone(),
                        date: t.date(n.created_at.date_naive()),
                        amount: money(t, n.total_cents, n.currency),
                        status: "credited",
                        status_label: t.text("portal.credited"),
                        link: if invoice.is_empty() {
                            String::new()
                        } else {
                            link
                        },
                    }
                })
                .collect(),
        ),
        section(
            "payments",
            "portal.payments",
            "portal.view",
            payments
                .data
                .iter()
                .filter(|p| p.status != PaymentStatus::Rejected)
                .map(|p| {
                    let (invoice, link) = numbers.get(&p.invoice_id).cloned().unwrap_or_default();
                    Row {
                        number: invoice,
                        date: t.date(p.created_at.date_naive()),
                        amount: money(t, p.amount_cents, p.currency),
                        status: p.status.as_str(),
                        status_label: t.text(match p.status {
                            PaymentStatus::Pending => "payment.state.pending",
                            PaymentStatus::Verified => "payment.state.verified",
                            PaymentStatus::Rejected => "payment.state.rejected",
                        }),
                        link,
                    }
                })
                .collect(),
        ),
    ];
    render(PortalPage {
        title: t.fill("portal.title", &[("merchant", &merchant)]),
        customer: customer.name.clone(),
        sections: sections
            .into_iter()
            .filter(|s| !s.rows.is_empty())
            .collect(),
        doc: PortalLook {
            lang: t.code(),
            brand_color: profile
                .brand_color
                .map(|c| c.to_string())
                .unwrap_or_else(|| super::DEFAULT_BRAND_COLOR.into()),
            footer: profile.invoice_footer.clone(),
        },
        merchant,
        t,
    })
}
