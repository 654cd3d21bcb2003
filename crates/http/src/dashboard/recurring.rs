//! Recurring invoices (SPEC §21): the schedules with their status tabs, one schedule with its
//! lines, cadence and next issue, and pausing, resuming or cancelling it as its status allows.

use super::chrome::{Chrome, Nav};
use super::form::without_blanks;
use super::timeline::{timeline_rows, TimelineRow};
use super::views::Listing;
use super::views::{date, money, Pager};
use super::views::{LineRow, Tab};
use super::{page, see_other, Refusal};
use crate::dashboard::{Answer, Posted, Visitor};
use crate::error::ApiError;
use crate::path_id::Id;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::locale::Locale;
use invoicing_domain::recurring::{Interval, RecurringId, RecurringInvoice, RecurringStatus};

fn status_label(t: Locale, s: RecurringStatus) -> &'static str {
    t.text(match s {
        RecurringStatus::Active => "dash.recurring.active",
        RecurringStatus::Paused => "dash.recurring.paused",
        RecurringStatus::Cancelled => "dash.recurring.cancelled",
        RecurringStatus::Completed => "dash.recurring.completed",
    })
}

/// "Every 2 months".
fn cadence(t: Locale, r: &RecurringInvoice) -> String {
    let key = match r.interval {
        Interval::Week => "dash.recurring.every_weeks",
        Interval::Month => "dash.recurring.every_months",
        Interval::Year => "dash.recurring.every_years",
    };
    t.count(key, i64::from(r.interval_count))
}

pub(crate) struct Row {
    pub id: i64,
    pub customer: String,
    pub cadence: String,
    pub next: String,
    pub status: &'static str,
    pub status_label: &'static str,
    pub total: String,
}

#[derive(Template)]
#[template(path = "dashboard/recurring_list.html")]
struct ListPage {
    c: Chrome,
    tabs: Vec<Tab>,
    rows: Vec<Row>,
    pager: Pager,
}

/// The recurring invoices (`status`, `customer_id` filter as in the API).
#[utoipa::path(get, path = "/dashboard/recurring", tag = "dashboard", operation_id = "dashboard_recurring_list",
    params(
        ("status" = Option<String>, Query, description = "active, paused, cancelled or completed"),
        ("page" = Option<String>, Query, description = "Page number"),
    ),
    responses(
        (status = 200, description = "The list", content_type = "text/html", body = String),
        (status = 400, description = "A filter the API refuses", content_type = "text/html", body = String),
    ))]
pub(crate) async fn list(me: Visitor, state: web::Data<AppState>, req: HttpRequest) -> Answer {
    let ops = me.ops(&state);
    let query = without_blanks(req.query_string());
    let found = ops.list_recurring(&query).await?;
    let names = ops
        .customer_names(found.data.iter().map(|r| r.customer_id).collect())
        .await?;
    let t = super::locale_of(&req);
    let path = "/dashboard/recurring";
    let Listing { c, tabs, pager } = Listing::new(&me, &req, Nav::Recurring, path, &query, &found)
        .with_tabs(
            path,
            &query,
            "status",
            RecurringStatus::ALL
                .into_iter()
                .map(|s| (s.as_str(), status_label(t, s))),
        );
    page(
        StatusCode::OK,
        ListPage {
            tabs,
            rows: found
                .data
                .iter()
                .map(|r| Row {
                    id: r.id.0,
                    customer: super::views::name_of(&names, r.customer_id),
                    cadence: cadence(t, r),
                    next: r.next_issue_date.map(|d| date(t, d)).unwrap_or_default(),
                    status: r.status.as_str(),
                    status_label: status_label(t, r.status),
                    total: money(t, r.total_cents, r.currency),
                })
                .collect(),
            pager,
            c,
        },
    )
}

#[derive(Template)]
#[template(path = "dashboard/recurring.html")]
struct DetailPage {
    c: Chrome,
    id: i64,
    status: &'static str,
    status_label: &'static str,
    customer_id: i64,
    customer: String,
    cadence: String,
    start: String,
    end: String,
    next: String,
    issued: u32,
    lines: Vec<LineRow>,
    subtotal: String,
    tax: String,
    total: String,
    notes: Option<String>,
    timeline: Vec<TimelineRow>,
    /// The moves the status allows: (action, label key).
    moves: Vec<(&'static str, &'static str)>,
}

/// One recurring invoice.
#[utoipa::path(get, path = "/dashboard/recurring/{id}", tag = "dashboard", operation_id = "dashboard_recurring",
    params(("id" = String, Path, description = "The recurring invoice's id")),
    responses(
        (status = 200, description = "The recurring invoice", content_type = "text/html", body = String),
        (status = 404, description = "No such recurring invoice in this account and environment", content_type = "text/html", body = String),
    ))]
pub(crate) async fn detail(
    me: Visitor,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: Id<RecurringId>,
) -> Answer {
    let ops = me.ops(&state);
    let r = ops.recurring(id).await?;
    let timeline = ops.timeline("recurring_invoice", r.id.0).await?;
    let names = ops.customer_names(vec![r.customer_id]).await?;
    let c = Chrome::new(
        &me,
        &req,
        Nav::Recurring,
        cadence(super::locale_of(&req), &r),
    );
    let t = c.t;
    let cur = r.currency;
    let moves = [
        ("pause", RecurringStatus::Paused, "dash.recurring.pause"),
        ("resume", RecurringStatus::Active, "dash.recurring.resume"),
        (
            "cancel",
            RecurringStatus::Cancelled,
            "dash.recurring.cancel",
        ),
    ]
    .into_iter()
    .filter(|(_, to, _)| c.can_write && r.status.transition(*to).is_ok())
    .map(|(action, _, label)| (action, label))
    .collect();
    page(
        StatusCode::OK,
        DetailPage {
            id: r.id.0,
            status: r.status.as_str(),
            status_label: status_label(t, r.status),
            customer_id: r.customer_id.0,
            customer: super::views::name_of(&names, r.customer_id),
            cadence: cadence(t, &r),
            start: date(t, r.start_date),
            end: r.end_date.map(|d| date(t, d)).unwrap_or_default(),
            next: r.next_issue_date.map(|d| date(t, d)).unwrap_or_default(),
            issued: r.invoices_created,
            lines: LineRow::of(t, cur, &r.line_items),
            subtotal: money(t, r.subtotal_cents, cur),
            tax: money(t, r.tax_cents, cur),
            total: money(t, r.total_cents, cur),
            notes: r.notes.clone(),
            timeline: timeline_rows(t, timeline),
            moves,
            c,
        },
    )
}

/// Pauses, resumes or cancels the schedule.
#[utoipa::path(post, path = "/dashboard/recurring/{id}/{action}", tag = "dashboard", operation_id = "dashboard_recurring_action",
    params(
        ("id" = String, Path, description = "The recurring invoice's id"),
        ("action" = String, Path, description = "`pause`, `resume` or `cancel`"),
    ),
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`"),
    responses(
        (status = 303, description = "Done: back to the schedule", headers(("Location" = String, description = "The schedule"))),
        (status = 404, description = "No such schedule (or action)", content_type = "text/html", body = String),
        (status = 409, description = "Its status does not allow it", content_type = "text/html", body = String),
    ))]
pub(crate) async fn action(
    Posted { me, .. }: Posted,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> Answer {
    let (raw_id, action) = path.into_inner();
    let (to, done) = match action.as_str() {
        "pause" => (RecurringStatus::Paused, "paused"),
        "resume" => (RecurringStatus::Active, "resumed"),
        "cancel" => (RecurringStatus::Cancelled, "cancelled"),
        _ => return Err(Refusal::Api(ApiError::resource_missing("action"))),
    };
    let id = Id::<RecurringId>::parse(&raw_id);
    let r = me.ops(&state).change_recurring(id, to).await?;
    Ok(see_other(&format!(
        "/dashboard/recurring/{}?done={done}",
        r.id.0
    )))
}
