//! The document an email is composed for: its screen, and the operations that draft and send
//! its email.

use crate::dashboard::chrome::Nav;
use crate::error::ApiError;
use crate::ops::{EmailDraft, Ops};
use crate::path_id::Id;
use invoicing_domain::api_key::ApiResource;
use invoicing_domain::email::{EmailInput, EmailSubject};
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::quotation::QuotationId;

/// The document an email is composed for.
#[derive(Clone, Copy)]
pub(super) enum Doc {
    Invoice(i64),
    Quotation(i64),
}

impl Doc {
    pub(super) fn screen(self) -> String {
        match self {
            Doc::Invoice(id) => format!("/dashboard/invoices/{id}"),
            Doc::Quotation(id) => format!("/dashboard/quotations/{id}"),
        }
    }

    pub(super) fn resource(self) -> ApiResource {
        match self {
            Doc::Invoice(_) => ApiResource::Invoices,
            Doc::Quotation(_) => ApiResource::Quotations,
        }
    }

    pub(super) fn nav(self) -> Nav {
        match self {
            Doc::Invoice(_) => Nav::Invoices,
            Doc::Quotation(_) => Nav::Quotations,
        }
    }

    pub(super) async fn draft(self, ops: &Ops) -> Result<EmailDraft, ApiError> {
        match self {
            Doc::Invoice(id) => ops.invoice_email_draft(Id::of(InvoiceId(id))).await,
            Doc::Quotation(id) => ops.quotation_email_draft(Id::of(QuotationId(id))).await,
        }
    }

    /// Sends a draft with its email, or emails a sent document again.
    pub(super) async fn send(
        self,
        ops: &Ops,
        draft: &EmailDraft,
        email: EmailInput,
    ) -> Result<(), ApiError> {
        match (self, draft.sends) {
            (Doc::Invoice(id), true) => ops
                .send_invoice(Id::of(InvoiceId(id)), Some(email))
                .await
                .map(|_| ()),
            (Doc::Quotation(id), true) => ops
                .send_quotation(Id::of(QuotationId(id)), Some(email))
                .await
                .map(|_| ()),
            (Doc::Invoice(id), false) => ops
                .resend(EmailSubject::Invoice(id), Some(email))
                .await
                .map(|_| ()),
            (Doc::Quotation(id), false) => ops
                .resend(EmailSubject::Quotation(id), Some(email))
                .await
                .map(|_| ()),
        }
    }
}
