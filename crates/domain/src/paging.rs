//! Page requests and pages of results (SPEC §5), shared by every list endpoint.

use chrono::{DateTime, Utc};
use serde::Serialize;

pub const DEFAULT_PER_PAGE: u32 = 20;
pub const MAX_PER_PAGE: u32 = 100;
/// Bounding page keeps the OFFSET inside i64 whatever the client sends.
pub const MAX_PAGE: u32 = 1_000_000;
/// Rows per step of a keyset walk: an export reads its list in steps this large.
pub const WALK_PER_PAGE: u32 = 1000;

/// A validated page request: `page` ≥ 1 and `1 ≤ per_page ≤ 100`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageRequest {
    page: u32,
    per_page: u32,
    /// Whether the page reports the list's total (the API's pages always do).
    counted: bool,
    /// A keyset walk's position: the rows below it, instead of an offset.
    after: Option<Cursor>,
}

/// Where a keyset walk over a list stands: the last row it has, by the lists' order (newest
/// first: `created_at`, then `id`). The next rows are those below it, however many rows came
/// before, and rows added meanwhile (newer) never shift it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cursor {
    pub created_at: DateTime<Utc>,
    pub id: i64,
}

/// A list item a keyset walk can continue from.
pub trait Keyed {
    fn cursor(&self) -> Cursor;
}

impl PageRequest {
    pub fn new(page: u32, per_page: u32) -> Option<Self> {
        if (1..=MAX_PAGE).contains(&page) && (1..=MAX_PER_PAGE).contains(&per_page) {
            Some(PageRequest {
                page,
                per_page,
                counted: true,
                after: None,
            })
        } else {
            None
        }
    }

    /// The same page without its list's total: one statement less, for screens that only say
    /// whether more rows follow ([`Page::uncounted`]).
    pub fn uncounted(self) -> Self {
        PageRequest {
            counted: false,
            ..self
        }
    }

    pub fn counts(self) -> bool {
        self.counted
    }

    /// A step of a keyset walk (exports): the first [`WALK_PER_PAGE`] rows below `cursor`
    /// (from the top when `None`), uncounted.
    pub fn walk(cursor: Option<Cursor>) -> Self {
        PageRequest {
            page: 1,
            per_page: WALK_PER_PAGE,
            counted: false,
            after: cursor,
        }
    }

    /// The keyset position, when the page is one of a walk.
    pub fn cursor(self) -> Option<Cursor> {
        self.after
    }

    pub fn page(self) -> u32 {
        self.page
    }

    pub fn per_page(self) -> u32 {
        self.per_page
    }

    /// Rows to skip: none in a keyset walk, whose cursor says where it is.
    pub fn offset(self) -> i64 {
        if self.after.is_some() {
            return 0;
        }
        i64::from(self.page - 1) * i64::from(self.per_page)
    }

    pub fn limit(self) -> i64 {
        i64::from(self.per_page)
    }
}

impl Default for PageRequest {
    fn default() -> Self {
        PageRequest {
            page: 1,
            per_page: DEFAULT_PER_PAGE,
            counted: true,
            after: None,
        }
    }
}

/// One page of a list, newest first, with the total count across all pages.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Page<T> {
    pub data: Vec<T>,
    pub page: u32,
    pub per_page: u32,
    pub total: i64,
    pub has_more: bool,
    /// Set when `total` stopped counting at [`COUNT_CAP`] (SPEC §5); absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub total_capped: bool,
}

/// Where a count that has to count rows stops (lists filtered by more than their status).
pub const COUNT_CAP: i64 = 10_000;

impl<T> Page<T> {
    pub fn new(data: Vec<T>, request: PageRequest, total: i64) -> Self {
        let seen = request.offset() + data.len() as i64;
        Page {
            data,
            page: request.page,
            per_page: request.per_page,
            total,
            has_more: seen < total,
            total_capped: false,
        }
    }

    /// A page whose total was counted up to `COUNT_CAP + 1` rows; `more` says whether rows
    /// follow this page (known from fetching one row past it).
    pub fn capped(data: Vec<T>, request: PageRequest, counted: i64, more: bool) -> Self {
        Page {
            data,
            page: request.page,
            per_page: request.per_page,
            total: counted.min(COUNT_CAP),
            has_more: more,
            total_capped: counted > COUNT_CAP,
        }
    }

    /// A page of an uncounted request: `total` is what is known (the rows up to this page, and
    /// one more when `more`), flagged as a lower bound by `total_capped` when more follow.
    pub fn uncounted(data: Vec<T>, request: PageRequest, more: bool) -> Self {
        let seen = request.offset() + data.len() as i64;
        Page {
            data,
            page: request.page,
            per_page: request.per_page,
            total: seen + i64::from(more),
            has_more: more,
            total_capped: more,
        }
    }

    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            data: self.data.into_iter().map(f).collect(),
            page: self.page,
            per_page: self.per_page,
            total: self.total,
            has_more: self.has_more,
            total_capped: self.total_capped,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_search_is_trimmed_bounded_and_its_wildcards_escaped() {
        assert_eq!(SearchText::parse("  ").unwrap(), None);
        let s = SearchText::parse(" 50%_Off\\ Ltd ").unwrap().unwrap();
        assert_eq!(s.as_str(), "50%_Off\\ Ltd");
        assert_eq!(s.like_pattern(), "%50\\%\\_off\\\\ ltd%");
        assert!(SearchText::parse(&"x".repeat(101)).is_err());
        assert!(SearchText::parse(&"é".repeat(100)).unwrap().is_some());
        assert!(SearchText::parse("a\u{0}b").is_err());
    }

    use super::*;

    #[test]
    fn bounds_are_enforced() {
        assert!(PageRequest::new(0, 20).is_none());
        assert!(PageRequest::new(1, 0).is_none());
        assert!(PageRequest::new(1, 101).is_none());
        assert!(PageRequest::new(1, 100).is_some());
        assert_eq!(PageRequest::new(3, 20).map(|p| p.offset()), Some(40));
    }

    #[test]
    fn has_more_reflects_remaining_rows() {
        let req = PageRequest::new(2, 2).unwrap();
        assert!(Page::new(vec![1, 2], req, 5).has_more);
        assert!(!Page::new(vec![1], PageRequest::new(3, 2).unwrap(), 5).has_more);
    }
}

/// What a list's `q` searches for: trimmed, 1 to 100 characters, no control characters. Lists
/// match it, case-insensitively, anywhere in a document's number or its customer's name or email.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchText(String);

impl SearchText {
    pub const MAX_CHARS: usize = 100;

    /// `None` for a blank search (no filter); an error names what is wrong.
    pub fn parse(raw: &str) -> Result<Option<SearchText>, &'static str> {
        let text = raw.trim();
        if text.is_empty() {
            return Ok(None);
        }
        if text.chars().count() > Self::MAX_CHARS {
            return Err("must be at most 100 characters");
        }
        if text.chars().any(char::is_control) {
            return Err("must not contain control characters");
        }
        Ok(Some(SearchText(text.to_string())))
    }

    /// A SQL `LIKE` pattern matching the text anywhere, lower-cased, with `\` escaping the
    /// pattern's own wildcards (`%`, `_`) and itself.
    pub fn like_pattern(&self) -> String {
        let mut out = String::with_capacity(self.0.len() + 2);
        out.push('%');
        for c in self.0.to_lowercase().chars() {
            if matches!(c, '%' | '_' | '\\') {
                out.push('\\');
            }
            out.push(c);
        }
        out.push('%');
        out
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<T: Keyed> Page<T> {
    /// Where a keyset walk that read this page at `at` goes next: below its last row, when the
    /// page was full and that row is below `at` (a list that ignored the cursor ends the walk,
    /// never repeats it); `None` when the walk is done.
    pub fn next_walk(&self, at: Option<Cursor>) -> Option<Cursor> {
        let last = self.data.last()?.cursor();
        let full = self.data.len() as u32 >= self.per_page;
        (full && at.is_none_or(|at| last < at)).then_some(last)
    }
}
