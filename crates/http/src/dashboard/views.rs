//! Pieces several screens show alike: amounts, statuses, dates, paging, and the page a refusal
//! becomes.

use super::chrome::{Chrome, Nav};
use super::session::Visitor;
use crate::error::ApiError;
use actix_web::http::StatusCode;
use actix_web::HttpRequest;
use actix_web::HttpResponse;
use askama::Template;
use chrono::{DateTime, NaiveDate, Utc};
use invoicing_domain::currency::Currency;
use invoicing_domain::document_lines::LineItemView;
use invoicing_domain::locale::Locale;
use invoicing_domain::paging::Page;
use invoicing_domain::payment_status::PaymentStatus;

/// A customer's name from `Ops::customer_names`, empty for one not found.
pub(crate) fn name_of(
    names: &std::collections::HashMap<invoicing_domain::customer::CustomerId, (String, String)>,
    id: invoicing_domain::customer::CustomerId,
) -> String {
    names.get(&id).map(|(n, _)| n.clone()).unwrap_or_default()
}

/// An amount as the user's language writes it.
pub(crate) fn money(t: Locale, minor: i64, currency: Currency) -> String {
    crate::routes::pages::money(t, minor, currency)
}

pub(crate) fn date(t: Locale, d: NaiveDate) -> String {
    t.date(d)
}

/// A moment as a date and a UTC time (the dashboard does not know the user's time zone).
pub(crate) fn moment(t: Locale, at: DateTime<Utc>) -> String {
    format!("{} {} UTC", t.date(at.date_naive()), at.format("%H:%M"))
}

pub(crate) fn payment_status(t: Locale, s: PaymentStatus) -> &'static str {
    match s {
        PaymentStatus::Pending => t.text("dash.payment_status.pending"),
        PaymentStatus::Verified => t.text("dash.payment_status.verified"),
        PaymentStatus::Rejected => t.text("dash.payment_status.rejected"),
    }
}

/// The previous and next links of a list page, keeping its filters.
pub(crate) struct Pager {
    /// "Page 2 · 45 in all".
    pub label: String,
    pub prev: Option<String>,
    pub next: Option<String>,
}

impl Pager {
    pub fn new<T>(t: Locale, path: &str, query: &str, page: &Page<T>) -> Pager {
        let link = |n: u32| {
            let q = super::form::with_value(query, "page", &n.to_string());
            format!("{path}?{q}")
        };
        Pager {
            // A total that stopped counting is "at least".
            label: t.fill(
                "dash.page_of_total",
                &[
                    ("page", &page.page.to_string()),
                    (
                        "total",
                        &if page.total_capped {
                            format!("{}+", page.total)
                        } else {
                            page.total.to_string()
                        },
                    ),
                ],
            ),
            prev: (page.page > 1).then(|| link(page.page - 1)),
            next: page.has_more.then(|| link(page.page + 1)),
        }
    }
}

#[derive(Template)]
#[template(path = "dashboard/error.html")]
struct ErrorPage {
    lang: &'static str,
    heading: &'static str,
    message: String,
    details: Vec<String>,
    /// Where the refusal is put right, when a screen elsewhere does it: (link, text).
    fix: Option<(&'static str, &'static str)>,
    back: &'static str,
}

/// The page a refusal becomes, with its status: a heading in the user's language, and the
/// operation's own message (the API's words) with the fields it names.
pub(crate) fn error_page(t: Locale, e: &ApiError) -> HttpResponse {
    let heading = match e.status {
        StatusCode::NOT_FOUND => "dash.error.not_found",
        StatusCode::FORBIDDEN => "dash.error.forbidden",
        StatusCode::TOO_MANY_REQUESTS => "dash.error.too_many",
        s if s.is_server_error() => "dash.error.unavailable",
        _ => "dash.error.refused",
    };
    // A live document refused for the seller's profile (SPEC §27) is put right in Settings.
    let seller_missing = seller_missing(e);
    let message = if e.status.is_server_error() {
        t.text("dash.error.try_again").to_string()
    } else if seller_missing {
        t.text("dash.error.profile_needed").to_string()
    } else if e.status == StatusCode::FORBIDDEN && e.code == "insufficient_permissions" {
        t.text("dash.error.role").to_string()
    } else {
        e.message.clone()
    };
    let page = ErrorPage {
        lang: t.code(),
        heading: t.text(heading),
        message,
        details: if seller_missing {
            Vec::new()
        } else {
            e.details
                .iter()
                .map(|d| format!("{}: {}", d.param, d.message))
                .collect()
        },
        fix: seller_missing.then(|| ("/dashboard/settings", t.text("dash.error.to_settings"))),
        back: t.text("dash.back_home"),
    };
    let body = page.render().unwrap_or_else(|_| e.message.clone());
    let mut res = HttpResponse::build(e.status)
        .content_type("text/html; charset=utf-8")
        .body(body);
    for (name, value) in &e.headers {
        res.headers_mut().insert(name.clone(), value.clone());
    }
    res
}

/// One tab of a list screen (a filter's value), as `tabs` makes them.
pub(crate) struct Tab {
    pub href: String,
    pub label: &'static str,
    pub current: bool,
}

/// The tabs of a list, over the filter `param` (its status, mostly): "all" and one per value,
/// keeping the other filters.
pub(crate) fn tabs(
    path: &str,
    query: &str,
    param: &str,
    current: &str,
    statuses: impl Iterator<Item = (&'static str, &'static str)>,
    all_label: &'static str,
) -> Vec<Tab> {
    let base = super::form::with_value(query, "page", "");
    std::iter::once(("", all_label))
        .chain(statuses)
        .map(|(status, label)| {
            let q = super::form::with_value(&base, param, status);
            Tab {
                href: if q.is_empty() {
                    path.to_string()
                } else {
                    format!("{path}?{q}")
                },
                label,
                current: status == current,
            }
        })
        .collect()
}

/// A line of a document as its screen shows it.
pub(crate) struct LineRow {
    pub description: String,
    pub quantity: String,
    pub unit_price: String,
    pub tax_rate: String,
    pub total: String,
}

impl LineRow {
    /// A document's lines as its screen shows them, in the user's language.
    pub fn of(t: Locale, cur: Currency, lines: &[LineItemView]) -> Vec<LineRow> {
        lines
            .iter()
            .map(|l| LineRow {
                description: l.description.clone(),
                quantity: t.quantity(l.quantity),
                unit_price: money(t, l.unit_price_cents, cur),
                tax_rate: t.percent(l.tax_rate),
                total: money(t, l.subtotal_cents, cur),
            })
            .collect()
    }
}

/// What every list screen shows around its rows: the chrome titled with the list's name, the
/// tabs over one filter (when the list has them), and the pager.
pub(crate) struct Listing {
    pub c: Chrome,
    pub tabs: Vec<Tab>,
    pub pager: Pager,
}

impl Listing {
    /// The frame of the list at `path` showing `found` for `query`.
    pub fn new<T>(
        me: &Visitor,
        req: &HttpRequest,
        nav: Nav,
        path: &str,
        query: &str,
        found: &Page<T>,
    ) -> Listing {
        let c = Chrome::new(me, req, nav, String::new());
        let t = c.t;
        Listing {
            pager: Pager::new(t, path, query, found),
            tabs: Vec::new(),
            c: Chrome {
                title: t.text(nav.title_key()).to_string(),
                ..c
            },
        }
    }

    /// Titled otherwise than its section (the catalogue key `title`).
    pub fn titled(mut self, title: &str) -> Listing {
        self.c.title = self.c.t.text(title).to_string();
        self
    }

    /// With tabs over the filter `param`: "all", then one per `(value, label)`.
    pub fn with_tabs(
        mut self,
        path: &str,
        query: &str,
        param: &str,
        choices: impl Iterator<Item = (&'static str, &'static str)>,
    ) -> Listing {
        let current = super::form::query_value(query, param);
        let all = self.c.t.text("dash.tab.all");
        self.tabs = tabs(path, query, param, &current, choices, all);
        self
    }
}

/// Whether a refusal is a live document's for the seller's missing details (SPEC §27): put right
/// in Settings, not on the screen that was refused.
pub(crate) fn seller_missing(e: &ApiError) -> bool {
    e.details.iter().any(|d| d.param.starts_with("account."))
}
