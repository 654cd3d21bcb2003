//! Payments (SPEC §21, §25): the list with its status tabs, one payment's screen, and Verify
//! and Reject wherever a pending payment is shown (the home screen, an invoice, this list).
//! Wherever a payment is shown, so is how it was paid (a card through Stripe with its
//! reference), what was refunded of it, and the customer's proof of transfer, downloaded here
//! (the API's route needs a key). Refund posts to the operation, whose refusal is shown beside
//! the amount.

use super::chrome::{Chrome, Nav};
use super::form::{field_errors, is_field_mistake, without_blanks};
use super::session::Visitor;
use super::views::Listing;
use super::views::{date, money, payment_status, Pager};
use super::{locale_of, page, see_other, Answer};
use crate::binary::{respond_attachment, Binary};
use crate::dashboard::Posted;
use crate::error::ApiError;
use crate::path_id::Id;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::gateway::{refundable, GatewayKind, RefundInput, RefundStatus};
use invoicing_domain::invoice::Invoice;
use invoicing_domain::locale::Locale;
use invoicing_domain::money::Money;
use invoicing_domain::payment::{
    Payment, PaymentChange, PaymentId, PaymentMethod, RejectPaymentInput,
};
use invoicing_domain::payment_amount::MajorAmount;
use invoicing_domain::payment_proof::ProofKind;
use invoicing_domain::payment_status::PaymentStatus;
use std::collections::HashMap;

/// The catalogue key of a payment method's name.
pub(crate) fn method_key(m: PaymentMethod) -> &'static str {
    match m {
        PaymentMethod::BankTransfer => "dash.method.bank_transfer",
        PaymentMethod::Card => "dash.method.card",
        PaymentMethod::Cash => "dash.method.cash",
        PaymentMethod::Other => "dash.method.other",
    }
}

/// A refund as the screens list it.
pub(crate) struct RefundRow {
    pub amount: String,
    pub date: String,
    pub status_label: &'static str,
    /// The colour of its status: `pending`, `verified` (done) or `rejected` (failed).
    pub tone: &'static str,
    pub reason: String,
}

/// What every screen shows of a payment beside its amount and status (SPEC §25): the gateway
/// that took it, what was refunded of it, and the customer's proof of transfer.
pub(crate) struct Extras {
    /// The gateway's name ("Stripe"), when one took it (its reference is then its id there).
    pub gateway: Option<&'static str>,
    /// "Refunded €25.00", when anything was.
    pub refunded: Option<String>,
    pub refunds: Vec<RefundRow>,
    /// The proof's download and its label ("View proof (PDF, 120 KB)").
    pub proof: Option<(String, String)>,
}

fn refund_status(t: Locale, s: RefundStatus) -> (&'static str, &'static str) {
    match s {
        RefundStatus::Pending => (t.text("dash.refund_status.pending"), "pending"),
        RefundStatus::Succeeded => (t.text("dash.refund_status.succeeded"), "verified"),
        RefundStatus::Failed => (t.text("dash.refund_status.failed"), "rejected"),
    }
}

/// A file's size as people read it: "120 KB", "1.5 MB" (in the locale's writing).
fn file_size(t: Locale, bytes: i64) -> String {
    const KIB: i64 = 1024;
    if bytes < KIB * KIB {
        let kb = ((bytes + KIB - 1) / KIB).max(1);
        t.fill("dash.size.kb", &[("n", &kb.to_string())])
    } else {
        let tenths = (bytes * 10 + KIB * KIB / 2) / (KIB * KIB);
        let n = format!("{}{}{}", tenths / 10, t.decimal_separator(), tenths % 10);
        t.fill("dash.size.mb", &[("n", &n)])
    }
}

impl Extras {
    pub fn of(t: Locale, p: &Payment) -> Extras {
        let gateway = p
            .gateway
            .as_deref()
            .and_then(GatewayKind::parse)
            .map(|g| match g {
                GatewayKind::Stripe => "Stripe",
            });
        let refunded = (p.amount_refunded_cents != 0).then(|| {
            t.fill(
                "dash.payment.refunded",
                &[("amount", &money(t, p.amount_refunded_cents, p.currency))],
            )
        });
        let refunds = p
            .refunds
            .iter()
            .map(|r| {
                let (status_label, tone) = refund_status(t, r.status);
                RefundRow {
                    amount: money(t, r.amount_cents, p.currency),
                    date: date(t, r.created_at.date_naive()),
                    status_label,
                    tone,
                    reason: r.reason.clone().unwrap_or_default(),
                }
            })
            .collect();
        let proof = p.proof.as_ref().map(|f| {
            let kind = match ProofKind::from_content_type(&f.content_type) {
                Some(ProofKind::Pdf) => "PDF",
                Some(ProofKind::Png) => "PNG",
                Some(ProofKind::Jpeg) => "JPEG",
                None => "",
            };
            let label = t.fill(
                "dash.payment.view_proof",
                &[("kind", kind), ("size", &file_size(t, f.bytes))],
            );
            (format!("/dashboard/payments/{}/proof", p.id.0), label)
        });
        Extras {
            gateway,
            refunded,
            refunds,
            proof,
        }
    }
}

/// The amount a Refund form starts with, as the user's language writes it: what the payment
/// may still return (the domain's rule, for display; the operation decides), when a verified
/// payment may return anything and the user may change payments.
pub(crate) fn refund_prefill(
    t: Locale,
    p: &Payment,
    inv: &Invoice,
    can_write: bool,
) -> Option<String> {
    let money = |c: i64| Money::new(c).unwrap_or(Money::ZERO);
    let left = refundable(
        money(p.amount_cents),
        money(p.amount_refunded_cents),
        money(inv.overpaid_cents),
    );
    (can_write && p.status == PaymentStatus::Verified && left.minor() > 0)
        .then(|| t.amount_field(left, p.currency))
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
    pub x: Extras,
}

#[derive(Template)]
#[template(path = "dashboard/payments.html")]
struct ListPage {
    c: Chrome,
    tabs: Vec<super::views::Tab>,
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
    let t = super::locale_of(&req);
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
                    customer: super::views::name_of(&names, p.customer_id),
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
    let back = super::sign_in::safe_next(form.get("back"));
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
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf` and `back` (the page to return to)"),
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
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`, `reason` (optional) and `back`"),
    responses(
        (status = 303, description = "Rejected", headers(("Location" = String, description = "Back to the page"))),
        (status = 404, description = "No such payment in this account and environment", content_type = "text/html", body = String),
        (status = 409, description = "Not pending any more", content_type = "text/html", body = String),
        (status = 422, description = "A reason over 1000 characters", content_type = "text/html", body = String),
    ))]
pub(crate) async fn reject(post: Posted, state: web::Data<AppState>, id: Id<PaymentId>) -> Answer {
    change(post, state, id, false).await
}

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
                customer: super::views::name_of(&names, p.customer_id),
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
fn refund_field(param: &str) -> String {
    match param {
        "amount_cents" => "amount".to_string(),
        other => other.to_string(),
    }
}

/// Refunds what is typed (all that may be refunded when left empty), as
/// `POST /api/v1/payments/{id}/refunds` does: a card payment through its gateway, any other
/// recorded as paid back by hand.
#[utoipa::path(post, path = "/dashboard/payments/{id}/refund", tag = "dashboard", operation_id = "dashboard_payment_refund",
    params(("id" = String, Path, description = "The payment's id")),
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded",
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
            MajorAmount::parse_in(&text, locale_of(&req), currency)
                .and_then(|a| a.to_minor(currency))
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
                Some(b) => super::sign_in::safe_next(Some(b)),
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
            let mut errors = field_errors(&e, refund_field);
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
