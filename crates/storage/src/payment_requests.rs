//! Payment requests (SPEC §26): the invoice is made and sent by the invoices' own steps, in the
//! same transaction as the row that keeps its way back to the shop; the scheduler cancels the
//! unpaid ones whose time is up.

use crate::connection::AnyConnection;
use crate::documents::sweep;
use crate::invoice_rows::{load_invoice, InvoiceRow};
use crate::invoices::{insert_invoice, update, Origin};
use crate::rows::{from_db, now_db, scoped, to_db};
use crate::schema::{checkout_sessions, invoices, payment_requests, payments};
use crate::store::{Store, TxError};
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::dsl::{exists, not};
use diesel::prelude::*;
use invoicing_domain::invoice::{Invoice, InvoiceId, InvoicePatch};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::payment_request::{Checkout, NewPaymentRequest};
use invoicing_domain::ports::{PaymentRequestRepository, RepoResult};
use invoicing_domain::tenant::Scope;

#[derive(Queryable, Selectable)]
#[diesel(table_name = payment_requests)]
struct CheckoutRow {
    success_url: Option<String>,
    cancel_url: Option<String>,
    expires_at: Option<NaiveDateTime>,
}

impl From<CheckoutRow> for Checkout {
    fn from(row: CheckoutRow) -> Checkout {
        Checkout {
            success_url: row.success_url,
            cancel_url: row.cancel_url,
            expires_at: row.expires_at.map(from_db),
        }
    }
}

/// The checkout of the invoice, if a payment request made it.
pub(crate) fn checkout_of(
    conn: &mut AnyConnection,
    scope: Scope,
    id: InvoiceId,
) -> Result<Option<Checkout>, TxError> {
    Ok(scoped!(payment_requests, scope)
        .filter(payment_requests::invoice_id.eq(id.0))
        .select(CheckoutRow::as_select())
        .first::<CheckoutRow>(conn)
        .optional()?
        .map(Checkout::from))
}

impl PaymentRequestRepository for Store {
    fn create_payment_request(
        &self,
        scope: Scope,
        new: NewPaymentRequest,
        send: InvoicePatch,
    ) -> RepoResult<(Invoice, Checkout)> {
        let url = self.public_url();
        let mail = self.mail_enabled();
        self.write_retrying_unique(|conn| {
            let created = insert_invoice(conn, scope, &new.invoice, Origin::Direct, &url)?;
            let checkout = &new.checkout;
            diesel::insert_into(payment_requests::table)
                .values((
                    payment_requests::account_id.eq(scope.account_id.0),
                    payment_requests::livemode.eq(scope.livemode()),
                    payment_requests::invoice_id.eq(created.id.0),
                    payment_requests::success_url.eq(checkout.success_url.as_deref()),
                    payment_requests::cancel_url.eq(checkout.cancel_url.as_deref()),
                    payment_requests::expires_at.eq(checkout.expires_at.map(to_db)),
                    payment_requests::created_at.eq(now_db()),
                ))
                .execute(conn)?;
            let sent = update(conn, scope, created.id, &send, &url, mail)?;
            Ok((sent, checkout.clone()))
        })
    }

    fn expire_payment_requests(&self, now: DateTime<Utc>) -> RepoResult<usize> {
        let url = self.public_url();
        let now = to_db(now);
        let open: Vec<&str> = InvoiceStatus::OPEN.map(InvoiceStatus::as_str).to_vec();
        let due = |conn: &mut AnyConnection| {
            let paid_or_reported = payments::table
                .filter(payments::account_id.eq(invoices::account_id))
                .filter(payments::invoice_id.eq(invoices::id))
                .filter(payments::status.ne("rejected"));
            let checkout_open = checkout_sessions::table
                .filter(checkout_sessions::account_id.eq(invoices::account_id))
                .filter(checkout_sessions::invoice_id.eq(invoices::id))
                .filter(checkout_sessions::status.eq("open"));
            Ok(invoices::table
                .inner_join(
                    payment_requests::table.on(payment_requests::invoice_id
                        .eq(invoices::id)
                        .and(payment_requests::account_id.eq(invoices::account_id))),
                )
                .filter(payment_requests::expires_at.le(now))
                .filter(invoices::status.eq_any(open.clone()))
                .filter(not(exists(paid_or_reported)))
                .filter(not(exists(checkout_open)))
                .order(invoices::id)
                .limit(200)
                .select(InvoiceRow::as_select())
                .load::<InvoiceRow>(conn)?)
        };
        sweep(self, due, InvoiceStatus::Cancelled, |conn, row| {
            load_invoice(conn, row.scope(), InvoiceId(row.id), &url)
        })
    }
}
