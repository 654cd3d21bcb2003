//! Reports (SPEC §22): sums of stored integers. The aging is a `GROUP BY` over the tenant's open
//! invoices (an index of them); revenue and tax read the books (`booked_days`, what the domain's
//! rule counts, kept by `books.rs`), what payments brought and what was owed, kept by day
//! (`collected_days`, `receivable_changes`). The domain decides what counts when
//! (`report::books`), the buckets (`AgingEdges`) and periods (`ReportInterval`); the statements
//! are the same on both backends (parameters numbered in order of appearance, dates compared as
//! dates).

use crate::connection::AnyConnection;
use crate::customers::load_scoped;
use crate::profiles::load_profile;
use crate::store::{Store, TxError};
use chrono::NaiveDate;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Date, Nullable, Text, Timestamp};
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::decimal::TaxRate;
use invoicing_domain::einvoice::TaxCategory;
use invoicing_domain::paging::{Page, PageRequest};
use invoicing_domain::ports::{RepoError, RepoResult, ReportRepository};
use invoicing_domain::report::{
    AgingAmounts, AgingByCurrency, AgingByCustomer, AgingEdges, CustomerStatement, DateRange,
    ReportInterval, RevenuePeriod, StatementEntryKind, StatementItem, StatementShown, TaxLine,
};
use invoicing_domain::tenant::Scope;

/// What an open invoice still owes, never below zero (as its `amount_due_cents`).
const DUE: &str = "CASE WHEN total_cents - amount_paid_cents - amount_credited_cents > 0 \
                   THEN total_cents - amount_paid_cents - amount_credited_cents ELSE 0 END";
const OPEN: &str = "status IN ('sent', 'viewed', 'overdue')";
/// An invoice `i` that left its draft (SPEC §22): a draft's cancel stamps no `sent_at`, and a
/// paid invoice cannot be cancelled.
const LEFT_DRAFT: &str =
    "i.status <> 'draft' AND (i.status <> 'cancelled' OR i.sent_at IS NOT NULL)";

/// The bucket sums of one group, the edges bound as `$1`…`$4`. (SQLite numbers parameters in
/// order of first appearance: the select list comes before the `WHERE`, so the edges come first.)
fn bucket_sums() -> String {
    let sum = |cond: &str| format!("CAST(SUM(CASE WHEN {cond} THEN {DUE} ELSE 0 END) AS BIGINT)");
    format!(
        "{} AS current, {} AS d1, {} AS d31, {} AS d61, {} AS d91, CAST(SUM({DUE}) AS BIGINT) AS total",
        sum("due_date >= $1"),
        sum("due_date < $1 AND due_date >= $2"),
        sum("due_date < $2 AND due_date >= $3"),
        sum("due_date < $3 AND due_date >= $4"),
        sum("due_date < $4"),
    )
}

#[derive(QueryableByName)]
struct AgingRow {
    #[diesel(sql_type = Text)]
    currency: String,
    #[diesel(sql_type = Nullable<BigInt>)]
    current: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    d1: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    d31: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    d61: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    d91: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    total: Option<i64>,
}

impl AgingRow {
    fn amounts(&self) -> AgingAmounts {
        let v = |x: Option<i64>| x.unwrap_or(0);
        AgingAmounts {
            current: v(self.current),
            days_1_30: v(self.d1),
            days_31_60: v(self.d31),
            days_61_90: v(self.d61),
            over_90: v(self.d91),
            total: v(self.total),
        }
    }
}

#[derive(QueryableByName)]
struct CustomerAgingRow {
    #[diesel(sql_type = BigInt)]
    customer_id: i64,
    #[diesel(sql_type = Text)]
    customer_name: String,
    /// How many customer and currency groups there are in all (the page's total).
    #[diesel(sql_type = BigInt)]
    groups: i64,
    #[diesel(embed)]
    aging: AgingRow,
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

fn currency(code: &str) -> Result<Currency, TxError> {
    Currency::parse(code)
        .map_err(|_| RepoError::Internal(format!("stored currency {code:?}")).into())
}

fn bind_edges(
    q: diesel::query_builder::SqlQuery,
    scope: Scope,
    e: AgingEdges,
) -> diesel::query_builder::BoxedSqlQuery<
    'static,
    crate::connection::MultiBackend,
    diesel::query_builder::SqlQuery,
> {
    q.into_boxed()
        .bind::<Date, _>(e.current)
        .bind::<Date, _>(e.days_1_30)
        .bind::<Date, _>(e.days_31_60)
        .bind::<Date, _>(e.days_61_90)
        .bind::<BigInt, _>(scope.account_id.0)
        .bind::<Bool, _>(scope.livemode())
}

fn aging(
    conn: &mut AnyConnection,
    scope: Scope,
    as_of: NaiveDate,
) -> Result<Vec<AgingByCurrency>, TxError> {
    let sql = format!(
        "SELECT currency, {} FROM invoices WHERE account_id = $5 AND livemode = $6 AND {OPEN} \
         GROUP BY currency ORDER BY currency",
        bucket_sums()
    );
    let rows: Vec<AgingRow> =
        bind_edges(diesel::sql_query(sql), scope, AgingEdges::at(as_of)).load(conn)?;
    rows.iter()
        .map(|r| {
            Ok(AgingByCurrency {
                currency: currency(&r.currency)?,
                amounts: r.amounts(),
            })
        })
        .collect()
}

fn aging_by_customer(
    conn: &mut AnyConnection,
    scope: Scope,
    as_of: NaiveDate,
    page: PageRequest,
) -> Result<Page<AgingByCustomer>, TxError> {
    // Largest first; ties by customer, so pages never overlap.
    let sql = format!(
        "SELECT g.*, c.name AS customer_name, CAST(COUNT(*) OVER () AS BIGINT) AS groups FROM (\
           SELECT customer_id, currency, {} FROM invoices \
           WHERE account_id = $5 AND livemode = $6 AND {OPEN} GROUP BY customer_id, currency\
         ) g JOIN customers c ON c.id = g.customer_id \
         ORDER BY g.total DESC, g.customer_id, g.currency LIMIT {} OFFSET {}",
        bucket_sums(),
        page.limit() + 1,
        page.offset()
    );
    let mut rows: Vec<CustomerAgingRow> =
        bind_edges(diesel::sql_query(sql), scope, AgingEdges::at(as_of)).load(conn)?;
    let has_more = rows.len() as i64 > page.limit();
    rows.truncate(page.limit() as usize);
    // The groups were counted with the page's rows; a page past the last has none to say it.
    let total = if let Some(first) = rows.first() {
        first.groups
    } else if page.counts() && page.page() > 1 {
        let counted: Vec<Count> = diesel::sql_query(format!(
            "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM (SELECT customer_id, currency FROM invoices \
             WHERE account_id = $1 AND livemode = $2 AND {OPEN} GROUP BY customer_id, currency) g"
        ))
        .bind::<BigInt, _>(scope.account_id.0)
        .bind::<Bool, _>(scope.livemode())
        .load(conn)?;
        counted.first().map(|c| c.n).unwrap_or(0)
    } else {
        0
    };
    let data = rows
        .into_iter()
        .map(|r| {
            Ok(AgingByCustomer {
                customer_id: r.customer_id,
                customer_name: r.customer_name,
                currency: currency(&r.aging.currency)?,
                amounts: r.aging.amounts(),
            })
        })
        .collect::<Result<Vec<_>, TxError>>()?;
    Ok(Page {
        data,
        page: page.page(),
        per_page: page.per_page(),
        total,
        has_more,
        total_capped: false,
    })
}

#[derive(QueryableByName)]
struct TaxRow {
    #[diesel(sql_type = Text)]
    currency: String,
    #[diesel(sql_type = BigInt)]
    rate: i64,
    #[diesel(sql_type = Text)]
    category: String,
    #[diesel(sql_type = BigInt)]
    taxable: i64,
    #[diesel(sql_type = BigInt)]
    tax: i64,
}

/// The books' sums of the range by currency, rate and VAT category.
fn tax(conn: &mut AnyConnection, scope: Scope, range: DateRange) -> Result<Vec<TaxLine>, TxError> {
    let rows: Vec<TaxRow> = diesel::sql_query(
        "SELECT currency, tax_rate_milli AS rate, tax_category AS category, \
           CAST(SUM(taxable) AS BIGINT) AS taxable, CAST(SUM(tax) AS BIGINT) AS tax \
         FROM booked_days WHERE account_id = $1 AND livemode = $2 AND day >= $3 AND day <= $4 \
         GROUP BY currency, tax_rate_milli, tax_category \
         ORDER BY currency, tax_rate_milli, tax_category",
    )
    .bind::<BigInt, _>(scope.account_id.0)
    .bind::<Bool, _>(scope.livemode())
    .bind::<Date, _>(range.from)
    .bind::<Date, _>(range.to)
    .load(conn)?;
    rows.into_iter()
        .filter(|r| (r.taxable, r.tax) != (0, 0))
        .map(
            |TaxRow {
                 currency: code,
                 rate,
                 category,
                 taxable,
                 tax,
             }| {
                let rate = TaxRate::from_thousandths(rate)
                    .map_err(|e| RepoError::Internal(format!("stored tax rate {rate}: {e}")))?;
                let tax_category = match category.as_str() {
                    "" => None,
                    c => Some(TaxCategory::parse(c).ok_or_else(|| {
                        RepoError::Internal(format!("stored tax category {c:?}"))
                    })?),
                };
                Ok(TaxLine {
                    currency: currency(&code)?,
                    tax_rate: rate.to_string(),
                    tax_category,
                    taxable_cents: taxable,
                    tax_cents: tax,
                })
            },
        )
        .collect()
}

#[derive(QueryableByName)]
struct Owed {
    #[diesel(sql_type = Text)]
    currency: String,
    #[diesel(sql_type = Nullable<BigInt>)]
    a: Option<i64>,
}

/// Owed at `until`, the start of `day`: what invoices issued before it (that left their draft, and were neither
/// cancelled nor marked paid by then) came to, less what was verified as paid and credited on each before it, never below
/// zero per invoice; by currency, or of one customer in one currency (`only`).
fn owed(
    conn: &mut AnyConnection,
    scope: Scope,
    day: NaiveDate,
    until: chrono::NaiveDateTime,
    only: Option<(i64, &str)>,
) -> Result<Vec<(String, i64)>, TxError> {
    let due = "i.total_cents - COALESCE(p.paid, 0) - COALESCE(n.credited, 0)";
    let of_one = if only.is_some() {
        "AND i.customer_id = $12 AND i.currency = $13"
    } else {
        ""
    };
    let sql = format!(
        "SELECT i.currency AS currency, \
           CAST(SUM(CASE WHEN {due} > 0 THEN {due} ELSE 0 END) AS BIGINT) AS a \
         FROM invoices i \
         LEFT JOIN (SELECT invoice_id, SUM(amount_cents) AS paid FROM payments \
           WHERE account_id = $1 AND livemode = $2 AND status = 'verified' AND collected_on < $3 \
           GROUP BY invoice_id) p ON p.invoice_id = i.id \
         LEFT JOIN (SELECT invoice_id, SUM(total_cents) AS credited FROM credit_notes \
           WHERE account_id = $4 AND livemode = $5 AND created_at < $6 \
           GROUP BY invoice_id) n ON n.invoice_id = i.id \
         WHERE i.account_id = $7 AND i.livemode = $8 AND {LEFT_DRAFT} AND i.issue_date < $9 \
           AND (i.cancelled_at IS NULL OR i.cancelled_at >= $10) \
           AND (i.paid_at IS NULL OR i.paid_at >= $11) {of_one} \
         GROUP BY i.currency"
    );
    // Payments by the day they were collected, credit notes by their instant.
    let mut q = diesel::sql_query(sql)
        .into_boxed()
        .bind::<BigInt, _>(scope.account_id.0)
        .bind::<Bool, _>(scope.livemode())
        .bind::<Date, _>(day)
        .bind::<BigInt, _>(scope.account_id.0)
        .bind::<Bool, _>(scope.livemode())
        .bind::<Timestamp, _>(until);
    q = q
        .bind::<BigInt, _>(scope.account_id.0)
        .bind::<Bool, _>(scope.livemode())
        .bind::<Date, _>(day)
        .bind::<Timestamp, _>(until)
        .bind::<Timestamp, _>(until);
    if let Some((customer, code)) = only {
        q = q
            .bind::<BigInt, _>(customer)
            .bind::<Text, _>(code.to_string());
    }
    let rows: Vec<Owed> = q.load(conn)?;
    Ok(rows
        .into_iter()
        .map(|r| (r.currency, r.a.unwrap_or(0)))
        .collect())
}

/// One day's kept sums: what the books counted (gross and tax) and what payments verified that
/// day brought.
#[derive(QueryableByName)]
struct RevenueDay {
    #[diesel(sql_type = Text)]
    currency: String,
    #[diesel(sql_type = Date)]
    day: NaiveDate,
    #[diesel(sql_type = BigInt)]
    invoiced: i64,
    #[diesel(sql_type = BigInt)]
    tax: i64,
    #[diesel(sql_type = BigInt)]
    collected: i64,
}

/// The kept sums of the days in `[from, until)` (`booked_days`, `collected_days`): one
/// statement over days.
fn revenue_days(
    conn: &mut AnyConnection,
    scope: Scope,
    from: NaiveDate,
    until: NaiveDate,
) -> Result<Vec<RevenueDay>, TxError> {
    let mut q = diesel::sql_query(
        "SELECT currency, day, CAST(SUM(gross) AS BIGINT) AS invoiced, \
           CAST(SUM(tax) AS BIGINT) AS tax, CAST(SUM(collected) AS BIGINT) AS collected FROM (\
           SELECT currency, day, taxable + tax AS gross, tax, 0 AS collected FROM booked_days \
           WHERE account_id = $1 AND livemode = $2 AND day >= $3 AND day < $4 \
           UNION ALL \
           SELECT currency, day, 0, 0, collected FROM collected_days \
           WHERE account_id = $5 AND livemode = $6 AND day >= $7 AND day < $8\
         ) d GROUP BY currency, day",
    )
    .into_boxed();
    for _ in 0..2 {
        q = q
            .bind::<BigInt, _>(scope.account_id.0)
            .bind::<Bool, _>(scope.livemode())
            .bind::<Date, _>(from)
            .bind::<Date, _>(until);
    }
    Ok(q.load(conn)?)
}

/// What invoices owed at the end of each period (`(start, end)`, the end not included), per
/// currency and by the period's start: the kept changes by day (`receivable_changes`, written by the invoices' triggers
/// with every change to an amount due) summed up to it. One statement, the days of the history.
fn owed_at_ends(
    conn: &mut AnyConnection,
    scope: Scope,
    ends: &[(NaiveDate, NaiveDate)],
) -> Result<Vec<(NaiveDate, String, i64)>, TxError> {
    use crate::rows::scoped;
    use crate::schema::receivable_changes as rc;
    let Some(last) = ends.iter().map(|(_, end)| *end).max() else {
        return Ok(Vec::new());
    };
    let days: Vec<(String, NaiveDate, i64)> = scoped!(rc, scope)
        .filter(rc::day.lt(last))
        .order(rc::day)
        .select((rc::currency, rc::day, rc::delta))
        .load(conn)?;
    let mut out = Vec::new();
    for (start, end) in ends {
        let mut owed: Vec<(String, i64)> = Vec::new();
        for (code, _, delta) in days.iter().filter(|(_, day, _)| day < end) {
            match owed.iter_mut().find(|(c, _)| c == code) {
                Some((_, sum)) => *sum += delta,
                None => owed.push((code.clone(), *delta)),
            }
        }
        out.extend(owed.into_iter().map(|(c, o)| (*start, c, o)));
    }
    Ok(out)
}

/// The row of `code`'s period that `day` falls in, made when first needed.
fn slot<'a>(
    out: &'a mut Vec<RevenuePeriod>,
    interval: ReportInterval,
    code: &str,
    day: NaiveDate,
) -> Result<&'a mut RevenuePeriod, TxError> {
    let c = currency(code)?;
    let start = interval.start_of(day);
    let i = match out
        .iter()
        .position(|r| r.currency == c && r.period_start == start)
    {
        Some(i) => i,
        None => {
            let end = interval.end_of(start);
            out.push(RevenuePeriod {
                currency: c,
                period_start: start,
                period_end: end.pred_opt().unwrap_or(end),
                invoiced_cents: 0,
                tax_cents: 0,
                collected_cents: 0,
                outstanding_cents: 0,
            });
            out.len() - 1
        }
    };
    Ok(&mut out[i])
}

/// The kept sums of the range's days, then what was owed at the end of each period with
/// activity and of the last one (the kept receivables): two statements over days.
fn revenue(
    conn: &mut AnyConnection,
    scope: Scope,
    range: DateRange,
    interval: ReportInterval,
) -> Result<Vec<RevenuePeriod>, TxError> {
    let periods = interval.periods(range.from, range.to);
    let (Some(first), Some(last)) = (periods.first(), periods.last()) else {
        return Ok(Vec::new());
    };
    let (from, until) = (first.0, last.1);
    let mut out: Vec<RevenuePeriod> = Vec::new();
    for d in revenue_days(conn, scope, from, until)? {
        // A day whose documents were all cancelled again is no activity.
        if [d.invoiced, d.tax, d.collected] == [0; 3] {
            continue;
        }
        let row = slot(&mut out, interval, &d.currency, d.day)?;
        row.invoiced_cents += d.invoiced;
        row.tax_cents += d.tax;
        row.collected_cents += d.collected;
    }
    // What was owed at a period's end, for the periods where something happened and the last:
    // a quiet period owes what the one before it did, and a range of centuries costs no more
    // statements than its activity.
    let mut ends: Vec<(NaiveDate, NaiveDate)> = periods
        .iter()
        .filter(|(start, _)| out.iter().any(|r| r.period_start == *start))
        .copied()
        .collect();
    if let Some(last) = periods.last() {
        if !ends.contains(last) {
            ends.push(*last);
        }
    }
    for (start, code, owed) in owed_at_ends(conn, scope, &ends)? {
        let listed = out
            .iter()
            .any(|r| r.period_start == start && r.currency.code() == code);
        if owed != 0 || listed {
            slot(&mut out, interval, &code, start)?.outstanding_cents += owed;
        }
    }
    out.sort_by(|a, b| {
        (a.period_start, a.currency.code()).cmp(&(b.period_start, b.currency.code()))
    });
    Ok(out)
}

impl ReportRepository for Store {
    fn aging(&self, scope: Scope, as_of: NaiveDate) -> RepoResult<Vec<AgingByCurrency>> {
        self.read(|conn| aging(conn, scope, as_of))
    }

    fn aging_by_customer(
        &self,
        scope: Scope,
        as_of: NaiveDate,
        page: PageRequest,
    ) -> RepoResult<Page<AgingByCustomer>> {
        self.read(|conn| aging_by_customer(conn, scope, as_of, page))
    }

    fn tax_report(&self, scope: Scope, range: DateRange) -> RepoResult<Vec<TaxLine>> {
        self.read(|conn| tax(conn, scope, range))
    }

    fn revenue(
        &self,
        scope: Scope,
        range: DateRange,
        interval: ReportInterval,
    ) -> RepoResult<Vec<RevenuePeriod>> {
        self.read(|conn| revenue(conn, scope, range, interval))
    }

    fn statement(
        &self,
        scope: Scope,
        customer: CustomerId,
        currency: Option<Currency>,
        range: DateRange,
    ) -> RepoResult<StatementShown> {
        self.read(|conn| {
            let customer = load_scoped(conn, scope, customer)?;
            let profile = load_profile(conn, scope)?;
            let currency = currency.unwrap_or(profile.default_currency);
            let (opening, items, aging) = statement(conn, scope, customer.id.0, currency, range)?;
            let (parties, logo) = crate::parties::current(conn, scope, &profile, &customer)?;
            let statement =
                CustomerStatement::new(&customer, currency, range, opening, items, aging);
            Ok(StatementShown {
                statement,
                parties,
                logo,
            })
        })
    }
}

/// `LEFT_DRAFT` for diesel's query builder over `invoices`.
macro_rules! left_draft {
    () => {
        invoices::status.ne("draft").and(
            invoices::status
                .ne("cancelled")
                .or(invoices::sent_at.is_not_null()),
        )
    };
}

/// An invoice closed by a cancellation or by marking it paid.
#[derive(Queryable, Selectable)]
#[diesel(table_name = crate::schema::invoices)]
struct Closed {
    id: i64,
    number: String,
    total_cents: i64,
    amount_paid_cents: i64,
    amount_credited_cents: i64,
    paid_at: Option<chrono::NaiveDateTime>,
    cancelled_at: Option<chrono::NaiveDateTime>,
}

/// A customer's statement in one currency: the balance owed at the range's start, the
/// documents and payments of the range, and the aging of what they owe now.
fn statement(
    conn: &mut AnyConnection,
    scope: Scope,
    customer: i64,
    money: Currency,
    range: DateRange,
) -> Result<(i64, Vec<StatementItem>, AgingAmounts), TxError> {
    use crate::rows::scoped;
    use crate::schema::{credit_notes, invoices, payments};
    // The range's days are the merchant's (SPEC §27): each begins at local midnight.
    let zone = crate::local_days::zone_of(conn, scope)?;
    let at = |d: NaiveDate| zone.start_of(d).naive_utc();
    let (from, end) = (at(range.from), at(range.end()));
    let day = |t: chrono::NaiveDateTime| zone.today(t.and_utc());
    let code = money.code();
    let opening = owed(conn, scope, range.from, from, Some((customer, code)))?
        .first()
        .map_or(0, |(_, a)| *a);
    let mut items: Vec<StatementItem> = Vec::new();
    let issued: Vec<(i64, String, i64, NaiveDate)> = scoped!(invoices, scope)
        .filter(invoices::customer_id.eq(customer))
        .filter(invoices::currency.eq(code))
        .filter(left_draft!())
        .filter(invoices::issue_date.ge(range.from))
        .filter(invoices::issue_date.le(range.to))
        .select((
            invoices::id,
            invoices::number,
            invoices::total_cents,
            invoices::issue_date,
        ))
        .load(conn)?;
    for (id, number, total, issue_date) in issued {
        items.push((issue_date, StatementEntryKind::Invoice, id, number, total));
    }
    // A payment counts on the day it was collected, as in the revenue report.
    let paid: Vec<(i64, i64, Option<NaiveDate>, i64)> = scoped!(payments, scope)
        .filter(payments::customer_id.eq(customer))
        .filter(payments::currency.eq(code))
        .filter(payments::status.eq("verified"))
        .filter(payments::collected_on.ge(range.from))
        .filter(payments::collected_on.le(range.to))
        .select((
            payments::id,
            payments::amount_cents,
            payments::collected_on,
            payments::invoice_id,
        ))
        .load(conn)?;
    // A payment is named by its invoice's number.
    let ids: Vec<i64> = paid.iter().map(|p| p.3).collect();
    let numbers: Vec<(i64, String)> = scoped!(invoices, scope)
        .filter(invoices::id.eq_any(&ids))
        .select((invoices::id, invoices::number))
        .load(conn)?;
    for (id, amount, collected_on, invoice) in paid {
        let date = collected_on.unwrap_or(range.from);
        let number = numbers
            .iter()
            .find(|(i, _)| *i == invoice)
            .map(|(_, n)| n.clone())
            .unwrap_or_default();
        items.push((date, StatementEntryKind::Payment, id, number, -amount));
    }
    let credited: Vec<(i64, String, i64, chrono::NaiveDateTime)> = scoped!(credit_notes, scope)
        .filter(credit_notes::customer_id.eq(customer))
        .filter(credit_notes::currency.eq(code))
        .filter(credit_notes::created_at.ge(from))
        .filter(credit_notes::created_at.lt(end))
        .select((
            credit_notes::id,
            credit_notes::number,
            credit_notes::total_cents,
            credit_notes::created_at,
        ))
        .load(conn)?;
    for (id, number, total, created_at) in credited {
        items.push((
            day(created_at),
            StatementEntryKind::CreditNote,
            id,
            number,
            -total,
        ));
    }
    // What a cancellation or a marking as paid took off: what the invoice still owed then.
    let closed: Vec<Closed> = scoped!(invoices, scope)
        .filter(invoices::customer_id.eq(customer))
        .filter(invoices::currency.eq(code))
        .filter(left_draft!())
        .filter(
            invoices::cancelled_at
                .ge(from)
                .and(invoices::cancelled_at.lt(end))
                .or(invoices::paid_at.ge(from).and(invoices::paid_at.lt(end))),
        )
        .select(Closed::as_select())
        .load(conn)?;
    for c in closed {
        let rest = c.total_cents - c.amount_paid_cents - c.amount_credited_cents;
        let (kind, at) = match (c.cancelled_at, c.paid_at) {
            (Some(at), _) => (StatementEntryKind::Cancellation, at),
            (None, Some(at)) => (StatementEntryKind::MarkedPaid, at),
            (None, None) => continue,
        };
        if rest > 0 {
            items.push((day(at), kind, c.id, c.number, -rest));
        }
    }
    let sql = format!(
        "SELECT currency, {} FROM invoices WHERE account_id = $5 AND livemode = $6 AND {OPEN} \
         AND customer_id = $7 AND currency = $8 GROUP BY currency",
        bucket_sums()
    );
    let aging: Vec<AgingRow> = bind_edges(
        diesel::sql_query(sql),
        scope,
        AgingEdges::at(zone.today(chrono::Utc::now())),
    )
    .bind::<BigInt, _>(customer)
    .bind::<Text, _>(code)
    .load(conn)?;
    let aging = aging.first().map(AgingRow::amounts).unwrap_or_default();
    Ok((opening, items, aging))
}
