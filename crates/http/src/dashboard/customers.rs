//! Customers (SPEC §21): the list with search, the detail with the balance per currency, their
//! documents and payments, and the form to create or change one.

use super::chrome::{Chrome, Nav};
use super::form::{field_errors, is_field_mistake, non_blank, query_value, without_blanks, Form};
use super::session::Visitor;
use super::views::Listing;
use super::views::{date, money, payment_status, Pager};
use super::{page, see_other, Answer};
use crate::dashboard::Posted;
use crate::path_id::Id;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::customer::{
    AddressInput, Customer, CustomerId, CustomerInput, CustomerPatchInput,
};
use invoicing_domain::einvoice::ElectronicAddressInput;
use invoicing_domain::locale::Locale;
use std::collections::HashMap;

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

/// The form's fields, as typed.
#[derive(Default)]
struct Fields {
    name: String,
    email: String,
    company: String,
    phone: String,
    tax_id: String,
    vat_id: String,
    eas_scheme: String,
    eas_id: String,
    locale: String,
    line1: String,
    line2: String,
    city: String,
    state: String,
    postal_code: String,
    country: String,
}

impl Fields {
    fn read(form: &Form) -> Fields {
        Fields {
            name: form.raw("name"),
            email: form.raw("email"),
            company: form.raw("company"),
            phone: form.raw("phone"),
            tax_id: form.raw("tax_id"),
            vat_id: form.raw("vat_id"),
            eas_scheme: form.raw("eas_scheme"),
            eas_id: form.raw("eas_id"),
            locale: form.raw("locale"),
            line1: form.raw("line1"),
            line2: form.raw("line2"),
            city: form.raw("city"),
            state: form.raw("state"),
            postal_code: form.raw("postal_code"),
            country: form.raw("country"),
        }
    }

    fn of(c: &Customer) -> Fields {
        let a = c.address.clone().unwrap_or_default();
        Fields {
            name: c.name.clone(),
            email: c.email.as_str().to_string(),
            company: c.company.clone().unwrap_or_default(),
            phone: c.phone.clone().unwrap_or_default(),
            tax_id: c.tax_id.clone().unwrap_or_default(),
            vat_id: c
                .vat_id
                .as_ref()
                .map(|v| v.as_str().to_string())
                .unwrap_or_default(),
            eas_scheme: c
                .electronic_address
                .as_ref()
                .map(|a| a.scheme.clone())
                .unwrap_or_default(),
            eas_id: c
                .electronic_address
                .as_ref()
                .map(|a| a.id.clone())
                .unwrap_or_default(),
            locale: c.locale.map(|l| l.code().to_string()).unwrap_or_default(),
            line1: a.line1.unwrap_or_default(),
            line2: a.line2.unwrap_or_default(),
            city: a.city.unwrap_or_default(),
            state: a.state.unwrap_or_default(),
            postal_code: a.postal_code.unwrap_or_default(),
            country: a.country.unwrap_or_default(),
        }
    }

    /// Where the customer receives e-invoices; both parts blank is none.
    fn electronic_address(&self) -> Option<ElectronicAddressInput> {
        let a = ElectronicAddressInput {
            scheme: non_blank(&self.eas_scheme),
            id: non_blank(&self.eas_id),
        };
        (a.scheme.is_some() || a.id.is_some()).then_some(a)
    }

    fn address(&self) -> Option<AddressInput> {
        let a = AddressInput {
            line1: non_blank(&self.line1),
            line2: non_blank(&self.line2),
            city: non_blank(&self.city),
            state: non_blank(&self.state),
            postal_code: non_blank(&self.postal_code),
            country: non_blank(&self.country),
        };
        let empty = [
            &a.line1,
            &a.line2,
            &a.city,
            &a.state,
            &a.postal_code,
            &a.country,
        ]
        .iter()
        .all(|v| v.is_none());
        (!empty).then_some(a)
    }
}

#[derive(Template)]
#[template(path = "dashboard/customer_form.html")]
struct FormPage {
    c: Chrome,
    editing: Option<i64>,
    f: Fields,
    locales: Vec<(&'static str, &'static str)>,
    errors: HashMap<String, String>,
}

/// A field of the form: its name, label key, value as typed, and input type.
type FieldRow<'a> = (&'static str, &'static str, &'a str, &'static str);

impl FormPage {
    fn err(&self, field: &str) -> Option<&str> {
        self.errors.get(field).map(String::as_str)
    }

    fn contact_fields(&self) -> Vec<FieldRow<'_>> {
        let f = &self.f;
        vec![
            ("name", "dash.field.name", &f.name, "text"),
            ("email", "dash.field.email", &f.email, "email"),
            ("company", "dash.field.company", &f.company, "text"),
            ("phone", "dash.field.phone", &f.phone, "tel"),
            ("tax_id", "dash.field.tax_id", &f.tax_id, "text"),
            ("vat_id", "dash.settings.vat_id", &f.vat_id, "text"),
            (
                "eas_scheme",
                "dash.settings.eas_scheme",
                &f.eas_scheme,
                "text",
            ),
            ("eas_id", "dash.settings.eas_id", &f.eas_id, "text"),
        ]
    }

    fn address_fields(&self) -> Vec<FieldRow<'_>> {
        let f = &self.f;
        vec![
            ("line1", "dash.field.line1", &f.line1, "text"),
            ("line2", "dash.field.line2", &f.line2, "text"),
            (
                "postal_code",
                "dash.field.postal_code",
                &f.postal_code,
                "text",
            ),
            ("city", "dash.field.city", &f.city, "text"),
            ("state", "dash.field.state", &f.state, "text"),
            ("country", "dash.field.country", &f.country, "text"),
        ]
    }
}

fn field_of(param: &str) -> String {
    match param {
        "electronic_address.scheme" => "eas_scheme".to_string(),
        "electronic_address.id" => "eas_id".to_string(),
        other => other.strip_prefix("address.").unwrap_or(other).to_string(),
    }
}

fn show(
    me: &Visitor,
    req: &HttpRequest,
    editing: Option<i64>,
    f: Fields,
    errors: HashMap<String, String>,
) -> Answer {
    let t = super::locale_of(req);
    let title = if editing.is_some() {
        f.name.clone()
    } else {
        t.text("dash.customer.new").to_string()
    };
    let status = if errors.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    page(
        status,
        FormPage {
            c: Chrome::new(me, req, Nav::Customers, title),
            editing,
            f,
            locales: Locale::all()
                .map(|l| (l.code(), l.text("dash.language.name")))
                .collect(),
            errors,
        },
    )
}

/// The form for a new customer.
#[utoipa::path(get, path = "/dashboard/customers/new", tag = "dashboard", operation_id = "dashboard_customer_new",
    responses(
        (status = 200, description = "The form", content_type = "text/html", body = String),
        (status = 403, description = "A role that may not create customers", content_type = "text/html", body = String),
    ))]
pub(crate) async fn new_page(me: Visitor, state: web::Data<AppState>, req: HttpRequest) -> Answer {
    me.ops(&state).caller().require(
        invoicing_domain::api_key::ApiResource::Customers,
        invoicing_domain::api_key::Access::Write,
    )?;
    show(&me, &req, None, Fields::default(), HashMap::new())
}

/// Creates the customer (or finds the one with that email, as the API does).
#[utoipa::path(post, path = "/dashboard/customers/new", tag = "dashboard", operation_id = "dashboard_customer_create",
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `name`, `email`, `company`, `phone`, `tax_id`, `vat_id`, `eas_scheme`, `eas_id`, `locale`, `line1`, `line2`, `city`, `state`, `postal_code`, `country`"),
    responses(
        (status = 303, description = "Saved: to the customer", headers(("Location" = String, description = "The customer"))),
        (status = 422, description = "The form again, each refusal beside its field", content_type = "text/html", body = String),
    ))]
pub(crate) async fn create(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Answer {
    let f = Fields::read(&form);
    let input = CustomerInput {
        name: non_blank(&f.name),
        email: non_blank(&f.email),
        phone: non_blank(&f.phone),
        company: non_blank(&f.company),
        address: f.address(),
        locale: non_blank(&f.locale),
        tax_id: non_blank(&f.tax_id),
        vat_id: non_blank(&f.vat_id),
        electronic_address: f.electronic_address(),
        metadata: None,
    };
    match me.ops(&state).create_customer(input).await {
        Ok(created) => Ok(see_other(&format!(
            "/dashboard/customers/{}?done=saved",
            created.into_inner().id.0
        ))),
        Err(e) if is_field_mistake(&e) => show(&me, &req, None, f, field_errors(&e, field_of)),
        Err(e) => Err(e.into()),
    }
}

/// The form to change a customer.
#[utoipa::path(get, path = "/dashboard/customers/{id}/edit", tag = "dashboard", operation_id = "dashboard_customer_edit",
    params(("id" = String, Path, description = "The customer's id")),
    responses(
        (status = 200, description = "The form", content_type = "text/html", body = String),
        (status = 403, description = "A role that may not change customers", content_type = "text/html", body = String),
        (status = 404, description = "No such customer in this account and environment", content_type = "text/html", body = String),
    ))]
pub(crate) async fn edit_page(
    me: Visitor,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: Id<CustomerId>,
) -> Answer {
    let ops = me.ops(&state);
    ops.caller().require(
        invoicing_domain::api_key::ApiResource::Customers,
        invoicing_domain::api_key::Access::Write,
    )?;
    let customer = ops.customer(id).await?;
    show(
        &me,
        &req,
        Some(customer.id.0),
        Fields::of(&customer),
        HashMap::new(),
    )
}

/// Saves the changes, as `PATCH` does (a blank optional field is cleared).
#[utoipa::path(post, path = "/dashboard/customers/{id}/edit", tag = "dashboard", operation_id = "dashboard_customer_save",
    params(("id" = String, Path, description = "The customer's id")),
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "The fields of the new-customer form"),
    responses(
        (status = 303, description = "Saved: to the customer", headers(("Location" = String, description = "The customer"))),
        (status = 404, description = "No such customer in this account and environment", content_type = "text/html", body = String),
        (status = 409, description = "Another customer has that email", content_type = "text/html", body = String),
        (status = 422, description = "The form again, each refusal beside its field", content_type = "text/html", body = String),
    ))]
pub(crate) async fn save(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: Id<CustomerId>,
) -> Answer {
    let f = Fields::read(&form);
    let input = CustomerPatchInput {
        name: Some(non_blank(&f.name)),
        email: Some(non_blank(&f.email)),
        phone: Some(non_blank(&f.phone)),
        company: Some(non_blank(&f.company)),
        address: Some(f.address()),
        locale: Some(non_blank(&f.locale)),
        tax_id: Some(non_blank(&f.tax_id)),
        vat_id: Some(non_blank(&f.vat_id)),
        electronic_address: Some(f.electronic_address()),
        metadata: None,
    };
    match me.ops(&state).update_customer(id, input).await {
        Ok(c) => Ok(see_other(&format!(
            "/dashboard/customers/{}?done=saved",
            c.id.0
        ))),
        Err(e) if is_field_mistake(&e) => {
            let editing = id.get().ok().map(|c| c.0);
            show(&me, &req, editing, f, field_errors(&e, field_of))
        }
        Err(e) => Err(e.into()),
    }
}

/// Deletes a customer who has no documents (as the API refuses otherwise).
#[utoipa::path(post, path = "/dashboard/customers/{id}/delete", tag = "dashboard", operation_id = "dashboard_customer_delete",
    params(("id" = String, Path, description = "The customer's id")),
    request_body(content = super::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`"),
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
