//! What a quotation's buttons do, through the operations the API's routes call; each returns
//! (303) to the quotation, or to the invoice a conversion made.

use crate::client::client_ip;
use crate::dashboard::{see_other, Refusal};
use crate::dashboard::{Answer, Posted, Visitor};
use crate::error::ApiError;
use crate::ops::Origin;
use crate::path_id::Id;
use crate::routes::quotations::moves::user_agent;
use crate::AppState;
use actix_web::{web, HttpRequest};
use invoicing_domain::email::{EmailInput, EmailSubject};
use invoicing_domain::quotation::{AcceptInput, ConvertInput, QuotationId, RejectInput};

/// One of the quotation's actions.
#[utoipa::path(post, path = "/dashboard/quotations/{id}/{action}", tag = "dashboard", operation_id = "dashboard_quotation_action",
    params(
        ("id" = String, Path, description = "The quotation's id"),
        ("action" = String, Path, description = "`send` (no email), `send_email`, `resend` (email it again), `accept` (on the prospect's behalf: `name`), `decline` (`reason`), `convert` (into an invoice), or `delete` (a draft)"),
    ),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`, and `name` or `reason`"),
    responses(
        (status = 303, description = "Done: back to the quotation (to the invoice after `convert`, to the list after `delete`)", headers(("Location" = String, description = "Where to go next"))),
        (status = 404, description = "No such quotation (or action)", content_type = "text/html", body = String),
        (status = 409, description = "The quotation's status does not allow it", content_type = "text/html", body = String),
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
    let id = Id::<QuotationId>::parse(&raw_id);
    let done = match action.as_str() {
        "send" => {
            ops.send_quotation(id, None).await?;
            "sent"
        }
        "send_email" => {
            ops.send_quotation(id, Some(EmailInput::default())).await?;
            "emailed"
        }
        "resend" => {
            let q = ops.quotation(id).await?;
            ops.resend(EmailSubject::Quotation(q.id.0), None).await?;
            "emailed"
        }
        "accept" => {
            let origin = Origin {
                ip: client_ip(&req, &state.config).to_string(),
                user_agent: user_agent(&req),
            };
            let input = AcceptInput {
                name: form.text("name"),
            };
            ops.accept_quotation(id, input, origin).await?;
            "accepted"
        }
        "decline" => {
            let input = RejectInput {
                reason: form.text("reason"),
            };
            ops.reject_quotation(id, input).await?;
            "declined"
        }
        "convert" => {
            let input = ConvertInput {
                due_date: None,
                payment_terms: None,
            };
            let made = ops.convert_quotation(id, input).await?;
            return Ok(see_other(&format!(
                "/dashboard/invoices/{}?done=converted",
                made.invoice_id
            )));
        }
        "delete" => {
            ops.delete_quotation(id).await?;
            return Ok(see_other("/dashboard/quotations?done=deleted"));
        }
        _ => return Err(Refusal::Api(ApiError::resource_missing("action"))),
    };
    let id = id.get()?.0;
    Ok(see_other(&format!(
        "/dashboard/quotations/{id}?done={done}"
    )))
}

/// The quotation's PDF, as the API renders it.
#[utoipa::path(get, path = "/dashboard/quotations/{id}/pdf", tag = "dashboard", operation_id = "dashboard_quotation_pdf",
    params(("id" = String, Path, description = "The quotation's id")),
    responses(
        (status = 200, description = "The PDF", content_type = "application/pdf", body = Vec<u8>),
        (status = 404, description = "No such quotation in this account and environment", content_type = "text/html", body = String),
    ))]
pub(crate) async fn pdf(me: Visitor, state: web::Data<AppState>, id: Id<QuotationId>) -> Answer {
    let doc = me.ops(&state).quotation_pdf(id).await?;
    Ok(crate::pdf::respond(doc).await?)
}
