//! The customer form: its page, and the routes that show it and save it (a new customer, or
//! changes to one).

use super::fields::Fields;
use crate::dashboard::chrome::{Chrome, Nav};
use crate::dashboard::form::{field_errors, is_field_mistake, non_blank};
use crate::dashboard::session::Visitor;
use crate::dashboard::Posted;
use crate::dashboard::{page, see_other, Answer};
use crate::path_id::Id;
use crate::AppState;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::customer::{CustomerId, CustomerInput, CustomerPatchInput};
use invoicing_domain::locale::Locale;
use std::collections::HashMap;

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
                "electronic_address.scheme",
                "dash.settings.eas_scheme",
                &f.eas_scheme,
                "text",
            ),
            (
                "electronic_address.id",
                "dash.settings.eas_id",
                &f.eas_id,
                "text",
            ),
        ]
    }

    fn address_fields(&self) -> Vec<FieldRow<'_>> {
        let f = &self.f;
        vec![
            ("address.line1", "dash.field.line1", &f.line1, "text"),
            ("address.line2", "dash.field.line2", &f.line2, "text"),
            (
                "address.postal_code",
                "dash.field.postal_code",
                &f.postal_code,
                "text",
            ),
            ("address.city", "dash.field.city", &f.city, "text"),
            ("address.state", "dash.field.state", &f.state, "text"),
            ("address.country", "dash.field.country", &f.country, "text"),
        ]
    }
}

fn show(
    me: &Visitor,
    req: &HttpRequest,
    editing: Option<i64>,
    f: Fields,
    errors: HashMap<String, String>,
) -> Answer {
    let t = crate::dashboard::locale_of(req);
    let title = if editing.is_some() {
        f.name.clone()
    } else {
        t.text("dash.customer.new").to_string()
    };
    let status = crate::dashboard::form::status_of(&errors);
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
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf` and the API's fields by their paths: `name`, `email`, `company`, `phone`, `tax_id`, `vat_id`, `electronic_address.scheme`, `electronic_address.id`, `locale`, `address.line1`, `address.line2`, `address.city`, `address.state`, `address.postal_code`, `address.country`"),
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
        Err(e) if is_field_mistake(&e) => show(&me, &req, None, f, field_errors(&e, &req)),
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
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
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
            show(&me, &req, editing, f, field_errors(&e, &req))
        }
        Err(e) => Err(e.into()),
    }
}
