//! Quotations (SPEC §14): drafts, sending, answers on the prospect's behalf, conversion.

use super::invoices::new_token;
use super::Ops;
use crate::error::ApiError;
use crate::path_id::Id;
use crate::query::ListQuery;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::customer::CustomerId;
use invoicing_domain::email::EmailInput;
use invoicing_domain::paging::{Page, PageRequest};
use invoicing_domain::quotation::{
    AcceptInput, ConversionResult, ConvertInput, PublicQuotation, Quotation, QuotationFilter,
    QuotationId, QuotationInput, QuotationPatchInput, RejectInput,
};
use invoicing_domain::quotation_status::QuotationStatus;

const FILTERS: &[&str] = &["status", "customer_id"];

fn filter(q: &ListQuery) -> Result<QuotationFilter, ApiError> {
    Ok(QuotationFilter {
        status: q.choice(
            "status",
            QuotationStatus::parse,
            "draft, sent, viewed, accepted, rejected, expired, converted",
        )?,
        customer_id: q.id("customer_id")?.map(CustomerId),
        awaiting_answer: false,
    })
}

/// Who accepted on the prospect's behalf: the address and browser the acceptance came from.
pub struct Origin {
    pub ip: String,
    pub user_agent: Option<String>,
}

impl Ops {
    pub async fn create_quotation(&self, input: QuotationInput) -> Result<Quotation, ApiError> {
        let scope = self
            .caller
            .require_document_write(ApiResource::Quotations, input.customer.is_some())?;
        let new = input.parse(self.today().await?, new_token())?;
        self.run(scope, "quotation", move |r, s| r.create_quotation(s, new))
            .await
    }

    /// Creates the quotation and sends it (emailed with `email`) in one transaction: a send
    /// that is refused leaves no draft behind.
    pub async fn create_and_send_quotation(
        &self,
        input: QuotationInput,
        email: Option<EmailInput>,
    ) -> Result<Quotation, ApiError> {
        let scope = self
            .caller
            .require_document_write(ApiResource::Quotations, input.customer.is_some())?;
        let new = input.parse(self.today().await?, new_token())?;
        let email = self.email_request(email)?;
        self.run(scope, "quotation", move |r, s| {
            r.create_and_send_quotation(s, new, email)
        })
        .await
    }

    pub async fn list_quotations(&self, query: &str) -> Result<Page<Quotation>, ApiError> {
        self.list(
            ApiResource::Quotations,
            query,
            FILTERS,
            filter,
            |r, s, f, p| r.list_quotations(s, f, p),
        )
        .await
    }

    pub async fn quotation(&self, id: Id<QuotationId>) -> Result<Quotation, ApiError> {
        let scope = self.caller.require(ApiResource::Quotations, Access::Read)?;
        let id = id.get()?;
        self.run(scope, "quotation", move |r, s| r.get_quotation(s, id))
            .await
    }

    /// The quotation as its page shows it: kept parties.
    pub async fn quotation_shown(&self, id: Id<QuotationId>) -> Result<PublicQuotation, ApiError> {
        let scope = self.caller.require(ApiResource::Quotations, Access::Read)?;
        let id = id.get()?;
        self.run(scope, "quotation", move |r, s| r.quotation_as_shown(s, id))
            .await
    }

    /// The quotation as its page shows it, ready to render.
    pub async fn quotation_pdf(
        &self,
        id: Id<QuotationId>,
    ) -> Result<invoicing_render::Document, ApiError> {
        Ok(crate::pdf::quotation_document(
            self.quotation_shown(id).await?,
        ))
    }

    pub async fn update_quotation(
        &self,
        id: Id<QuotationId>,
        input: QuotationPatchInput,
    ) -> Result<Quotation, ApiError> {
        let scope = self
            .caller
            .require(ApiResource::Quotations, Access::Write)?;
        let id = id.get()?;
        let patch = input.parse()?;
        self.run(scope, "quotation", move |r, s| {
            r.update_quotation(s, id, patch)
        })
        .await
    }

    pub async fn delete_quotation(&self, id: Id<QuotationId>) -> Result<(), ApiError> {
        let scope = self
            .caller
            .require(ApiResource::Quotations, Access::Write)?;
        let id = id.get()?;
        self.run(scope, "quotation", move |r, s| r.delete_quotation(s, id))
            .await
    }

    /// Sends a draft, and emails it when `email` is given.
    pub async fn send_quotation(
        &self,
        id: Id<QuotationId>,
        email: Option<EmailInput>,
    ) -> Result<Quotation, ApiError> {
        let scope = self
            .caller
            .require(ApiResource::Quotations, Access::Write)?;
        let id = id.get()?;
        let email = self.email_request(email)?;
        self.run(scope, "quotation", move |r, s| {
            r.send_quotation(s, id, email)
        })
        .await
    }

    /// Accepts on the prospect's behalf, recording where the acceptance came from.
    pub async fn accept_quotation(
        &self,
        id: Id<QuotationId>,
        input: AcceptInput,
        origin: Origin,
    ) -> Result<Quotation, ApiError> {
        let scope = self
            .caller
            .require(ApiResource::Quotations, Access::Write)?;
        let id = id.get()?;
        let answer = input.parse(Some(origin.ip), origin.user_agent)?;
        let today = self.today().await?;
        self.run(scope, "quotation", move |r, s| {
            r.answer_quotation(s, id, answer, today)
        })
        .await
    }

    /// Declines on the prospect's behalf.
    pub async fn reject_quotation(
        &self,
        id: Id<QuotationId>,
        input: RejectInput,
    ) -> Result<Quotation, ApiError> {
        let scope = self
            .caller
            .require(ApiResource::Quotations, Access::Write)?;
        let id = id.get()?;
        let answer = input.parse()?;
        let today = self.today().await?;
        self.run(scope, "quotation", move |r, s| {
            r.answer_quotation(s, id, answer, today)
        })
        .await
    }

    /// Turns an accepted quotation into an invoice.
    pub async fn convert_quotation(
        &self,
        id: Id<QuotationId>,
        input: ConvertInput,
    ) -> Result<ConversionResult, ApiError> {
        let scope = self
            .caller
            .require(ApiResource::Quotations, Access::Write)?;
        let id = id.get()?;
        // Converting writes an invoice: the caller must be allowed to create one.
        self.caller.require(ApiResource::Invoices, Access::Write)?;
        let today = self.today().await?;
        let due = input.parse(today)?;
        let token = new_token();
        self.run(scope, "quotation", move |r, s| {
            r.convert_quotation(s, id, due, token, today)
        })
        .await
    }
}

impl Ops {
    /// Quotations the prospect may still answer (sent or viewed), newest first.
    pub async fn quotations_awaiting_answer(
        &self,
        page: PageRequest,
    ) -> Result<Page<Quotation>, ApiError> {
        let scope = self.caller.require(ApiResource::Quotations, Access::Read)?;
        let filter = QuotationFilter {
            awaiting_answer: true,
            ..QuotationFilter::default()
        };
        self.run(scope, "quotation", move |r, s| {
            r.list_quotations(s, &filter, page)
        })
        .await
    }
}
