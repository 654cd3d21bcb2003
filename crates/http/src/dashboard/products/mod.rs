//! Products (SPEC §21): the catalogue's list (active or archived), the form to create or change
//! one (`form.rs`), and archiving or deleting as the API allows. This file holds the list and
//! deleting.

pub mod form;

use crate::dashboard::chrome::{Chrome, Nav};
use crate::dashboard::form::without_blanks;
use crate::dashboard::session::Visitor;
use crate::dashboard::views::Listing;
use crate::dashboard::views::Tab;
use crate::dashboard::views::{money, Pager};
use crate::dashboard::Posted;
use crate::dashboard::{page, see_other, Answer};
use crate::path_id::Id;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::product::ProductId;

pub(crate) struct Row {
    pub id: i64,
    pub name: String,
    pub description: String,
    pub price: String,
    pub tax_rate: String,
    pub active: bool,
}

#[derive(Template)]
#[template(path = "dashboard/products.html")]
struct ListPage {
    c: Chrome,
    tabs: Vec<Tab>,
    rows: Vec<Row>,
    pager: Pager,
}

/// The products, the newest first; `active=true|false` as the API's filter.
#[utoipa::path(get, path = "/dashboard/products", tag = "dashboard", operation_id = "dashboard_products",
    params(
        ("active" = Option<String>, Query, description = "true (on sale) or false (archived)"),
        ("page" = Option<String>, Query, description = "Page number"),
    ),
    responses(
        (status = 200, description = "The list", content_type = "text/html", body = String),
        (status = 400, description = "A filter the API refuses", content_type = "text/html", body = String),
    ))]
pub(crate) async fn list(me: Visitor, state: web::Data<AppState>, req: HttpRequest) -> Answer {
    let query = without_blanks(req.query_string());
    let found = me.ops(&state).list_products(&query).await?;
    let t = crate::dashboard::locale_of(&req);
    let choices = [
        ("true", t.text("dash.product.active")),
        ("false", t.text("dash.product.archived")),
    ];
    let path = "/dashboard/products";
    let Listing { c, tabs, pager } = Listing::new(&me, &req, Nav::Products, path, &query, &found)
        .with_tabs(path, &query, "active", choices.into_iter());
    page(
        StatusCode::OK,
        ListPage {
            tabs,
            rows: found
                .data
                .iter()
                .map(|p| Row {
                    id: p.id.0,
                    name: p.name.clone(),
                    description: p.description.clone().unwrap_or_default(),
                    price: money(t, p.unit_price_cents, p.currency),
                    tax_rate: t.percent(p.tax_rate),
                    active: p.active,
                })
                .collect(),
            pager,
            c,
        },
    )
}

/// Deletes a product no document names (the API refuses otherwise: archive it instead).
#[utoipa::path(post, path = "/dashboard/products/{id}/delete", tag = "dashboard", operation_id = "dashboard_product_delete",
    params(("id" = String, Path, description = "The product's id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`"),
    responses(
        (status = 303, description = "Deleted: to the products", headers(("Location" = String, description = "The products"))),
        (status = 404, description = "No such product in this account and environment", content_type = "text/html", body = String),
        (status = 409, description = "Documents name the product", content_type = "text/html", body = String),
    ))]
pub(crate) async fn delete(
    Posted { me, .. }: Posted,
    state: web::Data<AppState>,
    id: Id<ProductId>,
) -> Answer {
    me.ops(&state).delete_product(id).await?;
    Ok(see_other("/dashboard/products?done=deleted"))
}
