//! Invoices (SPEC §21): the list with status tabs, search, dates and paging; the detail with
//! lines, totals, payments, credit notes, emails and the actions the status allows
//! (`detail.rs`, `actions.rs`); the form (`form.rs`). This file holds the list.

pub mod actions;
pub mod detail;
mod einvoice_view;
pub mod form;

use crate::dashboard::chrome::{Chrome, Nav};
use crate::dashboard::form::without_blanks;
use crate::dashboard::page;
use crate::dashboard::views::Listing;
use crate::dashboard::views::Tab;
use crate::dashboard::views::{date, money, Pager};
use crate::dashboard::{Answer, Visitor};
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::invoice_status::InvoiceStatus;

pub(crate) struct Row {
    pub id: i64,
    pub number: String,
    pub customer: String,
    pub issued: String,
    pub due: String,
    pub status: &'static str,
    pub status_label: &'static str,
    pub total: String,
    pub amount_due: String,
}

#[derive(Template)]
#[template(path = "dashboard/invoices.html")]
struct ListPage {
    c: Chrome,
    tabs: Vec<Tab>,
    q: String,
    created_after: String,
    created_before: String,
    status: String,
    rows: Vec<Row>,
    pager: Pager,
}

/// The list of invoices; its filters are the API's (`status`, `q`, `created_after`,
/// `created_before`, `customer_id`, `page`), blank ones ignored.
#[utoipa::path(get, path = "/dashboard/invoices", tag = "dashboard", operation_id = "dashboard_invoices",
    params(
        ("status" = Option<String>, Query, description = "draft, sent, viewed, overdue, paid or cancelled"),
        ("q" = Option<String>, Query, description = "Number, customer name or email contains"),
        ("created_after" = Option<String>, Query, description = "YYYY-MM-DD"),
        ("created_before" = Option<String>, Query, description = "YYYY-MM-DD"),
        ("page" = Option<String>, Query, description = "Page number"),
    ),
    responses(
        (status = 200, description = "The list", content_type = "text/html", body = String),
        (status = 400, description = "A filter the API refuses", content_type = "text/html", body = String),
    ))]
pub(crate) async fn list(me: Visitor, state: web::Data<AppState>, req: HttpRequest) -> Answer {
    let ops = me.ops(&state);
    let query = without_blanks(req.query_string());
    // A search reads rows until a page is full; counting every match would read them all.
    let found = if crate::dashboard::form::query_value(&query, "q").is_empty() {
        ops.list_invoices(&query).await?
    } else {
        ops.without_totals().list_invoices(&query).await?
    };
    let names = ops
        .customer_names(found.data.iter().map(|i| i.customer_id).collect())
        .await?;
    let t = crate::dashboard::locale_of(&req);
    let path = "/dashboard/invoices";
    let Listing { c, tabs, pager } = Listing::new(&me, &req, Nav::Invoices, path, &query, &found)
        .with_tabs(
            path,
            &query,
            "status",
            InvoiceStatus::ALL
                .into_iter()
                .map(|s| (s.as_str(), t.invoice_status_for_merchant(s))),
        );
    let value = |n| crate::dashboard::form::query_value(&query, n);
    let status = value("status");
    let rows = found
        .data
        .iter()
        .map(|i| Row {
            id: i.id.0,
            number: i.invoice_number.clone(),
            customer: crate::dashboard::views::name_of(&names, i.customer_id),
            issued: date(t, i.issue_date),
            due: date(t, i.due_date),
            status: i.status.as_str(),
            status_label: t.invoice_status_for_merchant(i.status),
            total: money(t, i.total_cents, i.currency),
            amount_due: money(t, i.amount_due_cents, i.currency),
        })
        .collect();
    page(
        StatusCode::OK,
        ListPage {
            tabs,
            q: value("q"),
            created_after: value("created_after"),
            created_before: value("created_before"),
            status,
            rows,
            pager,
            c,
        },
    )
}
