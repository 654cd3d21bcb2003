//! E-invoices (SPEC §23): invoices and credit notes as EN 16931 XML, and whether they can be.
//! The document's kept parties and stored amounts go in; nothing that breaks a rule comes out.

use super::Ops;
use crate::error::ApiError;
use crate::path_id::Id;
use crate::query::ListQuery;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::credit_note::CreditNoteId;
use invoicing_domain::einvoice::Readiness;
use invoicing_domain::invoice::InvoiceId;
use invoicing_einvoice::{self as einvoice, ModelError, Syntax};

/// An e-invoice file: its name and bytes.
pub struct EInvoiceFile {
    pub filename: String,
    pub bytes: Vec<u8>,
}

/// `?syntax=ubl|cii`, `ubl` when absent; anything else is 400.
pub fn syntax(query: &str) -> Result<Syntax, ApiError> {
    let q = ListQuery::parse(query, &["syntax"])?;
    Ok(q.choice("syntax", Syntax::parse, "ubl, cii")?
        .unwrap_or(Syntax::Ubl))
}

fn refused(e: ModelError) -> ApiError {
    match e {
        ModelError::Draft => ApiError::invalid_state_transition(
            "A draft is not an invoice yet: send it first (its e-invoice check works on drafts)",
        ),
        ModelError::Incomplete(r) => ApiError::einvoice_incomplete(r.missing),
    }
}

impl Ops {
    pub async fn invoice_einvoice(
        &self,
        id: Id<InvoiceId>,
        syntax: Syntax,
    ) -> Result<EInvoiceFile, ApiError> {
        let scope = self.caller.require(ApiResource::Invoices, Access::Read)?;
        let id = id.get()?;
        let shown = self
            .run(scope, "invoice", move |r, s| r.invoice_as_shown(s, id))
            .await?;
        let model = einvoice::invoice_model(&shown).map_err(refused)?;
        Ok(EInvoiceFile {
            filename: format!("{}.xml", shown.invoice.invoice_number),
            bytes: einvoice::write(&model, syntax),
        })
    }

    pub async fn invoice_einvoice_check(&self, id: Id<InvoiceId>) -> Result<Readiness, ApiError> {
        let scope = self.caller.require(ApiResource::Invoices, Access::Read)?;
        let id = id.get()?;
        let shown = self
            .run(scope, "invoice", move |r, s| r.invoice_as_shown(s, id))
            .await?;
        Ok(einvoice::check_invoice(&shown))
    }

    pub async fn credit_note_einvoice(
        &self,
        id: Id<CreditNoteId>,
        syntax: Syntax,
    ) -> Result<EInvoiceFile, ApiError> {
        let scope = self
            .caller
            .require(ApiResource::CreditNotes, Access::Read)?;
        let id = id.get()?;
        let shown = self
            .run(scope, "credit note", move |r, s| {
                r.credit_note_as_shown(s, id)
            })
            .await?;
        let model = einvoice::credit_note_model(&shown).map_err(refused)?;
        Ok(EInvoiceFile {
            filename: format!("{}.xml", shown.credit_note.credit_note_number),
            bytes: einvoice::write(&model, syntax),
        })
    }

    pub async fn credit_note_einvoice_check(
        &self,
        id: Id<CreditNoteId>,
    ) -> Result<Readiness, ApiError> {
        let scope = self
            .caller
            .require(ApiResource::CreditNotes, Access::Read)?;
        let id = id.get()?;
        let shown = self
            .run(scope, "credit note", move |r, s| {
                r.credit_note_as_shown(s, id)
            })
            .await?;
        Ok(einvoice::check_credit_note(&shown))
    }
}
