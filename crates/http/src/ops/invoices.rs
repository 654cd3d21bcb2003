//! Invoices (SPEC §9): drafts, sending, status moves, and the PDF.

use super::Ops;
use crate::error::ApiError;
use crate::path_id::Id;
use crate::query::ListQuery;
use crate::storage_calls::{batched, Batch};
use base64::Engine;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::customer::CustomerId;
use invoicing_domain::email::EmailInput;
use invoicing_domain::invoice::{
    Invoice, InvoiceFilter, InvoiceId, InvoiceInput, InvoiceOrder, InvoicePatch, InvoiceSummary,
    Outstanding, PublicInvoice,
};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::paging::{Page, PageRequest};
use invoicing_domain::ports::{RepoResult, Repositories};
use invoicing_domain::tenant::Scope;
use rand::RngCore;
use std::sync::Arc;

/// A payment-link capability: 192 random bits from the OS, URL-safe.
pub(crate) fn new_token() -> String {
    let mut bytes = [0u8; 24];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Invoice reads of any tenants answered together (the API's most frequent request).
pub type InvoiceReads = Batch<(Scope, InvoiceId), RepoResult<Invoice>>;

/// Reads waiting for a storage thread at the same time go to the database as one statement
/// (`get_invoices`), instead of one statement and one thread's round trip each: under load
/// PostgreSQL spends about half the CPU per get, the server a quarter less (docs/BENCHMARKS.md,
/// 2026-11-27 night). At most `INVOICE_READ_ROUNDS` such statements run at once.
pub fn invoice_reads(repos: Arc<dyn Repositories>) -> InvoiceReads {
    Batch::new(
        INVOICE_READ_ROUNDS,
        move |wanted: Vec<(Scope, InvoiceId)>| match repos.get_invoices(&wanted) {
            Ok(answers) => answers,
            Err(e) => wanted.iter().map(|_| Err(e.clone())).collect(),
        },
    )
}

/// How many gathered invoice reads may run at once: one gathers the most per statement
/// (measured a few per cent faster than two), two keep gets answered while one round's
/// connection hangs until storage's watchdog breaks it.
const INVOICE_READ_ROUNDS: usize = 2;

const FILTERS: &[&str] = &[
    "status",
    "customer_id",
    "created_after",
    "created_before",
    "q",
];

fn filter(q: &ListQuery) -> Result<InvoiceFilter, ApiError> {
    Ok(InvoiceFilter {
        status: q.choice(
            "status",
            InvoiceStatus::parse,
            "draft, sent, viewed, overdue, paid, cancelled",
        )?,
        customer_id: q.id("customer_id")?.map(CustomerId),
        created_after: q.date("created_after")?,
        created_before: q.date("created_before")?,
        search: super::search(q)?,
        order: InvoiceOrder::Newest,
        ..InvoiceFilter::default()
    })
}

impl Ops {
    pub async fn create_invoice(&self, input: InvoiceInput) -> Result<Invoice, ApiError> {
        let scope = self
            .caller
            .require_document_write(ApiResource::Invoices, input.customer.is_some())?;
        let new = input.parse(self.today().await?, new_token())?;
        self.run(scope, "invoice", move |r, s| r.create_invoice(s, new))
            .await
    }

    /// Creates the invoice and sends it (emailed with `email`) in one transaction: a send that
    /// is refused leaves no draft behind.
    pub async fn create_and_send_invoice(
        &self,
        input: InvoiceInput,
        email: Option<EmailInput>,
    ) -> Result<Invoice, ApiError> {
        let scope = self
            .caller
            .require_document_write(ApiResource::Invoices, input.customer.is_some())?;
        let new = input.parse(self.today().await?, new_token())?;
        let send = InvoicePatch {
            status: Some(InvoiceStatus::Sent),
            email: self.email_request(email)?,
            ..Default::default()
        };
        self.run(scope, "invoice", move |r, s| {
            r.create_and_send_invoice(s, new, send)
        })
        .await
    }

    pub async fn list_invoices(&self, query: &str) -> Result<Page<Invoice>, ApiError> {
        self.list(
            ApiResource::Invoices,
            query,
            FILTERS,
            filter,
            |r, s, f, p| r.list_invoices(s, f, p),
        )
        .await
    }

    /// The same list without lines or metadata: the rows an export writes.
    pub async fn invoice_summaries(&self, query: &str) -> Result<Page<InvoiceSummary>, ApiError> {
        self.list(
            ApiResource::Invoices,
            query,
            FILTERS,
            filter,
            |r, s, f, p| r.invoice_summaries(s, f, p),
        )
        .await
    }

    /// The dashboard's overdue invoices, the longest overdue first.
    pub async fn overdue_invoices(&self, page: PageRequest) -> Result<Page<Invoice>, ApiError> {
        let scope = self.caller.require(ApiResource::Invoices, Access::Read)?;
        let filter = InvoiceFilter {
            status: Some(InvoiceStatus::Overdue),
            order: InvoiceOrder::DueFirst,
            ..InvoiceFilter::default()
        };
        self.run(scope, "invoice", move |r, s| {
            r.list_invoices(s, &filter, page)
        })
        .await
    }

    /// Per currency, what open invoices still have due, and how much of it is overdue.
    pub async fn outstanding(
        &self,
        customer: Option<CustomerId>,
    ) -> Result<Vec<Outstanding>, ApiError> {
        let scope = self.caller.require(ApiResource::Invoices, Access::Read)?;
        self.run(scope, "invoice", move |r, s| r.outstanding(s, customer))
            .await
    }

    /// One invoice; answered together with other requests' (see [`invoice_reads`]).
    pub async fn invoice(&self, id: Id<InvoiceId>) -> Result<Invoice, ApiError> {
        let scope = self.caller.require(ApiResource::Invoices, Access::Read)?;
        let id = id.get()?;
        let repos = self.repos.clone();
        batched(&self.invoice_reads, (scope, id), move || {
            repos.get_invoice(scope, id)
        })
        .await
        .map_err(|e| e.naming("invoice"))
    }

    /// The invoice as its page shows it: kept parties, payments and credit notes.
    pub async fn invoice_shown(&self, id: Id<InvoiceId>) -> Result<PublicInvoice, ApiError> {
        let scope = self.caller.require(ApiResource::Invoices, Access::Read)?;
        let id = id.get()?;
        self.run(scope, "invoice", move |r, s| r.invoice_as_shown(s, id))
            .await
    }

    /// The invoice as its page shows it, ready to render.
    pub async fn invoice_pdf(
        &self,
        id: Id<InvoiceId>,
    ) -> Result<invoicing_render::Document, ApiError> {
        Ok(crate::pdf::invoice_document(self.invoice_shown(id).await?))
    }

    /// Changes an invoice as the transition table and the draft-only rules allow.
    pub async fn update_invoice(
        &self,
        id: Id<InvoiceId>,
        patch: InvoicePatch,
    ) -> Result<Invoice, ApiError> {
        let scope = self.caller.require(ApiResource::Invoices, Access::Write)?;
        let id = id.get()?;
        self.run(scope, "invoice", move |r, s| r.update_invoice(s, id, patch))
            .await
    }

    /// Sends a draft, and emails it when `email` is given.
    pub async fn send_invoice(
        &self,
        id: Id<InvoiceId>,
        email: Option<EmailInput>,
    ) -> Result<Invoice, ApiError> {
        self.caller.require(ApiResource::Invoices, Access::Write)?;
        let patch = InvoicePatch {
            status: Some(InvoiceStatus::Sent),
            email: self.email_request(email)?,
            ..Default::default()
        };
        self.update_invoice(id, patch).await
    }
}
