//! Reading quotations: rows, their lines, and the public URL built from the base URL.

use crate::connection::AnyConnection;
use crate::documents::read_lines;
use crate::documents::DocumentRow;
use crate::rows::from_db;
use crate::schema::quotations;
use crate::store::TxError;
use chrono::{NaiveDate, NaiveDateTime};
use diesel::prelude::*;
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::document::DocumentKind;
use invoicing_domain::ports::RepoError;
use invoicing_domain::quotation::{Quotation, QuotationId};
use invoicing_domain::quotation_status::QuotationStatus;
use invoicing_domain::tenant::{AccountId, Environment, Scope};
use invoicing_domain::validation::Metadata;

#[derive(Queryable, Selectable, Clone)]
#[diesel(table_name = quotations)]
pub(crate) struct QuotationRow {
    pub id: i64,
    pub account_id: i64,
    pub livemode: bool,
    pub number: String,
    pub status: String,
    pub customer_id: i64,
    pub currency: String,
    pub issue_date: NaiveDate,
    pub valid_until: NaiveDate,
    pub subtotal_cents: i64,
    pub tax_cents: i64,
    pub total_cents: i64,
    pub notes: Option<String>,
    pub metadata: String,
    pub token: String,
    pub accepted_by_name: Option<String>,
    pub accepted_from_ip: Option<String>,
    pub accepted_user_agent: Option<String>,
    pub rejection_reason: Option<String>,
    pub invoice_id: Option<i64>,
    pub sent_at: Option<NaiveDateTime>,
    pub viewed_at: Option<NaiveDateTime>,
    pub accepted_at: Option<NaiveDateTime>,
    pub rejected_at: Option<NaiveDateTime>,
    pub expired_at: Option<NaiveDateTime>,
    pub converted_at: Option<NaiveDateTime>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

impl QuotationRow {
    pub fn scope(&self) -> Scope {
        Scope::new(
            AccountId(self.account_id),
            Environment::from_livemode(self.livemode),
        )
    }

    pub fn status(&self) -> Result<QuotationStatus, TxError> {
        QuotationStatus::parse(&self.status).ok_or_else(|| {
            RepoError::Internal(format!(
                "quotation {} has status {:?}",
                self.id, self.status
            ))
            .into()
        })
    }
}

crate::documents::document_row!(
    QuotationRow, quotations, QuotationStatus,
    stamped {
        Sent => sent_at, Viewed => viewed_at, Accepted => accepted_at, Rejected => rejected_at,
        Expired => expired_at, Converted => converted_at,
    },
    unstamped { Draft }
);

pub(crate) fn quote_link(public_url: &str, number: &str, token: &str) -> String {
    format!("{public_url}/quote/{number}?token={token}")
}

pub(crate) fn to_quotations(
    conn: &mut AnyConnection,
    scope: Scope,
    rows: Vec<QuotationRow>,
    public_url: &str,
) -> Result<Vec<Quotation>, TxError> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let mut lines = read_lines(conn, scope, DocumentKind::Quotation, &ids)?;
    rows.into_iter()
        .map(|row| {
            let status = row.status()?;
            let currency = Currency::parse(&row.currency).map_err(|_| {
                RepoError::Internal(format!(
                    "quotation {} has currency {:?}",
                    row.id, row.currency
                ))
            })?;
            Ok(Quotation {
                id: QuotationId(row.id),
                object: Quotation::OBJECT,
                public_url: quote_link(public_url, &row.number, &row.token),
                quote_number: row.number,
                status,
                customer_id: CustomerId(row.customer_id),
                currency,
                issue_date: row.issue_date,
                valid_until: row.valid_until,
                line_items: lines.remove(&row.id).unwrap_or_default(),
                subtotal_cents: row.subtotal_cents,
                tax_cents: row.tax_cents,
                total_cents: row.total_cents,
                notes: row.notes,
                metadata: Metadata::from_json(&row.metadata),
                livemode: row.livemode,
                accepted_by_name: row.accepted_by_name,
                accepted_from_ip: row.accepted_from_ip,
                accepted_user_agent: row.accepted_user_agent,
                rejection_reason: row.rejection_reason,
                invoice_id: row.invoice_id,
                sent_at: row.sent_at.map(from_db),
                viewed_at: row.viewed_at.map(from_db),
                accepted_at: row.accepted_at.map(from_db),
                rejected_at: row.rejected_at.map(from_db),
                expired_at: row.expired_at.map(from_db),
                converted_at: row.converted_at.map(from_db),
                created_at: from_db(row.created_at),
                updated_at: from_db(row.updated_at),
            })
        })
        .collect()
}

pub(crate) fn load_row(
    conn: &mut AnyConnection,
    scope: Scope,
    id: QuotationId,
) -> Result<QuotationRow, TxError> {
    <QuotationRow as DocumentRow>::reload(conn, scope, id.0)
}

pub(crate) fn load_quotation(
    conn: &mut AnyConnection,
    scope: Scope,
    id: QuotationId,
    public_url: &str,
) -> Result<Quotation, TxError> {
    let row = load_row(conn, scope, id)?;
    to_quotations(conn, scope, vec![row], public_url)?
        .pop()
        .ok_or_else(|| RepoError::Internal("quotation vanished".into()).into())
}
