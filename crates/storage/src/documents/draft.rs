//! What every new document resolves before it is written: its customer, its currency and its
//! priced lines.

use crate::accounts::account_currency;
use crate::connection::AnyConnection;
use crate::documents::{document_customer, resolve_lines};
use crate::rows::scoped;
use crate::schema::{accounts, customers};
use crate::store::TxError;
use diesel::prelude::*;
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::document::{CustomerRef, LineDrafts, Lines};
use invoicing_domain::ports::RepoError;
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
    let (customer_id, currency) = match (customer, currency) {
        (CustomerRef::Existing(id), None) => match customer_and_currency(conn, scope, *id)? {
            Some(found) => found,
            // Not the scope's customer: the one lookup that tells the caller why.
            None => (
                document_customer(conn, scope, customer)?,
                account_currency(conn, scope.account_id)?,
            ),
        },
        (_, Some(c)) => (document_customer(conn, scope, customer)?, c),
        (_, None) => (
            document_customer(conn, scope, customer)?,
            account_currency(conn, scope.account_id)?,
        ),
    };
    let lines = resolve_lines(conn, scope, currency, lines)?;
    Ok(Resolved {
        customer_id,
        currency,
        lines,
    })
}

/// An existing customer of the scope and the account's default currency, in one statement.
fn customer_and_currency(
    conn: &mut AnyConnection,
    scope: Scope,
    id: CustomerId,
) -> Result<Option<(i64, Currency)>, TxError> {
    let default_currency = accounts::table
        .filter(accounts::id.eq(scope.account_id.0))
        .select(accounts::default_currency)
        .single_value();
    let found: Option<(i64, Option<String>)> = scoped!(customers, scope)
        .filter(customers::id.eq(id.0))
        .select((customers::id, default_currency))
        .first(conn)
        .optional()?;
    match found {
        Some((customer_id, Some(code))) => {
            let currency = Currency::parse(&code).map_err(|_| {
                RepoError::Internal(format!(
                    "account {} has currency {code:?}",
                    scope.account_id
                ))
            })?;
            Ok(Some((customer_id, currency)))
        }
        _ => Ok(None),
    }
}
