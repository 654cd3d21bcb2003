//! The email log and sending a document again (SPEC §18).

use super::Ops;
use crate::error::ApiError;
use crate::path_id::Id;
use crate::query::ListQuery;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::email::EmailKind;
use invoicing_domain::email::{
    EmailFilter, EmailId, EmailInput, EmailStatus, EmailSubject, OutgoingEmail,
};
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::paging::Page;
use invoicing_domain::parties::Parties;
use invoicing_domain::quotation::QuotationId;
use invoicing_domain::quotation_status::QuotationStatus;

/// What a document's email would be if sent as it stands (SPEC §27: shown before it leaves):
/// to the customer, the subject in their language, the PDF it carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmailDraft {
    pub to: String,
    pub subject: String,
    pub attachment: String,
    /// Whether sending it also sends the document (it is a draft still).
    pub sends: bool,
}

impl EmailDraft {
    fn of(kind: EmailKind, number: &str, parties: &Parties, sends: bool) -> EmailDraft {
        let merchant = parties.issuer.display_name();
        EmailDraft {
            to: parties.recipient.email.clone(),
            subject: kind.default_subject(parties.locale(), number, merchant),
            attachment: format!("{number}.pdf"),
            sends,
        }
    }
}

const FILTERS: &[&str] = &["status", "invoice_id", "quotation_id"];

fn filter(q: &ListQuery) -> Result<EmailFilter, ApiError> {
    Ok(EmailFilter {
        status: q.choice("status", EmailStatus::parse, "queued, sent, failed")?,
        invoice_id: q.id("invoice_id")?,
        quotation_id: q.id("quotation_id")?,
    })
}

impl Ops {
    pub async fn list_emails(&self, query: &str) -> Result<Page<OutgoingEmail>, ApiError> {
        self.list(ApiResource::Emails, query, FILTERS, filter, |r, s, f, p| {
            r.list_emails(s, f, p)
        })
        .await
    }

    pub async fn email(&self, id: Id<EmailId>) -> Result<OutgoingEmail, ApiError> {
        let scope = self.caller.require(ApiResource::Emails, Access::Read)?;
        let id = id.get()?;
        self.run(scope, "email", move |r, s| r.get_email(s, id))
            .await
    }

    /// The email an invoice would get now, to show before it is sent.
    pub async fn invoice_email_draft(&self, id: Id<InvoiceId>) -> Result<EmailDraft, ApiError> {
        let shown = self.invoice_shown(id).await?;
        let i = &shown.invoice;
        let draft = i.status == InvoiceStatus::Draft;
        Ok(EmailDraft::of(
            EmailKind::Invoice,
            &i.invoice_number,
            &shown.parties,
            draft,
        ))
    }

    /// The email a quotation would get now, to show before it is sent.
    pub async fn quotation_email_draft(&self, id: Id<QuotationId>) -> Result<EmailDraft, ApiError> {
        let shown = self.quotation_shown(id).await?;
        let q = &shown.quotation;
        let draft = q.status == QuotationStatus::Draft;
        Ok(EmailDraft::of(
            EmailKind::Quotation,
            &q.quote_number,
            &shown.parties,
            draft,
        ))
    }

    /// Emails a sent document again: writing the document is what it takes.
    pub async fn resend(
        &self,
        about: EmailSubject,
        input: Option<EmailInput>,
    ) -> Result<OutgoingEmail, ApiError> {
        let (resource, what) = match about {
            EmailSubject::Invoice(_) => (ApiResource::Invoices, "invoice"),
            EmailSubject::Quotation(_) => (ApiResource::Quotations, "quotation"),
            EmailSubject::CreditNote(_) => (ApiResource::CreditNotes, "credit note"),
            // A statement is about the customer's invoices.
            EmailSubject::Statement(_) => (ApiResource::Invoices, "customer"),
        };
        let scope = self.caller.require(resource, Access::Write)?;
        let request = self
            .email_request(Some(input.unwrap_or_default()))?
            .unwrap_or_default();
        self.run(scope, what, move |r, s| {
            r.resend_document(s, about, request)
        })
        .await
    }
}
