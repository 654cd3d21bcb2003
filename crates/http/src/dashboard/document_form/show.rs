//! The document form's page: its template, the customers and products to pick, the terms and
//! cadences to choose, shown with what was typed and each refusal beside its field.

use super::typed::Typed;
use super::Kind;
use crate::dashboard::chrome::{Chrome, Nav};
use crate::dashboard::session::Visitor;
use crate::dashboard::{page, Answer};
use crate::ops::Ops;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::HttpRequest;
use askama::Template;
use std::collections::HashMap;

const TERMS: &[&str] = &["due_on_receipt", "net_7", "net_14", "net_30", "net_60"];

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

/// The key under which a refusal that Settings must fix carries the label of its link.
pub(super) const SETTINGS_NEEDED: &str = "settings";

impl FormPage {
    /// The refusal beside `field`, if any.
    fn err(&self, field: &str) -> Option<&str> {
        self.errors.get(field).map(String::as_str)
    }

    /// Whether a refusal stands beside a field (not only above the form, as "add your details in
    /// Settings" does), so the page says to look below.
    fn marks_fields(&self) -> bool {
        self.errors
            .keys()
            .any(|field| field != "form" && field != SETTINGS_NEEDED)
    }

    /// The link to Settings, where the refusal is for details only Settings holds.
    fn settings_link(&self) -> Option<&str> {
        self.err(SETTINGS_NEEDED)
    }

    fn line_err(&self, index: &usize, name: &str) -> Option<&str> {
        self.err(&format!("line_items[{index}].{name}"))
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

#[allow(clippy::too_many_arguments)]
pub(super) async fn show(
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

fn term_key(term: &str) -> &'static str {
    match term {
        "due_on_receipt" => "dash.terms.due_on_receipt",
        "net_7" => "dash.terms.net_7",
        "net_14" => "dash.terms.net_14",
        "net_60" => "dash.terms.net_60",
        _ => "dash.terms.net_30",
    }
}
