//! What an invoice's buttons do: each posts a form, calls the operation the API's route calls,
//! and returns (303) to the invoice with a notice; the status rules are the operations'.

use crate::dashboard::locale_of;
use crate::dashboard::{see_other, Refusal};
use crate::dashboard::{Answer, Posted, Visitor};
use crate::error::ApiError;
use crate::path_id::Id;
use crate::AppState;
use actix_web::{web, HttpRequest};
use invoicing_domain::credit_note::CreditNoteInput;
use invoicing_domain::email::{EmailInput, EmailSubject};
use invoicing_domain::invoice::{InvoiceId, InvoicePatch};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::payment::PaymentInput;
use invoicing_domain::payment_amount::MajorAmount;

/// One of the invoice's actions.
#[utoipa::path(post, path = "/dashboard/invoices/{id}/{action}", tag = "dashboard", operation_id = "dashboard_invoice_action",
    params(
        ("id" = String, Path, description = "The invoice's id"),
        ("action" = String, Path, description = "`send` (no email), `send_email` (send and email it to the customer), `resend` (email it again), `pay` (mark paid), `cancel`, `payment` (record one: `amount`, `method`, `reference`, `verified`), or `credit` (a credit note: `amount`, `reason`, `memo`)"),
    ),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`, and the fields of `payment`"),
    responses(
        (status = 303, description = "Done: back to the invoice", headers(("Location" = String, description = "The invoice"))),
        (status = 400, description = "A field the operation refuses", content_type = "text/html", body = String),
        (status = 404, description = "No such invoice (or action)", content_type = "text/html", body = String),
        (status = 409, description = "The invoice's status does not allow it", content_type = "text/html", body = String),
        (status = 422, description = "A field the operation refuses", content_type = "text/html", body = String),
    ))]
pub(crate) async fn action(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Answer {
    let (raw_id, action) = path.into_inner();
    let ops = me.ops(&state);
    let id = Id::<InvoiceId>::parse(&raw_id);
    let done = match action.as_str() {
        "send" => {
            ops.send_invoice(id, None).await?;
            "sent"
        }
        "send_email" => {
            ops.send_invoice(id, Some(EmailInput::default())).await?;
            "emailed"
        }
        "resend" => {
            let inv = ops.invoice(id).await?;
            ops.resend(EmailSubject::Invoice(inv.id.0), None).await?;
            "emailed"
        }
        "pay" | "cancel" => {
            let to = if action == "pay" {
                InvoiceStatus::Paid
            } else {
                InvoiceStatus::Cancelled
            };
            let patch = InvoicePatch {
                status: Some(to),
                ..InvoicePatch::default()
            };
            ops.update_invoice(id, patch).await?;
            if action == "pay" {
                "paid"
            } else {
                "cancelled"
            }
        }
        "payment" => {
            let inv = ops.invoice(id).await?;
            let amount = MajorAmount::minor_in(&form.raw("amount"), locale_of(&req), inv.currency)
                .map_err(|e| ApiError::invalid_parameter("amount", e.to_string()))?;
            let input = PaymentInput {
                invoice_id: Some(inv.id.0),
                amount_cents: Some(amount.minor()),
                method: form.text("method"),
                reference: form.text("reference"),
                status: Some(
                    if form.checked("verified") {
                        "verified"
                    } else {
                        "pending"
                    }
                    .into(),
                ),
                metadata: None,
            };
            ops.create_payment(input).await?;
            "payment_recorded"
        }
        "credit" => {
            let inv = ops.invoice(id).await?;
            let amount = MajorAmount::minor_in(&form.raw("amount"), locale_of(&req), inv.currency)
                .map_err(|e| ApiError::invalid_parameter("amount", e.to_string()))?;
            let input = CreditNoteInput {
                reason: form.text("reason"),
                memo: form.text("memo"),
                amount_cents: Some(amount.minor()),
                // The rest as the invoice has them (its references and supply).
                ..CreditNoteInput::default()
            };
            let note = ops.create_credit_note(id, input).await?;
            return Ok(see_other(&format!(
                "/dashboard/credit-notes/{}?done=credited",
                note.id.0
            )));
        }
        _ => return Err(Refusal::Api(ApiError::resource_missing("action"))),
    };
    let id = id.get()?.0;
    Ok(see_other(&format!("/dashboard/invoices/{id}?done={done}")))
}

/// The invoice as an e-invoice (`?syntax=ubl|cii`), as the API writes it: a download.
#[utoipa::path(get, path = "/dashboard/invoices/{id}/einvoice", tag = "dashboard", operation_id = "dashboard_invoice_einvoice",
    params(
        ("id" = String, Path, description = "The invoice's id"),
        ("syntax" = inline(Option<crate::routes::einvoices::EInvoiceSyntax>), Query, description = "`ubl` (default) or `cii`"),
    ),
    responses(
        (status = 200, description = "The XML", content_type = "application/xml", body = Vec<u8>),
        (status = 404, description = "No such invoice in this account and environment", content_type = "text/html", body = String),
        (status = 422, description = "Not complete for EN 16931", content_type = "text/html", body = String),
    ))]
pub(crate) async fn einvoice(
    me: Visitor,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: Id<InvoiceId>,
) -> Answer {
    let syntax = crate::ops::einvoices::syntax(req.query_string())?;
    let file = me.ops(&state).invoice_einvoice(id, syntax).await?;
    Ok(crate::routes::einvoices::download(file))
}

/// The invoice's PDF, as the API renders it.
#[utoipa::path(get, path = "/dashboard/invoices/{id}/pdf", tag = "dashboard", operation_id = "dashboard_invoice_pdf",
    params(("id" = String, Path, description = "The invoice's id")),
    responses(
        (status = 200, description = "The PDF", content_type = "application/pdf", body = Vec<u8>),
        (status = 404, description = "No such invoice in this account and environment", content_type = "text/html", body = String),
    ))]
pub(crate) async fn pdf(me: Visitor, state: web::Data<AppState>, id: Id<InvoiceId>) -> Answer {
    let doc = me.ops(&state).invoice_pdf(id).await?;
    Ok(crate::pdf::respond(doc).await?)
}
