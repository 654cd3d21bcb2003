//! Reports (SPEC §22): aging, revenue and tax, read with `invoices:read`. Parameters are checked
//! here (400 naming the parameter); the sums are storage's, the rules the domain's.

use super::Ops;
use crate::error::ApiError;
use crate::query::ListQuery;
use chrono::Datelike;
use chrono::{NaiveDate, Utc};
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::paging::Page;
use invoicing_domain::report::{
    running_balance, AgingAmounts, AgingByCurrency, AgingByCustomer, DateRange, ReportInterval,
    RevenuePeriod, StatementEntry, TaxLine,
};
use invoicing_domain::validation::Violations;
use serde::Serialize;

/// `GET /api/v1/reports/aging`: what open invoices owe by days past due.
#[derive(Serialize, utoipa::ToSchema)]
pub struct AgingReport {
    #[schema(value_type = String, example = "aging_report")]
    pub object: &'static str,
    #[schema(value_type = String, format = Date)]
    pub as_of: NaiveDate,
    /// Per currency, every customer together.
    pub currencies: Vec<AgingByCurrency>,
    /// Per customer and currency, the largest total first, paged as lists are.
    #[schema(value_type = crate::routes::reports::AgingCustomerList)]
    pub customers: Page<AgingByCustomer>,
}

/// `GET /api/v1/reports/revenue`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct RevenueReport {
    #[schema(value_type = String, example = "revenue_report")]
    pub object: &'static str,
    #[schema(value_type = String, format = Date)]
    pub from: NaiveDate,
    #[schema(value_type = String, format = Date)]
    pub to: NaiveDate,
    pub interval: ReportInterval,
    pub data: Vec<RevenuePeriod>,
}

/// `GET /api/v1/reports/tax`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct TaxReport {
    #[schema(value_type = String, example = "tax_report")]
    pub object: &'static str,
    #[schema(value_type = String, format = Date)]
    pub from: NaiveDate,
    #[schema(value_type = String, format = Date)]
    pub to: NaiveDate,
    pub data: Vec<TaxLine>,
}

/// `GET /api/v1/customers/{id}/statement`: what a customer owed at the start, what happened in
/// the range, what they owe at the end, and the aging of it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Statement {
    #[schema(value_type = String, example = "customer_statement")]
    pub object: &'static str,
    pub customer_id: i64,
    pub customer_name: String,
    #[schema(value_type = String, example = "EUR")]
    pub currency: Currency,
    #[schema(value_type = String, format = Date)]
    pub from: NaiveDate,
    #[schema(value_type = String, format = Date)]
    pub to: NaiveDate,
    pub opening_balance_cents: i64,
    pub entries: Vec<StatementEntry>,
    pub closing_balance_cents: i64,
    /// What the customer owes today, by days past due.
    pub aging: AgingAmounts,
}

/// A query parameter's refusal: 400 naming it, as every list's.
fn bad_parameter(v: Violations) -> ApiError {
    match v.errors().first() {
        Some(e) => ApiError::invalid_parameter(e.param.clone(), e.message.clone()),
        None => ApiError::invalid_parameter("query", "is not valid"),
    }
}

fn range(q: &ListQuery) -> Result<DateRange, ApiError> {
    let (from, to) = (q.text("from")?, q.text("to")?);
    DateRange::parse(from.as_deref(), to.as_deref()).map_err(bad_parameter)
}

impl Ops {
    pub async fn aging_report(&self, query: &str) -> Result<AgingReport, ApiError> {
        let scope = self.caller.require(ApiResource::Invoices, Access::Read)?;
        let q = ListQuery::parse(query, &["as_of"])?;
        let as_of = q.date("as_of")?.unwrap_or_else(|| Utc::now().date_naive());
        let page = q.page()?;
        let (currencies, customers) = self
            .run(scope, "report", move |r, s| {
                Ok((r.aging(s, as_of)?, r.aging_by_customer(s, as_of, page)?))
            })
            .await?;
        Ok(AgingReport {
            object: "aging_report",
            as_of,
            currencies,
            customers,
        })
    }

    pub async fn revenue_report(&self, query: &str) -> Result<RevenueReport, ApiError> {
        let scope = self.caller.require(ApiResource::Invoices, Access::Read)?;
        let q = ListQuery::parse(query, &["from", "to", "interval"])?;
        let range = range(&q)?;
        let interval = match q.text("interval")? {
            None => ReportInterval::Month,
            Some(t) => ReportInterval::parse(&t).ok_or_else(|| {
                ApiError::invalid_parameter("interval", "must be month, quarter or year")
            })?,
        };
        let data = self
            .run(scope, "report", move |r, s| r.revenue(s, range, interval))
            .await?;
        Ok(RevenueReport {
            object: "revenue_report",
            from: range.from,
            to: range.to,
            interval,
            data,
        })
    }

    /// A customer's statement for `from`–`to` (default: this year to today) in `currency`
    /// (default: the account's).
    pub async fn statement(
        &self,
        id: crate::path_id::Id<CustomerId>,
        query: &str,
    ) -> Result<Statement, ApiError> {
        let scope = self.caller.require(ApiResource::Invoices, Access::Read)?;
        self.caller.require(ApiResource::Customers, Access::Read)?;
        let id = id.get()?;
        let q = ListQuery::parse(query, &["from", "to", "currency"])?;
        let today = Utc::now().date_naive();
        let first = NaiveDate::from_ymd_opt(today.year(), 1, 1).unwrap_or(today);
        let from = q
            .text("from")?
            .unwrap_or_else(|| first.format("%Y-%m-%d").to_string());
        let to = q
            .text("to")?
            .unwrap_or_else(|| today.format("%Y-%m-%d").to_string());
        let range = DateRange::parse(Some(&from), Some(&to)).map_err(bad_parameter)?;
        let currency = match q.text("currency")? {
            Some(code) => Some(
                Currency::parse(&code)
                    .map_err(|e| ApiError::invalid_parameter("currency", e.to_string()))?,
            ),
            None => None,
        };
        let (customer, currency, (opening, items, aging)) = self
            .run(scope, "customer", move |r, s| {
                let customer = r.get_customer(s, id)?;
                let currency = match currency {
                    Some(c) => c,
                    None => r.get_profile(s)?.default_currency,
                };
                let statement = r.statement(s, id, currency, range)?;
                Ok((customer, currency, statement))
            })
            .await?;
        let entries = running_balance(opening, items);
        let closing = entries.last().map_or(opening, |e| e.balance_cents);
        Ok(Statement {
            object: "customer_statement",
            customer_id: customer.id.0,
            customer_name: customer.name,
            currency,
            from: range.from,
            to: range.to,
            opening_balance_cents: opening,
            entries,
            closing_balance_cents: closing,
            aging,
        })
    }

    pub async fn tax_report(&self, query: &str) -> Result<TaxReport, ApiError> {
        let scope = self.caller.require(ApiResource::Invoices, Access::Read)?;
        let q = ListQuery::parse(query, &["from", "to"])?;
        let range = range(&q)?;
        let data = self
            .run(scope, "report", move |r, s| r.tax_report(s, range))
            .await?;
        Ok(TaxReport {
            object: "tax_report",
            from: range.from,
            to: range.to,
            data,
        })
    }
}
