//! The invoice list's query (its filters, order and keyset position), shared by the API's pages
//! and the export's lean rows, so both read exactly the same invoices.

use crate::connection::{AnyConnection, MultiBackend};
use crate::documents::{kept_count, kept_count_query, LineRow};
use crate::invoice_rows::{by_invoice, lines_of_invoice, InvoiceRow};
use crate::rows::{from_db, lower, scoped, InPage};
use crate::schema::{customers, invoices, line_items};
use crate::store::TxError;
use chrono::{Duration, NaiveDate, NaiveDateTime};
use diesel::prelude::*;
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::document::DocumentKind;
use invoicing_domain::invoice::{
    amount_due, InvoiceFilter, InvoiceId, InvoiceOrder, InvoiceSummary,
};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::paging::PageRequest;
use invoicing_domain::ports::RepoError;
use invoicing_domain::tenant::Scope;

pub(crate) type InvoiceQuery = invoices::BoxedQuery<'static, MultiBackend>;

/// The scope's invoices that pass the filter, in no order.
pub(crate) fn filtered(scope: Scope, filter: &InvoiceFilter) -> InvoiceQuery {
    let day_start = |d: NaiveDate| d.and_hms_opt(0, 0, 0).unwrap_or_default();
    let mut q = scoped!(invoices, scope).into_boxed();
    if let Some(s) = filter.status {
        q = q.filter(invoices::status.eq(s.as_str()));
    }
    if let Some(kept) = filter.standing.statuses() {
        q = q.filter(invoices::status.eq_any(kept.iter().map(|s| s.as_str())));
    }
    if let Some(c) = filter.customer_id {
        q = q.filter(invoices::customer_id.eq(c.0));
    }
    if let Some(d) = filter.created_after {
        q = q.filter(invoices::created_at.ge(day_start(d)));
    }
    if let Some(d) = filter.created_before {
        q = q.filter(invoices::created_at.lt(day_start(d + Duration::days(1))));
    }
    if let Some(text) = &filter.search {
        let pattern = text.like_pattern();
        let customers = scoped!(customers, scope)
            .filter(
                lower(customers::name)
                    .like(pattern.clone())
                    .escape('\\')
                    .or(lower(customers::email).like(pattern.clone()).escape('\\')),
            )
            .select(customers::id);
        q = q.filter(
            lower(invoices::number)
                .like(pattern)
                .escape('\\')
                .or(invoices::customer_id.eq_any(customers)),
        );
    }
    q
}

/// The filtered list in its order, from the page's keyset position on.
fn ordered(scope: Scope, filter: &InvoiceFilter, page: PageRequest) -> InvoiceQuery {
    match filter.order {
        InvoiceOrder::Newest => crate::rows::below!(filtered(scope, filter), invoices, page)
            .order((invoices::created_at.desc(), invoices::id.desc())),
        InvoiceOrder::DueFirst => {
            filtered(scope, filter).order((invoices::due_date.asc(), invoices::id.asc()))
        }
    }
}

/// The page's rows of the filtered list in its order (one more than the page, to tell whether
/// another follows).
pub(crate) fn page_of(scope: Scope, filter: &InvoiceFilter, page: PageRequest) -> InvoiceQuery {
    ordered(scope, filter, page)
        .limit(page.limit() + 1)
        .offset(page.offset())
}

/// A page's invoices, each with its lines in order, and the list's kept total.
pub(crate) struct PageWithLines {
    pub(crate) invoices: Vec<(InvoiceRow, Vec<LineRow>)>,
    pub(crate) total: i64,
}

/// One row of the page's statement: an invoice, the position and columns of one of its lines
/// (null where it has none) and the kept total.
type JoinedRow = (InvoiceRow, Option<i32>, Option<LineRow>, Option<i64>);

/// The page's rows as [`page_of`] reads them, each with its lines, and the list's kept total of
/// `status`: the whole page in one statement (a row per line, the invoice alone when it has
/// none), so one round trip and one snapshot without a transaction. The rows are put in order
/// here, as [`ordered`] orders the page: PostgreSQL's sort of the joined rows, each as wide as
/// an invoice and a line, cost it more than the rest of the statement.
pub(crate) fn page_with_lines(
    conn: &mut AnyConnection,
    scope: Scope,
    filter: &InvoiceFilter,
    page: PageRequest,
) -> Result<PageWithLines, TxError> {
    let ids = InPage {
        id: invoices::id,
        page: ordered(scope, filter, page).select(invoices::id),
        limit: page.limit() + 1,
        offset: page.offset(),
    };
    let (kind, status) = (
        DocumentKind::Invoice.as_str(),
        filter.status.map(|s| s.as_str()),
    );
    let total = kept_count_query(scope, kind, status).single_value();
    let mut rows: Vec<JoinedRow> = invoices::table
        .left_join(lines_of_invoice())
        .filter(invoices::account_id.eq(scope.account_id.0))
        .filter(invoices::livemode.eq(scope.livemode()))
        .filter(ids)
        .select((
            InvoiceRow::as_select(),
            line_items::position.nullable(),
            Option::<LineRow>::as_select(),
            total,
        ))
        .load(conn)?;
    rows.sort_unstable_by(|(a, a_line, ..), (b, b_line, ..)| {
        let invoices = match filter.order {
            InvoiceOrder::Newest => (b.created_at, b.id).cmp(&(a.created_at, a.id)),
            InvoiceOrder::DueFirst => (a.due_date, a.id).cmp(&(b.due_date, b.id)),
        };
        invoices.then(a_line.cmp(b_line))
    });
    let total = match rows.first() {
        // The kept count is NULL when the scope has none of the kind yet.
        Some((.., total)) => total.unwrap_or(0),
        // A page past the end has no row to carry the total.
        None => kept_count(conn, scope, kind, status)?,
    };
    Ok(PageWithLines {
        invoices: by_invoice(rows.into_iter().map(|(row, _, line, _)| (row, line))),
        total,
    })
}

/// The columns an export writes, and nothing else.
#[derive(Queryable, Selectable)]
#[diesel(table_name = invoices)]
pub(crate) struct SummaryRow {
    id: i64,
    number: String,
    status: String,
    customer_id: i64,
    currency: String,
    issue_date: NaiveDate,
    due_date: NaiveDate,
    subtotal_cents: i64,
    tax_cents: i64,
    total_cents: i64,
    amount_paid_cents: i64,
    amount_credited_cents: i64,
    notes: Option<String>,
    sent_at: Option<NaiveDateTime>,
    paid_at: Option<NaiveDateTime>,
    created_at: NaiveDateTime,
}

impl SummaryRow {
    pub(crate) fn summary(self) -> Result<InvoiceSummary, TxError> {
        let bad = |what: &str, v: &str| {
            TxError::from(RepoError::Internal(format!(
                "invoice {} has {what} {v:?}",
                self.id
            )))
        };
        let status =
            InvoiceStatus::parse(&self.status).ok_or_else(|| bad("status", &self.status))?;
        let currency =
            Currency::parse(&self.currency).map_err(|_| bad("currency", &self.currency))?;
        Ok(InvoiceSummary {
            id: InvoiceId(self.id),
            status,
            customer_id: CustomerId(self.customer_id),
            currency,
            issue_date: self.issue_date,
            due_date: self.due_date,
            subtotal_cents: self.subtotal_cents,
            tax_cents: self.tax_cents,
            total_cents: self.total_cents,
            amount_paid_cents: self.amount_paid_cents,
            amount_credited_cents: self.amount_credited_cents,
            amount_due_cents: amount_due(
                status,
                self.total_cents,
                self.amount_paid_cents,
                self.amount_credited_cents,
            ),
            sent_at: self.sent_at.map(from_db),
            paid_at: self.paid_at.map(from_db),
            created_at: from_db(self.created_at),
            invoice_number: self.number,
            notes: self.notes,
        })
    }
}
