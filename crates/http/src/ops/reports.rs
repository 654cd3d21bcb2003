//! Reports (SPEC §22): aging, revenue and tax, read with `invoices:read`. Parameters are checked
//! here (400 naming the parameter); the sums are storage's, the rules the domain's.

use super::Ops;
use crate::error::ApiError;
use crate::path_id::Id;
use crate::query::ListQuery;
use chrono::Datelike;
use chrono::NaiveDate;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::email::{EmailInput, EmailSubject, OutgoingEmail, StatementOf};
use invoicing_domain::paging::Page;
use invoicing_domain::report::{
    AgingByCurrency, AgingByCustomer, CustomerStatement, DateRange, ReportInterval, RevenuePeriod,
    StatementShown, TaxLine,
};
use invoicing_domain::tenant::Scope;
use invoicing_domain::validation::Violations;
use invoicing_render as render;
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

/// A query parameter's refusal: 400 naming it, as every list's.
fn bad_parameter(v: Violations) -> ApiError {
    match v.errors().first() {
        Some(e) => ApiError::invalid_parameter(e.param.clone(), e.message.clone()),
        None => ApiError::invalid_parameter("query", "is not valid"),
    }
}

/// The statement asked for: the days (default: from the first of the year `to` falls in, to
/// today) and the currency (default:
/// the account's, decided by storage).
fn statement_of(
    id: Id<CustomerId>,
    query: &str,
    today: NaiveDate,
) -> Result<StatementOf, ApiError> {
    let customer = id.get()?;
    let q = ListQuery::parse(query, &["from", "to", "currency"])?;
    let to = q.date("to")?.unwrap_or(today);
    let first = NaiveDate::from_ymd_opt(to.year(), 1, 1).unwrap_or(to);
    let range = DateRange::new(q.date("from")?.unwrap_or(first), to).map_err(bad_parameter)?;
    let currency = match q.text("currency")? {
        Some(code) => Some(
            Currency::parse(&code)
                .map_err(|e| ApiError::invalid_parameter("currency", e.to_string()))?,
        ),
        None => None,
    };
    Ok(StatementOf {
        customer,
        currency,
        range,
    })
}

fn range(q: &ListQuery) -> Result<DateRange, ApiError> {
    let (from, to) = (q.text("from")?, q.text("to")?);
    DateRange::parse(from.as_deref(), to.as_deref()).map_err(bad_parameter)
}

impl Ops {
    pub async fn aging_report(&self, query: &str) -> Result<AgingReport, ApiError> {
        let scope = self.caller.require(ApiResource::Invoices, Access::Read)?;
        let q = ListQuery::parse(query, &["as_of"])?;
        let as_of = match q.date("as_of")? {
            Some(day) => day,
            None => self.today().await?,
        };
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

    /// A customer's statement: `from`–`to` (default: this year to today) in `currency`
    /// (default: the account's), with what its PDF and email show.
    async fn statement_shown(
        &self,
        scope: Scope,
        of: StatementOf,
    ) -> Result<StatementShown, ApiError> {
        self.caller.require(ApiResource::Customers, Access::Read)?;
        self.run(scope, "customer", move |r, s| {
            r.statement(s, of.customer, of.currency, of.range)
        })
        .await
    }

    pub async fn statement(
        &self,
        id: Id<CustomerId>,
        query: &str,
    ) -> Result<CustomerStatement, ApiError> {
        let scope = self.caller.require(ApiResource::Invoices, Access::Read)?;
        let of = statement_of(id, query, self.today().await?)?;
        Ok(self.statement_shown(scope, of).await?.statement)
    }

    /// The statement as its PDF prints it, in the customer's language.
    pub async fn statement_document(
        &self,
        id: Id<CustomerId>,
        query: &str,
    ) -> Result<render::Document, ApiError> {
        let scope = self.caller.require(ApiResource::Invoices, Access::Read)?;
        let today = self.today().await?;
        let of = statement_of(id, query, today)?;
        let shown = self.statement_shown(scope, of).await?;
        Ok(render::statement_document(shown, today))
    }

    /// Queues the statement by email (SPEC §18, kind `statement`): to the customer, or to the
    /// addresses asked for. Sending mail about invoices takes `invoices:write`.
    pub async fn email_statement(
        &self,
        id: Id<CustomerId>,
        query: &str,
        input: Option<EmailInput>,
    ) -> Result<OutgoingEmail, ApiError> {
        self.caller.require(ApiResource::Customers, Access::Read)?;
        let of = statement_of(id, query, self.today().await?)?;
        self.resend(EmailSubject::Statement(of), input).await
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
