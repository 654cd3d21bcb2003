//! Reports (SPEC §22) for everyone who may read invoices: what is owed by age (at a day), and
//! for a range (this quarter unless chosen) the revenue per period and the tax per rate: the
//! API's reports through the same operations, as tables. A wrong date is shown as the API's
//! refusal beside the filters, with the figures left out.

use super::chrome::{Chrome, Nav};
use super::form::{query_value, with_value, without_blanks};
use super::page;
use super::views::{date, money};
use crate::dashboard::{Answer, Visitor};
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::locale::Locale;
use invoicing_domain::report::{AgingAmounts, ReportInterval};

pub(crate) struct AgingRow {
    pub who: String,
    pub link: Option<String>,
    pub cells: [String; 6],
}

pub(crate) struct RevenueRow {
    pub period: String,
    pub cells: [String; 4],
}

pub(crate) struct TaxRow {
    pub currency: String,
    pub rate: String,
    /// The VAT category in words (a return's box).
    pub category: String,
    pub taxable: String,
    pub tax: String,
}

#[derive(Template)]
#[template(path = "dashboard/reports.html")]
struct ReportsPage {
    c: Chrome,
    as_of: String,
    from: String,
    to: String,
    interval: &'static str,
    problem: Option<String>,
    aging: Vec<AgingRow>,
    customers: Vec<AgingRow>,
    revenue: Vec<RevenueRow>,
    tax: Vec<TaxRow>,
}

impl ReportsPage {
    /// The aging's two tables: by currency, then the customers owing most.
    fn aging_tables(&self) -> Vec<(&'static str, &Vec<AgingRow>)> {
        vec![
            (self.c.tr("dash.reports.by_currency"), &self.aging),
            (self.c.tr("dash.reports.by_customer"), &self.customers),
        ]
    }
}

fn aging_cells(
    t: Locale,
    a: &AgingAmounts,
    currency: invoicing_domain::currency::Currency,
) -> [String; 6] {
    [
        a.current,
        a.days_1_30,
        a.days_31_60,
        a.days_61_90,
        a.over_90,
        a.total,
    ]
    .map(|m| money(t, m, currency))
}

/// The aging at `as_of`, and revenue and tax from `from` to `to` by `interval`.
#[utoipa::path(get, path = "/dashboard/reports", tag = "dashboard", operation_id = "dashboard_reports",
    params(
        ("as_of" = Option<String>, Query, description = "The aging's day (default today)"),
        ("from" = Option<String>, Query, description = "First day of the range (default: this quarter's first)"),
        ("to" = Option<String>, Query, description = "Last day of the range (default today)"),
        ("interval" = Option<String>, Query, description = "month (default), quarter or year"),
    ),
    responses(
        (status = 200, description = "The reports", content_type = "text/html", body = String),
        (status = 400, description = "The reports' filters with the refusal beside them", content_type = "text/html", body = String),
    ))]
pub(crate) async fn reports(me: Visitor, state: web::Data<AppState>, req: HttpRequest) -> Answer {
    let ops = me.ops(&state).without_totals();
    let query = without_blanks(req.query_string());
    let today = ops.today().await?;
    let quarter = ReportInterval::Quarter.start_of(today);
    let or = |name: &str, default: String| {
        let v = query_value(&query, name);
        if v.is_empty() {
            default
        } else {
            v
        }
    };
    let as_of = or("as_of", today.format("%Y-%m-%d").to_string());
    let from = or("from", quarter.format("%Y-%m-%d").to_string());
    let to = or("to", today.format("%Y-%m-%d").to_string());
    let interval = match query_value(&query, "interval").as_str() {
        "quarter" => "quarter",
        "year" => "year",
        _ => "month",
    };
    let c = Chrome::new(&me, &req, Nav::Reports, String::new());
    let t = c.t;
    let dates = with_value(&with_value("", "from", &from), "to", &to);
    let figures = async {
        let aging = ops
            .aging_report(&with_value("per_page=10", "as_of", &as_of))
            .await?;
        let revenue = ops
            .revenue_report(&with_value(&dates, "interval", interval))
            .await?;
        let tax = ops.tax_report(&dates).await?;
        Ok::<_, crate::error::ApiError>((aging, revenue, tax))
    }
    .await;
    let (status, problem, figures) = match figures {
        Ok(f) => (StatusCode::OK, None, Some(f)),
        Err(e) if e.status == StatusCode::BAD_REQUEST => {
            (StatusCode::BAD_REQUEST, Some(e.message.clone()), None)
        }
        Err(e) => return Err(e.into()),
    };
    let (mut aging, mut customers, mut revenue, mut tax) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    if let Some((a, r, x)) = figures {
        aging = a
            .currencies
            .iter()
            .map(|row| AgingRow {
                who: row.currency.code().to_string(),
                link: None,
                cells: aging_cells(t, &row.amounts, row.currency),
            })
            .collect();
        customers = a
            .customers
            .data
            .iter()
            .map(|row| AgingRow {
                who: row.customer_name.clone(),
                link: Some(format!("/dashboard/customers/{}", row.customer_id)),
                cells: aging_cells(t, &row.amounts, row.currency),
            })
            .collect();
        revenue = r
            .data
            .iter()
            .map(|p| RevenueRow {
                period: format!(
                    "{} – {} ({})",
                    date(t, p.period_start),
                    date(t, p.period_end),
                    p.currency.code()
                ),
                cells: [
                    p.invoiced_cents,
                    p.tax_cents,
                    p.collected_cents,
                    p.outstanding_cents,
                ]
                .map(|m| money(t, m, p.currency)),
            })
            .collect();
        tax = x
            .data
            .iter()
            .map(|l| TaxRow {
                currency: l.currency.code().to_string(),
                rate: format!("{} %", l.tax_rate),
                category: match l.tax_category {
                    Some(c) => t
                        .text(&format!("dash.tax_category.{}", c.code()))
                        .to_string(),
                    None => t.text("dash.reports.no_category").to_string(),
                },
                taxable: money(t, l.taxable_cents, l.currency),
                tax: money(t, l.tax_cents, l.currency),
            })
            .collect();
    }
    page(
        status,
        ReportsPage {
            as_of,
            from,
            to,
            interval,
            problem,
            aging,
            customers,
            revenue,
            tax,
            c: Chrome {
                title: t.text("dash.nav.reports").to_string(),
                ..c
            },
        },
    )
}
