//! What every new document resolves before it is written: its customer, its currency and its
//! priced lines.

use crate::accounts::account_currency;
use crate::connection::AnyConnection;
use crate::documents::{document_customer, resolve_lines};
use crate::store::TxError;
use invoicing_domain::currency::Currency;
use invoicing_domain::document::{CustomerRef, LineDrafts, Lines};
use invoicing_domain::tenant::Scope;

pub(crate) struct Resolved {
    pub customer_id: i64,
    pub currency: Currency,
    pub lines: Lines,
}

/// The customer (existing, or found or created by email), the currency (the account's default
/// when none is given) and the lines priced in it (products from the catalog).
pub(crate) fn resolve_draft(
    conn: &mut AnyConnection,
    scope: Scope,
    customer: &CustomerRef,
    currency: Option<Currency>,
    lines: &LineDrafts,
) -> Result<Resolved, TxError> {
    let customer_id = document_customer(conn, scope, customer)?;
    let currency = match currency {
        Some(c) => c,
        None => account_currency(conn, scope.account_id)?,
    };
    let lines = resolve_lines(conn, scope, currency, lines)?;
    Ok(Resolved {
        customer_id,
        currency,
        lines,
    })
}
