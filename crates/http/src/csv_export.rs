//! CSV answers (SPEC §22): a list asked for with `Accept: text/csv` or `?format=csv` answers
//! every matching row as CSV, written by the `csv` crate (RFC 4180 quoting), UTF-8 with a
//! byte-order mark and a header row. Amounts come twice: `_cents` integers and decimals in the
//! currency's exponent. A text cell that a spreadsheet would run as a formula (starting with
//! `=`, `+`, `-`, `@`, a tab or a carriage return) gets a `'` in front (OWASP's CSV injection);
//! numeric columns never do. Rows are fetched and written a page at a time, walking the list by
//! keyset, so memory does not grow with the row count and each page costs the same.

use crate::error::ApiError;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse};
use bytes::Bytes;
use chrono::{DateTime, NaiveDate, Utc};
use futures_util::future::LocalBoxFuture;
use invoicing_domain::currency::Currency;
use invoicing_domain::money::decimal_text;
use invoicing_domain::paging::{Cursor, Keyed, Page};

/// One value of a row.
pub enum Cell {
    Text(String),
    Int(i64),
    /// Two columns: the minor units, then the decimal.
    Amount(i64, Currency),
    Date(NaiveDate),
    Time(Option<DateTime<Utc>>),
}

/// A column of a table: its name, and whether it is an amount (two columns).
pub struct Column {
    pub name: &'static str,
    pub amount: bool,
}

pub const fn text(name: &'static str) -> Column {
    Column {
        name,
        amount: false,
    }
}

pub const fn amount(name: &'static str) -> Column {
    Column { name, amount: true }
}

/// Whether the request asks for CSV.
pub fn wanted(req: &HttpRequest) -> bool {
    let accept = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|m| m.trim().starts_with("text/csv")));
    accept || format_param(req.query_string()) == Some("csv")
}

fn format_param(query: &str) -> Option<&str> {
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix("format="))
}

/// The query without `format=…`, as the list's own parameters are read.
pub fn without_format(query: &str) -> String {
    query
        .split('&')
        .filter(|pair| !pair.starts_with("format=") && !pair.is_empty())
        .collect::<Vec<_>>()
        .join("&")
}

/// The list's query for page `n` of the largest size: every page of an export.
pub fn page_query(query: &str, n: u32) -> String {
    let mut kept: Vec<&str> = query
        .split('&')
        .filter(|p| !p.is_empty() && !p.starts_with("page=") && !p.starts_with("per_page="))
        .collect();
    let paging = format!(
        "page={n}&per_page={}",
        invoicing_domain::paging::MAX_PER_PAGE
    );
    kept.push(&paging);
    kept.join("&")
}

/// A cell a spreadsheet would run as a formula, made inert.
fn inert(text: String) -> String {
    match text.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{text}"),
        _ => text,
    }
}

fn header(columns: &[Column]) -> Vec<String> {
    columns
        .iter()
        .flat_map(|c| {
            if c.amount {
                vec![format!("{}_cents", c.name), c.name.to_string()]
            } else {
                vec![c.name.to_string()]
            }
        })
        .collect()
}

fn fields(cells: Vec<Cell>) -> Vec<String> {
    let mut out = Vec::with_capacity(cells.len() + 4);
    for cell in cells {
        match cell {
            Cell::Text(t) => out.push(inert(t)),
            Cell::Int(i) => out.push(i.to_string()),
            Cell::Amount(minor, currency) => {
                out.push(minor.to_string());
                out.push(decimal_text(minor, currency));
            }
            Cell::Date(d) => out.push(d.format("%Y-%m-%d").to_string()),
            Cell::Time(t) => out.push(
                t.map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
                    .unwrap_or_default(),
            ),
        }
    }
    out
}

/// Rows as CSV bytes (the header row when `head` is given, with the byte-order mark first).
pub fn encode(head: Option<&[Column]>, rows: Vec<Vec<Cell>>) -> Result<Bytes, ApiError> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    let failed = |e: csv::Error| {
        log::error!("writing CSV: {e}");
        ApiError::internal()
    };
    if let Some(columns) = head {
        w.write_record(header(columns)).map_err(failed)?;
    }
    for row in rows {
        w.write_record(fields(row)).map_err(failed)?;
    }
    let mut bytes = w.into_inner().map_err(|e| failed(e.into_error().into()))?;
    if head.is_some() {
        bytes.splice(0..0, "\u{feff}".bytes());
    }
    Ok(Bytes::from(bytes))
}

/// The answer's headers: CSV, a file name to save it as, never cached.
fn csv_response(filename: &str) -> actix_web::HttpResponseBuilder {
    let mut res = HttpResponse::Ok();
    res.content_type("text/csv; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "private, no-store"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{filename}\"")) {
        res.insert_header((header::CONTENT_DISPOSITION, v));
    }
    res
}

/// A whole table at once (reports: a few rows per currency and period).
pub fn table(
    filename: &str,
    columns: &[Column],
    rows: Vec<Vec<Cell>>,
) -> Result<HttpResponse, ApiError> {
    Ok(csv_response(filename).body(encode(Some(columns), rows)?))
}

/// Fetches the page at a key: a keyset cursor for lists, a page number for the aging report.
pub type FetchPage<T, K> = Box<dyn FnMut(K) -> LocalBoxFuture<'static, Result<Page<T>, ApiError>>>;

/// Every page of a list, streamed: the first page (at `start`) is read before answering (so a
/// bad filter is still a 400), then each next one (`next` says at which key, `None` when done)
/// as the client takes the bytes.
pub async fn pages<T: 'static, K: Copy + 'static>(
    filename: &str,
    columns: &'static [Column],
    row: fn(&T) -> Vec<Cell>,
    start: K,
    next: fn(&Page<T>, K) -> Option<K>,
    mut fetch: FetchPage<T, K>,
) -> Result<HttpResponse, ApiError> {
    let first = fetch(start).await?;
    let head = encode(Some(columns), first.data.iter().map(row).collect())?;
    let after = next(&first, start);
    let rest = futures_util::stream::unfold((after, fetch), move |(key, mut fetch)| async move {
        let key = key?;
        let chunk = match fetch(key).await {
            Ok(page) => encode(None, page.data.iter().map(row).collect())
                .map(|bytes| (bytes, next(&page, key))),
            Err(e) => Err(e),
        };
        match chunk {
            Ok((bytes, after)) => Some((Ok::<_, actix_web::Error>(bytes), (after, fetch))),
            // The status line has gone: the client sees a cut answer, never a wrong one.
            Err(e) => {
                log::error!("a CSV export stopped: {e}");
                Some((Err(e.into()), (None, fetch)))
            }
        }
    });
    let body =
        futures_util::stream::once(async move { Ok::<_, actix_web::Error>(head) }).chain(rest);
    Ok(csv_response(filename).streaming(body))
}

/// A keyset walk's next position: below the page's last row, when the page was full and that
/// row is below where the page began (a list that ignored the cursor ends the walk, never
/// repeats it).
fn next_cursor<T: Keyed>(page: &Page<T>, at: Option<Cursor>) -> Option<Option<Cursor>> {
    let last = page.data.last()?.cursor();
    let full = page.data.len() as u32 >= page.per_page;
    (full && at.is_none_or(|at| last < at)).then_some(Some(last))
}

use futures_util::StreamExt;

/// A list's answer: its JSON page, or, when `csv` (the API: [`wanted`]; the dashboard's export
/// links: always), every matching row, walked by keyset (`created_at`, `id` below the last row
/// written) so each page costs the same however deep the walk, and a row added meanwhile never
/// shifts one. `list` runs the list's operation for a query string (the same filters either
/// way).
pub async fn list_answer<T, F, Fut>(
    query: &str,
    csv: bool,
    ops: crate::ops::Ops,
    filename: &'static str,
    columns: &'static [Column],
    row: fn(&T) -> Vec<Cell>,
    list: F,
) -> Result<HttpResponse, ApiError>
where
    T: serde::Serialize + Keyed + 'static,
    F: Fn(std::rc::Rc<crate::ops::Ops>, String) -> Fut + 'static,
    Fut: std::future::Future<Output = Result<Page<T>, ApiError>> + 'static,
{
    if !csv {
        let page = list(std::rc::Rc::new(ops), without_format(query)).await?;
        return Ok(HttpResponse::Ok().json(page));
    }
    let query = without_format(query);
    let fetch: FetchPage<T, Option<Cursor>> = Box::new(move |cursor| {
        let ops = std::rc::Rc::new(ops.walk(cursor));
        Box::pin(list(ops, query.clone()))
    });
    pages(filename, columns, row, None, next_cursor, fetch).await
}

/// A list that answers CSV: its file name, its columns, a row from an item, and the list's
/// operation. The API's route and the dashboard's export link answer through the same one.
pub struct Export<T: 'static> {
    pub file: &'static str,
    pub columns: &'static [Column],
    pub row: fn(&T) -> Vec<Cell>,
    pub list: ListPage<T>,
}

/// A list's operation for a query string.
pub type ListPage<T> =
    fn(std::rc::Rc<crate::ops::Ops>, String) -> LocalBoxFuture<'static, Result<Page<T>, ApiError>>;

impl<T: serde::Serialize + Keyed + 'static> Export<T> {
    /// The list's JSON page, or every matching row as CSV when `csv`.
    pub async fn answer(
        &'static self,
        query: &str,
        csv: bool,
        ops: crate::ops::Ops,
    ) -> Result<HttpResponse, ApiError> {
        let list = self.list;
        list_answer(query, csv, ops, self.file, self.columns, self.row, list).await
    }
}

/// An id that may be absent: blank when it is.
pub fn maybe_int(v: Option<i64>) -> Cell {
    v.map_or_else(|| Cell::Text(String::new()), Cell::Int)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_made_inert_and_quoting_is_rfc_4180() {
        let eur = Currency::parse("EUR").unwrap();
        let bytes = encode(
            Some(&[text("name"), amount("total"), text("note")]),
            vec![vec![
                Cell::Text("=HYPERLINK(\"x\")".into()),
                Cell::Amount(-1250, eur),
                Cell::Text("a, \"b\"\nc".into()),
            ]],
        )
        .unwrap();
        let text = String::from_utf8(bytes.to_vec()).unwrap();
        assert!(text.starts_with('\u{feff}'));
        assert_eq!(
            text.trim_start_matches('\u{feff}'),
            "name,total_cents,total,note\r\n\"'=HYPERLINK(\"\"x\"\")\",-1250,-12.50,\"a, \"\"b\"\"\nc\"\r\n"
        );
        for start in ["+1", "-1", "@x", "\tx", "\rx"] {
            assert!(inert(start.into()).starts_with('\''), "{start:?}");
        }
        assert_eq!(inert("1+1".into()), "1+1");
    }

    #[test]
    fn format_is_read_and_removed() {
        assert_eq!(
            without_format("status=paid&format=csv&page=2"),
            "status=paid&page=2"
        );
        assert_eq!(format_param("a=1&format=csv"), Some("csv"));
    }
}
