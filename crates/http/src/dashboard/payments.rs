//! Payments (SPEC §21): the list with its status tabs, and Verify and Reject, wherever a
//! pending payment is shown (the home screen, an invoice, this list).

use super::chrome::{Chrome, Nav};
use super::form::{without_blanks, Form};
use super::invoices::tabs;
use super::session::{check_post, visitor};
use super::views::{date, money, payment_status, Pager};
use super::{page, respond, see_other};
use crate::path_id::Id;
use crate::routes::pages::FormBody;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use invoicing_domain::payment::{PaymentChange, PaymentId, PaymentMethod, RejectPaymentInput};
use invoicing_domain::payment_status::PaymentStatus;

/// The catalogue key of a payment method's name.
pub(crate) fn method_key(m: PaymentMethod) -> &'static str {
    match m {
        PaymentMethod::BankTransfer => "dash.method.bank_transfer",
        PaymentMethod::Card => "dash.method.card",
        PaymentMethod::Cash => "dash.method.cash",
        PaymentMethod::Other => "dash.method.other",
    }
}

pub(crate) struct Row {
    pub id: i64,
    pub invoice_id: i64,
    pub customer: String,
    pub date: String,
    pub method: &'static str,
    pub reference: String,
    pub amount: String,
    pub status: &'static str,
    pub status_label: &'static str,
    pub pending: bool,
}

#[derive(Template)]
#[template(path = "dashboard/payments.html")]
struct ListPage {
    c: Chrome,
    tabs: Vec<super::invoices::Tab>,
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
pub async fn list(state: web::Data<AppState>, req: HttpRequest) -> HttpResponse {
    let answer = async {
        let me = visitor(&state, &req).await?;
        let ops = me.ops(&state);
        let query = without_blanks(req.query_string());
        let found = ops.list_payments(&query).await?;
        let names = ops
            .customer_names(found.data.iter().map(|p| p.customer_id).collect())
            .await?;
        let c = Chrome::new(&me, &req, Nav::Payments, String::new());
        let t = c.t;
        let status = super::form::query_value(&query, "status");
        let statuses = [
            PaymentStatus::Pending,
            PaymentStatus::Verified,
            PaymentStatus::Rejected,
        ];
        let back = format!("/dashboard/payments?{query}");
        page(
            StatusCode::OK,
            ListPage {
                tabs: tabs(
                    "/dashboard/payments",
                    &query,
                    "status",
                    &status,
                    statuses
                        .into_iter()
                        .map(|s| (s.as_str(), payment_status(t, s))),
                    t.text("dash.tab.all"),
                ),
                rows: found
                    .data
                    .iter()
                    .map(|p| Row {
                        id: p.id.0,
                        invoice_id: p.invoice_id.0,
                        customer: super::views::name_of(&names, p.customer_id),
                        date: date(t, p.created_at.date_naive()),
                        method: t.text(method_key(p.method)),
                        reference: p.reference.clone().unwrap_or_default(),
                        amount: money(t, p.amount_cents, p.currency),
                        status: p.status.as_str(),
                        status_label: payment_status(t, p.status),
                        pending: p.status == PaymentStatus::Pending,
                    })
                    .collect(),
                pager: Pager::new(t, "/dashboard/payments", &query, &found),
                back,
                c: Chrome {
                    title: t.text("dash.nav.payments").to_string(),
                    ..c
                },
            },
        )
    }
    .await;
    respond(&req, answer)
}

/// Verifies or rejects a pending payment, then returns to the page it was done from.
async fn change(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: Id<PaymentId>,
    body: FormBody,
    verify: bool,
) -> HttpResponse {
    let answer = async {
        let me = visitor(&state, &req).await?;
        let form = Form::read(&req, &body)?;
        check_post(&me, &req, &form)?;
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
        let back = super::sign_in::safe_next(form.get("back"));
        let done = if verify {
            "payment_verified"
        } else {
            "payment_rejected"
        };
        let sep = if back.contains('?') { '&' } else { '?' };
        Ok(see_other(&format!("{back}{sep}done={done}")))
    }
    .await;
    respond(&req, answer)
}

/// Verify: the money arrived.
#[utoipa::path(post, path = "/dashboard/payments/{id}/verify", tag = "dashboard", operation_id = "dashboard_payment_verify",
    params(("id" = String, Path, description = "The payment's id")),
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf` and `back` (the page to return to)"),
    responses(
        (status = 303, description = "Verified", headers(("Location" = String, description = "Back to the page"))),
        (status = 403, description = "Not posted from the dashboard's own page, no valid `csrf`, or a role that may not change payments", content_type = "text/html", body = String),
        (status = 404, description = "No such payment in this account and environment", content_type = "text/html", body = String),
        (status = 409, description = "Not pending any more", content_type = "text/html", body = String),
    ))]
pub async fn verify(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: Id<PaymentId>,
    body: FormBody,
) -> HttpResponse {
    change(state, req, id, body, true).await
}

/// Reject: the money did not arrive (`reason` optional).
#[utoipa::path(post, path = "/dashboard/payments/{id}/reject", tag = "dashboard", operation_id = "dashboard_payment_reject",
    params(("id" = String, Path, description = "The payment's id")),
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`, `reason` (optional) and `back`"),
    responses(
        (status = 303, description = "Rejected", headers(("Location" = String, description = "Back to the page"))),
        (status = 403, description = "Not posted from the dashboard's own page, no valid `csrf`, or a role that may not change payments", content_type = "text/html", body = String),
        (status = 404, description = "No such payment in this account and environment", content_type = "text/html", body = String),
        (status = 409, description = "Not pending any more", content_type = "text/html", body = String),
        (status = 422, description = "A reason over 1000 characters", content_type = "text/html", body = String),
    ))]
pub async fn reject(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: Id<PaymentId>,
    body: FormBody,
) -> HttpResponse {
    change(state, req, id, body, false).await
}
