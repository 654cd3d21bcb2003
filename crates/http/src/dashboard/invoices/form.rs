//! The invoice's form routes, over the document form (`dashboard::document_form`).

use crate::dashboard::document_form::{self, Kind};
use crate::dashboard::respond;
use crate::routes::pages::FormBody;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};

/// The new-invoice form.
#[utoipa::path(get, path = "/dashboard/invoices/new", tag = "dashboard", operation_id = "dashboard_invoice_new",
    params(("customer_id" = Option<String>, Query, description = "The customer to preselect")),
    responses(
        (status = 200, description = "The form", content_type = "text/html", body = String),
        (status = 403, description = "A role that may not create invoices", content_type = "text/html", body = String),
    ))]
pub async fn new_page(state: web::Data<AppState>, req: HttpRequest) -> HttpResponse {
    let answer = document_form::new_page(Kind::Invoice, &state, &req).await;
    respond(&req, answer)
}

/// Creates the invoice (and sends it, with `action=save_send`, or emails it, `save_email`).
#[utoipa::path(post, path = "/dashboard/invoices/new", tag = "dashboard", operation_id = "dashboard_invoice_create",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `customer_id` or `new_name` and `new_email`, `currency`, `payment_terms` or `date` (the due date), `notes`, `line_count` and per line `lines-N-product`, `-description`, `-quantity`, `-unit_price`, `-tax_rate`; `action`: `save`, `save_send`, `save_email`, `add_line` or `remove_line-N`"),
    responses(
        (status = 200, description = "The form again, with a line added or removed", content_type = "text/html", body = String),
        (status = 303, description = "Saved: to the invoice", headers(("Location" = String, description = "The invoice"))),
        (status = 403, description = "Not posted from the dashboard's own page, no valid `csrf`, or a role that may not create invoices", content_type = "text/html", body = String),
        (status = 422, description = "The form again, each refusal beside its field", content_type = "text/html", body = String),
    ))]
pub async fn save_new(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: FormBody,
) -> HttpResponse {
    let answer = document_form::save_new(Kind::Invoice, &state, &req, &body).await;
    respond(&req, answer)
}

/// The form of a draft invoice.
#[utoipa::path(get, path = "/dashboard/invoices/{id}/edit", tag = "dashboard", operation_id = "dashboard_invoice_edit",
    params(("id" = String, Path, description = "The invoice's id")),
    responses(
        (status = 200, description = "The form", content_type = "text/html", body = String),
        (status = 403, description = "A role that may not change invoices", content_type = "text/html", body = String),
        (status = 404, description = "No such invoice in this account and environment", content_type = "text/html", body = String),
        (status = 409, description = "Not a draft any more", content_type = "text/html", body = String),
    ))]
pub async fn edit_page(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> HttpResponse {
    let answer = document_form::edit_page(Kind::Invoice, &state, &req, &id).await;
    respond(&req, answer)
}

/// Saves the draft invoice, as `PATCH` does.
#[utoipa::path(post, path = "/dashboard/invoices/{id}/edit", tag = "dashboard", operation_id = "dashboard_invoice_save",
    params(("id" = String, Path, description = "The invoice's id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "The fields of the new-invoice form (an existing customer only)"),
    responses(
        (status = 200, description = "The form again, with a line added or removed", content_type = "text/html", body = String),
        (status = 303, description = "Saved: to the invoice", headers(("Location" = String, description = "The invoice"))),
        (status = 403, description = "Not posted from the dashboard's own page, no valid `csrf`, or a role that may not change invoices", content_type = "text/html", body = String),
        (status = 404, description = "No such invoice in this account and environment", content_type = "text/html", body = String),
        (status = 409, description = "Not a draft any more", content_type = "text/html", body = String),
        (status = 422, description = "The form again, each refusal beside its field", content_type = "text/html", body = String),
    ))]
pub async fn save_edit(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: FormBody,
) -> HttpResponse {
    let answer = document_form::save_edit(Kind::Invoice, &state, &req, &id, &body).await;
    respond(&req, answer)
}
