//! E-invoices (SPEC §23): invoices and credit notes as EN 16931 XML, and whether they can be.
//! The document's kept parties and stored amounts go in; nothing that breaks a rule comes out.

use super::Ops;
use crate::error::ApiError;
use crate::path_id::Id;
use crate::query::ListQuery;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::credit_note::{CreditNoteId, PublicCreditNote};
use invoicing_domain::einvoice::Readiness;
use invoicing_domain::invoice::{Invoice, InvoiceId, PublicInvoice};
use invoicing_domain::parties::Parties;
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

/// The invoice as an e-invoice file.
pub(crate) fn invoice_file(
    shown: &PublicInvoice,
    syntax: Syntax,
) -> Result<EInvoiceFile, ApiError> {
    let model = einvoice::invoice_model_for(shown, syntax).map_err(refused)?;
    Ok(EInvoiceFile {
        filename: format!("{}.xml", shown.invoice.invoice_number),
        bytes: einvoice::write(&model, syntax),
    })
}

/// The credit note as an e-invoice file.
pub(crate) fn credit_note_file(
    shown: &PublicCreditNote,
    syntax: Syntax,
) -> Result<EInvoiceFile, ApiError> {
    let model = einvoice::credit_note_model_for(shown, syntax).map_err(refused)?;
    Ok(EInvoiceFile {
        filename: format!("{}.xml", shown.credit_note.credit_note_number),
        bytes: einvoice::write(&model, syntax),
    })
}

impl Ops {
    pub async fn invoice_einvoice(
        &self,
        id: Id<InvoiceId>,
        syntax: Syntax,
    ) -> Result<EInvoiceFile, ApiError> {
        invoice_file(&self.invoice_shown(id).await?, syntax)
    }

    /// The invoice, its parties and what its e-invoice still lacks (the dashboard's screen):
    /// one read, without the logo, payments and credit notes the check does not need.
    pub async fn invoice_readiness(
        &self,
        id: Id<InvoiceId>,
    ) -> Result<(Invoice, Parties, Readiness), ApiError> {
        let scope = self.caller.require(ApiResource::Invoices, Access::Read)?;
        let id = id.get()?;
        let (invoice, parties) = self
            .run(scope, "invoice", move |r, s| r.invoice_with_parties(s, id))
            .await?;
        let readiness = einvoice::check_invoice_with(&invoice, &parties);
        Ok((invoice, parties, readiness))
    }

    pub async fn invoice_einvoice_check(&self, id: Id<InvoiceId>) -> Result<Readiness, ApiError> {
        Ok(self.invoice_readiness(id).await?.2)
    }

    pub async fn credit_note_einvoice(
        &self,
        id: Id<CreditNoteId>,
        syntax: Syntax,
    ) -> Result<EInvoiceFile, ApiError> {
        credit_note_file(&self.credit_note_shown(id).await?, syntax)
    }

    pub async fn credit_note_einvoice_check(
        &self,
        id: Id<CreditNoteId>,
    ) -> Result<Readiness, ApiError> {
        Ok(einvoice::check_credit_note(
            &self.credit_note_shown(id).await?,
        ))
    }
}
