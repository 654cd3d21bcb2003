//! The home screen (SPEC §21): per currency what is outstanding and overdue, the payments
//! waiting for verification (Verify and Reject in place), the overdue invoices (the longest
//! overdue first) and the quotations awaiting an answer.

use super::chrome::{Chrome, Nav};
use super::page;
use super::views::{date, money};
use crate::dashboard::{Answer, Visitor};
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::paging::PageRequest;

pub(crate) struct Figure {
    pub currency: &'static str,
    pub outstanding: String,
    pub open_label: String,
    pub overdue: String,
    pub overdue_label: String,
    pub has_overdue: bool,
}

pub(crate) struct PendingPayment {
    pub id: i64,
    pub invoice_id: i64,
    /// The invoice it pays, by its number.
    pub invoice: String,
    pub customer: String,
    pub amount: String,
    pub method: String,
    pub reference: String,
    pub reported: String,
    /// The customer's proof of transfer, among what the queue shows (SPEC §25).
    pub x: super::payments::extras::Extras,
}

pub(crate) struct DocRow {
    pub id: i64,
    pub number: String,
    pub customer: String,
    pub date: String,
    pub amount: String,
}

/// One step of going live, ticked when done (SPEC §27).
struct Step {
    label: &'static str,
    href: &'static str,
    done: bool,
}

#[derive(Template)]
#[template(path = "dashboard/home.html")]
struct HomePage {
    c: Chrome,
    /// The go-live checklist: owners, in live.
    go_live: Vec<Step>,
    figures: Vec<Figure>,
    payments: Vec<PendingPayment>,
    more_payments: bool,
    overdue: Vec<DocRow>,
    more_overdue: bool,
    quotations: Vec<DocRow>,
    more_quotations: bool,
}

/// The home screen.
#[utoipa::path(get, path = "/dashboard", tag = "dashboard", operation_id = "dashboard_home",
    responses(
        (status = 200, description = "The home screen", content_type = "text/html", body = String),
    ))]
pub(crate) async fn home(me: Visitor, state: web::Data<AppState>, req: HttpRequest) -> Answer {
    let ops = me.ops(&state);
    let c = Chrome::new(&me, &req, Nav::Home, String::new());
    let t = c.t;
    let five = PageRequest::new(1, 5).unwrap_or_default().uncounted();
    let figures = ops
        .outstanding(None)
        .await?
        .into_iter()
        .map(|o| Figure {
            currency: o.currency.code(),
            outstanding: money(t, o.outstanding_cents, o.currency),
            open_label: t.count("dash.home.open_count", o.open_count),
            has_overdue: o.overdue_count > 0,
            overdue: money(t, o.overdue_cents, o.currency),
            overdue_label: t.count("dash.home.overdue_count", o.overdue_count),
        })
        .collect();
    let pending = ops.pending_payments(five).await?;
    let paid = pending.data.iter().map(|p| p.invoice_id).collect();
    let numbers = ops.invoice_numbers(paid).await?;
    let overdue = ops.overdue_invoices(five).await?;
    let quotations = ops.quotations_awaiting_answer(five).await?;
    let mut ids: Vec<_> = overdue.data.iter().map(|i| i.customer_id).collect();
    ids.extend(pending.data.iter().map(|p| p.customer_id));
    ids.extend(quotations.data.iter().map(|q| q.customer_id));
    let names = ops.customer_names(ids).await?;
    let name = |id| super::views::name_of(&names, id);
    // What a live account needs before its documents go out: a seller (the same rule that
    // refuses a live send), a way to be paid, and a live key for whoever uses the API.
    let go_live = if c.live && c.owner {
        let profile = ops.profile().await?;
        let keys = ops.api_keys().await?;
        vec![
            Step {
                label: t.text("dash.home.live_seller"),
                href: "/dashboard/settings",
                done: profile.missing_to_send().is_empty(),
            },
            Step {
                label: t.text("dash.home.live_paid"),
                href: "/dashboard/settings",
                done: profile.bank_account.is_some() || profile.payment_instructions.is_some(),
            },
            Step {
                label: t.text("dash.home.live_key"),
                href: "/dashboard/settings/keys",
                done: keys.iter().any(|k| k.revoked_at.is_none()),
            },
        ]
    } else {
        Vec::new()
    };
    let title = t.text("dash.home.title").to_string();
    page(
        StatusCode::OK,
        HomePage {
            c: Chrome { title, ..c },
            go_live,
            figures,
            more_payments: pending.has_more,
            payments: pending
                .data
                .into_iter()
                .map(|p| PendingPayment {
                    x: super::payments::extras::Extras::of(t, &p),
                    id: p.id.0,
                    invoice_id: p.invoice_id.0,
                    invoice: numbers.get(&p.invoice_id).cloned().unwrap_or_default(),
                    customer: name(p.customer_id),
                    amount: money(t, p.amount_cents, p.currency),
                    method: t
                        .text(super::payments::extras::method_key(p.method))
                        .to_string(),
                    reference: p.reference.unwrap_or_default(),
                    reported: date(t, p.created_at.date_naive()),
                })
                .collect(),
            more_overdue: overdue.has_more,
            overdue: overdue
                .data
                .into_iter()
                .map(|i| DocRow {
                    id: i.id.0,
                    customer: name(i.customer_id),
                    date: date(t, i.due_date),
                    amount: money(t, i.amount_due_cents, i.currency),
                    number: i.invoice_number,
                })
                .collect(),
            more_quotations: quotations.has_more,
            quotations: quotations
                .data
                .into_iter()
                .map(|q| DocRow {
                    id: q.id.0,
                    customer: name(q.customer_id),
                    date: date(t, q.valid_until),
                    amount: money(t, q.total_cents, q.currency),
                    number: q.quote_number,
                })
                .collect(),
        },
    )
}
