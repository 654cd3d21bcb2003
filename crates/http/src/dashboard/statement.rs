//! A customer's statement from the dashboard: its PDF for the days chosen on the customer's
//! page, or the same statement by email, from one form. The operations are the API's.

use crate::dashboard::form::{without_blanks, Form};
use crate::dashboard::see_other;
use crate::dashboard::{Answer, Posted, Visitor};
use crate::path_id::Id;
use crate::AppState;
use actix_web::{web, HttpRequest};
use invoicing_domain::customer::CustomerId;

/// The statement's own parameters of a form (`from`, `to`, `currency`), as a query.
fn statement_query(form: &Form) -> String {
    let mut q = form_urlencoded::Serializer::new(String::new());
    for name in ["from", "to", "currency"] {
        if let Some(value) = form.text(name) {
            q.append_pair(name, &value);
        }
    }
    q.finish()
}

/// The statement's PDF, as the API renders it.
#[utoipa::path(get, path = "/dashboard/customers/{id}/statement", tag = "dashboard", operation_id = "dashboard_customer_statement",
    params(
        ("id" = String, Path, description = "The customer's id"),
        ("from" = Option<String>, Query, format = Date, description = "First day (default: January 1st of this year)"),
        ("to" = Option<String>, Query, format = Date, description = "Last day (default today)"),
        ("currency" = Option<String>, Query, description = "ISO 4217 code (default: the account's)"),
    ),
    responses(
        (status = 200, description = "The PDF", content_type = "application/pdf", body = Vec<u8>),
        (status = 400, description = "A day or currency the statement refuses", content_type = "text/html", body = String),
        (status = 404, description = "No such customer in this account and environment", content_type = "text/html", body = String),
    ))]
pub(crate) async fn pdf(
    me: Visitor,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: Id<CustomerId>,
) -> Answer {
    let query = without_blanks(req.query_string());
    let doc = me.ops(&state).statement_document(id, &query).await?;
    Ok(crate::pdf::respond(doc).await?)
}

/// The customer card's one period and its two buttons: the statement's PDF (`action=pdf`, as
/// `GET` answers it) or the same statement emailed to the customer (`action=email`, as
/// `POST /api/v1/customers/{id}/statement/email` does).
#[utoipa::path(post, path = "/dashboard/customers/{id}/statement", tag = "dashboard", operation_id = "dashboard_customer_statement_post",
    params(("id" = String, Path, description = "The customer's id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`, `from`, `to`, `currency`, and `action`: `pdf` (the default) or `email`"),
    responses(
        (status = 200, description = "The PDF", content_type = "application/pdf", body = Vec<u8>),
        (status = 303, description = "Emailed (queued): back to the customer", headers(("Location" = String, description = "The customer"))),
        (status = 400, description = "A day or currency the statement refuses", content_type = "text/html", body = String),
        (status = 404, description = "No such customer in this account and environment", content_type = "text/html", body = String),
        (status = 422, description = "Mail is not configured", content_type = "text/html", body = String),
    ))]
pub(crate) async fn post(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    id: Id<CustomerId>,
) -> Answer {
    let query = statement_query(&form);
    let ops = me.ops(&state);
    if form.get("action") == Some("email") {
        let customer = id.get()?.0;
        ops.email_statement(id, &query, None).await?;
        return Ok(see_other(&format!(
            "/dashboard/customers/{customer}?done=statement_emailed"
        )));
    }
    let doc = ops.statement_document(id, &query).await?;
    Ok(crate::pdf::respond(doc).await?)
}
