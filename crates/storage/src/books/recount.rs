//! The books recounted from every stored document with the domain's rule, for tests to hold the
//! kept sums against (`TestDb::assert_kept_counts`): the rule applied afresh, not the kept sums'
//! own writer.

use super::category_column;
use crate::connection::AnyConnection;
use crate::schema::{credit_notes, invoices};
use crate::store::TxError;
use chrono::NaiveDate;
use diesel::prelude::*;
use invoicing_domain::report::books::{self, BookLine, Booking};

/// A day's books of one tenant, currency, rate and category: (taxable, tax).
pub(crate) type Recount = std::collections::BTreeMap<Key, (i64, i64)>;

/// Tenant, live, currency, day, rate in thousandths, category ('' for none).
type Key = (i64, bool, String, NaiveDate, i64, String);

/// A line's tenant, live, kind, document, rate, category, taxable, tax.
type LineCols = (i64, bool, String, i64, i64, Option<String>, i64, i64);

/// The books as the domain's rule makes them from every document stored, for tests to hold
/// the kept sums against (`TestDb::assert_kept_counts`): the rule applied afresh, not the
/// kept sums' own writer.
pub(crate) fn recount(conn: &mut AnyConnection) -> Result<Recount, TxError> {
    use crate::schema::{account_profiles, line_items};
    use chrono::NaiveDateTime;
    use invoicing_domain::invoice_status::InvoiceStatus;
    use invoicing_domain::time_zone::TimeZone;
    let mut lines: std::collections::HashMap<(i64, bool, String, i64), Vec<BookLine>> =
        Default::default();
    let rows: Vec<LineCols> = line_items::table
        .select((
            line_items::account_id,
            line_items::livemode,
            line_items::document_kind,
            line_items::document_id,
            line_items::tax_rate_milli,
            line_items::tax_category,
            line_items::subtotal_cents,
            line_items::tax_cents,
        ))
        .load(conn)?;
    for (account, live, kind, doc, rate, category, taxable, tax) in rows {
        let line = BookLine {
            rate: invoicing_domain::decimal::TaxRate::from_thousandths(rate)
                .map_err(|e| internal(e.to_string()))?,
            category: category
                .as_deref()
                .and_then(invoicing_domain::einvoice::TaxCategory::parse),
            taxable,
            tax,
        };
        lines
            .entry((account, live, kind, doc))
            .or_default()
            .push(line);
    }
    let of = |account: i64, live: bool, kind: &str, id: i64| {
        lines
            .get(&(account, live, kind.to_string(), id))
            .cloned()
            .unwrap_or_default()
    };
    // Each account's days where it is (SPEC §27), as the writers book them.
    let zones: std::collections::HashMap<(i64, bool), TimeZone> = account_profiles::table
        .select((
            account_profiles::account_id,
            account_profiles::livemode,
            account_profiles::time_zone,
        ))
        .load::<(i64, bool, String)>(conn)?
        .into_iter()
        .map(|(a, l, z)| ((a, l), TimeZone::from_stored(&z)))
        .collect();
    let day = |account: i64, live: bool, at: &NaiveDateTime| {
        zones
            .get(&(account, live))
            .copied()
            .unwrap_or_default()
            .today(at.and_utc())
    };
    let mut out = Recount::new();
    let mut book = |account: i64, live: bool, currency: &str, bookings: Vec<Booking>| {
        for b in bookings {
            let key = (
                account,
                live,
                currency.to_string(),
                b.day,
                b.rate.thousandths(),
                category_column(&b).to_string(),
            );
            let sum = out.entry(key).or_default();
            sum.0 += b.taxable;
            sum.1 += b.tax;
        }
    };
    let notes: Vec<(i64, bool, i64, i64, String, NaiveDateTime)> = credit_notes::table
        .select((
            credit_notes::account_id,
            credit_notes::livemode,
            credit_notes::id,
            credit_notes::invoice_id,
            credit_notes::currency,
            credit_notes::created_at,
        ))
        .load(conn)?;
    for (account, live, id, _, currency, at) in &notes {
        let l = of(*account, *live, "credit_note", *id);
        book(
            *account,
            *live,
            currency,
            books::credited(day(*account, *live, at), &l),
        );
    }
    type InvoiceCols = (
        i64,
        bool,
        i64,
        String,
        NaiveDate,
        String,
        Option<NaiveDateTime>,
    );
    let all: Vec<InvoiceCols> = invoices::table
        .select((
            invoices::account_id,
            invoices::livemode,
            invoices::id,
            invoices::currency,
            invoices::issue_date,
            invoices::status,
            invoices::cancelled_at,
        ))
        .load(conn)?;
    let sent: std::collections::HashSet<i64> = invoices::table
        .filter(invoices::sent_at.is_not_null())
        .select(invoices::id)
        .load::<i64>(conn)?
        .into_iter()
        .collect();
    for (account, live, id, currency, issue_date, status, cancelled_at) in all {
        let l = of(account, live, "invoice", id);
        let status =
            InvoiceStatus::parse(&status).ok_or_else(|| internal(format!("status {status}")))?;
        // How it got where it is: drafts never left; a cancel without a send was a draft's.
        let left_draft = match status {
            InvoiceStatus::Draft => false,
            InvoiceStatus::Cancelled => sent.contains(&id),
            _ => true,
        };
        if !left_draft {
            continue;
        }
        book(account, live, &currency, books::issued(issue_date, &l));
        if let (InvoiceStatus::Cancelled, Some(at)) = (status, cancelled_at) {
            let credited: Vec<BookLine> = notes
                .iter()
                .filter(|n| n.3 == id && n.0 == account && n.1 == live)
                .flat_map(|n| of(account, live, "credit_note", n.2))
                .collect();
            book(
                account,
                live,
                &currency,
                books::voided(day(account, live, &at), &l, &credited),
            );
        }
    }
    out.retain(|_, sum| *sum != (0, 0));
    Ok(out)
}

/// The kept books, as `recount` keys them.
pub(crate) fn kept(conn: &mut AnyConnection) -> Result<Recount, TxError> {
    use crate::schema::booked_days as b;
    let rows: Vec<(Key, i64, i64)> = b::table
        .filter(b::taxable.ne(0).or(b::tax.ne(0)))
        .select((
            (
                b::account_id,
                b::livemode,
                b::currency,
                b::day,
                b::tax_rate_milli,
                b::tax_category,
            ),
            b::taxable,
            b::tax,
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(key, taxable, tax)| (key, (taxable, tax)))
        .collect())
}

fn internal(message: String) -> TxError {
    invoicing_domain::ports::RepoError::Internal(message).into()
}
