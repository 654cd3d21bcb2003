//! The new-invoice and edit-draft forms (SPEC §21): pick or create the customer, pick products
//! or type lines, add and remove lines without JavaScript (a button that shows the form again
//! with one more line, or one fewer), terms or a due date, notes; Save draft, or Save and send.
//! Every rule is the operations': their refusals come back beside the fields they name, with
//! what was typed kept.

use crate::dashboard::chrome::{Chrome, Nav};
use crate::dashboard::form::Form;
use crate::dashboard::session::{check_post, visitor, Visitor};
use crate::dashboard::{page, respond, see_other, Answer};
use crate::error::ApiError;
use crate::ops::Ops;
use crate::path_id::Id;
use crate::routes::pages::FormBody;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerInput;
use invoicing_domain::document_lines::LineItemInput;
use invoicing_domain::invoice::{Invoice, InvoiceId, InvoiceInput, InvoicePatchInput};
use invoicing_domain::payment_amount::MajorAmount;
use serde_json::Value;
use std::collections::HashMap;

/// More lines than this are typed through the API.
const MAX_LINES: usize = 100;
const TERMS: &[&str] = &["due_on_receipt", "net_7", "net_14", "net_30", "net_60"];

pub(crate) struct LineField {
    pub index: usize,
    pub product: String,
    pub description: String,
    pub quantity: String,
    pub unit_price: String,
    pub tax_rate: String,
}

#[derive(Template)]
#[template(path = "dashboard/invoice_form.html")]
struct FormPage {
    c: Chrome,
    /// The draft being edited; `None` for a new invoice.
    editing: Option<(i64, String)>,
    customers: Vec<(i64, String)>,
    products: Vec<(i64, String)>,
    customer_id: String,
    new_name: String,
    new_email: String,
    currency: String,
    terms: Vec<(&'static str, &'static str)>,
    payment_terms: String,
    due_date: String,
    notes: String,
    lines: Vec<LineField>,
    errors: HashMap<String, String>,
    mail: bool,
}

impl FormPage {
    /// The refusal beside `field`, if any.
    fn err(&self, field: &str) -> Option<&str> {
        self.errors.get(field).map(String::as_str)
    }

    fn line_err(&self, index: &usize, name: &str) -> Option<&str> {
        self.err(&format!("lines-{index}-{name}"))
    }
}

/// What the form holds, as typed.
struct Typed {
    customer_id: String,
    new_name: String,
    new_email: String,
    currency: String,
    payment_terms: String,
    due_date: String,
    notes: String,
    lines: Vec<LineField>,
}

impl Typed {
    fn blank(currency: Currency) -> Typed {
        Typed {
            customer_id: String::new(),
            new_name: String::new(),
            new_email: String::new(),
            currency: currency.code().to_string(),
            payment_terms: "net_30".into(),
            due_date: String::new(),
            notes: String::new(),
            lines: vec![blank_line(0)],
        }
    }

    fn of(inv: &Invoice) -> Typed {
        let cur = inv.currency;
        Typed {
            customer_id: inv.customer_id.0.to_string(),
            new_name: String::new(),
            new_email: String::new(),
            currency: cur.code().to_string(),
            payment_terms: String::new(),
            due_date: inv.due_date.to_string(),
            notes: inv.notes.clone().unwrap_or_default(),
            lines: inv
                .line_items
                .iter()
                .enumerate()
                .map(|(index, l)| LineField {
                    index,
                    product: l.product_id.map(|p| p.to_string()).unwrap_or_default(),
                    description: l.description.clone(),
                    quantity: l.quantity.to_string(),
                    unit_price: invoicing_domain::money::Money::new(l.unit_price_cents)
                        .map(|m| MajorAmount::format(m, cur))
                        .unwrap_or_default(),
                    tax_rate: l.tax_rate.to_string(),
                })
                .collect(),
        }
    }

    fn read(form: &Form) -> Typed {
        let count = form
            .get("line_count")
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(1)
            .min(MAX_LINES);
        let lines = (0..count)
            .map(|i| LineField {
                index: i,
                product: form.raw(&format!("lines-{i}-product")),
                description: form.raw(&format!("lines-{i}-description")),
                quantity: form.raw(&format!("lines-{i}-quantity")),
                unit_price: form.raw(&format!("lines-{i}-unit_price")),
                tax_rate: form.raw(&format!("lines-{i}-tax_rate")),
            })
            .collect();
        Typed {
            customer_id: form.raw("customer_id"),
            new_name: form.raw("new_name"),
            new_email: form.raw("new_email"),
            currency: form.raw("currency").trim().to_uppercase(),
            payment_terms: form.raw("payment_terms"),
            due_date: form.raw("due_date"),
            notes: form.raw("notes"),
            lines,
        }
    }

    /// The lines as the API takes them; a price that is no amount of the currency is refused
    /// here, beside its field, in the words the payment form uses.
    fn line_inputs(&self, errors: &mut HashMap<String, String>) -> Vec<LineItemInput> {
        let currency = Currency::parse(&self.currency).ok();
        self.lines
            .iter()
            .filter(|l| !is_blank(l))
            .map(|l| {
                let i = l.index;
                let text = |s: &str| Some(s.trim()).filter(|s| !s.is_empty()).map(str::to_string);
                let unit_price_cents = match (text(&l.unit_price), currency) {
                    (None, _) | (_, None) => None,
                    (Some(p), Some(cur)) => match price_minor(&p, cur) {
                        Ok(cents) => Some(cents),
                        Err(message) => {
                            errors.insert(format!("lines-{i}-unit_price"), message);
                            None
                        }
                    },
                };
                LineItemInput {
                    description: text(&l.description),
                    quantity: text(&l.quantity).map(Value::String),
                    unit_price_cents,
                    tax_rate: text(&l.tax_rate).map(Value::String),
                    product_id: text(&l.product).and_then(|p| p.parse().ok()),
                }
            })
            .collect()
    }
}

fn blank_line(index: usize) -> LineField {
    LineField {
        index,
        product: String::new(),
        description: String::new(),
        quantity: "1".into(),
        unit_price: String::new(),
        tax_rate: String::new(),
    }
}

fn is_blank(l: &LineField) -> bool {
    l.product.trim().is_empty() && l.description.trim().is_empty() && l.unit_price.trim().is_empty()
}

/// A unit price as typed (`12.50`, `-5`, `0`) in minor units of `currency`.
fn price_minor(text: &str, currency: Currency) -> Result<i64, String> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    if digits.trim_start_matches(['0', '.', ',']).is_empty() && !digits.is_empty() {
        return Ok(0);
    }
    let minor = MajorAmount::parse(digits)
        .and_then(|a| a.to_minor(currency))
        .map_err(|e| e.to_string())?
        .minor();
    Ok(if negative { -minor } else { minor })
}

/// Where the API's field names point in this form.
fn field_of(param: &str) -> String {
    if let Some(rest) = param.strip_prefix("line_items[") {
        if let Some((index, field)) = rest.split_once("].") {
            let field = match field {
                "unit_price_cents" => "unit_price",
                "product_id" => "product",
                other => other,
            };
            return format!("lines-{index}-{field}");
        }
        return "lines".into();
    }
    match param {
        "customer.name" => "new_name".into(),
        "customer.email" => "new_email".into(),
        "customer" => "customer_id".into(),
        "line_items" => "lines".into(),
        other => other.into(),
    }
}

/// The operations' refusal, beside the fields it names (the rest at the top).
fn errors_of(e: &ApiError) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for d in &e.details {
        out.entry(field_of(&d.param))
            .or_insert_with(|| d.message.clone());
    }
    if out.is_empty() {
        let at = e
            .param
            .as_deref()
            .map(field_of)
            .unwrap_or_else(|| "form".into());
        out.insert(at, e.message.clone());
    }
    out
}

async fn show(
    state: &AppState,
    req: &HttpRequest,
    me: &Visitor,
    ops: &Ops,
    editing: Option<(i64, String)>,
    typed: Typed,
    errors: HashMap<String, String>,
) -> Answer {
    let customers = ops.list_customers("per_page=100").await?;
    let products = ops.list_products("per_page=100&active=true").await?;
    let title = match &editing {
        Some((_, number)) => number.clone(),
        None => crate::dashboard::locale_of(req)
            .text("dash.invoice.new")
            .to_string(),
    };
    let c = Chrome::new(me, req, Nav::Invoices, title);
    let t = c.t;
    let status = if errors.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    page(
        status,
        FormPage {
            editing,
            customers: customers
                .data
                .into_iter()
                .map(|c| (c.id.0, format!("{} <{}>", c.name, c.email.as_str())))
                .collect(),
            products: products
                .data
                .into_iter()
                .map(|p| (p.id.0, p.name))
                .collect(),
            customer_id: typed.customer_id,
            new_name: typed.new_name,
            new_email: typed.new_email,
            currency: typed.currency,
            terms: TERMS.iter().map(|k| (*k, t.text(term_key(k)))).collect(),
            payment_terms: typed.payment_terms,
            due_date: typed.due_date,
            notes: typed.notes,
            lines: typed.lines,
            errors,
            mail: state.config.mail_enabled,
            c,
        },
    )
}

fn term_key(term: &str) -> &'static str {
    match term {
        "due_on_receipt" => "dash.terms.due_on_receipt",
        "net_7" => "dash.terms.net_7",
        "net_14" => "dash.terms.net_14",
        "net_60" => "dash.terms.net_60",
        _ => "dash.terms.net_30",
    }
}

/// The new-invoice form.
#[utoipa::path(get, path = "/dashboard/invoices/new", tag = "dashboard", operation_id = "dashboard_invoice_new",
    params(("customer_id" = Option<String>, Query, description = "The customer to preselect")),
    responses(
        (status = 200, description = "The form", content_type = "text/html", body = String),
        (status = 303, description = "Not signed in: to the sign-in page", headers(("Location" = String, description = "The sign-in page"))),
        (status = 403, description = "A role that may not create invoices", content_type = "text/html", body = String),
    ))]
pub async fn new_page(state: web::Data<AppState>, req: HttpRequest) -> HttpResponse {
    let answer = async {
        let me = visitor(&state, &req).await?;
        let ops = me.ops(&state);
        ops.caller()
            .require_document_write(invoicing_domain::api_key::ApiResource::Invoices, false)?;
        let mut typed = Typed::blank(ops.default_currency().await?);
        typed.customer_id = crate::dashboard::form::query_value(req.query_string(), "customer_id");
        show(&state, &req, &me, &ops, None, typed, HashMap::new()).await
    }
    .await;
    respond(&req, answer)
}

/// Adds or removes a line (the form again), or builds what to save; `None` means "show again".
fn edit_lines(form: &Form, typed: &mut Typed) -> bool {
    match form.get("action").unwrap_or("save") {
        "add_line" => {
            if typed.lines.len() < MAX_LINES {
                typed.lines.push(blank_line(typed.lines.len()));
            }
            true
        }
        a if a.starts_with("remove_line-") => {
            if let Some(i) = a["remove_line-".len()..].parse::<usize>().ok() {
                if i < typed.lines.len() && typed.lines.len() > 1 {
                    typed.lines.remove(i);
                }
            }
            for (i, l) in typed.lines.iter_mut().enumerate() {
                l.index = i;
            }
            true
        }
        _ => false,
    }
}

/// Creates the invoice (and sends it, with `action=save_send`).
#[utoipa::path(post, path = "/dashboard/invoices/new", tag = "dashboard", operation_id = "dashboard_invoice_create",
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
        description = "`csrf`, `customer_id` or `new_name` and `new_email`, `currency`, `payment_terms` or `due_date`, `notes`, `line_count` and per line `lines-N-product`, `-description`, `-quantity`, `-unit_price`, `-tax_rate`; `action`: `save`, `save_send`, `save_email`, `add_line` or `remove_line-N`"),
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
    let answer = async {
        let me = visitor(&state, &req).await?;
        let form = Form::read(&req, &body)?;
        check_post(&me, &req, &form)?;
        let ops = me.ops(&state);
        let mut typed = Typed::read(&form);
        if edit_lines(&form, &mut typed) {
            return show(&state, &req, &me, &ops, None, typed, HashMap::new()).await;
        }
        let mut errors = HashMap::new();
        let line_items = typed.line_inputs(&mut errors);
        let text = |s: &str| Some(s.trim()).filter(|s| !s.is_empty()).map(str::to_string);
        let customer_id = match form.id("customer_id") {
            Ok(id) => id,
            Err(e) => {
                errors.extend(errors_of(&e));
                None
            }
        };
        let customer = (customer_id.is_none()).then(|| CustomerInput {
            name: text(&typed.new_name),
            email: text(&typed.new_email),
            ..CustomerInput::default()
        });
        let input = InvoiceInput {
            customer_id,
            customer,
            currency: text(&typed.currency),
            issue_date: None,
            due_date: text(&typed.due_date),
            payment_terms: if typed.due_date.trim().is_empty() {
                text(&typed.payment_terms)
            } else {
                None
            },
            line_items: Some(line_items),
            notes: text(&typed.notes),
            metadata: None,
            reminders: None,
        };
        if !errors.is_empty() {
            return show(&state, &req, &me, &ops, None, typed, errors).await;
        }
        let invoice = match ops.create_invoice(input).await {
            Ok(inv) => inv,
            Err(e) if e.status.is_client_error() && e.status != StatusCode::FORBIDDEN => {
                return show(&state, &req, &me, &ops, None, typed, errors_of(&e)).await
            }
            Err(e) => return Err(e.into()),
        };
        let id = Id::<InvoiceId>::parse(&invoice.id.0.to_string());
        let done = match form.get("action") {
            Some("save_send") => {
                ops.send_invoice(id, None).await?;
                "sent"
            }
            Some("save_email") => {
                ops.send_invoice(id, Some(Default::default())).await?;
                "emailed"
            }
            _ => "created",
        };
        Ok(see_other(&format!(
            "/dashboard/invoices/{}?done={done}",
            invoice.id.0
        )))
    }
    .await;
    respond(&req, answer)
}

/// The form of a draft.
#[utoipa::path(get, path = "/dashboard/invoices/{id}/edit", tag = "dashboard", operation_id = "dashboard_invoice_edit",
    params(("id" = String, Path, description = "The invoice's id")),
    responses(
        (status = 200, description = "The form", content_type = "text/html", body = String),
        (status = 303, description = "Not signed in: to the sign-in page", headers(("Location" = String, description = "The sign-in page"))),
        (status = 403, description = "A role that may not change invoices", content_type = "text/html", body = String),
        (status = 404, description = "No such invoice in this account and environment", content_type = "text/html", body = String),
        (status = 409, description = "Not a draft any more", content_type = "text/html", body = String),
    ))]
pub async fn edit_page(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: Id<InvoiceId>,
) -> HttpResponse {
    let answer = async {
        let me = visitor(&state, &req).await?;
        let ops = me.ops(&state);
        ops.caller().require(
            invoicing_domain::api_key::ApiResource::Invoices,
            invoicing_domain::api_key::Access::Write,
        )?;
        let inv = ops.invoice(id).await?;
        if inv.status != invoicing_domain::invoice_status::InvoiceStatus::Draft {
            return Err(ApiError::invalid_state_transition("Only a draft can be edited").into());
        }
        let editing = Some((inv.id.0, inv.invoice_number.clone()));
        show(
            &state,
            &req,
            &me,
            &ops,
            editing,
            Typed::of(&inv),
            HashMap::new(),
        )
        .await
    }
    .await;
    respond(&req, answer)
}

/// Saves the draft (lines, customer, currency, due date, notes), as `PATCH` does.
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
    id: Id<InvoiceId>,
    body: FormBody,
) -> HttpResponse {
    let answer = async {
        let me = visitor(&state, &req).await?;
        let form = Form::read(&req, &body)?;
        check_post(&me, &req, &form)?;
        let ops = me.ops(&state);
        let inv = ops.invoice(id).await?;
        let editing = Some((inv.id.0, inv.invoice_number.clone()));
        let mut typed = Typed::read(&form);
        if edit_lines(&form, &mut typed) {
            return show(&state, &req, &me, &ops, editing, typed, HashMap::new()).await;
        }
        let mut errors = HashMap::new();
        let line_items = typed.line_inputs(&mut errors);
        let text = |s: &str| Some(s.trim()).filter(|s| !s.is_empty()).map(str::to_string);
        let customer_id = form.id("customer_id").unwrap_or_else(|e| {
            errors.extend(errors_of(&e));
            None
        });
        if !errors.is_empty() {
            return show(&state, &req, &me, &ops, editing, typed, errors).await;
        }
        let input = InvoicePatchInput {
            line_items: Some(Some(line_items)),
            customer_id: customer_id.map(Some),
            currency: text(&typed.currency).map(Some),
            due_date: text(&typed.due_date).map(Some),
            notes: Some(text(&typed.notes)),
            ..InvoicePatchInput::default()
        };
        let saved = match input.parse() {
            Ok(patch) => ops.update_invoice(id, patch).await,
            Err(v) => Err(ApiError::from(v)),
        };
        match saved {
            Ok(_) => Ok(see_other(&format!(
                "/dashboard/invoices/{}?done=saved",
                inv.id.0
            ))),
            Err(e)
                if e.status.is_client_error()
                    && e.status != StatusCode::FORBIDDEN
                    && e.status != StatusCode::CONFLICT =>
            {
                show(&state, &req, &me, &ops, editing, typed, errors_of(&e)).await
            }
            Err(e) => Err(e.into()),
        }
    }
    .await;
    respond(&req, answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_are_read_in_the_currencys_exponent() {
        let eur = Currency::parse("EUR").unwrap();
        let jpy = Currency::parse("JPY").unwrap();
        assert_eq!(price_minor("12.50", eur), Ok(1250));
        assert_eq!(price_minor("12,5", eur), Ok(1250));
        assert_eq!(price_minor("-5", eur), Ok(-500));
        assert_eq!(price_minor("0", eur), Ok(0));
        assert_eq!(price_minor("0.00", eur), Ok(0));
        assert_eq!(price_minor("1500", jpy), Ok(1500));
        assert!(price_minor("1.5", jpy).is_err());
        assert!(price_minor("abc", eur).is_err());
        assert!(price_minor("", eur).is_err());
    }

    #[test]
    fn the_apis_fields_point_at_the_forms() {
        assert_eq!(
            field_of("line_items[2].unit_price_cents"),
            "lines-2-unit_price"
        );
        assert_eq!(field_of("line_items[0].description"), "lines-0-description");
        assert_eq!(field_of("customer.email"), "new_email");
        assert_eq!(field_of("due_date"), "due_date");
    }
}
