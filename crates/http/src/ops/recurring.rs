//! Recurring invoices (SPEC §19).

use super::Ops;
use crate::error::ApiError;
use crate::path_id::Id;
use crate::query::ListQuery;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::customer::CustomerId;
use invoicing_domain::paging::Page;
use invoicing_domain::recurring::{
    RecurringFilter, RecurringId, RecurringInput, RecurringInvoice, RecurringPatchInput,
    RecurringStatus,
};

const FILTERS: &[&str] = &["status", "customer_id"];

fn filter(q: &ListQuery) -> Result<RecurringFilter, ApiError> {
    Ok(RecurringFilter {
        status: q.choice(
            "status",
            RecurringStatus::parse,
            "active, paused, cancelled, completed",
        )?,
        customer_id: q.id("customer_id")?.map(CustomerId),
    })
}

const WHAT: &str = "recurring invoice";

impl Ops {
    pub async fn create_recurring(
        &self,
        input: RecurringInput,
    ) -> Result<RecurringInvoice, ApiError> {
        let scope = self
            .caller
            .require_document_write(ApiResource::RecurringInvoices, input.customer.is_some())?;
        let new = input.parse(self.today().await?)?;
        if new.email && !self.mail_enabled {
            return Err(ApiError::email_not_configured());
        }
        self.run(scope, WHAT, move |r, s| r.create_recurring(s, new))
            .await
    }

    pub async fn list_recurring(&self, query: &str) -> Result<Page<RecurringInvoice>, ApiError> {
        self.list(
            ApiResource::RecurringInvoices,
            query,
            FILTERS,
            filter,
            |r, s, f, p| r.list_recurring(s, f, p),
        )
        .await
    }

    pub async fn recurring(&self, id: Id<RecurringId>) -> Result<RecurringInvoice, ApiError> {
        let scope = self
            .caller
            .require(ApiResource::RecurringInvoices, Access::Read)?;
        let id = id.get()?;
        self.run(scope, WHAT, move |r, s| r.get_recurring(s, id))
            .await
    }

    pub async fn update_recurring(
        &self,
        id: Id<RecurringId>,
        input: RecurringPatchInput,
    ) -> Result<RecurringInvoice, ApiError> {
        let scope = self
            .caller
            .require(ApiResource::RecurringInvoices, Access::Write)?;
        let id = id.get()?;
        let patch = input.parse()?;
        if patch.email == Some(true) && !self.mail_enabled {
            return Err(ApiError::email_not_configured());
        }
        self.run(scope, WHAT, move |r, s| r.update_recurring(s, id, patch))
            .await
    }

    /// Pauses, resumes or cancels a schedule as its status allows.
    pub async fn change_recurring(
        &self,
        id: Id<RecurringId>,
        to: RecurringStatus,
    ) -> Result<RecurringInvoice, ApiError> {
        let scope = self
            .caller
            .require(ApiResource::RecurringInvoices, Access::Write)?;
        let id = id.get()?;
        let today = self.today().await?;
        self.run(scope, WHAT, move |r, s| {
            r.change_recurring(s, id, to, today)
        })
        .await
    }
}
