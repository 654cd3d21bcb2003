//! Credit notes (SPEC §21): the list, one note with its lines and PDF. A note is made from its
//! invoice's page (`invoices::actions`, `credit`).

use super::chrome::{Chrome, Nav};
use super::form::without_blanks;
use super::page;
use super::views::LineRow;
use super::views::Listing;
use super::views::{date, money, Pager};
use crate::dashboard::{Answer, Visitor};
use crate::path_id::Id;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::credit_note::{CreditNoteId, CreditReason};
use invoicing_domain::locale::Locale;

pub(crate) fn reason_label(t: Locale, r: CreditReason) -> &'static str {
    t.text(match r {
        CreditReason::Duplicate => "dash.credit.reason.duplicate",
        CreditReason::OrderChange => "dash.credit.reason.order_change",
        CreditReason::ProductUnsatisfactory => "dash.credit.reason.product_unsatisfactory",
        CreditReason::Fraudulent => "dash.credit.reason.fraudulent",
        CreditReason::Other => "dash.credit.reason.other",
    })
}

pub(crate) struct Row {
    pub id: i64,
    pub number: String,
    pub invoice_id: i64,
    pub customer: String,
    pub date: String,
    pub reason: &'static str,
    pub total: String,
}

#[derive(Template)]
#[template(path = "dashboard/credit_notes.html")]
struct ListPage {
    c: Chrome,
    rows: Vec<Row>,
    pager: Pager,
}

/// The credit notes, the newest first (`invoice_id`, `customer_id` filter as in the API).
#[utoipa::path(get, path = "/dashboard/credit-notes", tag = "dashboard", operation_id = "dashboard_credit_notes",
    params(
        ("invoice_id" = Option<String>, Query, description = "One invoice's"),
        ("customer_id" = Option<String>, Query, description = "One customer's"),
        ("page" = Option<String>, Query, description = "Page number"),
    ),
    responses(
        (status = 200, description = "The list", content_type = "text/html", body = String),
        (status = 400, description = "A filter the API refuses", content_type = "text/html", body = String),
    ))]
pub(crate) async fn list(me: Visitor, state: web::Data<AppState>, req: HttpRequest) -> Answer {
    let ops = me.ops(&state);
    let query = without_blanks(req.query_string());
    let found = ops.list_credit_notes(&query).await?;
    let names = ops
        .customer_names(found.data.iter().map(|n| n.customer_id).collect())
        .await?;
    let path = "/dashboard/credit-notes";
    let Listing { c, pager, .. } = Listing::new(&me, &req, Nav::CreditNotes, path, &query, &found);
    let t = c.t;
    page(
        StatusCode::OK,
        ListPage {
            rows: found
                .data
                .iter()
                .map(|n| Row {
                    id: n.id.0,
                    number: n.credit_note_number.clone(),
                    invoice_id: n.invoice_id.0,
                    customer: super::views::name_of(&names, n.customer_id),
                    date: date(t, n.created_at.date_naive()),
                    reason: reason_label(t, n.reason),
                    total: money(t, n.total_cents, n.currency),
                })
                .collect(),
            pager,
            c,
        },
    )
}

#[derive(Template)]
#[template(path = "dashboard/credit_note.html")]
struct DetailPage {
    c: Chrome,
    id: i64,
    number: String,
    invoice_id: i64,
    customer: String,
    date: String,
    reason: &'static str,
    memo: Option<String>,
    lines: Vec<LineRow>,
    subtotal: String,
    tax: String,
    total: String,
    notes: Option<String>,
}

/// One credit note.
#[utoipa::path(get, path = "/dashboard/credit-notes/{id}", tag = "dashboard", operation_id = "dashboard_credit_note",
    params(("id" = String, Path, description = "The credit note's id")),
    responses(
        (status = 200, description = "The credit note", content_type = "text/html", body = String),
        (status = 404, description = "No such credit note in this account and environment", content_type = "text/html", body = String),
    ))]
pub(crate) async fn detail(
    me: Visitor,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: Id<CreditNoteId>,
) -> Answer {
    let ops = me.ops(&state);
    let n = ops.credit_note(id).await?;
    let names = ops.customer_names(vec![n.customer_id]).await?;
    let c = Chrome::new(&me, &req, Nav::CreditNotes, n.credit_note_number.clone());
    let t = c.t;
    let cur = n.currency;
    page(
        StatusCode::OK,
        DetailPage {
            id: n.id.0,
            invoice_id: n.invoice_id.0,
            customer: super::views::name_of(&names, n.customer_id),
            date: date(t, n.created_at.date_naive()),
            reason: reason_label(t, n.reason),
            lines: LineRow::of(t, cur, &n.line_items),
            subtotal: money(t, n.subtotal_cents, cur),
            tax: money(t, n.tax_cents, cur),
            total: money(t, n.total_cents, cur),
            notes: None,
            memo: n.memo,
            number: n.credit_note_number,
            c,
        },
    )
}

/// The credit note's PDF, as the API renders it.
#[utoipa::path(get, path = "/dashboard/credit-notes/{id}/pdf", tag = "dashboard", operation_id = "dashboard_credit_note_pdf",
    params(("id" = String, Path, description = "The credit note's id")),
    responses(
        (status = 200, description = "The PDF", content_type = "application/pdf", body = Vec<u8>),
        (status = 404, description = "No such credit note in this account and environment", content_type = "text/html", body = String),
    ))]
pub(crate) async fn pdf(me: Visitor, state: web::Data<AppState>, id: Id<CreditNoteId>) -> Answer {
    let doc = me.ops(&state).credit_note_pdf(id).await?;
    Ok(crate::pdf::respond(doc).await?)
}
