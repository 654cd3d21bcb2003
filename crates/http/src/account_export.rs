//! Everything of one account and environment (SPEC §24), so a merchant can leave with all of
//! it: one JSON Lines file per resource, each line the object exactly as the API answers it,
//! and the PDF of every document that left draft, in one ZIP written as it goes (nothing is
//! gathered in memory but the list of documents to print). The API streams it and the
//! `export` command writes it to a file; both call [`write_zip`].
//!
//! Never a secret: keys appear as the dashboard lists them (prefix, last four, scopes), never
//! their hash; webhook endpoints without their signing secret.

use invoicing_domain::api_key::ApiKey;
use invoicing_domain::credit_note::CreditNoteFilter;
use invoicing_domain::customer::CustomerFilter;
use invoicing_domain::email::EmailFilter;
use invoicing_domain::event::EventFilter;
use invoicing_domain::invoice::{InvoiceFilter, InvoiceId};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::paging::{Keyed, Page, PageRequest};
use invoicing_domain::payment::PaymentFilter;
use invoicing_domain::ports::{RepoError, RepoResult, Repositories};
use invoicing_domain::product::ProductFilter;
use invoicing_domain::quotation::{QuotationFilter, QuotationId};
use invoicing_domain::quotation_status::QuotationStatus;
use invoicing_domain::recurring::RecurringFilter;
use invoicing_domain::tenant::Scope;
use invoicing_render as render;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use zip::write::SimpleFileOptions;

/// Why an export stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{0}")]
    Repo(#[from] RepoError),
    #[error("writing the archive: {0}")]
    Zip(#[from] zip::result::ZipError),
    #[error("writing the archive: {0}")]
    Io(#[from] std::io::Error),
    #[error("rendering {0}: {1}")]
    Render(String, String),
}

impl From<serde_json::Error> for ExportError {
    fn from(e: serde_json::Error) -> Self {
        ExportError::Io(e.into())
    }
}

/// What went into the archive: rows per file, and PDFs.
#[derive(Debug, Default, Serialize)]
pub struct Exported {
    pub files: BTreeMap<&'static str, u64>,
    pub pdfs: u64,
}

/// A key as the export lists it: how to recognise it, never its secret or hash.
#[derive(Serialize)]
struct KeyLine {
    id: i64,
    object: &'static str,
    livemode: bool,
    prefix: String,
    last4: String,
    scopes: Vec<String>,
    #[serde(serialize_with = "invoicing_domain::time::serialize_opt")]
    expires_at: Option<chrono::DateTime<chrono::Utc>>,
    #[serde(serialize_with = "invoicing_domain::time::serialize_opt")]
    revoked_at: Option<chrono::DateTime<chrono::Utc>>,
    #[serde(serialize_with = "invoicing_domain::time::serialize")]
    created_at: chrono::DateTime<chrono::Utc>,
    #[serde(serialize_with = "invoicing_domain::time::serialize_opt")]
    last_used_at: Option<chrono::DateTime<chrono::Utc>>,
}

impl From<ApiKey> for KeyLine {
    fn from(k: ApiKey) -> Self {
        KeyLine {
            id: k.id.0,
            object: "api_key",
            livemode: k.environment.is_live(),
            prefix: k.prefix,
            last4: k.last4,
            scopes: k.scopes.to_strings(),
            expires_at: k.expires_at,
            revoked_at: k.revoked_at,
            created_at: k.created_at,
            last_used_at: k.last_used_at,
        }
    }
}

struct Archive<W: Write> {
    zip: zip::ZipWriter<zip::write::StreamWriter<W>>,
    done: Exported,
}

fn options() -> SimpleFileOptions {
    SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated)
}

impl<W: Write> Archive<W> {
    /// One JSON Lines file of every item of a list, walked by keyset.
    fn lines<T: Serialize + Keyed>(
        &mut self,
        name: &'static str,
        fetch: impl FnMut(PageRequest) -> RepoResult<Page<T>>,
        mut each: impl FnMut(&T),
    ) -> Result<(), ExportError> {
        self.zip.start_file(name, options())?;
        let mut rows = 0;
        walk(fetch, |item: &T| {
            self.line(item)?;
            each(item);
            rows += 1;
            Ok(())
        })?;
        self.done.files.insert(name, rows);
        Ok(())
    }

    fn line(&mut self, item: &impl Serialize) -> Result<(), ExportError> {
        serde_json::to_writer(&mut self.zip, item)?;
        self.zip.write_all(b"\n")?;
        Ok(())
    }

    fn json(&mut self, name: &'static str, value: &impl Serialize) -> Result<(), ExportError> {
        self.zip.start_file(name, options())?;
        serde_json::to_writer_pretty(&mut self.zip, value)?;
        self.done.files.insert(name, 1);
        Ok(())
    }

    fn pdf(&mut self, doc: render::Document, folder: &str) -> Result<(), ExportError> {
        let name = format!("pdf/{folder}/{}.pdf", doc.number.replace(['/', '\\'], "-"));
        let bytes = render::render_pdf(&doc)
            .map_err(|e| ExportError::Render(name.clone(), e.to_string()))?;
        // PDFs are compressed already.
        let stored = options().compression_method(zip::CompressionMethod::Stored);
        self.zip.start_file(name, stored)?;
        self.zip.write_all(&bytes)?;
        self.done.pdfs += 1;
        Ok(())
    }
}

/// Every item of a list, a keyset step at a time, until a step is short or does not move.
fn walk<T: Keyed>(
    mut fetch: impl FnMut(PageRequest) -> RepoResult<Page<T>>,
    mut each: impl FnMut(&T) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    let mut cursor = None;
    loop {
        let page = fetch(PageRequest::walk(cursor))?;
        for item in &page.data {
            each(item)?;
        }
        match page.next_walk(cursor) {
            Some(next) => cursor = Some(next),
            None => return Ok(()),
        }
    }
}

/// Writes the archive of `scope` to `out`. Runs on a blocking thread: it reads the database
/// and renders PDFs.
pub fn write_zip<W: Write>(
    repos: &dyn Repositories,
    scope: Scope,
    out: W,
) -> Result<Exported, ExportError> {
    let mut a = Archive {
        zip: zip::ZipWriter::new_stream(out),
        done: Exported::default(),
    };
    a.json("profile.json", &repos.get_profile(scope)?)?;
    let keys: Vec<KeyLine> = repos
        .list_keys(scope.account_id)?
        .into_iter()
        .filter(|k| k.environment == scope.environment)
        .map(KeyLine::from)
        .collect();
    a.zip.start_file("api_keys.jsonl", options())?;
    for k in &keys {
        a.line(k)?;
    }
    a.done.files.insert("api_keys.jsonl", keys.len() as u64);

    a.lines(
        "customers.jsonl",
        |p| repos.list_customers(scope, &CustomerFilter::default(), p),
        |_| {},
    )?;
    let mut invoices: Vec<InvoiceId> = Vec::new();
    a.lines(
        "invoices.jsonl",
        |p| repos.list_invoices(scope, &InvoiceFilter::default(), p),
        |i| {
            if i.status != InvoiceStatus::Draft {
                invoices.push(i.id);
            }
        },
    )?;
    let mut quotations: Vec<QuotationId> = Vec::new();
    a.lines(
        "quotations.jsonl",
        |p| repos.list_quotations(scope, &QuotationFilter::default(), p),
        |q| {
            if q.status != QuotationStatus::Draft {
                quotations.push(q.id);
            }
        },
    )?;
    let mut credit_notes = Vec::new();
    a.lines(
        "credit_notes.jsonl",
        |p| repos.list_credit_notes(scope, &CreditNoteFilter::default(), p),
        |c| credit_notes.push(c.id),
    )?;
    a.lines(
        "payments.jsonl",
        |p| repos.list_payments(scope, &PaymentFilter::default(), p),
        |_| {},
    )?;
    a.lines(
        "products.jsonl",
        |p| repos.list_products(scope, &ProductFilter::default(), p),
        |_| {},
    )?;
    a.lines(
        "recurring_invoices.jsonl",
        |p| repos.list_recurring(scope, &RecurringFilter::default(), p),
        |_| {},
    )?;
    a.lines(
        "emails.jsonl",
        |p| repos.list_emails(scope, &EmailFilter::default(), p),
        |_| {},
    )?;
    a.lines(
        "events.jsonl",
        |p| repos.list_events(scope, &EventFilter::default(), p),
        |_| {},
    )?;
    let mut endpoints = Vec::new();
    a.lines(
        "webhook_endpoints.jsonl",
        |p| {
            // The list never carries a secret; cleared all the same, as this file leaves.
            repos.list_webhooks(scope, p).map(|mut page| {
                page.data.iter_mut().for_each(|e| e.secret = None);
                page
            })
        },
        |e| endpoints.push(e.id),
    )?;
    a.zip.start_file("webhook_deliveries.jsonl", options())?;
    let mut deliveries = 0;
    for id in endpoints {
        walk(
            |p| repos.list_delivery_attempts(scope, id, p),
            |d| {
                deliveries += 1;
                a.line(d)
            },
        )?;
    }
    a.done.files.insert("webhook_deliveries.jsonl", deliveries);

    for id in invoices {
        a.pdf(
            render::invoice_document(repos.invoice_as_shown(scope, id)?),
            "invoices",
        )?;
    }
    for id in quotations {
        a.pdf(
            render::quotation_document(repos.quotation_as_shown(scope, id)?),
            "quotations",
        )?;
    }
    for id in credit_notes {
        a.pdf(
            render::credit_note_document(repos.credit_note_as_shown(scope, id)?),
            "credit_notes",
        )?;
    }
    a.json("export.json", &a.done_so_far(scope))?;
    a.zip.finish()?.into_inner().flush()?;
    Ok(a.done)
}

impl<W: Write> Archive<W> {
    /// The archive's own description, last: what each file holds.
    fn done_so_far(&self, scope: Scope) -> serde_json::Value {
        serde_json::json!({
            "account_id": scope.account_id.0,
            "livemode": scope.livemode(),
            "exported_at": invoicing_domain::time::format(&chrono::Utc::now()),
            "files": self.done.files,
            "pdfs": self.done.pdfs,
        })
    }
}
