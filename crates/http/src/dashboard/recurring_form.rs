//! The recurring invoice's form routes, over the document form (`dashboard::document_form`).

use crate::dashboard::document_form::{self, Kind};
use crate::dashboard::respond;
use crate::routes::pages::FormBody;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};

/// The form of a new schedule.
#[utoipa::path(get, path = "/dashboard/recurring/new", tag = "dashboard", operation_id = "dashboard_recurring_new",
    params(("customer_id" = Option<String>, Query, description = "The customer to preselect")),
    responses(
        (status = 200, description = "The form", content_type = "text/html", body = String),
        (status = 403, description = "A role that may not create schedules", content_type = "text/html", body = String),
    ))]
pub async fn new_page(state: web::Data<AppState>, req: HttpRequest) -> HttpResponse {
    let answer = document_form::new_page(Kind::Recurring, &state, &req).await;
    respond(&req, answer)
}

/// Creates the schedule.
#[utoipa::path(post, path = "/dashboard/recurring/new", tag = "dashboard", operation_id = "dashboard_recurring_create",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `customer_id` or `new_name` and `new_email`, `currency`, `payment_terms`, `date` (the first issue), `interval`, `interval_count`, `end_date`, `auto_send`, `email`, `notes`, `line_count` and the lines' fields; `action`: `save`, `add_line` or `remove_line-N`"),
    responses(
        (status = 200, description = "The form again, with a line added or removed", content_type = "text/html", body = String),
        (status = 303, description = "Saved: to the schedule", headers(("Location" = String, description = "The schedule"))),
        (status = 403, description = "Not posted from the dashboard's own page, no valid `csrf`, or a role that may not create schedules", content_type = "text/html", body = String),
        (status = 422, description = "The form again, each refusal beside its field", content_type = "text/html", body = String),
    ))]
pub async fn save_new(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: FormBody,
) -> HttpResponse {
    let answer = document_form::save_new(Kind::Recurring, &state, &req, &body).await;
    respond(&req, answer)
}

/// The form of a schedule (its lines, terms, end and sending; not its customer or cadence).
#[utoipa::path(get, path = "/dashboard/recurring/{id}/edit", tag = "dashboard", operation_id = "dashboard_recurring_edit",
    params(("id" = String, Path, description = "The schedule's id")),
    responses(
        (status = 200, description = "The form", content_type = "text/html", body = String),
        (status = 403, description = "A role that may not change schedules", content_type = "text/html", body = String),
        (status = 404, description = "No such schedule in this account and environment", content_type = "text/html", body = String),
        (status = 409, description = "Cancelled or completed", content_type = "text/html", body = String),
    ))]
pub async fn edit_page(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> HttpResponse {
    let answer = document_form::edit_page(Kind::Recurring, &state, &req, &id).await;
    respond(&req, answer)
}

/// Saves the schedule's changes, as `PATCH` does: they apply to the invoices not yet issued.
#[utoipa::path(post, path = "/dashboard/recurring/{id}/edit", tag = "dashboard", operation_id = "dashboard_recurring_save",
    params(("id" = String, Path, description = "The schedule's id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "The fields of the schedule's form"),
    responses(
        (status = 200, description = "The form again, with a line added or removed", content_type = "text/html", body = String),
        (status = 303, description = "Saved: to the schedule", headers(("Location" = String, description = "The schedule"))),
        (status = 403, description = "Not posted from the dashboard's own page, no valid `csrf`, or a role that may not change schedules", content_type = "text/html", body = String),
        (status = 404, description = "No such schedule in this account and environment", content_type = "text/html", body = String),
        (status = 409, description = "Cancelled or completed", content_type = "text/html", body = String),
        (status = 422, description = "The form again, each refusal beside its field", content_type = "text/html", body = String),
    ))]
pub async fn save_edit(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: FormBody,
) -> HttpResponse {
    let answer = document_form::save_edit(Kind::Recurring, &state, &req, &id, &body).await;
    respond(&req, answer)
}
