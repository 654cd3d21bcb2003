//! The reports as CSV (SPEC §22): the aging (a row per currency, then per customer), revenue
//! and tax, for the API's `Accept: text/csv` and the dashboard's export.

use crate::csv_export::{self, amount, text, Cell, Column};
use crate::error::ApiError;
use crate::ops::Ops;
use actix_web::HttpResponse;
use invoicing_domain::currency::Currency;
use invoicing_domain::paging::Page;
use invoicing_domain::report::AgingAmounts;

/// The aging as CSV: a row per currency (all customers), then every customer's rows.
pub(crate) async fn aging_csv(query: &str, ops: Ops) -> Result<HttpResponse, ApiError> {
    let query = csv_export::without_format(query);
    let ops = std::rc::Rc::new(ops.without_totals());
    let fetch: csv_export::FetchPage<AgingCsvRow, u32> = Box::new(move |n| {
        let (ops, query) = (ops.clone(), csv_export::page_query(&query, n));
        Box::pin(async move {
            let r = ops.aging_report(&query).await?;
            let mut rows: Vec<AgingCsvRow> = Vec::new();
            if n == 1 {
                rows.extend(r.currencies.iter().map(|c| AgingCsvRow {
                    customer: None,
                    currency: c.currency,
                    amounts: c.amounts,
                }));
            }
            rows.extend(r.customers.data.iter().map(|c| AgingCsvRow {
                customer: Some((c.customer_id, c.customer_name.clone())),
                currency: c.currency,
                amounts: c.amounts,
            }));
            let c = &r.customers;
            Ok(Page {
                data: rows,
                page: c.page,
                per_page: c.per_page,
                total: c.total,
                has_more: c.has_more,
                total_capped: false,
            })
        })
    });
    // Customers come by what they owe, not by date: walked by page number.
    let next = |page: &Page<AgingCsvRow>, n: u32| page.has_more.then_some(n + 1);
    csv_export::pages("aging.csv", AGING_COLUMNS, aging_row, 1, next, fetch).await
}

/// A row of the aging's CSV: all customers of a currency, or one customer.
pub struct AgingCsvRow {
    customer: Option<(i64, String)>,
    currency: Currency,
    amounts: AgingAmounts,
}

const AGING_COLUMNS: &[Column] = &[
    text("customer_id"),
    text("customer_name"),
    text("currency"),
    amount("current"),
    amount("days_1_30"),
    amount("days_31_60"),
    amount("days_61_90"),
    amount("over_90"),
    amount("total"),
];

fn aging_row(r: &AgingCsvRow) -> Vec<Cell> {
    let a = r.amounts;
    let (id, name) = match &r.customer {
        Some((id, name)) => (id.to_string(), name.clone()),
        None => (String::new(), String::new()),
    };
    let mut row = vec![
        Cell::Text(id),
        Cell::Text(name),
        Cell::Text(r.currency.code().into()),
    ];
    row.extend(
        [
            a.current,
            a.days_1_30,
            a.days_31_60,
            a.days_61_90,
            a.over_90,
            a.total,
        ]
        .map(|m| Cell::Amount(m, r.currency)),
    );
    row
}

pub(crate) fn revenue_csv(report: &crate::ops::RevenueReport) -> Result<HttpResponse, ApiError> {
    let columns = [
        text("currency"),
        text("period_start"),
        text("period_end"),
        amount("invoiced"),
        amount("tax"),
        amount("collected"),
        amount("outstanding"),
    ];
    let rows = report
        .data
        .iter()
        .map(|p| {
            let c = p.currency;
            vec![
                Cell::Text(c.code().into()),
                Cell::Date(p.period_start),
                Cell::Date(p.period_end),
                Cell::Amount(p.invoiced_cents, c),
                Cell::Amount(p.tax_cents, c),
                Cell::Amount(p.collected_cents, c),
                Cell::Amount(p.outstanding_cents, c),
            ]
        })
        .collect();
    csv_export::table("revenue.csv", &columns, rows)
}

pub(crate) fn tax_csv(report: &crate::ops::TaxReport) -> Result<HttpResponse, ApiError> {
    let columns = [
        text("currency"),
        text("tax_rate"),
        text("tax_category"),
        amount("taxable"),
        amount("tax"),
    ];
    let rows = report
        .data
        .iter()
        .map(|l| {
            vec![
                Cell::Text(l.currency.code().into()),
                Cell::Text(l.tax_rate.clone()),
                Cell::Text(l.tax_category.map_or("", |c| c.code()).into()),
                Cell::Amount(l.taxable_cents, l.currency),
                Cell::Amount(l.tax_cents, l.currency),
            ]
        })
        .collect();
    csv_export::table("tax.csv", &columns, rows)
}
