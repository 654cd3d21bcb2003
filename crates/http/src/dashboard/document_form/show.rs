//! The document form's page: its template, the customers and products to pick, the terms and
//! cadences to choose, shown with what was typed and each refusal beside its field.

use super::totals::{running_totals, RunningTotals};
use super::typed::Typed;
use super::Kind;
use crate::dashboard::chrome::Chrome;
use crate::dashboard::session::Visitor;
use crate::dashboard::{page, Answer};
use crate::ops::Ops;
use crate::AppState;
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
    /// What the typed lines come to, when they can be priced.
    totals: Option<RunningTotals>,
}

/// The units a line is counted in most often (UN/ECE Recommendation 20), with their labels'
/// keys: what the form offers by name.
const UNITS: [(&str, &str); 12] = [
    ("C62", "dash.unit.C62"),
    ("HUR", "dash.unit.HUR"),
    ("DAY", "dash.unit.DAY"),
    ("WEE", "dash.unit.WEE"),
    ("MON", "dash.unit.MON"),
    ("ANN", "dash.unit.ANN"),
    ("KGM", "dash.unit.KGM"),
    ("MTR", "dash.unit.MTR"),
    ("MTK", "dash.unit.MTK"),
    ("LTR", "dash.unit.LTR"),
    ("SET", "dash.unit.SET"),
    ("LS", "dash.unit.LS"),
];

impl FormPage {
    /// The units a line may be counted in, each as a word of the user's language with its code
    /// as the value; a line's own code outside the list stays offered, as its code.
    fn units(&self, current: &str) -> Vec<(String, String)> {
        let mut units: Vec<(String, String)> = UNITS
            .iter()
            .map(|(code, key)| (code.to_string(), self.c.tr(key).to_string()))
            .collect();
        let current = current.trim();
        if !current.is_empty() && !UNITS.iter().any(|(code, _)| *code == current) {
            units.push((current.to_string(), current.to_string()));
        }
        units
    }

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
    let (totals, refused) =
        running_totals(ops, req, kind, editing.as_ref().map(|e| e.0), &typed).await;
    // Asked for the totals, a merchant hears why there are none.
    let errors = if typed.totals_asked && errors.is_empty() {
        refused
    } else {
        errors
    };
    let errors = with_places(kind, errors);
    let status = crate::dashboard::form::status_of(&errors);
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
            totals,
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

/// The fields beside which this form shows a refusal (its template's `err(…)` names).
fn has_place(kind: Kind, field: &str) -> bool {
    const FIELDS: &[&str] = &[
        "form",
        SETTINGS_NEEDED,
        "customer",
        "customer_id",
        "customer.name",
        "customer.email",
        "currency",
        "payment_terms",
        "issue_date",
        "notes",
        "line_items",
        "delivery_date",
        "service_period",
        "service_period.start",
        "service_period.end",
        "buyer_reference",
        "purchase_order",
        "interval",
        "interval_count",
        "end_date",
        "email",
    ];
    const LINE_FIELDS: &[&str] = &[
        "product_id",
        "description",
        "quantity",
        "unit_price",
        "tax_rate",
        "unit",
        "tax_category",
        "tax_exemption_reason",
    ];
    let line_field = field
        .strip_prefix("line_items[")
        .and_then(|rest| rest.split_once("]."))
        .is_some_and(|(i, name)| i.parse::<usize>().is_ok() && LINE_FIELDS.contains(&name));
    FIELDS.contains(&field) || field == kind.date_param() || line_field
}

/// A refusal for a field the form has no place for is said above the form, named, so that no
/// refusal goes unseen.
fn with_places(kind: Kind, mut errors: HashMap<String, String>) -> HashMap<String, String> {
    let mut stray: Vec<String> = errors
        .keys()
        .filter(|field| !has_place(kind, field))
        .cloned()
        .collect();
    stray.sort();
    for field in stray {
        if let Some(message) = errors.remove(&field) {
            let top = errors.entry("form".to_string()).or_default();
            if !top.is_empty() {
                top.push(' ');
            }
            top.push_str(&format!("{field}: {message}"));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_without_a_field_is_said_above_the_form() {
        let errors = HashMap::from([
            ("due_date".to_string(), "is not a date".to_string()),
            (
                "line_items[1].unit_price".to_string(),
                "too big".to_string(),
            ),
            ("metadata".to_string(), "is too long".to_string()),
        ]);
        let placed = with_places(Kind::Invoice, errors);
        assert_eq!(placed["due_date"], "is not a date");
        assert_eq!(placed["line_items[1].unit_price"], "too big");
        assert_eq!(placed["form"], "metadata: is too long");
        assert!(!placed.contains_key("metadata"));
        let quote = with_places(
            Kind::Quotation,
            HashMap::from([("due_date".to_string(), "x".to_string())]),
        );
        assert_eq!(quote["form"], "due_date: x");
    }
}
