//! The product form: its fields as typed, its page, and the routes that show it and save it (a
//! new product, or changes to one; unticking "on sale" archives it).

use crate::dashboard::chrome::{Chrome, Nav};
use crate::dashboard::form::{field_errors, is_field_mistake, non_blank, price_minor, Form};
use crate::dashboard::session::Visitor;
use crate::dashboard::Posted;
use crate::dashboard::{page, see_other, Answer};
use crate::error::ApiError;
use crate::path_id::Id;
use crate::AppState;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::currency::Currency;
use invoicing_domain::decimal::DecimalText;
use invoicing_domain::locale::Locale;
use invoicing_domain::money::Money;
use invoicing_domain::product::{Product, ProductId, ProductInput, ProductPatchInput};
use std::collections::HashMap;

#[derive(Default)]
struct Fields {
    name: String,
    description: String,
    price: String,
    currency: String,
    tax_rate: String,
    active: bool,
}

impl Fields {
    /// The product as its form shows it, the price as `t` writes amounts (SPEC §27).
    fn of(p: &Product, t: Locale) -> Fields {
        Fields {
            name: p.name.clone(),
            description: p.description.clone().unwrap_or_default(),
            price: Money::new(p.unit_price_cents)
                .map(|m| t.amount_field(m, p.currency))
                .unwrap_or_default(),
            currency: p.currency.code().to_string(),
            tax_rate: p.tax_rate.to_string(),
            active: p.active,
        }
    }

    fn read(form: &Form) -> Fields {
        Fields {
            name: form.raw("name"),
            description: form.raw("description"),
            price: form.raw("unit_price"),
            currency: form.raw("currency").trim().to_uppercase(),
            tax_rate: form.raw("tax_rate"),
            active: form.checked("active"),
        }
    }

    /// The price in minor units of the currency typed; a mistake is the price field's.
    fn price_cents(&self, t: Locale) -> Result<Option<i64>, ApiError> {
        let Some(price) = non_blank(&self.price) else {
            return Ok(None);
        };
        let Ok(currency) = Currency::parse(&self.currency) else {
            return Ok(None); // the currency's own refusal names the field
        };
        price_minor(&price, currency, t)
            .map(Some)
            .map_err(|m| ApiError::invalid_parameter("unit_price", m))
    }
}

#[derive(Template)]
#[template(path = "dashboard/product_form.html")]
struct FormPage {
    c: Chrome,
    editing: Option<i64>,
    f: Fields,
    errors: HashMap<String, String>,
}

impl FormPage {
    fn err(&self, field: &str) -> Option<&str> {
        self.errors.get(field).map(String::as_str)
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
        t.text("dash.product.new").to_string()
    };
    let status = crate::dashboard::form::status_of(&errors);
    page(
        status,
        FormPage {
            c: Chrome::new(me, req, Nav::Products, title),
            editing,
            f,
            errors,
        },
    )
}

/// The form for a new product.
#[utoipa::path(get, path = "/dashboard/products/new", tag = "dashboard", operation_id = "dashboard_product_new",
    responses(
        (status = 200, description = "The form", content_type = "text/html", body = String),
        (status = 403, description = "A role that may not create products", content_type = "text/html", body = String),
    ))]
pub(crate) async fn new_page(me: Visitor, state: web::Data<AppState>, req: HttpRequest) -> Answer {
    let ops = me.ops(&state);
    ops.caller().require(ApiResource::Products, Access::Write)?;
    let f = Fields {
        currency: ops.default_currency().await?.code().to_string(),
        active: true,
        ..Fields::default()
    };
    show(&me, &req, None, f, HashMap::new())
}

/// Creates the product.
#[utoipa::path(post, path = "/dashboard/products/new", tag = "dashboard", operation_id = "dashboard_product_create",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `name`, `description`, `unit_price` (in the currency, e.g. 12.50), `currency`, `tax_rate`, `active`"),
    responses(
        (status = 303, description = "Saved: to the products", headers(("Location" = String, description = "The products"))),
        (status = 422, description = "The form again, each refusal beside its field", content_type = "text/html", body = String),
    ))]
pub(crate) async fn create(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Answer {
    let f = Fields::read(&form);
    let saved = match f.price_cents(crate::dashboard::locale_of(&req)) {
        Ok(cents) => {
            let input = ProductInput {
                name: non_blank(&f.name),
                description: non_blank(&f.description),
                unit_price_cents: cents,
                currency: non_blank(&f.currency),
                tax_rate: non_blank(&f.tax_rate).map(DecimalText::typed),
                active: Some(f.active),
                metadata: None,
            };
            me.ops(&state).create_product(input).await.map(|_| ())
        }
        Err(e) => Err(e),
    };
    match saved {
        Ok(()) => Ok(see_other("/dashboard/products?done=created")),
        Err(e) if is_field_mistake(&e) => show(&me, &req, None, f, field_errors(&e, &req)),
        Err(e) => Err(e.into()),
    }
}

/// The form to change a product.
#[utoipa::path(get, path = "/dashboard/products/{id}", tag = "dashboard", operation_id = "dashboard_product",
    params(("id" = String, Path, description = "The product's id")),
    responses(
        (status = 200, description = "The product's form", content_type = "text/html", body = String),
        (status = 404, description = "No such product in this account and environment", content_type = "text/html", body = String),
    ))]
pub(crate) async fn edit_page(
    me: Visitor,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: Id<ProductId>,
) -> Answer {
    let product = me.ops(&state).product(id).await?;
    show(
        &me,
        &req,
        Some(product.id.0),
        Fields::of(&product, crate::dashboard::locale_of(&req)),
        HashMap::new(),
    )
}

/// Saves the product's changes, as `PATCH` does (unticking "on sale" archives it).
#[utoipa::path(post, path = "/dashboard/products/{id}", tag = "dashboard", operation_id = "dashboard_product_save",
    params(("id" = String, Path, description = "The product's id")),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "The fields of the new-product form"),
    responses(
        (status = 303, description = "Saved: to the products", headers(("Location" = String, description = "The products"))),
        (status = 404, description = "No such product in this account and environment", content_type = "text/html", body = String),
        (status = 422, description = "The form again, each refusal beside its field", content_type = "text/html", body = String),
    ))]
pub(crate) async fn save(
    Posted { me, form }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: Id<ProductId>,
) -> Answer {
    let f = Fields::read(&form);
    let saved = match f.price_cents(crate::dashboard::locale_of(&req)) {
        Ok(cents) => {
            let input = ProductPatchInput {
                name: Some(non_blank(&f.name)),
                description: Some(non_blank(&f.description)),
                unit_price_cents: Some(cents),
                currency: Some(non_blank(&f.currency)),
                tax_rate: Some(non_blank(&f.tax_rate).map(DecimalText::typed)),
                active: Some(Some(f.active)),
                metadata: None,
            };
            me.ops(&state).update_product(id, input).await.map(|_| ())
        }
        Err(e) => Err(e),
    };
    match saved {
        Ok(()) => Ok(see_other("/dashboard/products?done=saved")),
        Err(e) if is_field_mistake(&e) => show(
            &me,
            &req,
            id.get().ok().map(|p| p.0),
            f,
            field_errors(&e, &req),
        ),
        Err(e) => Err(e.into()),
    }
}
