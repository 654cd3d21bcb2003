//! What every new document resolves before it is written: its customer, its currency and its
//! priced lines.

use crate::connection::AnyConnection;
use crate::documents::{document_customer, resolve_lines};
use crate::rows::scoped;
use crate::schema::{account_profiles, accounts, customers};
use crate::store::TxError;
use diesel::prelude::*;
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::document::{CustomerRef, LineDrafts, Lines};
use invoicing_domain::einvoice::TaxRounding;
use invoicing_domain::ports::RepoError;
use invoicing_domain::tenant::Scope;

pub(crate) struct Resolved {
    pub customer_id: i64,
    pub currency: Currency,
    pub lines: Lines,
    /// The account's tax rounding, which the new document keeps (SPEC §23).
    pub tax_rounding: TaxRounding,
}

/// The customer (existing, or found or created by email), the currency (the account's default
/// when none is given) and the lines priced in it (products from the catalog), their tax
/// rounded as the account says.
pub(crate) fn resolve_draft(
    conn: &mut AnyConnection,
    scope: Scope,
    customer: &CustomerRef,
    currency: Option<Currency>,
    lines: &LineDrafts,
) -> Result<Resolved, TxError> {
    let found = match customer {
        CustomerRef::Existing(id) => customer_and_defaults(conn, scope, *id)?,
        CustomerRef::Inline(_) => None,
    };
    let (customer_id, defaults) = match found {
        Some(found) => found,
        // An inline customer, or not the scope's: the lookup that finds, makes or refuses it.
        None => (
            document_customer(conn, scope, customer)?,
            account_defaults(conn, scope)?,
        ),
    };
    let currency = currency.unwrap_or(defaults.currency);
    let lines = resolve_lines(conn, scope, currency, lines, defaults.tax_rounding)?;
    Ok(Resolved {
        customer_id,
        currency,
        lines,
        tax_rounding: defaults.tax_rounding,
    })
}

/// What a new document takes from its account when it does not say.
pub(crate) struct Defaults {
    pub currency: Currency,
    pub tax_rounding: TaxRounding,
}

fn defaults(
    scope: Scope,
    currency: Option<String>,
    rounding: Option<String>,
) -> Result<Defaults, TxError> {
    let bad = |what: String| {
        TxError::from(RepoError::Internal(format!(
            "account {} has {what}",
            scope.account_id
        )))
    };
    let code = currency.ok_or_else(|| bad("no currency".into()))?;
    Ok(Defaults {
        currency: Currency::parse(&code).map_err(|_| bad(format!("currency {code:?}")))?,
        tax_rounding: match rounding {
            None => TaxRounding::default(),
            Some(r) => TaxRounding::parse(&r).ok_or_else(|| bad(format!("tax rounding {r:?}")))?,
        },
    })
}

/// The account's default currency and the scope's tax rounding, in one statement.
pub(crate) fn account_defaults(
    conn: &mut AnyConnection,
    scope: Scope,
) -> Result<Defaults, TxError> {
    let rounding = scoped!(account_profiles, scope)
        .select(account_profiles::tax_rounding)
        .single_value();
    let (currency, rounding): (String, Option<String>) = accounts::table
        .filter(accounts::id.eq(scope.account_id.0))
        .select((accounts::default_currency, rounding))
        .first(conn)?;
    defaults(scope, Some(currency), rounding)
}

/// An existing customer of the scope with the account's defaults, in one statement.
fn customer_and_defaults(
    conn: &mut AnyConnection,
    scope: Scope,
    id: CustomerId,
) -> Result<Option<(i64, Defaults)>, TxError> {
    let default_currency = accounts::table
        .filter(accounts::id.eq(scope.account_id.0))
        .select(accounts::default_currency)
        .single_value();
    let rounding = scoped!(account_profiles, scope)
        .select(account_profiles::tax_rounding)
        .single_value();
    let found: Option<(i64, Option<String>, Option<String>)> = scoped!(customers, scope)
        .filter(customers::id.eq(id.0))
        .select((customers::id, default_currency, rounding))
        .first(conn)
        .optional()?;
    match found {
        Some((customer_id, currency, rounding)) => {
            Ok(Some((customer_id, defaults(scope, currency, rounding)?)))
        }
        None => Ok(None),
    }
}
