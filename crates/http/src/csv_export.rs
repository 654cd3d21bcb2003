//! CSV answers (SPEC §22): a list asked for with `Accept: text/csv` or `?format=csv` answers
//! every matching row as CSV, written by the `csv` crate (RFC 4180 quoting), UTF-8 with a
//! byte-order mark and a header row. Amounts come twice: `_cents` integers and decimals in the
//! currency's exponent. A text cell that a spreadsheet would run as a formula (starting with
//! `=`, `+`, `-`, `@`, a tab or a carriage return) gets a `'` in front (OWASP's CSV injection);
//! numeric columns never do. Rows are fetched and written a page at a time, walking the list by
//! keyset, so memory does not grow with the row count and each page costs the same.

use crate::error::ApiError;
use actix_web::http::header::{self, HeaderValue};
use actix_web::rt::task::JoinHandle;
use actix_web::{HttpRequest, HttpResponse};
use bytes::Bytes;
use chrono::{DateTime, Datelike, NaiveDate, Timelike, Utc};
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

/// Whether the request asks for CSV: at its `.csv` path, with `Accept: text/csv` or with
/// `?format=csv`.
pub fn wanted(req: &HttpRequest) -> bool {
    if req.path().ends_with(".csv") {
        return true;
    }
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

/// Writes one cell's fields (an amount is two), formatting numbers and days on the stack.
fn write_cell(w: &mut csv::Writer<Vec<u8>>, cell: Cell) -> csv::Result<()> {
    let mut digits = itoa::Buffer::new();
    match cell {
        Cell::Text(t) => match t.chars().next() {
            Some('=' | '+' | '-' | '@' | '\t' | '\r') => w.write_field(inert(t)),
            _ => w.write_field(t),
        },
        Cell::Int(i) => w.write_field(digits.format(i)),
        Cell::Amount(minor, currency) => {
            w.write_field(digits.format(minor))?;
            w.write_field(decimal_text(minor, currency))
        }
        Cell::Date(d) => w.write_field(Day::of(d).as_bytes()),
        Cell::Time(None) => w.write_field(""),
        Cell::Time(Some(t)) => {
            let mut day = Day::of(t.date_naive());
            let (h, m, s) = (t.hour(), t.minute(), t.second());
            day.push(b'T');
            for (n, sep) in [(h, b':'), (m, b':'), (s, b'Z')] {
                day.two(n);
                day.push(sep);
            }
            w.write_field(day.as_bytes())
        }
    }
}

/// `YYYY-MM-DD` (then a time, for an instant) in a fixed buffer: an export writes a few days a
/// row, and chrono's format strings are parsed again for every one.
struct Day {
    buf: [u8; 24],
    len: usize,
}

impl Day {
    fn of(d: NaiveDate) -> Day {
        let mut day = Day {
            buf: [0; 24],
            len: 0,
        };
        match u16::try_from(d.year()) {
            Ok(y) if y <= 9999 => {
                for digit in [y / 1000, y / 100 % 10, y / 10 % 10, y % 10] {
                    day.push(b'0' + digit as u8);
                }
                day.push(b'-');
                day.two(d.month());
                day.push(b'-');
                day.two(d.day());
            }
            // Years beyond four digits, as chrono writes them (never stored by the API).
            _ => {
                for b in d.format("%Y-%m-%d").to_string().bytes().take(18) {
                    day.push(b);
                }
            }
        }
        day
    }

    fn push(&mut self, b: u8) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }

    fn two(&mut self, n: u32) {
        self.push(b'0' + (n / 10 % 10) as u8);
        self.push(b'0' + (n % 10) as u8);
    }

    fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// Rows as CSV bytes (the header row when `head` is given, with the byte-order mark first).
pub fn encode(
    head: Option<&[Column]>,
    rows: impl ExactSizeIterator<Item = Vec<Cell>>,
) -> Result<Bytes, ApiError> {
    let mut out = Vec::with_capacity(rows.len() * 160 + 3);
    if head.is_some() {
        out.extend_from_slice("\u{feff}".as_bytes());
    }
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(out);
    let failed = |e: csv::Error| {
        log::error!("writing CSV: {e}");
        ApiError::internal()
    };
    if let Some(columns) = head {
        w.write_record(header(columns)).map_err(failed)?;
    }
    for row in rows {
        for cell in row {
            write_cell(&mut w, cell).map_err(failed)?;
        }
        w.write_record(None::<&[u8]>).map_err(failed)?;
    }
    let bytes = w.into_inner().map_err(|e| failed(e.into_error().into()))?;
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
    Ok(csv_response(filename).body(encode(Some(columns), rows.into_iter())?))
}

/// Fetches the page at a key: a keyset cursor for lists, a page number for the aging report.
pub type FetchPage<T, K> = Box<dyn FnMut(K) -> LocalBoxFuture<'static, Result<Page<T>, ApiError>>>;

/// Every page of a list, streamed: the first page (at `start`) is read before answering (so a
/// bad filter is still a 400), then each next one (`next` says at which key, `None` when done).
/// The next page is read while the one before is encoded and sent, and encoding runs off the
/// async workers, so the database, the encoding and the network overlap.
pub async fn pages<T: Send + 'static, K: Copy + 'static>(
    filename: &str,
    columns: &'static [Column],
    row: fn(&T) -> Vec<Cell>,
    start: K,
    next: fn(&Page<T>, K) -> Option<K>,
    mut fetch: FetchPage<T, K>,
) -> Result<HttpResponse, ApiError> {
    let first = fetch(start).await?;
    let ahead = read_ahead(&mut fetch, next(&first, start));
    let head = encode_page(Some(columns), first, row).await?;
    let rest = futures_util::stream::unfold((ahead, fetch), move |(ahead, mut fetch)| async move {
        let (key, reading) = ahead?;
        let page = match reading.await {
            Ok(read) => read,
            Err(e) => {
                log::error!("a CSV export's read stopped: {e}");
                Err(ApiError::internal())
            }
        };
        let chunk = match page {
            Ok(page) => {
                let ahead = read_ahead(&mut fetch, next(&page, key));
                encode_page(None, page, row)
                    .await
                    .map(|bytes| (bytes, ahead))
            }
            Err(e) => Err(e),
        };
        match chunk {
            Ok((bytes, ahead)) => Some((Ok::<_, actix_web::Error>(bytes), (ahead, fetch))),
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

/// A page being read: its key, and the task reading it.
type Reading<T, K> = Option<(K, JoinHandle<Result<Page<T>, ApiError>>)>;

/// Starts reading the page at `key`, if there is one.
fn read_ahead<T: 'static, K: Copy>(fetch: &mut FetchPage<T, K>, key: Option<K>) -> Reading<T, K> {
    key.map(|k| (k, actix_web::rt::spawn(fetch(k))))
}

/// A page's rows as CSV, encoded on the blocking pool: a thousand rows take milliseconds.
async fn encode_page<T: Send + 'static>(
    head: Option<&'static [Column]>,
    page: Page<T>,
    row: fn(&T) -> Vec<Cell>,
) -> Result<Bytes, ApiError> {
    actix_web::web::block(move || encode(head, page.data.iter().map(row)))
        .await
        .map_err(|e| {
            log::error!("encoding CSV: {e}");
            ApiError::internal()
        })?
}

/// A keyset walk's next position ([`Page::next_walk`]), as [`pages`] keys it.
fn next_cursor<T: Keyed>(page: &Page<T>, at: Option<Cursor>) -> Option<Option<Cursor>> {
    page.next_walk(at).map(Some)
}

use futures_util::StreamExt;

/// A list's answer: its JSON page, or, when `csv` (the API: [`wanted`]; the dashboard's export
/// links: always), every matching row (see [`walk`]). `list` runs the list's operation for a
/// query string (the same filters either way).
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
    T: serde::Serialize + Keyed + Send + 'static,
    F: Fn(std::rc::Rc<crate::ops::Ops>, String) -> Fut + 'static,
    Fut: std::future::Future<Output = Result<Page<T>, ApiError>> + 'static,
{
    if !csv {
        let page = list(std::rc::Rc::new(ops), without_format(query)).await?;
        return Ok(HttpResponse::Ok().json(page));
    }
    walk(query, ops, filename, columns, row, list).await
}

/// Every row of a list as CSV, walked by keyset (`created_at`, `id` below the last row
/// written) so each page costs the same however deep the walk, and a row added meanwhile never
/// shifts one.
pub async fn walk<T, F, Fut>(
    query: &str,
    ops: crate::ops::Ops,
    filename: &'static str,
    columns: &'static [Column],
    row: fn(&T) -> Vec<Cell>,
    list: F,
) -> Result<HttpResponse, ApiError>
where
    T: Keyed + Send + 'static,
    F: Fn(std::rc::Rc<crate::ops::Ops>, String) -> Fut + 'static,
    Fut: std::future::Future<Output = Result<Page<T>, ApiError>> + 'static,
{
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

impl<T: Keyed + Send + 'static> Export<T> {
    /// Every matching row as CSV.
    pub async fn csv(
        &'static self,
        query: &str,
        ops: crate::ops::Ops,
    ) -> Result<HttpResponse, ApiError> {
        walk(query, ops, self.file, self.columns, self.row, self.list).await
    }
}

impl<T: serde::Serialize + Keyed + Send + 'static> Export<T> {
    /// The list's JSON page (its items are what the CSV writes), or every matching row as CSV
    /// when `csv`.
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
            ]]
            .into_iter(),
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
