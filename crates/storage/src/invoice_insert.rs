//! Writing a new invoice's row and its lines. On PostgreSQL both go in one prepared statement
//! (the invoice's insert and its lines' in one `WITH`): a round trip less per create, and one
//! less gap in which the transaction holds its connection and its number's counter waiting for
//! the server (docs/BENCHMARKS.md). SQLite, which has no inserting `WITH`, takes two.

use crate::connection::AnyConnection;
use crate::documents::{insert_lines, insert_lines_postgres, line_views, pack_lines, LineRow};
use crate::invoice_rows::InvoiceRow;
use crate::prepared::prepared;
use crate::store::TxError;
use chrono::{NaiveDate, NaiveDateTime};
use diesel::prelude::*;
use diesel::query_builder::SqlQuery;
use diesel::sql_types::{BigInt, Bool, Date, Integer, Nullable, Text, Timestamp};
use invoicing_domain::document::{DocumentKind, LineItemView, Lines};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::ports::RepoError;
use invoicing_domain::tenant::Scope;

/// A new invoice's row, as [`insert_with_lines`] writes it (a draft).
pub(crate) struct NewRow<'a> {
    pub number: &'a str,
    pub customer_id: i64,
    pub currency: &'a str,
    pub issue_date: NaiveDate,
    pub due_date: NaiveDate,
    pub payment_terms: Option<String>,
    pub subtotal_cents: i64,
    pub tax_cents: i64,
    pub total_cents: i64,
    pub notes: Option<&'a str>,
    pub metadata: String,
    pub token: &'a str,
    pub quotation_id: Option<i64>,
    pub recurring_invoice_id: Option<i64>,
    pub recurring_period: Option<i32>,
    pub reminders: Option<String>,
    pub buyer_refs: Option<String>,
    pub tax_rounding: &'a str,
    pub now: NaiveDateTime,
}

/// Inserts `row` in `scope` with `lines`; returns the row as stored and the lines as the API
/// shows them.
pub(crate) fn insert_with_lines(
    conn: &mut AnyConnection,
    scope: Scope,
    row: &NewRow<'_>,
    lines: &Lines,
) -> Result<(InvoiceRow, Vec<LineItemView>), TxError> {
    // $1 … $22, the same for both statements.
    let bind_row = |query: SqlQuery| {
        query
            .bind::<BigInt, _>(scope.account_id.0)
            .bind::<Bool, _>(scope.livemode())
            .bind::<Text, _>(row.number)
            .bind::<Text, _>(InvoiceStatus::Draft.as_str())
            .bind::<BigInt, _>(row.customer_id)
            .bind::<Text, _>(row.currency)
            .bind::<Date, _>(row.issue_date)
            .bind::<Date, _>(row.due_date)
            .bind::<Nullable<Text>, _>(row.payment_terms.as_deref())
            .bind::<BigInt, _>(row.subtotal_cents)
            .bind::<BigInt, _>(row.tax_cents)
            .bind::<BigInt, _>(row.total_cents)
            .bind::<Nullable<Text>, _>(row.notes)
            .bind::<Text, _>(row.metadata.as_str())
            .bind::<Text, _>(row.token)
            .bind::<Nullable<BigInt>, _>(row.quotation_id)
            .bind::<Nullable<BigInt>, _>(row.recurring_invoice_id)
            .bind::<Nullable<Integer>, _>(row.recurring_period)
            .bind::<Nullable<Text>, _>(row.reminders.as_deref())
            .bind::<Nullable<Text>, _>(row.buyer_refs.as_deref())
            .bind::<Text, _>(row.tax_rounding)
            .bind::<Timestamp, _>(row.now)
    };
    if let AnyConnection::Sqlite(_) = conn {
        let stored: InvoiceRow =
            prepared!(bind_row(diesel::sql_query(INSERT_SQLITE))).get_result(conn)?;
        let views = insert_lines(conn, scope, DocumentKind::Invoice, stored.id, lines)?;
        return Ok((stored, views));
    }
    let packed = pack_lines(lines)?;
    let stored: WithLines = prepared!(bind_row(diesel::sql_query(INSERT_POSTGRES))
        .bind::<Text, _>(DocumentKind::Invoice.as_str())
        .bind::<Text, _>(&packed))
    .get_result(conn)?;
    let rows: Vec<LineRow> = match &stored.lines {
        None => Vec::new(),
        Some(json) => serde_json::from_str(json).map_err(|e| {
            RepoError::Internal(format!("invoice {} lines: {e}", stored.invoice.id))
        })?,
    };
    Ok((stored.invoice, line_views(rows)?))
}

#[derive(QueryableByName)]
struct WithLines {
    #[diesel(embed)]
    invoice: InvoiceRow,
    /// The inserted lines' rows as a JSON array, `NULL` for none.
    #[diesel(sql_type = Nullable<Text>)]
    lines: Option<String>,
}

macro_rules! invoice_insert {
    () => {
        "INSERT INTO invoices (account_id, livemode, number, status, customer_id, currency, \
         issue_date, due_date, payment_terms, subtotal_cents, tax_cents, total_cents, \
         amount_paid_cents, notes, metadata, token, quotation_id, recurring_invoice_id, \
         recurring_period, reminders, buyer_refs, tax_rounding, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 0, $13, $14, $15, $16, $17, \
         $18, $19, $20, $21, $22, $22) \
         RETURNING id, account_id, livemode, number, status, customer_id, currency, issue_date, \
         due_date, payment_terms, subtotal_cents, tax_cents, total_cents, amount_paid_cents, \
         notes, metadata, token, quotation_id, sent_at, viewed_at, paid_at, cancelled_at, \
         created_at, updated_at, reminders, amount_credited_cents, recurring_invoice_id, \
         buyer_refs, tax_rounding"
    };
}

const INSERT_SQLITE: &str = invoice_insert!();

/// The invoice, then its lines (`$23` their kind, `$24` the packed array) owned by it; the
/// lines come back as one JSON array beside the invoice's columns.
const INSERT_POSTGRES: &str = concat!(
    "WITH i AS (",
    invoice_insert!(),
    "), new_lines AS (",
    insert_lines_postgres!("i.account_id", "i.livemode", "$23", "i.id", "$24", "i, "),
    ") SELECT i.*, (SELECT json_agg(new_lines) FROM new_lines)::text AS lines FROM i"
);
