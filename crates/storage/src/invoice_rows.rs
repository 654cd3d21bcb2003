//! Reading invoices: rows, their lines, and the payment link built from the public URL.

use crate::connection::AnyConnection;
use crate::documents::DocumentRow;
use crate::documents::{read_lines, LineRow};
use crate::rows::{from_db, AnyOf};
use crate::schema::{invoices, line_items};
use crate::store::TxError;
use chrono::{NaiveDate, NaiveDateTime};
use diesel::prelude::*;
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::document::{DocumentKind, LineItemView};
use invoicing_domain::einvoice::TaxRounding;
use invoicing_domain::invoice::References;
use invoicing_domain::invoice::{amount_due, Invoice, InvoiceId};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::ports::RepoError;
use invoicing_domain::profile::Reminders;
use invoicing_domain::tenant::{AccountId, Environment, Scope};
use invoicing_domain::validation::Metadata;

#[derive(Queryable, Selectable, QueryableByName, Clone)]
#[diesel(table_name = invoices)]
pub(crate) struct InvoiceRow {
    pub id: i64,
    pub account_id: i64,
    pub livemode: bool,
    pub number: String,
    pub status: String,
    pub customer_id: i64,
    pub currency: String,
    pub issue_date: NaiveDate,
    pub due_date: NaiveDate,
    pub payment_terms: Option<String>,
    pub subtotal_cents: i64,
    pub tax_cents: i64,
    pub total_cents: i64,
    pub amount_paid_cents: i64,
    pub notes: Option<String>,
    pub metadata: String,
    pub token: String,
    pub quotation_id: Option<i64>,
    pub sent_at: Option<NaiveDateTime>,
    pub viewed_at: Option<NaiveDateTime>,
    pub paid_at: Option<NaiveDateTime>,
    pub cancelled_at: Option<NaiveDateTime>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    pub reminders: Option<String>,
    pub amount_credited_cents: i64,
    pub recurring_invoice_id: Option<i64>,
    pub buyer_refs: Option<String>,
    pub tax_rounding: String,
}

impl InvoiceRow {
    pub fn tax_rounding(&self) -> Result<TaxRounding, TxError> {
        TaxRounding::parse(&self.tax_rounding).ok_or_else(|| {
            RepoError::Internal(format!(
                "invoice {} has tax rounding {:?}",
                self.id, self.tax_rounding
            ))
            .into()
        })
    }

    pub fn scope(&self) -> Scope {
        Scope::new(
            AccountId(self.account_id),
            Environment::from_livemode(self.livemode),
        )
    }

    pub fn status(&self) -> Result<InvoiceStatus, TxError> {
        InvoiceStatus::parse(&self.status).ok_or_else(|| {
            RepoError::Internal(format!("invoice {} has status {:?}", self.id, self.status)).into()
        })
    }
}

crate::documents::document_row!(
    InvoiceRow, invoices, InvoiceStatus,
    stamped { Sent => sent_at, Viewed => viewed_at, Paid => paid_at, Cancelled => cancelled_at },
    unstamped { Draft, Overdue }
);

pub(crate) fn payment_link(public_url: &str, number: &str, token: &str) -> String {
    format!("{public_url}/invoice/{number}?token={token}")
}

/// Builds API invoices from rows, reading all their lines in one query.
pub(crate) fn to_invoices(
    conn: &mut AnyConnection,
    scope: Scope,
    rows: Vec<InvoiceRow>,
    public_url: &str,
) -> Result<Vec<Invoice>, TxError> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let mut lines = read_lines(conn, scope, DocumentKind::Invoice, &ids)?;
    rows.into_iter()
        .map(|row| {
            let line_items = lines.remove(&row.id).unwrap_or_default();
            to_invoice(row, line_items, public_url)
        })
        .collect()
}

/// The API invoice of one row and its lines.
pub(crate) fn to_invoice(
    row: InvoiceRow,
    line_items: Vec<LineItemView>,
    public_url: &str,
) -> Result<Invoice, TxError> {
    let status = row.status()?;
    let currency = Currency::parse(&row.currency).map_err(|_| {
        RepoError::Internal(format!(
            "invoice {} has currency {:?}",
            row.id, row.currency
        ))
    })?;
    let refs = References::from_json(row.buyer_refs.as_deref());
    let tax_rounding = row.tax_rounding()?;
    Ok(Invoice {
        id: InvoiceId(row.id),
        object: Invoice::OBJECT,
        payment_link: payment_link(public_url, &row.number, &row.token),
        invoice_number: row.number,
        status,
        customer_id: CustomerId(row.customer_id),
        currency,
        issue_date: row.issue_date,
        due_date: row.due_date,
        payment_terms: row.payment_terms,
        line_items,
        subtotal_cents: row.subtotal_cents,
        tax_cents: row.tax_cents,
        total_cents: row.total_cents,
        amount_paid_cents: row.amount_paid_cents,
        amount_credited_cents: row.amount_credited_cents,
        amount_due_cents: amount_due(
            status,
            row.total_cents,
            row.amount_paid_cents,
            row.amount_credited_cents,
        ),
        overpaid_cents: invoicing_domain::invoice::overpaid(
            status,
            row.total_cents,
            row.amount_paid_cents,
            row.amount_credited_cents,
        ),
        notes: row.notes,
        metadata: Metadata::from_json(&row.metadata),
        livemode: row.livemode,
        sent_at: row.sent_at.map(from_db),
        viewed_at: row.viewed_at.map(from_db),
        paid_at: row.paid_at.map(from_db),
        cancelled_at: row.cancelled_at.map(from_db),
        quotation_id: row.quotation_id,
        recurring_invoice_id: row.recurring_invoice_id,
        reminders: row.reminders.as_deref().map(Reminders::from_json),
        tax_rounding,
        buyer_reference: refs.buyer_reference,
        purchase_order: refs.purchase_order,
        delivery_date: refs.supply.delivery_date,
        service_period: refs.supply.service_period,
        created_at: from_db(row.created_at),
        updated_at: from_db(row.updated_at),
    })
}

pub(crate) fn load_row(
    conn: &mut AnyConnection,
    scope: Scope,
    id: InvoiceId,
) -> Result<InvoiceRow, TxError> {
    <InvoiceRow as DocumentRow>::reload(conn, scope, id.0)
}

/// An invoice's lines, to join beside its row.
pub(crate) type LinesOfInvoice = diesel::dsl::On<
    line_items::table,
    diesel::dsl::And<
        diesel::dsl::And<
            diesel::dsl::And<
                diesel::dsl::Eq<line_items::account_id, invoices::account_id>,
                diesel::dsl::Eq<line_items::livemode, invoices::livemode>,
            >,
            diesel::dsl::Eq<line_items::document_kind, &'static str>,
        >,
        diesel::dsl::Eq<line_items::document_id, invoices::id>,
    >,
>;

pub(crate) fn lines_of_invoice() -> LinesOfInvoice {
    line_items::table.on(line_items::account_id
        .eq(invoices::account_id)
        .and(line_items::livemode.eq(invoices::livemode))
        .and(line_items::document_kind.eq(DocumentKind::Invoice.as_str()))
        .and(line_items::document_id.eq(invoices::id)))
}

/// The invoice and its lines in one statement (one round trip, one snapshot): the row beside
/// each line, in the lines' order. Written with diesel's query builder so that, like every
/// other hot read, it is prepared once per connection (`sql_query` is planned on every call).
pub(crate) fn load_invoice(
    conn: &mut AnyConnection,
    scope: Scope,
    id: InvoiceId,
    public_url: &str,
) -> Result<Invoice, TxError> {
    // A line's columns are null where the join found no line.
    let rows: Vec<(InvoiceRow, Option<LineRow>)> = invoices::table
        .left_join(lines_of_invoice())
        .filter(invoices::account_id.eq(scope.account_id.0))
        .filter(invoices::livemode.eq(scope.livemode()))
        .filter(invoices::id.eq(id.0))
        .order(line_items::position)
        .select((InvoiceRow::as_select(), Option::<LineRow>::as_select()))
        .load(conn)?;
    let Some((row, lines)) = by_invoice(rows).pop() else {
        // Not this scope's: the scoped read says whether it is missing or another's.
        load_row(conn, scope, id)?;
        return Err(RepoError::NotFound.into());
    };
    with_lines(row, lines, public_url)
}

/// Invoices of several tenants in one statement, as [`load_invoice`] reads one: the answers in
/// the order asked. An invoice goes to an asker only when its row is of the asker's scope (its
/// account and environment); one asked with another's scope is answered by [`load_invoice`],
/// which says missing or another's, as it does for one.
pub(crate) fn load_invoices(
    conn: &mut AnyConnection,
    wanted: &[(Scope, InvoiceId)],
    public_url: &str,
) -> Result<Vec<Result<Invoice, TxError>>, TxError> {
    let mut ids: Vec<i64> = wanted.iter().map(|(_, id)| id.0).collect();
    ids.sort_unstable();
    ids.dedup();
    let mut rows: Vec<(InvoiceRow, Option<LineRow>)> = Vec::new();
    for chunk in ids.chunks(MOST_AT_ONCE) {
        rows.extend(load_rows(conn, chunk)?);
    }
    // Each built once, keyed by the tenant its row belongs to; a row that does not build is
    // left to the single read below, which answers its error.
    let found = by_invoice(rows);
    let mut invoices: Vec<((i64, i64, bool), Invoice)> = Vec::with_capacity(found.len());
    for (row, lines) in found {
        let tenant = (row.id, row.account_id, row.livemode);
        if let Ok(invoice) = with_lines(row, lines, public_url) {
            invoices.push((tenant, invoice));
        }
    }
    Ok(wanted
        .iter()
        .map(|&(scope, id)| {
            let tenant = (id.0, scope.account_id.0, scope.livemode());
            match invoices.iter().find(|(of, _)| *of == tenant) {
                Some((_, invoice)) => Ok(invoice.clone()),
                None => load_invoice(conn, scope, id, public_url),
            }
        })
        .collect())
}

/// Rows of a join of invoices to their lines, which come grouped by invoice, as one entry per
/// invoice with its lines in the rows' order.
pub(crate) fn by_invoice(
    rows: impl IntoIterator<Item = (InvoiceRow, Option<LineRow>)>,
) -> Vec<(InvoiceRow, Vec<LineRow>)> {
    let mut found: Vec<(InvoiceRow, Vec<LineRow>)> = Vec::new();
    for (row, line) in rows {
        match found.last_mut() {
            Some((last, lines)) if last.id == row.id => lines.extend(line),
            _ => found.push((row, line.into_iter().collect())),
        }
    }
    found
}

/// The API invoice of a row and its stored lines.
pub(crate) fn with_lines(
    row: InvoiceRow,
    lines: Vec<LineRow>,
    public_url: &str,
) -> Result<Invoice, TxError> {
    let lines = lines
        .into_iter()
        .map(LineRow::into_view)
        .collect::<Result<Vec<_>, _>>()?;
    to_invoice(row, lines, public_url)
}

/// The most invoices one statement asks for.
const MOST_AT_ONCE: usize = 32;

/// The rows of the invoices with these ids beside their lines, ordered by id then line; whose
/// they are is the caller's to check. The statement asks `id = ? OR id = ? ...`: PostgreSQL
/// plans that once per connection and count (a generic plan of index lookups). Arms that also
/// named each tenant let it fold a tenant common to all of them into a plan of its own on every
/// call (0.7 ms of planning at eight ids), and `= ANY(array)` was planned on every call too. The
/// count is rounded up to a power of two (the last id repeated), so that a connection prepares
/// a handful of statements, not one per count.
fn load_rows(
    conn: &mut AnyConnection,
    ids: &[i64],
) -> Result<Vec<(InvoiceRow, Option<LineRow>)>, TxError> {
    match ids.len() {
        0 => Ok(Vec::new()),
        1 => load_rows_of::<1>(conn, ids),
        2 => load_rows_of::<2>(conn, ids),
        3..=4 => load_rows_of::<4>(conn, ids),
        5..=8 => load_rows_of::<8>(conn, ids),
        9..=16 => load_rows_of::<16>(conn, ids),
        _ => load_rows_of::<MOST_AT_ONCE>(conn, ids),
    }
}

/// [`load_rows`] for `N` ids at most (the caller's chunks), padded with the last.
fn load_rows_of<const N: usize>(
    conn: &mut AnyConnection,
    ids: &[i64],
) -> Result<Vec<(InvoiceRow, Option<LineRow>)>, TxError> {
    debug_assert!(!ids.is_empty() && ids.len() <= N);
    let last = ids.last().copied().unwrap_or_default();
    let values: [i64; N] = std::array::from_fn(|i| ids.get(i).copied().unwrap_or(last));
    Ok(invoices::table
        .left_join(lines_of_invoice())
        .filter(AnyOf {
            column: invoices::id,
            values,
        })
        .order((invoices::id, line_items::position))
        .select((InvoiceRow::as_select(), Option::<LineRow>::as_select()))
        .load(conn)?)
}
