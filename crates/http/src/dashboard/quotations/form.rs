//! The quotation's form routes, over the document form (`dashboard::document_form`).

use crate::dashboard::document_form::{self, Kind};
use crate::dashboard::respond;
use crate::routes::pages::FormBody;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};

/// The new-quotation form.
#[utoipa::path(get, path = "/dashboard/quotations/new", tag = "dashboard", operation_id = "dashboard_quotation_new",
    params(("customer_id" = Option<String>, Query, description = "The customer to preselect")),
    responses(
        (status = 200, description = "The form", content_type = "text/html", body = String),
        (status = 403, description = "A role that may not create quotations", content_type = "text/html", body = String),
    ))]
pub async fn new_page(state: web::Data<AppState>, req: HttpRequest) -> HttpResponse {
    let answer = document_form::new_page(Kind::Quotation, &state, &req).await;
    respond(&req, answer)
}

/// Creates the quotation (and sends it, with `action=save_send`, or emails it, `save_email`).
#[utoipa::path(post, path = "/dashboard/quotations/new", tag = "dashboard", operation_id = "dashboard_quotation_create",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `customer_id` or `new_name` and `new_email`, `currency`, ``date` (valid until), `notes`, `line_count` and per line `lines-N-product`, `-description`, `-quantity`, `-unit_price`, `-tax_rate`; `action`: `save`, `save_send`, `save_email`, `add_line` or `remove_line-N`"),
    responses(
        (status = 200, description = "The form again, with a line added or removed", content_type = "text/html", body = String),
        (status = 303, description = "Saved: to the quotation", headers(("Location" = String, description = "The quotation"))),
        (status = 403, description = "Not posted from the dashboard's own page, no valid `csrf`, or a role that may not create quotations", content_type = "text/html", body = String),
        (status = 422, description = "The form again, each refusal beside its field", content_type = "text/html", body = String),
    ))]
pub async fn save_new(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: FormBody,
) -> HttpResponse {
    let answer = document_form::save_new(Kind::Quotation, &state, &req, &body).await;
    respond(&req, answer)
}

/// The form of a draft quotation.
#[utoipa::path(get, path = "/dashboard/quotations/{id}/edit", tag = "dashboard", operation_id = "dashboard_quotation_edit",
    params(("id" = String, Path, description = "The quotation's id")),
    responses(
        (status = 200, description = "The form", content_type = "text/html", body = String),
        (status = 403, description = "A role that may not change quotations", content_type = "text/html", body = String),
        (status = 404, description = "No such quotation in this account and environment", content_type = "text/html", body = String),
        (status = 409, description = "Not a draft any more", content_type = "text/html", body = String),
    ))]
pub async fn edit_page(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> HttpResponse {
    let answer = document_form::edit_page(Kind::Quotation, &state, &req, &id).await;
    respond(&req, answer)
}

/// Saves the draft quotation, as `PATCH` does.
#[utoipa::path(post, path = "/dashboard/quotations/{id}/edit", tag = "dashboard", operation_id = "dashboard_quotation_save",
    params(("id" = String, Path, description = "The quotation's id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "The fields of the new-quotation form (an existing customer only)"),
    responses(
        (status = 200, description = "The form again, with a line added or removed", content_type = "text/html", body = String),
        (status = 303, description = "Saved: to the quotation", headers(("Location" = String, description = "The quotation"))),
        (status = 403, description = "Not posted from the dashboard's own page, no valid `csrf`, or a role that may not change quotations", content_type = "text/html", body = String),
        (status = 404, description = "No such quotation in this account and environment", content_type = "text/html", body = String),
        (status = 409, description = "Not a draft any more", content_type = "text/html", body = String),
        (status = 422, description = "The form again, each refusal beside its field", content_type = "text/html", body = String),
    ))]
pub async fn save_edit(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: FormBody,
) -> HttpResponse {
    let answer = document_form::save_edit(Kind::Quotation, &state, &req, &id, &body).await;
    respond(&req, answer)
}
