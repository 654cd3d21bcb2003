//! The form of a new document and of a draft, for invoices and quotations alike (SPEC §21): pick
//! or create the customer, pick products or type lines, add and remove lines without JavaScript
//! (a button that shows the form again with one more line, or one fewer), terms or a due date
//! (an invoice) or a validity date (a quotation), notes; Save draft, or Save and send. Every rule
//! is the operations': their refusals come back beside the fields they name, with what was typed
//! kept. The routes of each kind are thin handlers over the functions here.

use crate::dashboard::chrome::{Chrome, Nav};
use crate::dashboard::form::{field_errors, is_field_mistake, non_blank, price_minor, Form};
use crate::dashboard::session::Visitor;
use crate::dashboard::Posted;
use crate::dashboard::{page, see_other, Answer};
use crate::error::ApiError;
use crate::ops::Ops;
use crate::path_id::Id;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::HttpRequest;
use askama::Template;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerInput;
use invoicing_domain::document_lines::{LineItemInput, LineItemView};
use invoicing_domain::invoice::{Invoice, InvoiceId, InvoiceInput, InvoicePatchInput};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::locale::Locale;
use invoicing_domain::money::Money;
use invoicing_domain::quotation::{Quotation, QuotationId, QuotationInput, QuotationPatchInput};
use invoicing_domain::quotation_status::QuotationStatus;
use invoicing_domain::recurring::{
    RecurringId, RecurringInput, RecurringInvoice, RecurringPatchInput, RecurringStatus,
};
use invoicing_domain::supply::ServicePeriodInput;
use serde_json::Value;
use std::collections::HashMap;

/// More lines than this are typed through the API.
const MAX_LINES: usize = 100;
const TERMS: &[&str] = &["due_on_receipt", "net_7", "net_14", "net_30", "net_60"];

/// Which document the form makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Invoice,
    Quotation,
    /// A recurring invoice's schedule (SPEC §20): its lines, cadence and terms.
    Recurring,
}

impl Kind {
    /// Where its screens live.
    pub fn base(self) -> &'static str {
        match self {
            Kind::Invoice => "/dashboard/invoices",
            Kind::Quotation => "/dashboard/quotations",
            Kind::Recurring => "/dashboard/recurring",
        }
    }

    fn nav(self) -> Nav {
        match self {
            Kind::Invoice => Nav::Invoices,
            Kind::Quotation => Nav::Quotations,
            Kind::Recurring => Nav::Recurring,
        }
    }

    fn resource(self) -> ApiResource {
        match self {
            Kind::Invoice => ApiResource::Invoices,
            Kind::Quotation => ApiResource::Quotations,
            Kind::Recurring => ApiResource::RecurringInvoices,
        }
    }

    fn new_title(self) -> &'static str {
        match self {
            Kind::Invoice => "dash.invoice.new",
            Kind::Quotation => "dash.quotation.new",
            Kind::Recurring => "dash.recurring.new",
        }
    }

    pub fn is_invoice(&self) -> bool {
        *self == Kind::Invoice
    }

    pub fn is_recurring(&self) -> bool {
        *self == Kind::Recurring
    }

    /// Whether the form offers payment terms: a new invoice, and a schedule (new or changed).
    fn has_terms(self, editing: bool) -> bool {
        match self {
            Kind::Invoice => !editing,
            Kind::Quotation => false,
            Kind::Recurring => true,
        }
    }
}

pub(crate) struct LineField {
    pub index: usize,
    pub product: String,
    pub description: String,
    pub quantity: String,
    pub unit_price: String,
    pub tax_rate: String,
    /// What e-invoices need (SPEC §23), kept through an edit.
    pub unit: String,
    pub tax_category: String,
    pub tax_exemption_reason: String,
}

#[derive(Template)]
#[template(path = "dashboard/document_form.html")]
struct FormPage {
    c: Chrome,
    kind: Kind,
    /// The draft being edited (its id and number); `None` for a new document.
    editing: Option<(i64, String)>,
    customers: Vec<(i64, String)>,
    products: Vec<(i64, String)>,
    typed: Typed,
    terms: Vec<(&'static str, &'static str)>,
    intervals: Vec<(&'static str, &'static str)>,
    errors: HashMap<String, String>,
    mail: bool,
}

impl FormPage {
    /// The VAT categories a line may name (SPEC §23), with their labels' keys.
    fn tax_categories(&self) -> [(&'static str, &'static str); 7] {
        [
            ("S", "dash.tax_category.S"),
            ("Z", "dash.tax_category.Z"),
            ("E", "dash.tax_category.E"),
            ("AE", "dash.tax_category.AE"),
            ("K", "dash.tax_category.K"),
            ("G", "dash.tax_category.G"),
            ("O", "dash.tax_category.O"),
        ]
    }
}

impl FormPage {
    /// The refusal beside `field`, if any.
    fn err(&self, field: &str) -> Option<&str> {
        self.errors.get(field).map(String::as_str)
    }

    fn line_err(&self, index: &usize, name: &str) -> Option<&str> {
        self.err(&format!("lines-{index}-{name}"))
    }

    fn shows_terms(&self) -> bool {
        self.kind.has_terms(self.editing.is_some())
    }

    /// A schedule's customer and currency are fixed once it exists (the API's rule).
    fn shows_customer(&self) -> bool {
        !(self.kind.is_recurring() && self.editing.is_some())
    }

    fn action(&self) -> String {
        match &self.editing {
            Some((id, _)) => format!("{}/{id}/edit", self.kind.base()),
            None => format!("{}/new", self.kind.base()),
        }
    }
}

/// What the form holds, as typed.
pub(crate) struct Typed {
    pub customer_id: String,
    pub new_name: String,
    pub new_email: String,
    pub currency: String,
    pub payment_terms: String,
    /// The due date of an invoice, the validity date of a quotation, a schedule's first day.
    pub date: String,
    pub notes: String,
    pub lines: Vec<LineField>,
    /// A schedule's cadence (`week`, `month`, `year`, every `interval_count`), last day, and
    /// whether its invoices are sent and emailed by themselves.
    pub interval: String,
    pub interval_count: String,
    pub end_date: String,
    pub auto_send: bool,
    pub email: bool,
    /// A new document's issue date (blank: the merchant's today).
    pub issue_date: String,
    /// An invoice's supply (SPEC §27): a delivery date, or a service period.
    pub delivery_date: String,
    pub service_start: String,
    pub service_end: String,
}

impl Typed {
    fn blank(currency: Currency) -> Typed {
        Typed {
            customer_id: String::new(),
            new_name: String::new(),
            new_email: String::new(),
            currency: currency.code().to_string(),
            payment_terms: "net_30".into(),
            date: String::new(),
            notes: String::new(),
            lines: vec![blank_line(0)],
            interval: "month".into(),
            interval_count: "1".into(),
            end_date: String::new(),
            auto_send: false,
            email: false,
            issue_date: String::new(),
            delivery_date: String::new(),
            service_start: String::new(),
            service_end: String::new(),
        }
    }

    fn of_recurring(r: &RecurringInvoice, t: Locale) -> Typed {
        Typed {
            customer_id: r.customer_id.0.to_string(),
            currency: r.currency.code().to_string(),
            payment_terms: r.payment_terms.clone(),
            date: r.start_date.to_string(),
            notes: r.notes.clone().unwrap_or_default(),
            lines: Typed::of_lines(r.currency, &r.line_items, t),
            interval: r.interval.as_str().to_string(),
            interval_count: r.interval_count.to_string(),
            end_date: r.end_date.map(|d| d.to_string()).unwrap_or_default(),
            auto_send: r.auto_send,
            email: r.email,
            ..Typed::blank(r.currency)
        }
    }

    /// The lines as the form shows them, prices as `t` writes amounts (SPEC §27).
    fn of_lines(cur: Currency, lines: &[LineItemView], t: Locale) -> Vec<LineField> {
        lines
            .iter()
            .enumerate()
            .map(|(index, l)| LineField {
                index,
                product: l.product_id.map(|p| p.to_string()).unwrap_or_default(),
                description: l.description.clone(),
                quantity: l.quantity.to_string(),
                unit_price: Money::new(l.unit_price_cents)
                    .map(|m| t.amount_field(m, cur))
                    .unwrap_or_default(),
                tax_rate: l.tax_rate.to_string(),
                unit: l.unit.clone(),
                tax_category: l
                    .tax_category
                    .map(|c| c.code().to_string())
                    .unwrap_or_default(),
                tax_exemption_reason: l.tax_exemption_reason.clone().unwrap_or_default(),
            })
            .collect()
    }

    fn of_invoice(inv: &Invoice, t: Locale) -> Typed {
        Typed {
            customer_id: inv.customer_id.0.to_string(),
            new_name: String::new(),
            new_email: String::new(),
            currency: inv.currency.code().to_string(),
            payment_terms: String::new(),
            date: inv.due_date.to_string(),
            notes: inv.notes.clone().unwrap_or_default(),
            lines: Typed::of_lines(inv.currency, &inv.line_items, t),
            issue_date: inv.issue_date.to_string(),
            delivery_date: day_text(inv.delivery_date),
            service_start: day_text(inv.service_period.map(|p| p.start)),
            service_end: day_text(inv.service_period.map(|p| p.end)),
            ..Typed::blank(inv.currency)
        }
    }

    fn of_quotation(q: &Quotation, t: Locale) -> Typed {
        Typed {
            customer_id: q.customer_id.0.to_string(),
            new_name: String::new(),
            new_email: String::new(),
            currency: q.currency.code().to_string(),
            payment_terms: String::new(),
            date: q.valid_until.to_string(),
            notes: q.notes.clone().unwrap_or_default(),
            lines: Typed::of_lines(q.currency, &q.line_items, t),
            ..Typed::blank(q.currency)
        }
    }

    fn read(form: &Form) -> Typed {
        let count = form
            .get("line_count")
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(1)
            .clamp(1, MAX_LINES);
        let lines = (0..count)
            .map(|i| LineField {
                index: i,
                product: form.raw(&format!("lines-{i}-product")),
                description: form.raw(&format!("lines-{i}-description")),
                quantity: form.raw(&format!("lines-{i}-quantity")),
                unit_price: form.raw(&format!("lines-{i}-unit_price")),
                tax_rate: form.raw(&format!("lines-{i}-tax_rate")),
                unit: form.raw(&format!("lines-{i}-unit")),
                tax_category: form.raw(&format!("lines-{i}-tax_category")),
                tax_exemption_reason: form.raw(&format!("lines-{i}-tax_exemption_reason")),
            })
            .collect();
        Typed {
            customer_id: form.raw("customer_id"),
            new_name: form.raw("new_name"),
            new_email: form.raw("new_email"),
            currency: form.raw("currency").trim().to_uppercase(),
            payment_terms: form.raw("payment_terms"),
            date: form.raw("date"),
            notes: form.raw("notes"),
            lines,
            interval: form.raw("interval"),
            interval_count: form.raw("interval_count"),
            end_date: form.raw("end_date"),
            auto_send: form.checked("auto_send"),
            email: form.checked("email"),
            issue_date: form.raw("issue_date"),
            delivery_date: form.raw("delivery_date"),
            service_start: form.raw("service_start"),
            service_end: form.raw("service_end"),
        }
    }

    /// What the supply field `name` holds.
    pub fn supply_field(&self, name: &str) -> &str {
        match name {
            "delivery_date" => &self.delivery_date,
            "service_start" => &self.service_start,
            _ => &self.service_end,
        }
    }

    /// The service period as the API takes it: none when both days are blank.
    fn service_period(&self) -> Option<ServicePeriodInput> {
        let (start, end) = (non_blank(&self.service_start), non_blank(&self.service_end));
        (start.is_some() || end.is_some()).then_some(ServicePeriodInput { start, end })
    }

    /// The lines as the API takes them; a price that is no amount of the currency is refused
    /// here, beside its field.
    fn line_inputs(&self, errors: &mut HashMap<String, String>, t: Locale) -> Vec<LineItemInput> {
        let currency = Currency::parse(&self.currency).ok();
        self.lines
            .iter()
            .filter(|l| !is_blank(l))
            .map(|l| {
                let i = l.index;
                let unit_price_cents = match (non_blank(&l.unit_price), currency) {
                    (None, _) | (_, None) => None,
                    (Some(p), Some(cur)) => match price_minor(&p, cur, t) {
                        Ok(cents) => Some(cents),
                        Err(message) => {
                            errors.insert(format!("lines-{i}-unit_price"), message);
                            None
                        }
                    },
                };
                LineItemInput {
                    description: non_blank(&l.description),
                    quantity: non_blank(&l.quantity).map(Value::String),
                    unit_price_cents,
                    tax_rate: non_blank(&l.tax_rate).map(Value::String),
                    product_id: non_blank(&l.product).and_then(|p| p.parse().ok()),
                    unit: non_blank(&l.unit),
                    tax_category: non_blank(&l.tax_category),
                    tax_exemption_reason: non_blank(&l.tax_exemption_reason),
                }
            })
            .collect()
    }

    /// Adds or removes a line as the pressed button asks; whether it did (the form is then
    /// shown again instead of saved).
    fn edit_lines(&mut self, form: &Form) -> bool {
        match form.get("action").unwrap_or("save") {
            "add_line" => {
                if self.lines.len() < MAX_LINES {
                    self.lines.push(blank_line(self.lines.len()));
                }
                true
            }
            a if a.starts_with("remove_line-") => {
                if let Ok(i) = a["remove_line-".len()..].parse::<usize>() {
                    if i < self.lines.len() && self.lines.len() > 1 {
                        self.lines.remove(i);
                    }
                }
                for (i, l) in self.lines.iter_mut().enumerate() {
                    l.index = i;
                }
                true
            }
            _ => false,
        }
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
        unit: String::new(),
        tax_category: String::new(),
        tax_exemption_reason: String::new(),
    }
}

fn is_blank(l: &LineField) -> bool {
    l.product.trim().is_empty() && l.description.trim().is_empty() && l.unit_price.trim().is_empty()
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
        "due_date" | "valid_until" | "start_date" => "date".into(),
        "service_period" | "service_period.start" => "service_start".into(),
        "service_period.end" => "service_end".into(),
        other => other.into(),
    }
}

fn errors_of(e: &ApiError) -> HashMap<String, String> {
    field_errors(e, field_of)
}

#[allow(clippy::too_many_arguments)]
async fn show(
    state: &AppState,
    req: &HttpRequest,
    me: &Visitor,
    ops: &Ops,
    kind: Kind,
    editing: Option<(i64, String)>,
    typed: Typed,
    errors: HashMap<String, String>,
) -> Answer {
    let pickers = ops.without_totals();
    let customers = pickers.list_customers("per_page=100").await?;
    let products = pickers.list_products("per_page=100&active=true").await?;
    let t = crate::dashboard::locale_of(req);
    let title = match &editing {
        Some((_, number)) if !number.is_empty() => number.clone(),
        Some(_) => t.text("dash.recurring.edit").to_string(),
        None => t.text(kind.new_title()).to_string(),
    };
    let status = if errors.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    page(
        status,
        FormPage {
            c: Chrome::new(me, req, kind.nav(), title),
            kind,
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
            typed,
            terms: TERMS.iter().map(|k| (*k, t.text(term_key(k)))).collect(),
            intervals: vec![
                ("week", t.text("dash.recurring.weeks")),
                ("month", t.text("dash.recurring.months")),
                ("year", t.text("dash.recurring.years")),
            ],
            errors,
            mail: state.config.mail_enabled,
        },
    )
}

fn day_text(day: Option<chrono::NaiveDate>) -> String {
    day.map(|d| d.to_string()).unwrap_or_default()
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

/// The form of a new document (`customer_id` in the query preselects the customer).
pub(crate) async fn new_page(
    kind: Kind,
    me: Visitor,
    state: &AppState,
    req: &HttpRequest,
) -> Answer {
    let ops = me.ops(state);
    ops.caller()
        .require_document_write(kind.resource(), false)?;
    let mut typed = Typed::blank(ops.default_currency().await?);
    typed.customer_id = crate::dashboard::form::query_value(req.query_string(), "customer_id");
    show(state, req, &me, &ops, kind, None, typed, HashMap::new()).await
}

/// Creates the document (and sends it, with `action=save_send`; with `save_email` the email is
/// shown to check before it leaves, SPEC §27).
pub(crate) async fn save_new(
    kind: Kind,
    Posted { me, form }: Posted,
    state: &AppState,
    req: &HttpRequest,
) -> Answer {
    let ops = me.ops(state);
    let mut typed = Typed::read(&form);
    if typed.edit_lines(&form) {
        return show(state, req, &me, &ops, kind, None, typed, HashMap::new()).await;
    }
    let mut errors = HashMap::new();
    let line_items = typed.line_inputs(&mut errors, super::locale_of(req));
    let customer_id = form.id("customer_id").unwrap_or_else(|e| {
        errors.extend(errors_of(&e));
        None
    });
    let customer = customer_id.is_none().then(|| CustomerInput {
        name: non_blank(&typed.new_name),
        email: non_blank(&typed.new_email),
        ..CustomerInput::default()
    });
    if !errors.is_empty() {
        return show(state, req, &me, &ops, kind, None, typed, errors).await;
    }
    let action = form.get("action").unwrap_or("save");
    let sends = action == "save_send";
    let created = match kind {
        Kind::Invoice => {
            let input = InvoiceInput {
                customer_id,
                customer,
                currency: non_blank(&typed.currency),
                issue_date: non_blank(&typed.issue_date),
                due_date: non_blank(&typed.date),
                payment_terms: if typed.date.trim().is_empty() {
                    non_blank(&typed.payment_terms)
                } else {
                    None
                },
                line_items: Some(line_items),
                notes: non_blank(&typed.notes),
                metadata: None,
                reminders: None,
                delivery_date: non_blank(&typed.delivery_date),
                service_period: typed.service_period(),
                ..Default::default()
            };
            ops.create_invoice(input).await.map(|i| i.id.0)
        }
        Kind::Quotation => {
            let input = QuotationInput {
                customer_id,
                customer,
                currency: non_blank(&typed.currency),
                issue_date: non_blank(&typed.issue_date),
                valid_until: non_blank(&typed.date),
                line_items: Some(line_items),
                notes: non_blank(&typed.notes),
                metadata: None,
            };
            ops.create_quotation(input).await.map(|q| q.id.0)
        }
        Kind::Recurring => {
            let count = match non_blank(&typed.interval_count).map(|n| n.parse::<i64>()) {
                Some(Ok(n)) => Some(n),
                Some(Err(_)) => {
                    let e = ApiError::invalid_parameter("interval_count", "must be a whole number");
                    return show(state, req, &me, &ops, kind, None, typed, errors_of(&e)).await;
                }
                None => None,
            };
            let input = RecurringInput {
                customer_id,
                customer,
                currency: non_blank(&typed.currency),
                line_items: Some(line_items),
                interval: non_blank(&typed.interval),
                interval_count: count,
                start_date: non_blank(&typed.date),
                end_date: non_blank(&typed.end_date),
                occurrences: None,
                payment_terms: non_blank(&typed.payment_terms),
                notes: non_blank(&typed.notes),
                metadata: None,
                auto_send: Some(typed.auto_send),
                email: Some(typed.email),
            };
            ops.create_recurring(input).await.map(|r| r.id.0)
        }
    };
    let id = match created {
        Ok(id) => id,
        Err(e) if is_field_mistake(&e) => {
            return show(state, req, &me, &ops, kind, None, typed, errors_of(&e)).await
        }
        Err(e) => return Err(e.into()),
    };
    if sends {
        match kind {
            Kind::Invoice => {
                ops.send_invoice(Id::of(InvoiceId(id)), None).await?;
            }
            Kind::Quotation => {
                ops.send_quotation(Id::of(QuotationId(id)), None).await?;
            }
            // A schedule sends what it issues by itself (`auto_send`).
            Kind::Recurring => {}
        }
    }
    let next = match (action, kind) {
        ("save_email", Kind::Invoice | Kind::Quotation) => "/email",
        ("save_send", _) => "?done=sent",
        _ => "?done=created",
    };
    Ok(see_other(&format!("{}/{id}{next}", kind.base())))
}

/// What the draft's form starts from: the document, while it is a draft.
async fn draft(
    kind: Kind,
    ops: &Ops,
    raw_id: i64,
    t: Locale,
) -> Result<((i64, String), Typed), ApiError> {
    ops.caller().require(kind.resource(), Access::Write)?;
    let only_draft = || ApiError::invalid_state_transition("Only a draft can be edited");
    match kind {
        Kind::Invoice => {
            let inv = ops.invoice(Id::parse(&raw_id.to_string())).await?;
            if inv.status != InvoiceStatus::Draft {
                return Err(only_draft());
            }
            Ok((
                (inv.id.0, inv.invoice_number.clone()),
                Typed::of_invoice(&inv, t),
            ))
        }
        Kind::Quotation => {
            let q = ops.quotation(Id::parse(&raw_id.to_string())).await?;
            if q.status != QuotationStatus::Draft {
                return Err(only_draft());
            }
            Ok(((q.id.0, q.quote_number.clone()), Typed::of_quotation(&q, t)))
        }
        Kind::Recurring => {
            let r = ops.recurring(Id::parse(&raw_id.to_string())).await?;
            if r.status.transition(RecurringStatus::Cancelled).is_err() {
                return Err(ApiError::invalid_state_transition(
                    "A cancelled or completed schedule cannot be changed",
                ));
            }
            // A schedule has no number: the form's title says what it is.
            Ok(((r.id.0, String::new()), Typed::of_recurring(&r, t)))
        }
    }
}

/// The form of a draft.
pub(crate) async fn edit_page(
    kind: Kind,
    me: Visitor,
    state: &AppState,
    req: &HttpRequest,
    raw_id: &str,
) -> Answer {
    let ops = me.ops(state);
    let id = parse_id(kind, raw_id)?;
    let (editing, typed) = draft(kind, &ops, id, super::locale_of(req)).await?;
    show(
        state,
        req,
        &me,
        &ops,
        kind,
        Some(editing),
        typed,
        HashMap::new(),
    )
    .await
}

fn parse_id(kind: Kind, raw: &str) -> Result<i64, ApiError> {
    match kind {
        Kind::Invoice => Id::<InvoiceId>::parse(raw).get().map(|i| i.0),
        Kind::Quotation => Id::<QuotationId>::parse(raw).get().map(|q| q.0),
        Kind::Recurring => Id::<RecurringId>::parse(raw).get().map(|r| r.0),
    }
}

/// Saves the draft (lines, customer, currency, date, notes), as `PATCH` does.
pub(crate) async fn save_edit(
    kind: Kind,
    Posted { me, form }: Posted,
    state: &AppState,
    req: &HttpRequest,
    raw_id: &str,
) -> Answer {
    let ops = me.ops(state);
    let id = parse_id(kind, raw_id)?;
    let (editing, stored) = draft(kind, &ops, id, super::locale_of(req)).await?;
    let mut typed = Typed::read(&form);
    if typed.currency.is_empty() {
        // A schedule's form has no currency field: its prices are in the schedule's.
        typed.currency = stored.currency;
    }
    if typed.edit_lines(&form) {
        return show(
            state,
            req,
            &me,
            &ops,
            kind,
            Some(editing),
            typed,
            HashMap::new(),
        )
        .await;
    }
    let mut errors = HashMap::new();
    let line_items = typed.line_inputs(&mut errors, super::locale_of(req));
    let customer_id = form.id("customer_id").unwrap_or_else(|e| {
        errors.extend(errors_of(&e));
        None
    });
    if !errors.is_empty() {
        return show(state, req, &me, &ops, kind, Some(editing), typed, errors).await;
    }
    let saved = match kind {
        Kind::Invoice => {
            let input = InvoicePatchInput {
                line_items: Some(Some(line_items)),
                customer_id: customer_id.map(Some),
                currency: non_blank(&typed.currency).map(Some),
                due_date: non_blank(&typed.date).map(Some),
                notes: Some(non_blank(&typed.notes)),
                delivery_date: Some(non_blank(&typed.delivery_date)),
                service_period: Some(typed.service_period()),
                ..InvoicePatchInput::default()
            };
            match input.parse() {
                Ok(patch) => ops
                    .update_invoice(Id::parse(raw_id), patch)
                    .await
                    .map(|_| ()),
                Err(v) => Err(ApiError::from(v)),
            }
        }
        Kind::Quotation => {
            let input = QuotationPatchInput {
                line_items: Some(Some(line_items)),
                customer_id: customer_id.map(Some),
                currency: non_blank(&typed.currency).map(Some),
                valid_until: non_blank(&typed.date).map(Some),
                notes: Some(non_blank(&typed.notes)),
                ..QuotationPatchInput::default()
            };
            ops.update_quotation(Id::parse(raw_id), input)
                .await
                .map(|_| ())
        }
        Kind::Recurring => {
            let input = RecurringPatchInput {
                line_items: Some(Some(line_items)),
                payment_terms: non_blank(&typed.payment_terms).map(Some),
                notes: Some(non_blank(&typed.notes)),
                end_date: Some(non_blank(&typed.end_date)),
                auto_send: Some(Some(typed.auto_send)),
                email: Some(Some(typed.email)),
                ..RecurringPatchInput::default()
            };
            ops.update_recurring(Id::parse(raw_id), input)
                .await
                .map(|_| ())
        }
    };
    match saved {
        Ok(()) => Ok(see_other(&format!("{}/{id}?done=saved", kind.base()))),
        Err(e) if is_field_mistake(&e) => {
            show(
                state,
                req,
                &me,
                &ops,
                kind,
                Some(editing),
                typed,
                errors_of(&e),
            )
            .await
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_apis_fields_point_at_the_forms() {
        assert_eq!(
            field_of("line_items[2].unit_price_cents"),
            "lines-2-unit_price"
        );
        assert_eq!(field_of("line_items[0].description"), "lines-0-description");
        assert_eq!(field_of("customer.email"), "new_email");
        assert_eq!(field_of("due_date"), "date");
        assert_eq!(field_of("valid_until"), "date");
    }
}

/// The four routes of one kind's form (new, create, edit, save), over the functions above. Each
/// kind names its paths, operation ids and the words its document uses; nothing else differs.
macro_rules! form_routes {
    (
        kind: $kind:expr,
        new: $new:tt, edit: $edit:tt,
        operation_ids: [$new_id:tt, $create_id:tt, $edit_id:tt, $save_id:tt],
        docs: [$new_doc:tt, $create_doc:tt, $edit_doc:tt, $save_doc:tt $(,)?],
        create_fields: $create_fields:tt, save_fields: $save_fields:tt,
        id: $id:tt, saved: $saved:tt, location: $location:tt,
        may_not_create: $may_not_create:tt, may_not_change: $may_not_change:tt,
        missing: $missing:tt, fixed: $fixed:tt $(,)?
    ) => {
        use $crate::dashboard::document_form;
        use $crate::dashboard::{Answer, Posted, Visitor};
        use $crate::AppState;
        use actix_web::{web, HttpRequest};

        #[doc = $new_doc]
        #[utoipa::path(get, path = $new, tag = "dashboard", operation_id = $new_id,
            params(("customer_id" = Option<String>, Query, description = "The customer to preselect")),
            responses(
                (status = 200, description = "The form", content_type = "text/html", body = String),
                (status = 403, description = $may_not_create, content_type = "text/html", body = String),
            ))]
        pub(crate) async fn new_page(me: Visitor, state: web::Data<AppState>, req: HttpRequest) -> Answer {
            document_form::new_page($kind, me, &state, &req).await
        }

        #[doc = $create_doc]
        #[utoipa::path(post, path = $new, tag = "dashboard", operation_id = $create_id,
            request_body(content = $crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
                description = $create_fields),
            responses(
                (status = 200, description = "The form again, with a line added or removed", content_type = "text/html", body = String),
                (status = 303, description = $saved, headers(("Location" = String, description = $location))),
                (status = 422, description = "The form again, each refusal beside its field", content_type = "text/html", body = String),
            ))]
        pub(crate) async fn save_new(post: Posted, state: web::Data<AppState>, req: HttpRequest) -> Answer {
            document_form::save_new($kind, post, &state, &req).await
        }

        #[doc = $edit_doc]
        #[utoipa::path(get, path = $edit, tag = "dashboard", operation_id = $edit_id,
            params(("id" = String, Path, description = $id)),
            responses(
                (status = 200, description = "The form", content_type = "text/html", body = String),
                (status = 403, description = $may_not_change, content_type = "text/html", body = String),
                (status = 404, description = $missing, content_type = "text/html", body = String),
                (status = 409, description = $fixed, content_type = "text/html", body = String),
            ))]
        pub(crate) async fn edit_page(
            me: Visitor,
            state: web::Data<AppState>,
            req: HttpRequest,
            id: web::Path<String>,
        ) -> Answer {
            document_form::edit_page($kind, me, &state, &req, &id).await
        }

        #[doc = $save_doc]
        #[utoipa::path(post, path = $edit, tag = "dashboard", operation_id = $save_id,
            params(("id" = String, Path, description = $id)),
            request_body(content = $crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded",
                description = $save_fields),
            responses(
                (status = 200, description = "The form again, with a line added or removed", content_type = "text/html", body = String),
                (status = 303, description = $saved, headers(("Location" = String, description = $location))),
                (status = 404, description = $missing, content_type = "text/html", body = String),
                (status = 409, description = $fixed, content_type = "text/html", body = String),
                (status = 422, description = "The form again, each refusal beside its field", content_type = "text/html", body = String),
            ))]
        pub(crate) async fn save_edit(
            post: Posted,
            state: web::Data<AppState>,
            req: HttpRequest,
            id: web::Path<String>,
        ) -> Answer {
            document_form::save_edit($kind, post, &state, &req, &id).await
        }
    };
}
pub(crate) use form_routes;
