//! `/api/v1/reports` (SPEC §22): aging, revenue and tax, with `invoices:read`.

use crate::auth::Auth;
use crate::body::OptionalJsonBody;
use crate::csv_export::{self, amount, text, Cell, Column};
use crate::error::ApiError;
use crate::ops::Ops;
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::currency::Currency;
use invoicing_domain::email::{OutgoingEmail, SendInput};
use invoicing_domain::paging::Page;
use invoicing_domain::report::{AgingAmounts, AgingByCustomer, CustomerStatement};

crate::page_schema! {
    /// A page of customers' aging (SPEC §5 envelope), the largest total first.
    AgingCustomerList of AgingByCustomer
}

/// What open invoices (sent, viewed, overdue) still owe, by days past due at `as_of`: per
/// currency, and per customer and currency (paged).
#[utoipa::path(get, path = "/api/v1/reports/aging", tag = "reports",
    params(
        ("as_of" = Option<String>, Query, format = Date, description = "The day to age at (default: today in the account's time zone)"),
        ("page" = Option<u32>, Query, description = "Page of the per-customer rows, from 1"),
        ("per_page" = Option<u32>, Query, description = "1 to 100, default 20"),
        ("format" = Option<String>, Query, description = "`csv`: as CSV (as `Accept: text/csv` asks): a row per currency (all customers), then every customer's rows; anything else: JSON"),
    ),
    responses((status = 200, description = "The aging report",
        content((crate::ops::AgingReport = "application/json"), (String = "text/csv")))),
    security(("api_key" = [])))]
pub async fn aging(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let ops = Ops::for_key(&state, &auth);
    if csv_export::wanted(&req) {
        return aging_csv(req.query_string(), ops).await;
    }
    let report = ops
        .aging_report(&csv_export::without_format(req.query_string()))
        .await?;
    Ok(HttpResponse::Ok().json(report))
}

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

/// Invoiced (less credit notes), tax, collected and outstanding per currency and calendar period
/// (UTC).
#[utoipa::path(get, path = "/api/v1/reports/revenue", tag = "reports",
    params(
        ("from" = String, Query, format = Date, description = "First day"),
        ("to" = String, Query, format = Date, description = "Last day (before `from`: nothing)"),
        ("interval" = Option<invoicing_domain::report::ReportInterval>, Query, description = "`month` (default), `quarter` or `year`"),
        ("format" = Option<String>, Query, description = "`csv`: as CSV (as `Accept: text/csv` asks); anything else: JSON"),
    ),
    responses((status = 200, description = "The revenue report",
        content((crate::ops::RevenueReport = "application/json"), (String = "text/csv")))),
    security(("api_key" = [])))]
pub async fn revenue(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let csv = csv_export::wanted(&req);
    let report = Ops::for_key(&state, &auth)
        .revenue_report(&csv_export::without_format(req.query_string()))
        .await?;
    if csv {
        return revenue_csv(&report);
    }
    Ok(HttpResponse::Ok().json(report))
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

/// The taxable amount and the tax per currency and rate over a range: invoices that left draft
/// in it, less credit notes made in it (the figures of a VAT return).
#[utoipa::path(get, path = "/api/v1/reports/tax", tag = "reports",
    params(
        ("from" = String, Query, format = Date, description = "First day"),
        ("to" = String, Query, format = Date, description = "Last day (before `from`: nothing)"),
        ("format" = Option<String>, Query, description = "`csv`: as CSV (as `Accept: text/csv` asks); anything else: JSON"),
    ),
    responses((status = 200, description = "The tax report",
        content((crate::ops::TaxReport = "application/json"), (String = "text/csv")))),
    security(("api_key" = [])))]
pub async fn tax(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let csv = csv_export::wanted(&req);
    let report = Ops::for_key(&state, &auth)
        .tax_report(&csv_export::without_format(req.query_string()))
        .await?;
    if csv {
        return tax_csv(&report);
    }
    Ok(HttpResponse::Ok().json(report))
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

/// A customer's statement: the balance owed at `from`, every invoice sent, payment verified and
/// credit note of the range in date order with the running balance, the closing balance, and the
/// aging of what they owe today. In one currency.
#[utoipa::path(get, path = "/api/v1/customers/{id}/statement", tag = "reports",
    params(
        ("id" = i64, Path, description = "Customer id"),
        ("from" = Option<String>, Query, format = Date, description = "First day (default: January 1st of this year)"),
        ("to" = Option<String>, Query, format = Date, description = "Last day (default today)"),
        ("currency" = Option<String>, Query, description = "ISO 4217 code (default: the account's default currency)"),
    ),
    responses(
        (status = 200, description = "The statement", body = CustomerStatement),
        (status = 404, description = "No such customer (`resource_missing`)", body = crate::openapi::error_body::ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn statement(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let statement = Ops::for_key(&state, &auth)
        .statement(
            crate::path_id::Id::parse(&id),
            &csv_export::without_format(req.query_string()),
        )
        .await?;
    Ok(HttpResponse::Ok().json(statement))
}

/// The statement as a PDF (SPEC §17 rules), in the customer's language: the same figures as
/// the JSON, with the merchant's and the customer's details as they are now.
#[utoipa::path(get, path = "/api/v1/customers/{id}/statement/pdf", tag = "reports",
    params(
        ("id" = i64, Path, description = "Customer id"),
        ("from" = Option<String>, Query, format = Date, description = "First day (default: January 1st of this year)"),
        ("to" = Option<String>, Query, format = Date, description = "Last day (default today)"),
        ("currency" = Option<String>, Query, description = "ISO 4217 code (default: the account's default currency)"),
    ),
    responses(
        (status = 200, description = "The statement's PDF, named after its reference (`ST-42-20261130.pdf`)",
            content_type = "application/pdf", body = Vec<u8>),
        (status = 404, description = "No such customer (`resource_missing`)", body = crate::openapi::error_body::ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn statement_pdf(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let doc = Ops::for_key(&state, &auth)
        .statement_document(crate::path_id::Id::parse(&id), req.query_string())
        .await?;
    crate::pdf::respond(doc).await
}

/// Emails the statement, its PDF attached (SPEC §18, kind `statement`): to the customer, or to
/// the addresses given. The statement is made when the message is sent.
#[utoipa::path(post, path = "/api/v1/customers/{id}/statement/email", tag = "reports",
    params(
        ("id" = i64, Path, description = "Customer id"),
        ("from" = Option<String>, Query, format = Date, description = "First day (default: January 1st of this year)"),
        ("to" = Option<String>, Query, format = Date, description = "Last day (default today)"),
        ("currency" = Option<String>, Query, description = "ISO 4217 code (default: the account's default currency)"),
    ),
    request_body(content = Option<SendInput>, description = "Optional: recipients, subject and a note"),
    responses(
        (status = 202, description = "The queued email", body = OutgoingEmail),
        (status = 404, description = "No such customer (`resource_missing`)", body = crate::openapi::error_body::ErrorBody),
        (status = 422, description = "Mail is not configured (`email_not_configured`), or a bad address", body = crate::openapi::error_body::ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn statement_email(
    state: web::Data<AppState>,
    auth: Auth,
    req: HttpRequest,
    id: web::Path<String>,
    body: OptionalJsonBody<SendInput>,
) -> Result<HttpResponse, ApiError> {
    let email = Ops::for_key(&state, &auth)
        .email_statement(
            crate::path_id::Id::parse(&id),
            req.query_string(),
            body.0.email,
        )
        .await?;
    Ok(HttpResponse::Accepted().json(email))
}
