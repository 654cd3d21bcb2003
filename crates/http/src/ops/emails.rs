//! The email log and sending a document again (SPEC §18).

use super::Ops;
use crate::error::ApiError;
use crate::path_id::Id;
use crate::query::ListQuery;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::email::{
    EmailFilter, EmailId, EmailInput, EmailStatus, EmailSubject, OutgoingEmail,
};
use invoicing_domain::paging::Page;

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
