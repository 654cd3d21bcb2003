//! Payments (SPEC §21, §25): the list with its status tabs, one payment's screen (`detail.rs`),
//! and Verify and Reject wherever a pending payment is shown (the home screen, an invoice, this
//! list). Wherever a payment is shown, so is how it was paid (a card through Stripe with its
//! reference), what was refunded of it, and the customer's proof of transfer (`extras.rs`).
//! This file holds the list, Verify and Reject.

pub mod detail;
pub(crate) mod extras;

use crate::dashboard::chrome::{Chrome, Nav};
use crate::dashboard::form::without_blanks;
use crate::dashboard::session::Visitor;
use crate::dashboard::views::Listing;
use crate::dashboard::views::{date, money, payment_status, Pager};
use crate::dashboard::Posted;
use crate::dashboard::{page, see_other, Answer};
use crate::path_id::Id;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use extras::{method_key, Extras, Row};
use invoicing_domain::payment::{PaymentChange, PaymentId, RejectPaymentInput};
use invoicing_domain::payment_status::PaymentStatus;

#[derive(Template)]
#[template(path = "dashboard/payments.html")]
struct ListPage {
    c: Chrome,
    tabs: Vec<crate::dashboard::views::Tab>,
    rows: Vec<Row>,
    pager: Pager,
    back: String,
}

/// The payments, the newest first.
#[utoipa::path(get, path = "/dashboard/payments", tag = "dashboard", operation_id = "dashboard_payments",
    params(
        ("status" = Option<String>, Query, description = "pending, verified or rejected"),
        ("page" = Option<String>, Query, description = "Page number"),
    ),
    responses(
        (status = 200, description = "The list", content_type = "text/html", body = String),
        (status = 400, description = "A filter the API refuses", content_type = "text/html", body = String),
    ))]
pub(crate) async fn list(me: Visitor, state: web::Data<AppState>, req: HttpRequest) -> Answer {
    let ops = me.ops(&state);
    let query = without_blanks(req.query_string());
    let found = ops.list_payments(&query).await?;
    let names = ops
        .customer_names(found.data.iter().map(|p| p.customer_id).collect())
        .await?;
    let t = crate::dashboard::locale_of(&req);
    let statuses = [
        PaymentStatus::Pending,
        PaymentStatus::Verified,
        PaymentStatus::Rejected,
    ];
    let path = "/dashboard/payments";
    let Listing { c, tabs, pager } = Listing::new(&me, &req, Nav::Payments, path, &query, &found)
        .with_tabs(
            path,
            &query,
            "status",
            statuses
                .into_iter()
                .map(|s| (s.as_str(), payment_status(t, s))),
        );
    let back = format!("/dashboard/payments?{query}");
    page(
        StatusCode::OK,
        ListPage {
            tabs,
            rows: found
                .data
                .iter()
                .map(|p| Row {
                    id: p.id.0,
                    invoice_id: p.invoice_id.0,
                    customer: crate::dashboard::views::name_of(&names, p.customer_id),
                    date: date(t, p.created_at.date_naive()),
                    method: t.text(method_key(p.method)),
                    reference: p.reference.clone().unwrap_or_default(),
                    amount: money(t, p.amount_cents, p.currency),
                    status: p.status.as_str(),
                    status_label: payment_status(t, p.status),
                    pending: p.status == PaymentStatus::Pending,
                    x: Extras::of(t, p),
                })
                .collect(),
            pager,
            back,
            c,
        },
    )
}

/// Verifies or rejects a pending payment, then returns to the page it was done from.
async fn change(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    id: Id<PaymentId>,
    verify: bool,
) -> Answer {
    let change = if verify {
        PaymentChange::verify()
    } else {
        RejectPaymentInput {
            reason: form.text("reason"),
        }
        .parse()
        .map_err(crate::error::ApiError::from)?
    };
    me.ops(&state).change_payment(id, change).await?;
    let back = crate::dashboard::sign_in::safe_next(form.get("back"));
    let done = if verify {
        "payment_verified"
    } else {
        "payment_rejected"
    };
    let sep = if back.contains('?') { '&' } else { '?' };
    Ok(see_other(&format!("{back}{sep}done={done}")))
}

/// Verify: the money arrived.
#[utoipa::path(post, path = "/dashboard/payments/{id}/verify", tag = "dashboard", operation_id = "dashboard_payment_verify",
    params(("id" = String, Path, description = "The payment's id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf` and `back` (the page to return to)"),
    responses(
        (status = 303, description = "Verified", headers(("Location" = String, description = "Back to the page"))),
        (status = 404, description = "No such payment in this account and environment", content_type = "text/html", body = String),
        (status = 409, description = "Not pending any more", content_type = "text/html", body = String),
    ))]
pub(crate) async fn verify(post: Posted, state: web::Data<AppState>, id: Id<PaymentId>) -> Answer {
    change(post, state, id, true).await
}

/// Reject: the money did not arrive (`reason` optional).
#[utoipa::path(post, path = "/dashboard/payments/{id}/reject", tag = "dashboard", operation_id = "dashboard_payment_reject",
    params(("id" = String, Path, description = "The payment's id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`, `reason` (optional) and `back`"),
    responses(
        (status = 303, description = "Rejected", headers(("Location" = String, description = "Back to the page"))),
        (status = 404, description = "No such payment in this account and environment", content_type = "text/html", body = String),
        (status = 409, description = "Not pending any more", content_type = "text/html", body = String),
        (status = 422, description = "A reason over 1000 characters", content_type = "text/html", body = String),
    ))]
pub(crate) async fn reject(post: Posted, state: web::Data<AppState>, id: Id<PaymentId>) -> Answer {
    change(post, state, id, false).await
}
