//! The customer portal's links (SPEC §26): made and revoked by the API and the dashboard alike.

use super::einvoices::{self, EInvoiceFile};
use super::{Caller, Ops, Permits};
use crate::error::ApiError;
use crate::path_id::Id;
use crate::{blocking, AppState};
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::credit_note::{CreditNote, CreditNoteFilter, CreditNoteId};
use invoicing_domain::customer::{Customer, CustomerId};
use invoicing_domain::invoice::{Invoice, InvoiceFilter, InvoiceId, Standing};
use invoicing_domain::paging::{Page, PageRequest};
use invoicing_domain::payment::{Payment, PaymentFilter};
use invoicing_domain::payment_status::PaymentStatus;
use invoicing_domain::portal::token_hash;
use invoicing_domain::portal::{PortalLink, PortalLinkInput};
use invoicing_domain::profile::Profile;
use invoicing_domain::quotation::{Quotation, QuotationFilter, QuotationId};
use invoicing_domain::quotation_status::QuotationStatus;
use invoicing_domain::tenant::{Actor, Scope};
use invoicing_einvoice::Syntax;
use std::collections::HashMap;

impl Ops {
    /// A new link to the customer's portal; its token is shown this once.
    pub async fn create_portal_link(
        &self,
        id: Id<CustomerId>,
        input: PortalLinkInput,
    ) -> Result<PortalLink, ApiError> {
        let scope = self.caller.require(ApiResource::Customers, Access::Write)?;
        let id = id.get()?;
        let expires_at = input.parse(self.clock.now())?;
        let token = self
            .run(scope, "customer", move |r, s| {
                r.create_portal_link(s, id, expires_at)
            })
            .await?;
        Ok(PortalLink::new(&self.public_url, &token, expires_at))
    }

    /// Ends every link to the customer's portal; answers how many there were.
    pub async fn revoke_portal_links(&self, id: Id<CustomerId>) -> Result<usize, ApiError> {
        let scope = self.caller.require(ApiResource::Customers, Access::Write)?;
        let id = id.get()?;
        self.run(scope, "customer", move |r, s| r.revoke_portal_links(s, id))
            .await
    }
}

/// How many of each kind of document a portal page lists.
const PORTAL_PER_PAGE: u32 = 50;

/// What one portal page shows of its customer: a page of each kind of document, newest first,
/// open invoices apart.
pub struct PortalView {
    pub customer: Customer,
    pub profile: Profile,
    pub open: Page<Invoice>,
    pub settled: Page<Invoice>,
    pub quotations: Page<Quotation>,
    pub credit_notes: Page<CreditNote>,
    pub payments: Page<Payment>,
    /// The invoices the page's credit notes and payments are of.
    pub invoices_named: HashMap<InvoiceId, Invoice>,
}

impl PortalView {
    /// Whether older documents follow this page.
    pub fn has_more(&self) -> bool {
        self.open.has_more
            || self.settled.has_more
            || self.quotations.has_more
            || self.credit_notes.has_more
            || self.payments.has_more
    }
}

/// A document the portal offers as a file.
#[derive(Clone, Copy, Debug, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PortalDocument {
    Invoices,
    Quotations,
    CreditNotes,
}

/// The file: the PDF, or the e-invoice in one of its syntaxes (invoices and credit notes).
#[derive(Clone, Copy, Debug, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PortalFormat {
    Pdf,
    Ubl,
    Cii,
}

/// A file of the portal, ready to answer.
pub enum PortalFile {
    Pdf(Box<invoicing_render::Document>),
    EInvoice(EInvoiceFile),
}

impl Ops {
    /// The operations of a portal link's holder: reads of one customer's documents that left
    /// draft, in that customer's tenant. A token never made, revoked or expired is 404, alike.
    pub async fn for_portal(state: &AppState, token: &str) -> Result<Ops, ApiError> {
        let (hash, now, repos) = (token_hash(token), state.config.clock.now(), state.repos());
        let (scope, customer) = blocking(move || repos.portal_owner(&hash, now))
            .await
            .map_err(|e| e.naming("portal"))?;
        let scope = Scope {
            actor: Actor::Customer,
            ..scope
        };
        Ok(Ops::new(
            state,
            Caller::new(scope, Permits::Portal(customer)),
        ))
    }

    /// The customer a portal caller may read, or 404: no other caller reads through the portal.
    fn portal_customer(&self) -> Result<(Scope, CustomerId), ApiError> {
        match self.caller.permits {
            Permits::Portal(customer) => Ok((self.caller.scope, customer)),
            _ => Err(ApiError::resource_missing("portal")),
        }
    }

    /// The portal's page `page` (from 1).
    pub async fn portal_view(&self, page: u32) -> Result<PortalView, ApiError> {
        let (scope, customer) = self.portal_customer()?;
        let request = PageRequest::new(page, PORTAL_PER_PAGE)
            .ok_or_else(|| ApiError::invalid_parameter("page", "must be a whole number from 1"))?
            .uncounted();
        self.run(scope, "portal", move |r, s| {
            let customer_id = Some(customer);
            let invoices = |standing, page| {
                let filter = InvoiceFilter {
                    customer_id,
                    standing,
                    ..InvoiceFilter::default()
                };
                r.list_invoices(s, &filter, page)
            };
            let open = invoices(Standing::Open, request)?;
            let settled = invoices(Standing::Settled, request)?;
            let quotations = QuotationFilter {
                customer_id,
                ..QuotationFilter::default()
            };
            let mut quotations = r.list_quotations(s, &quotations, request)?;
            quotations
                .data
                .retain(|q| q.status != QuotationStatus::Draft);
            let credit_notes = CreditNoteFilter {
                customer_id,
                invoice_id: None,
            };
            let credit_notes = r.list_credit_notes(s, &credit_notes, request)?;
            let payments = PaymentFilter {
                customer_id,
                ..PaymentFilter::default()
            };
            let mut payments = r.list_payments(s, &payments, request)?;
            payments
                .data
                .retain(|p| p.status != PaymentStatus::Rejected);
            let mut invoices_named: HashMap<InvoiceId, Invoice> = HashMap::new();
            let mut wanted: Vec<(Scope, InvoiceId)> = Vec::new();
            for id in credit_notes.data.iter().map(|n| n.invoice_id) {
                wanted.push((s, id));
            }
            for id in payments.data.iter().map(|p| p.invoice_id) {
                wanted.push((s, id));
            }
            wanted.sort_by_key(|(_, id)| id.0);
            wanted.dedup();
            for invoice in r.get_invoices(&wanted)?.into_iter().flatten() {
                invoices_named.insert(invoice.id, invoice);
            }
            Ok(PortalView {
                customer: r.get_customer(s, customer)?,
                profile: r.get_profile(s)?,
                open,
                settled,
                quotations,
                credit_notes,
                payments,
                invoices_named,
            })
        })
        .await
    }

    /// One of the customer's documents as a file; another customer's, a draft, or a quotation
    /// as an e-invoice is 404, as is a document that does not exist.
    pub async fn portal_file(
        &self,
        kind: PortalDocument,
        id: i64,
        format: PortalFormat,
    ) -> Result<PortalFile, ApiError> {
        let (_, customer) = self.portal_customer()?;
        let syntax = match format {
            PortalFormat::Pdf => None,
            PortalFormat::Ubl => Some(Syntax::Ubl),
            PortalFormat::Cii => Some(Syntax::Cii),
        };
        let theirs = |owner: CustomerId, left_draft: bool, what: &'static str| {
            if owner == customer && left_draft && id > 0 {
                Ok(())
            } else {
                Err(ApiError::resource_missing(what))
            }
        };
        // Another tenant's id is "no such document" here, as another customer's is: the API's
        // 403 would tell a link's holder which ids exist elsewhere.
        let hidden = |what: &'static str| {
            move |e: ApiError| {
                if e.status.as_u16() == 403 {
                    ApiError::resource_missing(what)
                } else {
                    e
                }
            }
        };
        match kind {
            PortalDocument::Invoices => {
                let shown = self
                    .invoice_shown(Id::of(InvoiceId(id)))
                    .await
                    .map_err(hidden("invoice"))?;
                let inv = &shown.invoice;
                theirs(inv.customer_id, inv.status.is_public(), "invoice")?;
                Ok(match syntax {
                    None => PortalFile::Pdf(Box::new(crate::pdf::invoice_document(shown))),
                    Some(syntax) => PortalFile::EInvoice(einvoices::invoice_file(&shown, syntax)?),
                })
            }
            PortalDocument::CreditNotes => {
                let shown = self
                    .credit_note_shown(Id::of(CreditNoteId(id)))
                    .await
                    .map_err(hidden("credit note"))?;
                theirs(shown.credit_note.customer_id, true, "credit note")?;
                Ok(match syntax {
                    None => {
                        PortalFile::Pdf(Box::new(invoicing_render::credit_note_document(shown)))
                    }
                    Some(syntax) => {
                        PortalFile::EInvoice(einvoices::credit_note_file(&shown, syntax)?)
                    }
                })
            }
            PortalDocument::Quotations => {
                let shown = self
                    .quotation_shown(Id::of(QuotationId(id)))
                    .await
                    .map_err(hidden("quotation"))?;
                let q = &shown.quotation;
                theirs(
                    q.customer_id,
                    q.status != QuotationStatus::Draft,
                    "quotation",
                )?;
                match syntax {
                    None => Ok(PortalFile::Pdf(Box::new(crate::pdf::quotation_document(
                        shown,
                    )))),
                    Some(_) => Err(ApiError::resource_missing("e-invoice")),
                }
            }
        }
    }

    /// The customer's statement (SPEC §22) as its PDF prints it; `query` as the API's
    /// `from`, `to` and `currency`.
    pub async fn portal_statement(
        &self,
        query: &str,
    ) -> Result<invoicing_render::Document, ApiError> {
        let (_, customer) = self.portal_customer()?;
        self.statement_document(Id::of(customer), query).await
    }
}
