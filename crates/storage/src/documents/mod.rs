//! The document core: what invoices and quotations (and the documents built from them: credit
//! notes, recurring invoices) share in storage, written once.
//!
//! - `draft`: a new document's customer, currency and priced lines.
//! - `numbering`: gap-free numbers per kind and year.
//! - `lines`: line items of any kind, resolved from the catalog, written, read and copied.
//! - `lifecycle`: the one status move (conditional on the status it leaves, so the database
//!   decides between concurrent changes, and writing the event), the public lookup by number
//!   and capability token, and the sweep that moves due documents (overdue, expired).
//!
//! A document kind plugs in by implementing `lifecycle::DocumentRow` for its row: how to read
//! it, and which timestamp column stamps which status.

mod draft;
mod lifecycle;
mod lines;
mod numbering;

pub(crate) use draft::{account_defaults, resolve_draft, resolve_numbered_draft, Resolved};
pub(crate) use lifecycle::{
    check_patch, document_row, first_view, move_and_record, move_status, public_row, sweep,
    sweep_local, DocumentRow,
};
pub(crate) use lines::{
    check_lines_currency, document_customer, insert_lines, insert_lines_postgres, line_columns,
    line_views, pack_lines, read_lines, read_lines_for_copy, replace_lines, resolve_lines,
    returned_line_columns, LineRow,
};
pub(crate) use numbering::{kept_count, kept_count_query, take_number};
