//! Quotations (SPEC §21): the list with status tabs and paging; the detail with lines, totals,
//! the prospect's page, emails, the timeline and the actions the status allows (send, accept or
//! decline on the prospect's behalf, convert into an invoice); the form.

pub mod actions;
pub mod form;

use super::chrome::{Chrome, Nav};
use super::form::without_blanks;
use super::page;
use super::timeline::{timeline_rows, TimelineRow};
use super::views::Listing;
use super::views::{date, money, Pager};
use super::views::{LineRow, Tab};
use crate::dashboard::share::{share, Offer};
use crate::dashboard::{Answer, Visitor};
use crate::path_id::Id;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::quotation::QuotationId;
use invoicing_domain::quotation_status::QuotationStatus;
use invoicing_domain::sharing::Share;

pub(crate) struct Row {
    pub id: i64,
    pub number: String,
    pub customer: String,
    pub issued: String,
    pub valid_until: String,
    pub status: &'static str,
    pub status_label: &'static str,
    pub total: String,
}

#[derive(Template)]
#[template(path = "dashboard/quotations.html")]
struct ListPage {
    c: Chrome,
    tabs: Vec<Tab>,
    rows: Vec<Row>,
    pager: Pager,
}

/// The list of quotations; filters as the API's (`status`, `customer_id`, `page`).
#[utoipa::path(get, path = "/dashboard/quotations", tag = "dashboard", operation_id = "dashboard_quotations",
    params(
        ("status" = Option<String>, Query, description = "draft, sent, viewed, accepted, rejected, expired or converted"),
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
    let found = ops.list_quotations(&query).await?;
    let names = ops
        .customer_names(found.data.iter().map(|q| q.customer_id).collect())
        .await?;
    let t = super::locale_of(&req);
    let path = "/dashboard/quotations";
    let Listing { c, tabs, pager } = Listing::new(&me, &req, Nav::Quotations, path, &query, &found)
        .with_tabs(
            path,
            &query,
            "status",
            QuotationStatus::ALL
                .into_iter()
                .map(|s| (s.as_str(), t.quotation_status_for_merchant(s))),
        );
    page(
        StatusCode::OK,
        ListPage {
            tabs,
            rows: found
                .data
                .iter()
                .map(|q| Row {
                    id: q.id.0,
                    number: q.quote_number.clone(),
                    customer: super::views::name_of(&names, q.customer_id),
                    issued: date(t, q.issue_date),
                    valid_until: date(t, q.valid_until),
                    status: q.status.as_str(),
                    status_label: t.quotation_status_for_merchant(q.status),
                    total: money(t, q.total_cents, q.currency),
                })
                .collect(),
            pager,
            c,
        },
    )
}

/// What the detail's buttons may do: the moves the transition table allows.
pub(crate) struct Allowed {
    pub edit: bool,
    pub send: bool,
    pub answer: bool,
    pub convert: bool,
    pub resend: bool,
}

#[derive(Template)]
#[template(path = "dashboard/quotation.html")]
struct DetailPage {
    c: Chrome,
    id: i64,
    number: String,
    status: &'static str,
    status_label: &'static str,
    customer_id: i64,
    customer: String,
    customer_email: String,
    issued: String,
    valid_until: String,
    currency: &'static str,
    lines: Vec<LineRow>,
    subtotal: String,
    tax: String,
    total: String,
    notes: Option<String>,
    answer: Option<String>,
    invoice_id: Option<i64>,
    link: Option<String>,
    /// WhatsApp and SMS to the customer's phone, while the quotation awaits an answer (SPEC §26).
    share: Option<(String, Share)>,
    timeline: Vec<TimelineRow>,
    allowed: Allowed,
    mail: bool,
}

/// One quotation.
#[utoipa::path(get, path = "/dashboard/quotations/{id}", tag = "dashboard", operation_id = "dashboard_quotation",
    params(("id" = String, Path, description = "The quotation's id")),
    responses(
        (status = 200, description = "The quotation", content_type = "text/html", body = String),
        (status = 404, description = "No such quotation in this account and environment", content_type = "text/html", body = String),
    ))]
pub(crate) async fn detail(
    me: Visitor,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: Id<QuotationId>,
) -> Answer {
    let ops = me.ops(&state);
    // The quotation with the parties it names (the kept copy once sent), in one read.
    let shown = ops.quotation_shown(id).await?;
    let (q, parties) = (shown.quotation, shown.parties);
    let timeline = ops.timeline("quotation", q.id.0).await?;
    let c = Chrome::new(&me, &req, Nav::Quotations, q.quote_number.clone());
    let t = c.t;
    let cur = q.currency;
    let share = q.status.awaits_answer().then(|| {
        share(
            t,
            &parties,
            Offer {
                key: "share.quotation",
                number: &q.quote_number,
                amount_cents: q.total_cents,
                currency: cur,
                date: q.valid_until,
                link: &q.public_url,
            },
        )
    });
    let (customer, customer_email) = (parties.recipient.name, parties.recipient.email);
    let can = |to| c.can_write && q.status.transition(to).is_ok();
    let allowed = Allowed {
        edit: c.can_write && q.status == QuotationStatus::Draft,
        send: can(QuotationStatus::Sent),
        answer: can(QuotationStatus::Accepted),
        convert: can(QuotationStatus::Converted),
        resend: c.can_write && q.status.awaits_answer(),
    };
    let answer = match q.status {
        QuotationStatus::Accepted | QuotationStatus::Converted => Some(match &q.accepted_by_name {
            Some(name) => t.fill("dash.quotation.accepted_by", &[("name", name)]),
            None => t.text("dash.quotation.accepted").to_string(),
        }),
        QuotationStatus::Rejected => Some(match &q.rejection_reason {
            Some(reason) => t.fill("dash.quotation.declined_because", &[("reason", reason)]),
            None => t.text("dash.quotation.declined").to_string(),
        }),
        _ => None,
    };
    page(
        StatusCode::OK,
        DetailPage {
            id: q.id.0,
            status: q.status.as_str(),
            status_label: t.quotation_status_for_merchant(q.status),
            customer_id: q.customer_id.0,
            customer,
            customer_email,
            issued: date(t, q.issue_date),
            valid_until: date(t, q.valid_until),
            currency: cur.code(),
            lines: LineRow::of(t, cur, &q.line_items),
            subtotal: money(t, q.subtotal_cents, cur),
            tax: money(t, q.tax_cents, cur),
            total: money(t, q.total_cents, cur),
            notes: q.notes.clone(),
            answer,
            invoice_id: q.invoice_id,
            link: q.status.is_public().then(|| q.public_url.clone()),
            share: share.flatten(),
            timeline: timeline_rows(t, timeline),
            allowed,
            mail: state.config.mail_enabled,
            number: q.quote_number,
            c,
        },
    )
}
