//! One payment's screen: how it was paid, its refunds and proof, Verify and Reject while it is
//! pending, and Refund while it may return anything; the proof downloaded here (the API's route
//! needs a key). Refund posts to the operation, whose refusal is shown beside the amount.

use super::extras::{method_key, refund_prefill, Extras, Row};
use crate::binary::{respond_attachment, Binary};
use crate::dashboard::chrome::{Chrome, Nav};
use crate::dashboard::form::{field_errors, is_field_mistake};
use crate::dashboard::session::Visitor;
use crate::dashboard::views::{date, money, payment_status};
use crate::dashboard::Posted;
use crate::dashboard::{locale_of, page, see_other, Answer};
use crate::error::ApiError;
use crate::path_id::Id;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::gateway::RefundInput;
use invoicing_domain::payment::PaymentId;
use invoicing_domain::payment_amount::MajorAmount;
use invoicing_domain::payment_proof::ProofKind;
use invoicing_domain::payment_status::PaymentStatus;
use std::collections::HashMap;

#[derive(Template)]
#[template(path = "dashboard/payment.html")]
struct PaymentPage {
    c: Chrome,
    p: Row,
    invoice_number: String,
    currency: &'static str,
    /// What the invoice holds beyond what it is owed (to refund), when anything.
    overpaid: Option<String>,
    /// The Refund form's amount (prefilled, or as typed), when the form is shown.
    refund: Option<String>,
    reason: String,
    errors: HashMap<String, String>,
    back: String,
}

impl PaymentPage {
    fn err(&self, field: &str) -> Option<&str> {
        self.errors.get(field).map(String::as_str)
    }
}

/// The Refund form as typed, shown again beside its refusal.
struct Typed {
    amount: String,
    reason: String,
    errors: HashMap<String, String>,
    status: StatusCode,
}

async fn show_payment(
    state: &AppState,
    req: &HttpRequest,
    me: &Visitor,
    id: Id<PaymentId>,
    typed: Option<Typed>,
) -> Answer {
    let ops = me.ops(state);
    let p = ops.payment(id).await?;
    let inv = ops.invoice(Id::of(p.invoice_id)).await?;
    let names = ops.customer_names(vec![p.customer_id]).await?;
    let c = Chrome::new(me, req, Nav::Payments, String::new());
    let t = c.t;
    let prefill = refund_prefill(t, &p, &inv, c.can_write);
    let (refund, reason, errors, status) = match typed {
        Some(typed) => (Some(typed.amount), typed.reason, typed.errors, typed.status),
        None => (prefill, String::new(), HashMap::new(), StatusCode::OK),
    };
    let title = t.fill("dash.payment.title", &[("number", &inv.invoice_number)]);
    page(
        status,
        PaymentPage {
            p: Row {
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
                x: Extras::of(t, &p),
            },
            invoice_number: inv.invoice_number.clone(),
            currency: p.currency.code(),
            overpaid: (inv.overpaid_cents > 0).then(|| money(t, inv.overpaid_cents, inv.currency)),
            refund,
            reason,
            errors,
            back: format!("/dashboard/payments/{}", p.id.0),
            c: Chrome { title, ..c },
        },
    )
}

/// One payment: how it was paid, its refunds and proof, Verify and Reject while it is pending,
/// and Refund while it may return anything.
#[utoipa::path(get, path = "/dashboard/payments/{id}", tag = "dashboard", operation_id = "dashboard_payment",
    params(("id" = String, Path, description = "The payment's id")),
    responses(
        (status = 200, description = "The payment", content_type = "text/html", body = String),
        (status = 404, description = "No such payment in this account and environment", content_type = "text/html", body = String),
    ))]
pub(crate) async fn detail(
    me: Visitor,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: Id<PaymentId>,
) -> Answer {
    show_payment(&state, &req, &me, id, None).await
}

/// The API's names of the Refund form's fields, as the form names them.
/// Refunds what is typed (all that may be refunded when left empty), as
/// `POST /api/v1/payments/{id}/refunds` does: a card payment through its gateway, any other
/// recorded as paid back by hand.
#[utoipa::path(post, path = "/dashboard/payments/{id}/refund", tag = "dashboard", operation_id = "dashboard_payment_refund",
    params(("id" = String, Path, description = "The payment's id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `amount` (as the page's language writes amounts; empty: all that may be refunded), `reason` (optional), `back` (the page to return to)"),
    responses(
        (status = 303, description = "Refunded (or asked of the gateway)", headers(("Location" = String, description = "Back to the page"))),
        (status = 404, description = "No such payment in this account and environment", content_type = "text/html", body = String),
        (status = 409, description = "Not a verified payment", content_type = "text/html", body = String),
        (status = 422, description = "The payment's page again, the refusal beside the amount (nothing to refund, more than may be refunded, not an amount)", content_type = "text/html", body = String),
        (status = 502, description = "The payment's page again: the gateway refused the refund or did not answer", content_type = "text/html", body = String),
    ))]
pub(crate) async fn refund(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: Id<PaymentId>,
) -> Answer {
    let ops = me.ops(&state);
    // The amount as the page's language writes it, in the payment's currency.
    let typed = form.raw("amount");
    let amount = match form.text("amount") {
        None => Ok(None),
        Some(text) => {
            let currency = ops.payment(id).await?.currency;
            MajorAmount::minor_in(&text, locale_of(&req), currency)
                .map(|m| Some(m.minor()))
                .map_err(|e| ApiError::invalid_parameter("amount", e.to_string()))
        }
    };
    let done = match amount {
        Ok(amount_cents) => {
            let input = RefundInput {
                amount_cents,
                reason: form.text("reason"),
            };
            ops.refund_payment(id, input).await.map(|_| ())
        }
        Err(e) => Err(e),
    };
    match done {
        Ok(()) => {
            let back = match form.get("back") {
                Some(b) => crate::dashboard::sign_in::safe_next(Some(b)),
                None => format!("/dashboard/payments/{}", id.get()?.0),
            };
            let sep = if back.contains('?') { '&' } else { '?' };
            Ok(see_other(&format!("{back}{sep}done=refunded")))
        }
        Err(e) if is_field_mistake(&e) || e.status == StatusCode::BAD_GATEWAY => {
            let status = if e.status == StatusCode::BAD_GATEWAY {
                e.status
            } else {
                StatusCode::UNPROCESSABLE_ENTITY
            };
            let mut errors = field_errors(&e, &req);
            if let Some(message) = errors.remove("form") {
                // What names no field (the gateway's answer) is the refund's.
                errors.insert("amount".into(), message);
            }
            let typed = Typed {
                amount: typed,
                reason: form.raw("reason"),
                errors,
                status,
            };
            show_payment(&state, &req, &me, id, Some(typed)).await
        }
        Err(e) => Err(e.into()),
    }
}

/// The file the customer attached to the transfer they reported, as a download.
#[utoipa::path(get, path = "/dashboard/payments/{id}/proof", tag = "dashboard", operation_id = "dashboard_payment_proof",
    params(("id" = String, Path, description = "The payment's id")),
    responses(
        (status = 200, description = "The file, as an attachment",
            content((Vec<u8> = "application/pdf"), (Vec<u8> = "image/png"), (Vec<u8> = "image/jpeg"))),
        (status = 404, description = "No such payment in this account and environment, or it has no proof", content_type = "text/html", body = String),
    ))]
pub(crate) async fn proof(me: Visitor, state: web::Data<AppState>, id: Id<PaymentId>) -> Answer {
    let file = me.ops(&state).payment_proof(id).await?;
    let kind = ProofKind::from_content_type(&file.content_type).ok_or_else(ApiError::internal)?;
    Ok(respond_attachment(Binary {
        content_type: kind.content_type(),
        cache_control: "private, no-store",
        filename: Some(file.filename),
        bytes: file.bytes,
    }))
}
