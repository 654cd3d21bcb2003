//! Totals of lists that keep no count (SPEC §5): rows counted up to `COUNT_CAP + 1`, so a list
//! costs the same however large the account grows, and pages read one row past their end to
//! know whether another follows. Lists whose total is kept read their pages the same way.

use crate::connection::AnyConnection;
use diesel::dsl::Limit;
use diesel::query_dsl::methods::LimitDsl;
use diesel::query_dsl::LoadQuery;
use diesel::RunQueryDsl;
use invoicing_domain::paging::{Page, PageRequest, COUNT_CAP};

/// How many ids `ids` (a query selecting them) finds, counting no further than one past the cap.
pub(crate) fn count_up_to_cap<'a, Q>(conn: &mut AnyConnection, ids: Q) -> diesel::QueryResult<i64>
where
    Q: LimitDsl,
    Limit<Q>: LoadQuery<'a, AnyConnection, i64>,
{
    Ok(ids.limit(COUNT_CAP + 1).load::<i64>(conn)?.len() as i64)
}

/// The page from `rows`, read with [`PageRequest::limit`] + 1, of a list whose total is kept
/// (`documents::kept_count`).
pub(crate) fn kept_page<R, T, E>(
    mut rows: Vec<R>,
    page: PageRequest,
    total: i64,
    convert: impl FnOnce(Vec<R>) -> Result<Vec<T>, E>,
) -> Result<Page<T>, E> {
    rows.truncate(page.per_page() as usize);
    Ok(Page::new(convert(rows)?, page, total))
}

/// The page from `rows`, read with [`PageRequest::limit`] + 1, and the capped count.
pub(crate) fn capped_page<R, T, E>(
    mut rows: Vec<R>,
    page: PageRequest,
    counted: i64,
    convert: impl FnOnce(Vec<R>) -> Result<Vec<T>, E>,
) -> Result<Page<T>, E> {
    let more = rows.len() as i64 > page.limit();
    rows.truncate(page.per_page() as usize);
    Ok(Page::capped(convert(rows)?, page, counted, more))
}

/// The page from `rows`, read with [`PageRequest::limit`] + 1, of a request that wants no total.
pub(crate) fn uncounted_page<R, T, E>(
    mut rows: Vec<R>,
    page: PageRequest,
    convert: impl FnOnce(Vec<R>) -> Result<Vec<T>, E>,
) -> Result<Page<T>, E> {
    let more = rows.len() as i64 > page.limit();
    rows.truncate(page.per_page() as usize);
    Ok(Page::uncounted(convert(rows)?, page, more))
}
