//! Line items of any document kind, stored and read back the same way for every kind.

use crate::connection::AnyConnection;
use crate::customers::{find_or_insert_with_event, load_scoped};
use crate::prepared::prepared;
use crate::product_rows::catalog;
use crate::schema::line_items;
use crate::store::TxError;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Text};
use invoicing_domain::currency::Currency;
use invoicing_domain::decimal::{Quantity, TaxRate};
use invoicing_domain::document::{
    CustomerRef, DocumentKind, LineDrafts, LineItem, LineItemView, Lines,
};
use invoicing_domain::einvoice::{LineTax, TaxCategory, TaxRounding};
use invoicing_domain::lines::{document_totals, line_amounts};
use invoicing_domain::money::Money;
use invoicing_domain::ports::RepoError;
use invoicing_domain::product::ProductId;
use invoicing_domain::tenant::Scope;
use invoicing_domain::validation::Violations;
use std::collections::HashMap;

#[derive(Queryable, Selectable, QueryableByName, serde::Deserialize)]
#[diesel(table_name = line_items)]
pub(crate) struct LineRow {
    pub id: i64,
    pub document_id: i64,
    pub description: String,
    pub quantity_milli: i64,
    pub unit_price_cents: i64,
    pub tax_rate_milli: i64,
    pub subtotal_cents: i64,
    pub tax_cents: i64,
    pub total_cents: i64,
    pub product_id: Option<i64>,
    pub unit: String,
    pub tax_category: Option<String>,
    pub tax_exemption_reason: Option<String>,
}

impl LineRow {
    pub(crate) fn into_view(self) -> Result<LineItemView, TxError> {
        let bad = |what: &str| RepoError::Internal(format!("line {}: bad {what}", self.id));
        Ok(LineItemView {
            id: self.id,
            product_id: self.product_id,
            quantity: Quantity::from_thousandths(self.quantity_milli)
                .map_err(|_| bad("quantity"))?,
            tax_rate: TaxRate::from_thousandths(self.tax_rate_milli)
                .map_err(|_| bad("tax rate"))?,
            tax_category: match &self.tax_category {
                None => None,
                Some(c) => Some(TaxCategory::parse(c).ok_or_else(|| bad("tax category"))?),
            },
            description: self.description,
            unit_price_cents: self.unit_price_cents,
            subtotal_cents: self.subtotal_cents,
            tax_cents: self.tax_cents,
            total_cents: self.total_cents,
            unit: self.unit,
            tax_exemption_reason: self.tax_exemption_reason,
        })
    }
}

/// The columns [`insert_lines`] writes and those it reads back.
macro_rules! line_columns {
    () => {
        "account_id, livemode, document_kind, document_id, position, description, \
         quantity_milli, unit_price_cents, tax_rate_milli, subtotal_cents, tax_cents, \
         total_cents, product_id, unit, tax_category, tax_exemption_reason"
    };
}

macro_rules! returned_line_columns {
    () => {
        "id, document_id, description, quantity_milli, unit_price_cents, tax_rate_milli, \
         subtotal_cents, tax_cents, total_cents, product_id, unit, tax_category, \
         tax_exemption_reason"
    };
}
pub(crate) use {line_columns, returned_line_columns};

/// Writes a new document's lines in one prepared statement, whatever their number: the lines go
/// as one JSON array that the database unpacks (`jsonb_to_recordset`, SQLite's `json_each`), so
/// the SQL never varies and is parsed and planned once per connection. Returns them as the API
/// shows them, so the caller need not read them back.
pub(crate) fn insert_lines(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: DocumentKind,
    document_id: i64,
    lines: &Lines,
) -> Result<Vec<LineItemView>, TxError> {
    if lines.items.is_empty() {
        return Ok(Vec::new());
    }
    let packed = pack_lines(lines)?;
    // One site for both backends: each connection prepares the one text of its own.
    let sql = match conn {
        AnyConnection::Postgresql(_) => INSERT_LINES_POSTGRES,
        AnyConnection::Sqlite(_) => INSERT_LINES_SQLITE,
    };
    let rows: Vec<LineRow> = prepared!(diesel::sql_query(sql)
        .bind::<BigInt, _>(scope.account_id.0)
        .bind::<Bool, _>(scope.livemode())
        .bind::<Text, _>(kind.as_str())
        .bind::<BigInt, _>(document_id)
        .bind::<Text, _>(&packed))
    .load(conn)?;
    line_views(rows)
}

/// The views of a document's lines as an insert returned them, in their order.
pub(crate) fn line_views(mut rows: Vec<LineRow>) -> Result<Vec<LineItemView>, TxError> {
    // RETURNING gives no order guarantee; ids follow the insert order.
    rows.sort_by_key(|r| r.id);
    rows.into_iter().map(LineRow::into_view).collect()
}

/// PostgreSQL's insert of packed lines (`jsonb_to_recordset`), for the owner and packed array
/// the SQL expressions given name (`$from` joins in what they come from), returning the
/// lines' columns.
macro_rules! insert_lines_postgres {
    ($account:literal, $livemode:literal, $kind:literal, $document:literal, $packed:literal, $from:literal) => {
        concat!(
            "INSERT INTO line_items (",
            $crate::documents::line_columns!(),
            ") SELECT ",
            $account,
            ", ",
            $livemode,
            ", ",
            $kind,
            ", ",
            $document,
            ", l.position, l.description, l.quantity_milli, l.unit_price_cents, \
             l.tax_rate_milli, l.subtotal_cents, l.tax_cents, l.total_cents, l.product_id, \
             l.unit, l.tax_category, l.tax_exemption_reason FROM ",
            $from,
            "jsonb_to_recordset(",
            $packed,
            "::jsonb) AS l(position INTEGER, description TEXT, \
             quantity_milli BIGINT, unit_price_cents BIGINT, tax_rate_milli BIGINT, \
             subtotal_cents BIGINT, tax_cents BIGINT, total_cents BIGINT, product_id BIGINT, \
             unit TEXT, tax_category TEXT, tax_exemption_reason TEXT) \
             ORDER BY l.position RETURNING ",
            $crate::documents::returned_line_columns!()
        )
    };
}
pub(crate) use insert_lines_postgres;

/// [`insert_lines`] on PostgreSQL.
const INSERT_LINES_POSTGRES: &str = insert_lines_postgres!("$1", "$2", "$3", "$4", "$5", "");

/// [`insert_lines`] on SQLite: the lines unpacked by `json_each`, the array index their position.
const INSERT_LINES_SQLITE: &str = concat!(
    "INSERT INTO line_items (",
    line_columns!(),
    ") \
     SELECT $1, $2, $3, $4, l.key, json_extract(l.value, '$.description'), \
       json_extract(l.value, '$.quantity_milli'), json_extract(l.value, '$.unit_price_cents'), \
       json_extract(l.value, '$.tax_rate_milli'), json_extract(l.value, '$.subtotal_cents'), \
       json_extract(l.value, '$.tax_cents'), json_extract(l.value, '$.total_cents'), \
       json_extract(l.value, '$.product_id'), json_extract(l.value, '$.unit'), \
       json_extract(l.value, '$.tax_category'), json_extract(l.value, '$.tax_exemption_reason') \
     FROM json_each($5) AS l ORDER BY l.key RETURNING ",
    returned_line_columns!()
);

/// One line as [`insert_lines`] hands it to the database.
#[derive(serde::Serialize)]
struct PackedLine<'a> {
    position: usize,
    description: &'a str,
    quantity_milli: i64,
    unit_price_cents: i64,
    tax_rate_milli: i64,
    subtotal_cents: i64,
    tax_cents: i64,
    total_cents: i64,
    product_id: Option<i64>,
    unit: &'a str,
    tax_category: Option<&'static str>,
    tax_exemption_reason: Option<&'a str>,
}

pub(crate) fn pack_lines(lines: &Lines) -> Result<String, TxError> {
    let packed: Vec<PackedLine<'_>> = lines
        .items
        .iter()
        .enumerate()
        .map(|(position, line)| PackedLine {
            position,
            description: &line.description,
            quantity_milli: line.quantity.thousandths(),
            unit_price_cents: line.unit_price.minor(),
            tax_rate_milli: line.tax_rate.thousandths(),
            subtotal_cents: line.amounts.subtotal.minor(),
            tax_cents: line.amounts.tax.minor(),
            total_cents: line.amounts.total.minor(),
            product_id: line.product_id.map(|p| p.0),
            unit: &line.unit,
            tax_category: line.tax.category.map(TaxCategory::code),
            tax_exemption_reason: line.tax.exemption_reason.as_deref(),
        })
        .collect();
    serde_json::to_string(&packed)
        .map_err(|e| RepoError::Internal(format!("packing lines: {e}")).into())
}

/// Replaces a draft's lines with `lines` (a patch).
pub(crate) fn replace_lines(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: DocumentKind,
    document_id: i64,
    lines: &Lines,
) -> Result<Vec<LineItemView>, TxError> {
    diesel::delete(
        line_items::table
            .filter(line_items::account_id.eq(scope.account_id.0))
            .filter(line_items::document_kind.eq(kind.as_str()))
            .filter(line_items::document_id.eq(document_id)),
    )
    .execute(conn)?;
    insert_lines(conn, scope, kind, document_id, lines)
}

/// A document's final lines in `currency`: lines that name a product take what they leave out
/// from the scope's catalog (422 for a product that is missing, archived or in another currency),
/// and their tax is rounded as the document's `mode` says.
pub(crate) fn resolve_lines(
    conn: &mut AnyConnection,
    scope: Scope,
    currency: Currency,
    drafts: &LineDrafts,
    mode: TaxRounding,
) -> Result<Lines, TxError> {
    let products = catalog(conn, scope, &drafts.product_ids())?;
    drafts
        .resolve(currency, &products)
        .and_then(|lines| lines.rounded(mode))
        .map_err(|v| RepoError::Invalid(v).into())
}

/// A new currency for a document that keeps its lines: a line made from a product stays in the
/// product's currency, so the change is refused (422) rather than pricing it in another one.
pub(crate) fn check_lines_currency(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: DocumentKind,
    document_id: i64,
    currency: Currency,
) -> Result<(), TxError> {
    let lines = read_lines(conn, scope, kind, &[document_id])?
        .remove(&document_id)
        .unwrap_or_default();
    let ids: Vec<ProductId> = lines
        .iter()
        .filter_map(|l| l.product_id.map(ProductId))
        .collect();
    let products = catalog(conn, scope, &ids)?;
    let mut v = Violations::new();
    for (i, line) in lines.iter().enumerate() {
        let product = line.product_id.and_then(|id| products.get(&ProductId(id)));
        if let Some(p) = product.filter(|p| p.currency != currency) {
            v.push(
                "currency",
                format!(
                    "line_items[{i}] comes from a product priced in {}; send new line_items with the currency",
                    p.currency
                ),
            );
        }
    }
    v.finish(|| ()).map_err(|v| RepoError::Invalid(v).into())
}

/// The lines of several documents at once, in order, keyed by document id.
pub(crate) fn read_lines(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: DocumentKind,
    document_ids: &[i64],
) -> Result<HashMap<i64, Vec<LineItemView>>, TxError> {
    let mut query = line_items::table
        .filter(line_items::account_id.eq(scope.account_id.0))
        .filter(line_items::livemode.eq(scope.livemode()))
        .filter(line_items::document_kind.eq(kind.as_str()))
        .into_boxed();
    // One document by equality: a prepared statement's generic plan then always searches the
    // index by document, where `= ANY($n)` can be planned as a scan of the account's lines.
    query = match document_ids {
        [one] => query.filter(line_items::document_id.eq(*one)),
        many => query.filter(line_items::document_id.eq_any(many.to_vec())),
    };
    // Put in order here: PostgreSQL sorts the lines of many documents (`= ANY`) in a Sort node
    // that costs it a third of the statement.
    let mut rows = query
        .select((line_items::position, LineRow::as_select()))
        .load::<(i32, LineRow)>(conn)?;
    rows.sort_unstable_by_key(|(position, row)| (row.document_id, *position));
    let mut out: HashMap<i64, Vec<LineItemView>> = HashMap::new();
    for (_, row) in rows {
        let doc = row.document_id;
        out.entry(doc).or_default().push(row.into_view()?);
    }
    Ok(out)
}

/// The customer id a document names: an existing customer of the scope (422 otherwise), or
/// one found or created by email.
pub(crate) fn document_customer(
    conn: &mut AnyConnection,
    scope: Scope,
    customer: &CustomerRef,
) -> Result<i64, TxError> {
    match customer {
        CustomerRef::Existing(id) => match load_scoped(conn, scope, *id) {
            Ok(c) => Ok(c.id.0),
            // A reference in a body names no resource the caller may see: one answer for both.
            Err(TxError::Repo(RepoError::NotFound | RepoError::Forbidden)) => {
                Err(RepoError::invalid("customer_id", "no such customer").into())
            }
            Err(e) => Err(e),
        },
        CustomerRef::Inline(new) => Ok(find_or_insert_with_event(conn, scope, new)?
            .into_inner()
            .id
            .0),
    }
}

/// A document's stored lines as valid domain lines again (amounts recomputed, so they are
/// exactly what the same input would give), for copying into another document.
pub(crate) fn read_lines_for_copy(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: DocumentKind,
    document_id: i64,
) -> Result<Lines, TxError> {
    let views = read_lines(conn, scope, kind, &[document_id])?
        .remove(&document_id)
        .unwrap_or_default();
    let bad = |e: String| TxError::from(RepoError::Internal(format!("copying lines: {e}")));
    let items = views
        .into_iter()
        .map(|l| {
            let unit_price = Money::new(l.unit_price_cents).map_err(|e| bad(e.to_string()))?;
            let amounts =
                line_amounts(l.quantity, unit_price, l.tax_rate).map_err(|e| bad(e.to_string()))?;
            Ok(LineItem {
                product_id: l.product_id.map(ProductId),
                description: l.description,
                quantity: l.quantity,
                unit_price,
                tax_rate: l.tax_rate,
                amounts,
                unit: l.unit,
                tax: LineTax {
                    category: l.tax_category,
                    exemption_reason: l.tax_exemption_reason,
                },
            })
        })
        .collect::<Result<Vec<_>, TxError>>()?;
    let totals =
        document_totals(items.iter().map(|l| &l.amounts)).map_err(|e| bad(e.to_string()))?;
    Ok(Lines { items, totals })
}
