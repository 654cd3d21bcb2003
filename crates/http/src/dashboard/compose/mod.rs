//! "Send by email" shows the email before it leaves (SPEC §27): the recipients (to, cc), the
//! subject in the customer's language and a message, all editable, and the PDF it carries; then
//! sends it through the same operations as the API's send (a draft is sent and emailed in one
//! step) or its resend. This file holds the routes; the document in `doc.rs`, the form in
//! `form.rs`.

mod doc;
mod form;

use crate::dashboard::form::{field_errors, is_field_mistake};
use crate::dashboard::session::Visitor;
use crate::dashboard::Posted;
use crate::dashboard::{see_other, Answer};
use crate::error::ApiError;
use crate::AppState;
use actix_web::{web, HttpRequest};
use doc::Doc;
use form::{show, Typed};
use invoicing_domain::api_key::Access;
use std::collections::HashMap;

async fn compose(me: Visitor, state: &AppState, req: &HttpRequest, doc: Doc) -> Answer {
    let ops = me.ops(state);
    // Only those who may send see the form.
    ops.caller().require(doc.resource(), Access::Write)?;
    let draft = doc.draft(&ops).await?;
    let typed = Typed::of(&draft);
    show(&me, req, doc, draft, typed, HashMap::new()).await
}

async fn send(
    Posted { me, form }: Posted,
    state: &AppState,
    req: &HttpRequest,
    doc: Doc,
) -> Answer {
    let ops = me.ops(state);
    if !state.config.mail_enabled {
        return Err(ApiError::email_not_configured().into());
    }
    let draft = doc.draft(&ops).await?;
    let typed = Typed::read(&form);
    match doc.send(&ops, &draft, typed.input()).await {
        Ok(()) => Ok(see_other(&format!("{}?done=emailed", doc.screen()))),
        Err(e) if is_field_mistake(&e) => {
            let errors = field_errors(&e, req);
            show(&me, req, doc, draft, typed, errors).await
        }
        Err(e) => Err(e.into()),
    }
}

/// A document's id from its path: what names no document is no page.
fn id_of(raw: &str) -> Result<i64, ApiError> {
    raw.parse::<i64>()
        .ok()
        .filter(|id| *id > 0)
        .ok_or_else(|| ApiError::resource_missing("page"))
}

/// The invoice's email, to check and change before it is sent.
#[utoipa::path(get, path = "/dashboard/invoices/{id}/email", tag = "dashboard", operation_id = "dashboard_invoice_email_page",
    params(("id" = String, Path, description = "The invoice's id")),
    responses(
        (status = 200, description = "The email as it would leave: recipients, subject, message, attachment", content_type = "text/html", body = String),
        (status = 404, description = "No such invoice", content_type = "text/html", body = String),
    ))]
pub(crate) async fn invoice_page(
    me: Visitor,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Answer {
    compose(me, &state, &req, Doc::Invoice(id_of(&id)?)).await
}

/// Sends the invoice's email as composed (a draft is sent with it).
#[utoipa::path(post, path = "/dashboard/invoices/{id}/email", tag = "dashboard", operation_id = "dashboard_invoice_email",
    params(("id" = String, Path, description = "The invoice's id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `email.to` and `email.cc` (addresses separated by commas), `email.subject`, `email.message`"),
    responses(
        (status = 303, description = "Sent", headers(("Location" = String, description = "The invoice's screen"))),
        (status = 404, description = "No such invoice", content_type = "text/html", body = String),
        (status = 409, description = "The invoice's status does not allow it", content_type = "text/html", body = String),
        (status = 422, description = "The form again with what is wrong beside its field, or this server sends no mail", content_type = "text/html", body = String),
    ))]
pub(crate) async fn invoice_send(
    post: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Answer {
    send(post, &state, &req, Doc::Invoice(id_of(&id)?)).await
}

/// The quotation's email, to check and change before it is sent.
#[utoipa::path(get, path = "/dashboard/quotations/{id}/email", tag = "dashboard", operation_id = "dashboard_quotation_email_page",
    params(("id" = String, Path, description = "The quotation's id")),
    responses(
        (status = 200, description = "The email as it would leave: recipients, subject, message, attachment", content_type = "text/html", body = String),
        (status = 404, description = "No such quotation", content_type = "text/html", body = String),
    ))]
pub(crate) async fn quotation_page(
    me: Visitor,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Answer {
    compose(me, &state, &req, Doc::Quotation(id_of(&id)?)).await
}

/// Sends the quotation's email as composed (a draft is sent with it).
#[utoipa::path(post, path = "/dashboard/quotations/{id}/email", tag = "dashboard", operation_id = "dashboard_quotation_email",
    params(("id" = String, Path, description = "The quotation's id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `email.to` and `email.cc` (addresses separated by commas), `email.subject`, `email.message`"),
    responses(
        (status = 303, description = "Sent", headers(("Location" = String, description = "The quotation's screen"))),
        (status = 404, description = "No such quotation", content_type = "text/html", body = String),
        (status = 409, description = "The quotation's status does not allow it", content_type = "text/html", body = String),
        (status = 422, description = "The form again with what is wrong beside its field, or this server sends no mail", content_type = "text/html", body = String),
    ))]
pub(crate) async fn quotation_send(
    post: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Answer {
    send(post, &state, &req, Doc::Quotation(id_of(&id)?)).await
}
