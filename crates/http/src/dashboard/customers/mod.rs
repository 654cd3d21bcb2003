//! Customers (SPEC §21): the list with search, the detail with the balance per currency, their
//! documents and payments (`detail.rs`), and the form to create or change one (`form.rs`, its
//! fields in `fields.rs`). This file holds the list.

pub mod detail;
mod fields;
pub mod form;
pub mod portal;

use crate::dashboard::chrome::{Chrome, Nav};
use crate::dashboard::form::{query_value, without_blanks};
use crate::dashboard::session::Visitor;
use crate::dashboard::views::Listing;
use crate::dashboard::views::Pager;
use crate::dashboard::{page, Answer};
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;

pub(crate) struct Row {
    pub id: i64,
    pub name: String,
    pub company: String,
    pub email: String,
}

#[derive(Template)]
#[template(path = "dashboard/customers.html")]
struct ListPage {
    c: Chrome,
    q: String,
    rows: Vec<Row>,
    pager: Pager,
}

/// The customers, the newest first; `q` searches names and emails.
#[utoipa::path(get, path = "/dashboard/customers", tag = "dashboard", operation_id = "dashboard_customers",
    params(
        ("q" = Option<String>, Query, description = "Name or email contains"),
        ("page" = Option<String>, Query, description = "Page number"),
    ),
    responses(
        (status = 200, description = "The list", content_type = "text/html", body = String),
        (status = 400, description = "A filter the API refuses", content_type = "text/html", body = String),
    ))]
pub(crate) async fn list(me: Visitor, state: web::Data<AppState>, req: HttpRequest) -> Answer {
    let query = without_blanks(req.query_string());
    let ops = me.ops(&state);
    let found = if query_value(&query, "q").is_empty() {
        ops.list_customers(&query).await?
    } else {
        ops.without_totals().list_customers(&query).await?
    };
    let path = "/dashboard/customers";
    let Listing { c, pager, .. } = Listing::new(&me, &req, Nav::Customers, path, &query, &found);
    page(
        StatusCode::OK,
        ListPage {
            q: query_value(&query, "q"),
            rows: found
                .data
                .iter()
                .map(|c| Row {
                    id: c.id.0,
                    name: c.name.clone(),
                    company: c.company.clone().unwrap_or_default(),
                    email: c.email.as_str().to_string(),
                })
                .collect(),
            pager,
            c,
        },
    )
}
