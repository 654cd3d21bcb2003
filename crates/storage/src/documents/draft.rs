//! What every new document resolves before it is written: its customer, its currency and its
//! priced lines.

use crate::connection::AnyConnection;
use crate::documents::{document_customer, resolve_lines, take_number};
use crate::prepared::prepared;
use crate::rows::scoped;
use crate::schema::{account_profiles, accounts, customers};
use crate::store::TxError;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Integer, Nullable, Text};
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::document::{document_number, CustomerRef, DocumentKind, LineDrafts, Lines};
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
    resolve_found(conn, scope, customer, currency, lines, found)
}

/// [`resolve_draft`] for a document that takes the next number of `kind` in `year`, with that
/// number. On PostgreSQL an existing customer's read also moves the counter (one statement,
/// the counter's `UPDATE` in a `WITH`): a round trip less per document. A failure after it
/// rolls the counter back with the rest, so numbers stay gap-free.
pub(crate) fn resolve_numbered_draft(
    conn: &mut AnyConnection,
    scope: Scope,
    customer: &CustomerRef,
    currency: Option<Currency>,
    lines: &LineDrafts,
    (kind, year): (DocumentKind, i32),
) -> Result<(Resolved, String), TxError> {
    let (found, seq) = match (customer, &*conn) {
        (CustomerRef::Existing(id), AnyConnection::Postgresql(_)) => {
            customer_defaults_and_number(conn, scope, *id, kind, year)?
        }
        (CustomerRef::Existing(id), AnyConnection::Sqlite(_)) => {
            (customer_and_defaults(conn, scope, *id)?, None)
        }
        (CustomerRef::Inline(_), _) => (None, None),
    };
    let resolved = resolve_found(conn, scope, customer, currency, lines, found)?;
    let number = match seq {
        Some(seq) => document_number(kind, year, seq),
        // SQLite, an inline customer, or the first of its kind in the year (no counter yet).
        None => take_number(conn, scope, kind, year)?,
    };
    Ok((resolved, number))
}

fn resolve_found(
    conn: &mut AnyConnection,
    scope: Scope,
    customer: &CustomerRef,
    currency: Option<Currency>,
    lines: &LineDrafts,
    found: Found,
) -> Result<Resolved, TxError> {
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

/// An existing customer's id with its account's defaults, `None` when the scope has no such
/// customer.
type Found = Option<(i64, Defaults)>;

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
) -> Result<Found, TxError> {
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

/// [`customer_and_defaults`] on PostgreSQL with the counter of `kind` in `year` moved on:
/// the new sequence number, `None` when the counter does not exist yet.
fn customer_defaults_and_number(
    conn: &mut AnyConnection,
    scope: Scope,
    id: CustomerId,
    kind: DocumentKind,
    year: i32,
) -> Result<(Found, Option<i64>), TxError> {
    let n: Numbered = prepared!(diesel::sql_query(CUSTOMER_AND_NUMBER)
        .bind::<BigInt, _>(scope.account_id.0)
        .bind::<Bool, _>(scope.livemode())
        .bind::<Text, _>(kind.as_str())
        .bind::<Integer, _>(year)
        .bind::<BigInt, _>(id.0))
    .get_result(conn)?;
    // A customer not the scope's is refused next, which rolls the moved counter back.
    let found = match n.customer_id {
        Some(customer_id) => Some((customer_id, defaults(scope, n.currency, n.rounding)?)),
        None => None,
    };
    Ok((found, n.seq))
}

/// One row always, so the number taken is known whether or not the customer is found (and
/// PostgreSQL runs every data-modifying `WITH` once, to completion).
const CUSTOMER_AND_NUMBER: &str = "\
    WITH n AS (UPDATE document_counters SET last_value = last_value + 1 \
      WHERE account_id = $1 AND livemode = $2 AND kind = $3 AND year = $4 \
      RETURNING last_value) \
    SELECT (SELECT c.id FROM customers c \
        WHERE c.account_id = $1 AND c.livemode = $2 AND c.id = $5) AS customer_id, \
      (SELECT a.default_currency FROM accounts a WHERE a.id = $1) AS currency, \
      (SELECT p.tax_rounding FROM account_profiles p \
        WHERE p.account_id = $1 AND p.livemode = $2) AS rounding, \
      (SELECT n.last_value FROM n) AS seq";

#[derive(QueryableByName)]
struct Numbered {
    #[diesel(sql_type = Nullable<BigInt>)]
    customer_id: Option<i64>,
    #[diesel(sql_type = Nullable<Text>)]
    currency: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    rounding: Option<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    seq: Option<i64>,
}
