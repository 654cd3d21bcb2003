//! Invoices and credit notes as European e-invoices (EN 16931, SPEC §23): bytes from domain
//! types, with no database or HTTP, beside the PDF renderer. One model, built from the stored
//! integers and refused when the document breaks a rule, is written as UBL 2.1 (Peppol BIS
//! Billing 3.0) or as UN/CEFACT CII (the EN 16931 profile of Factur-X, also embedded in PDFs).
#![forbid(unsafe_code)] // only storage calls the OS; the workspace lint is `deny` for it

mod cii;
mod model;
mod ubl;
mod xml;

pub use model::{
    amount, check_credit_note, check_invoice, check_invoice_with, credit_note_model,
    credit_note_model_for, invoice_model, invoice_model_for, Kind, Model, ModelError,
};

/// The two syntaxes of EN 16931.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    Ubl,
    Cii,
}

impl Syntax {
    pub fn parse(s: &str) -> Option<Syntax> {
        match s {
            "ubl" => Some(Syntax::Ubl),
            "cii" => Some(Syntax::Cii),
            _ => None,
        }
    }
}

/// The document in `syntax`, as UTF-8 XML.
pub fn write(doc: &Model<'_>, syntax: Syntax) -> Vec<u8> {
    match syntax {
        Syntax::Ubl => ubl::write(doc),
        Syntax::Cii => cii::write(doc),
    }
}
