//! One customer's screen: the balance per currency, their documents and payments; and deleting
//! a customer who has no documents.

use crate::dashboard::chrome::{Chrome, Nav};
use crate::dashboard::session::Visitor;
use crate::dashboard::views::{date, money, payment_status};
use crate::dashboard::Posted;
use crate::dashboard::{page, see_other, Answer};
use crate::path_id::Id;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::customer::CustomerId;

pub(crate) struct Balance {
    pub currency: &'static str,
    pub outstanding: String,
    pub overdue: String,
}

pub(crate) struct DocRow {
    pub href: String,
    pub number: String,
    pub date: String,
    pub status: &'static str,
    pub status_label: &'static str,
    pub amount: String,
}

#[derive(Template)]
#[template(path = "dashboard/customer.html")]
struct DetailPage {
    c: Chrome,
    id: i64,
    name: String,
    email: String,
    facts: Vec<(&'static str, String)>,
    balances: Vec<Balance>,
    invoices: Vec<DocRow>,
    quotations: Vec<DocRow>,
    payments: Vec<DocRow>,
    /// The statement form's days: this year to today.
    statement_from: String,
    statement_to: String,
    /// Mail is configured: the statement can be emailed.
    mail: bool,
}

/// One customer.
#[utoipa::path(get, path = "/dashboard/customers/{id}", tag = "dashboard", operation_id = "dashboard_customer",
    params(("id" = String, Path, description = "The customer's id")),
    responses(
        (status = 200, description = "The customer", content_type = "text/html", body = String),
        (status = 404, description = "No such customer in this account and environment", content_type = "text/html", body = String),
    ))]
pub(crate) async fn detail(
    me: Visitor,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: Id<CustomerId>,
) -> Answer {
    let ops = me.ops(&state);
    let customer = ops.customer(id).await?;
    let about = format!("customer_id={}&per_page=10", customer.id.0);
    let balances = ops.outstanding(Some(customer.id)).await?;
    let few = ops.without_totals();
    let invoices = few.list_invoices(&about).await?;
    let quotations = few.list_quotations(&about).await?;
    let payments = few.list_payments(&about).await?;
    let c = Chrome::new(&me, &req, Nav::Customers, customer.name.clone());
    let t = c.t;
    let today = ops.today().await?;
    let address = customer
        .address
        .as_ref()
        .map(|a| invoicing_domain::parties::address_lines_in(a, t).join(", "))
        .unwrap_or_default();
    let facts = [
        (
            "dash.field.company",
            customer.company.clone().unwrap_or_default(),
        ),
        (
            "dash.field.phone",
            customer.phone.clone().unwrap_or_default(),
        ),
        (
            "dash.field.tax_id",
            customer.tax_id.clone().unwrap_or_default(),
        ),
        ("dash.field.address", address),
        (
            "dash.field.language",
            customer
                .locale
                .map(|l| l.text("dash.language.name").to_string())
                .unwrap_or_default(),
        ),
    ]
    .into_iter()
    .filter(|(_, v)| !v.is_empty())
    .map(|(k, v)| (t.text(k), v))
    .collect();
    page(
        StatusCode::OK,
        DetailPage {
            id: customer.id.0,
            email: customer.email.as_str().to_string(),
            facts,
            balances: balances
                .into_iter()
                .map(|o| Balance {
                    currency: o.currency.code(),
                    outstanding: money(t, o.outstanding_cents, o.currency),
                    overdue: if o.overdue_cents > 0 {
                        money(t, o.overdue_cents, o.currency)
                    } else {
                        String::new()
                    },
                })
                .collect(),
            invoices: invoices
                .data
                .into_iter()
                .map(|i| DocRow {
                    href: format!("/dashboard/invoices/{}", i.id.0),
                    date: date(t, i.issue_date),
                    status: i.status.as_str(),
                    status_label: t.invoice_status_for_merchant(i.status),
                    amount: money(t, i.total_cents, i.currency),
                    number: i.invoice_number,
                })
                .collect(),
            quotations: quotations
                .data
                .into_iter()
                .map(|q| DocRow {
                    href: format!("/dashboard/quotations/{}", q.id.0),
                    date: date(t, q.issue_date),
                    status: q.status.as_str(),
                    status_label: t.quotation_status_for_merchant(q.status),
                    amount: money(t, q.total_cents, q.currency),
                    number: q.quote_number,
                })
                .collect(),
            payments: payments
                .data
                .into_iter()
                .map(|p| DocRow {
                    href: format!("/dashboard/invoices/{}", p.invoice_id.0),
                    number: p.reference.unwrap_or_default(),
                    date: date(t, p.created_at.date_naive()),
                    status: p.status.as_str(),
                    status_label: payment_status(t, p.status),
                    amount: money(t, p.amount_cents, p.currency),
                })
                .collect(),
            name: customer.name,
            statement_from: format!("{}-01-01", today.format("%Y")),
            statement_to: today.format("%Y-%m-%d").to_string(),
            mail: state.config.mail_enabled,
            c,
        },
    )
}

/// Deletes a customer who has no documents (as the API refuses otherwise).
#[utoipa::path(post, path = "/dashboard/customers/{id}/delete", tag = "dashboard", operation_id = "dashboard_customer_delete",
    params(("id" = String, Path, description = "The customer's id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`"),
    responses(
        (status = 303, description = "Deleted: to the list", headers(("Location" = String, description = "The customers"))),
        (status = 404, description = "No such customer in this account and environment", content_type = "text/html", body = String),
        (status = 409, description = "The customer has documents", content_type = "text/html", body = String),
    ))]
pub(crate) async fn delete(
    Posted { me, .. }: Posted,
    state: web::Data<AppState>,
    id: Id<CustomerId>,
) -> Answer {
    me.ops(&state).delete_customer(id).await?;
    Ok(see_other("/dashboard/customers?done=deleted"))
}
