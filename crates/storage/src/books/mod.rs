//! The books (SPEC §22): the sums by day, currency, tax rate and VAT category of what the domain
//! books for each document (`invoicing_domain::report::books`), written in the transaction of
//! the change that books it. Revenue, tax, statements and their CSV read these sums; nothing
//! here decides what counts.

use crate::connection::AnyConnection;
use crate::rows::scoped;
use crate::schema::{credit_notes, invoices};
use crate::store::TxError;
use chrono::NaiveDate;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Date, Text};
use invoicing_domain::document::DocumentKind;
use invoicing_domain::document_lines::LineItemView;
use invoicing_domain::report::books::{self, BookLine, Booking, Counting};
use invoicing_domain::tenant::Scope;

use crate::documents::read_lines;

fn amounts(lines: &[LineItemView]) -> Vec<BookLine> {
    lines.iter().map(BookLine::from).collect()
}

/// The stored form of a category: '' for none (a key column cannot be NULL).
fn category_column(booking: &Booking) -> &'static str {
    booking.category.map_or("", |c| c.code())
}

/// Adds `bookings` to the kept sums of `currency`.
pub(crate) fn add(
    conn: &mut AnyConnection,
    scope: Scope,
    currency: &str,
    bookings: &[Booking],
) -> Result<(), TxError> {
    for b in bookings {
        diesel::sql_query(
            "INSERT INTO booked_days (account_id, livemode, currency, day, tax_rate_milli, \
               tax_category, taxable, tax) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
             ON CONFLICT (account_id, livemode, currency, day, tax_rate_milli, tax_category) \
             DO UPDATE SET taxable = booked_days.taxable + excluded.taxable, \
               tax = booked_days.tax + excluded.tax",
        )
        .bind::<BigInt, _>(scope.account_id.0)
        .bind::<Bool, _>(scope.livemode())
        .bind::<Text, _>(currency)
        .bind::<Date, _>(b.day)
        .bind::<BigInt, _>(b.rate.thousandths())
        .bind::<Text, _>(category_column(b))
        .bind::<BigInt, _>(b.taxable)
        .bind::<BigInt, _>(b.tax)
        .execute(conn)?;
    }
    Ok(())
}

/// Books what a status move of invoice `id` at `now` counts for (`DocumentStatus::counting`); a
/// void on the merchant's date (SPEC §27).
pub(crate) fn on_invoice_move(
    conn: &mut AnyConnection,
    scope: Scope,
    id: i64,
    counting: Counting,
    now: chrono::NaiveDateTime,
) -> Result<(), TxError> {
    if counting == Counting::Nothing {
        return Ok(());
    }
    let (currency, issue_date): (String, NaiveDate) = scoped!(invoices, scope)
        .filter(invoices::id.eq(id))
        .select((invoices::currency, invoices::issue_date))
        .first(conn)?;
    let lines = amounts(
        &read_lines(conn, scope, DocumentKind::Invoice, &[id])?
            .remove(&id)
            .unwrap_or_default(),
    );
    let bookings = match counting {
        Counting::Issue => books::issued(issue_date, &lines),
        Counting::Void => {
            let notes: Vec<i64> = scoped!(credit_notes, scope)
                .filter(credit_notes::invoice_id.eq(id))
                .select(credit_notes::id)
                .load(conn)?;
            let credited: Vec<BookLine> = if notes.is_empty() {
                Vec::new()
            } else {
                read_lines(conn, scope, DocumentKind::CreditNote, &notes)?
                    .values()
                    .flat_map(|l| amounts(l))
                    .collect()
            };
            let today = crate::local_days::today_of(conn, scope, crate::rows::from_db(now))?;
            books::voided(today, &lines, &credited)
        }
        Counting::Nothing => Vec::new(),
    };
    add(conn, scope, &currency, &bookings)
}

#[cfg(feature = "testing")]
mod recount;
#[cfg(feature = "testing")]
pub(crate) use recount::{kept, recount};
