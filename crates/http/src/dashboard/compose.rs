//! "Send by email" shows the email before it leaves (SPEC §27): the recipients (to, cc), the
//! subject in the customer's language and a message, all editable, and the PDF it carries; then
//! sends it through the same operations as the API's send (a draft is sent and emailed in one
//! step) or its resend.

use super::chrome::{Chrome, Nav};
use super::form::{field_errors, is_field_mistake, Form};
use super::session::Visitor;
use super::Posted;
use super::{page, see_other, Answer};
use crate::error::ApiError;
use crate::ops::{EmailDraft, Ops};
use crate::path_id::Id;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::email::{EmailInput, EmailSubject};
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::quotation::QuotationId;
use std::collections::HashMap;

/// The document an email is composed for.
#[derive(Clone, Copy)]
enum Doc {
    Invoice(i64),
    Quotation(i64),
}

impl Doc {
    fn screen(self) -> String {
        match self {
            Doc::Invoice(id) => format!("/dashboard/invoices/{id}"),
            Doc::Quotation(id) => format!("/dashboard/quotations/{id}"),
        }
    }

    fn resource(self) -> ApiResource {
        match self {
            Doc::Invoice(_) => ApiResource::Invoices,
            Doc::Quotation(_) => ApiResource::Quotations,
        }
    }

    fn nav(self) -> Nav {
        match self {
            Doc::Invoice(_) => Nav::Invoices,
            Doc::Quotation(_) => Nav::Quotations,
        }
    }

    async fn draft(self, ops: &Ops) -> Result<EmailDraft, ApiError> {
        match self {
            Doc::Invoice(id) => ops.invoice_email_draft(Id::of(InvoiceId(id))).await,
            Doc::Quotation(id) => ops.quotation_email_draft(Id::of(QuotationId(id))).await,
        }
    }

    /// Sends a draft with its email, or emails a sent document again.
    async fn send(self, ops: &Ops, draft: &EmailDraft, email: EmailInput) -> Result<(), ApiError> {
        match (self, draft.sends) {
            (Doc::Invoice(id), true) => ops
                .send_invoice(Id::of(InvoiceId(id)), Some(email))
                .await
                .map(|_| ()),
            (Doc::Quotation(id), true) => ops
                .send_quotation(Id::of(QuotationId(id)), Some(email))
                .await
                .map(|_| ()),
            (Doc::Invoice(id), false) => ops
                .resend(EmailSubject::Invoice(id), Some(email))
                .await
                .map(|_| ()),
            (Doc::Quotation(id), false) => ops
                .resend(EmailSubject::Quotation(id), Some(email))
                .await
                .map(|_| ()),
        }
    }
}

/// The form as typed (or as first filled in).
struct Typed {
    to: String,
    cc: String,
    subject: String,
    message: String,
}

impl Typed {
    fn of(draft: &EmailDraft) -> Typed {
        Typed {
            to: draft.to.clone(),
            cc: String::new(),
            subject: draft.subject.clone(),
            message: String::new(),
        }
    }

    fn read(form: &Form) -> Typed {
        Typed {
            to: form.raw("to"),
            cc: form.raw("cc"),
            subject: form.raw("subject"),
            message: form.raw("message"),
        }
    }

    /// As the API takes it: addresses separated by commas, semicolons or spaces.
    fn input(&self) -> EmailInput {
        let addresses = |text: &str| -> Option<Vec<String>> {
            let list: Vec<String> = text
                .split([',', ';', ' ', '\n'])
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .map(str::to_string)
                .collect();
            (!list.is_empty()).then_some(list)
        };
        let text = |t: &str| (!t.trim().is_empty()).then(|| t.to_string());
        EmailInput {
            to: Some(addresses(&self.to).unwrap_or_default()),
            cc: addresses(&self.cc),
            subject: text(&self.subject),
            message: text(&self.message),
        }
    }
}

#[derive(Template)]
#[template(path = "dashboard/compose.html")]
struct ComposePage {
    c: Chrome,
    action: String,
    back: String,
    attachment: String,
    sends: bool,
    typed: Typed,
    errors: HashMap<String, String>,
}

impl ComposePage {
    fn err(&self, name: &str) -> Option<&String> {
        self.errors.get(name)
    }

    fn value(&self, name: &str) -> &str {
        match name {
            "to" => &self.typed.to,
            "cc" => &self.typed.cc,
            _ => &self.typed.subject,
        }
    }
}

/// `email.to[2]` and `email.cc` name their field; anything else is the form's.
fn field_of(param: &str) -> String {
    let param = param.strip_prefix("email.").unwrap_or(param);
    let name = param.split('[').next().unwrap_or(param);
    match name {
        "to" | "cc" | "subject" | "message" => name.to_string(),
        "email" => "to".into(),
        _ => "form".into(),
    }
}

async fn show(
    me: &Visitor,
    req: &HttpRequest,
    doc: Doc,
    draft: EmailDraft,
    typed: Typed,
    errors: HashMap<String, String>,
) -> Answer {
    let t = super::locale_of(req);
    let title = t.fill("dash.compose.title", &[("attachment", &draft.attachment)]);
    let status = if errors.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    page(
        status,
        ComposePage {
            c: Chrome::new(me, req, doc.nav(), title),
            action: format!("{}/email", doc.screen()),
            back: doc.screen(),
            attachment: draft.attachment,
            sends: draft.sends,
            typed,
            errors,
        },
    )
}

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
            let errors = field_errors(&e, field_of);
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
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `to` and `cc` (addresses separated by commas), `subject`, `message`"),
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
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `to` and `cc` (addresses separated by commas), `subject`, `message`"),
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
