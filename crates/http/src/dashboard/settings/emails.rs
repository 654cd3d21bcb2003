//! The email log (SPEC §21, §18): every email the account sent or tried to, with its status,
//! attempts, the last error and the recipients the server refused, newest first.

use crate::dashboard::chrome::{Chrome, Nav};
use crate::dashboard::form::without_blanks;
use crate::dashboard::page;
use crate::dashboard::views::Listing;
use crate::dashboard::views::Tab;
use crate::dashboard::views::{moment, Pager};
use crate::dashboard::{Answer, Visitor};
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::email::{EmailKind, EmailStatus, OutgoingEmail};
use invoicing_domain::locale::Locale;

pub(crate) struct Row {
    pub when: String,
    pub kind: &'static str,
    pub document: Option<String>,
    pub to: String,
    pub subject: String,
    pub status: &'static str,
    pub status_label: &'static str,
    pub attempts: i32,
    pub problem: String,
    pub refused: Vec<String>,
}

pub(crate) fn status_label(t: Locale, s: EmailStatus) -> &'static str {
    t.text(match s {
        EmailStatus::Queued => "dash.email.queued",
        EmailStatus::Sent => "dash.email.sent",
        EmailStatus::Failed => "dash.email.failed",
    })
}

/// What an email was about, in the user's words ("Invoice", "Payment reminder").
pub(crate) fn kind_label(t: Locale, k: EmailKind) -> &'static str {
    t.text(match k {
        EmailKind::Invoice => "dash.email.kind.invoice",
        EmailKind::Quotation => "dash.email.kind.quotation",
        EmailKind::Reminder => "dash.email.kind.reminder",
        EmailKind::Receipt => "dash.email.kind.receipt",
        EmailKind::CreditNote => "dash.email.kind.credit_note",
        EmailKind::Statement => "dash.email.kind.statement",
    })
}

fn row(t: Locale, e: OutgoingEmail) -> Row {
    let document = match (e.invoice_id, e.quotation_id, e.credit_note_id) {
        (_, _, Some(id)) => Some(format!("/dashboard/credit-notes/{id}")),
        (_, Some(id), _) => Some(format!("/dashboard/quotations/{id}")),
        (Some(id), _, _) => Some(format!("/dashboard/invoices/{id}")),
        _ => None,
    };
    Row {
        when: moment(t, e.created_at),
        kind: kind_label(t, e.kind),
        document,
        to: e
            .to
            .iter()
            .chain(&e.cc)
            .cloned()
            .collect::<Vec<_>>()
            .join(", "),
        subject: e.subject,
        status: e.status.as_str(),
        status_label: status_label(t, e.status),
        attempts: e.attempts,
        problem: e.last_error.unwrap_or_default(),
        refused: e
            .refused_recipients
            .into_iter()
            .map(|r| format!("{}: {}", r.address, r.reply))
            .collect(),
    }
}

#[derive(Template)]
#[template(path = "dashboard/emails.html")]
struct ListPage {
    c: Chrome,
    section: &'static str,
    tabs: Vec<Tab>,
    rows: Vec<Row>,
    pager: Pager,
}

/// The email log; `status` as the API's filter.
#[utoipa::path(get, path = "/dashboard/settings/emails", tag = "dashboard", operation_id = "dashboard_emails",
    params(
        ("status" = Option<String>, Query, description = "queued, sent or failed"),
        ("page" = Option<String>, Query, description = "Page number"),
    ),
    responses(
        (status = 200, description = "The email log", content_type = "text/html", body = String),
        (status = 400, description = "A filter the API refuses", content_type = "text/html", body = String),
    ))]
pub(crate) async fn list(me: Visitor, state: web::Data<AppState>, req: HttpRequest) -> Answer {
    let query = without_blanks(req.query_string());
    // Reminders and receipts keep adding emails: a page says whether more follow.
    let found = me.ops(&state).without_totals().list_emails(&query).await?;
    let t = crate::dashboard::locale_of(&req);
    let statuses = [EmailStatus::Queued, EmailStatus::Sent, EmailStatus::Failed];
    let path = "/dashboard/settings/emails";
    let Listing { c, tabs, pager } = Listing::new(&me, &req, Nav::Settings, path, &query, &found)
        .titled("dash.email.log")
        .with_tabs(
            path,
            &query,
            "status",
            statuses
                .into_iter()
                .map(|s| (s.as_str(), status_label(t, s))),
        );
    page(
        StatusCode::OK,
        ListPage {
            section: "emails",
            tabs,
            pager,
            rows: found.data.into_iter().map(|e| row(t, e)).collect(),
            c,
        },
    )
}
