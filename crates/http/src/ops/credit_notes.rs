//! Credit notes (SPEC §15).

use super::Ops;
use crate::error::ApiError;
use crate::path_id::Id;
use crate::query::ListQuery;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::credit_note::{
    CreditNote, CreditNoteFilter, CreditNoteId, CreditNoteInput, PublicCreditNote,
};
use invoicing_domain::customer::CustomerId;
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::paging::Page;

const FILTERS: &[&str] = &["invoice_id", "customer_id"];

fn filter(q: &ListQuery) -> Result<CreditNoteFilter, ApiError> {
    Ok(CreditNoteFilter {
        invoice_id: q.id("invoice_id")?.map(InvoiceId),
        customer_id: q.id("customer_id")?.map(CustomerId),
    })
}

impl Ops {
    /// Credits (part of) `invoice`, and emails the note when asked.
    pub async fn create_credit_note(
        &self,
        invoice: Id<InvoiceId>,
        input: CreditNoteInput,
    ) -> Result<CreditNote, ApiError> {
        let scope = self
            .caller
            .require(ApiResource::CreditNotes, Access::Write)?;
        let invoice = invoice.get()?;
        let refund = input.refund.unwrap_or(false);
        if refund {
            self.caller.require(ApiResource::Payments, Access::Write)?;
        }
        let (new, email) = input.parse()?;
        let email = self.email_request(email)?;
        let note = self
            .run(scope, "invoice", move |r, s| {
                r.create_credit_note(s, invoice, new, email)
            })
            .await?;
        if refund && note.refund_due_cents > 0 {
            self.refund_credit(invoice, note.refund_due_cents).await?;
        }
        Ok(note)
    }

    pub async fn list_credit_notes(&self, query: &str) -> Result<Page<CreditNote>, ApiError> {
        self.list(
            ApiResource::CreditNotes,
            query,
            FILTERS,
            filter,
            |r, s, f, p| r.list_credit_notes(s, f, p),
        )
        .await
    }

    pub async fn credit_note(&self, id: Id<CreditNoteId>) -> Result<CreditNote, ApiError> {
        let scope = self
            .caller
            .require(ApiResource::CreditNotes, Access::Read)?;
        let id = id.get()?;
        self.run(scope, "credit note", move |r, s| r.get_credit_note(s, id))
            .await
    }

    /// The credit note as printed: with its invoice's number and parties.
    pub async fn credit_note_shown(
        &self,
        id: Id<CreditNoteId>,
    ) -> Result<PublicCreditNote, ApiError> {
        let scope = self
            .caller
            .require(ApiResource::CreditNotes, Access::Read)?;
        let id = id.get()?;
        self.run(scope, "credit note", move |r, s| {
            r.credit_note_as_shown(s, id)
        })
        .await
    }

    /// The credit note as printed, ready to render.
    pub async fn credit_note_pdf(
        &self,
        id: Id<CreditNoteId>,
    ) -> Result<invoicing_render::Document, ApiError> {
        Ok(invoicing_render::credit_note_document(
            self.credit_note_shown(id).await?,
        ))
    }
}
