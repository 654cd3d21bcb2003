//! Payments (SPEC §10): recorded, reported by customers, verified or rejected.

use super::Ops;
use crate::error::ApiError;
use crate::path_id::Id;
use crate::query::ListQuery;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::customer::CustomerId;
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::money::MAX_AMOUNT;
use invoicing_domain::paging::{Page, PageRequest};
use invoicing_domain::payment::{
    Payment, PaymentChange, PaymentFilter, PaymentId, PaymentInput, PaymentRequest,
};
use invoicing_domain::payment_status::PaymentStatus;

const FILTERS: &[&str] = &["status", "customer_id", "invoice_id", "amount_min"];

fn filter(q: &ListQuery) -> Result<PaymentFilter, ApiError> {
    let amount_min = q.integer(
        "amount_min",
        -MAX_AMOUNT..=MAX_AMOUNT,
        "must be an integer of minor units within ±1000000000000000",
    )?;
    Ok(PaymentFilter {
        status: q.choice(
            "status",
            PaymentStatus::parse,
            "pending, verified, rejected",
        )?,
        customer_id: q.id("customer_id")?.map(CustomerId),
        invoice_id: q.id("invoice_id")?.map(InvoiceId),
        amount_min,
    })
}

impl Ops {
    pub async fn create_payment(&self, input: PaymentInput) -> Result<Payment, ApiError> {
        let scope = self.caller.require(ApiResource::Payments, Access::Write)?;
        let new = input.parse()?;
        let repos = self.repos.clone();
        crate::blocking(move || repos.create_payment(scope, new))
            .await
            .map_err(|e| {
                // The only resource a create can miss is the invoice it names.
                if e.code == "resource_missing" {
                    ApiError::resource_missing("invoice").with_param("invoice_id")
                } else {
                    e
                }
            })
    }

    pub async fn list_payments(&self, query: &str) -> Result<Page<Payment>, ApiError> {
        self.list(
            ApiResource::Payments,
            query,
            FILTERS,
            filter,
            |r, s, f, p| r.list_payments(s, f, p),
        )
        .await
    }

    pub async fn payment(&self, id: Id<PaymentId>) -> Result<Payment, ApiError> {
        let scope = self.caller.require(ApiResource::Payments, Access::Read)?;
        let id = id.get()?;
        self.run(scope, "payment", move |r, s| r.get_payment(s, id))
            .await
    }

    /// Payments customers reported that wait for the merchant's verification.
    pub async fn payment_requests(&self, query: &str) -> Result<Page<PaymentRequest>, ApiError> {
        self.list(
            ApiResource::Payments,
            query,
            &[],
            |_| Ok(()),
            |r, s, _, p| r.list_payment_requests(s, p),
        )
        .await
    }

    /// Verifies, rejects or amends a payment as its status allows.
    pub async fn change_payment(
        &self,
        id: Id<PaymentId>,
        change: PaymentChange,
    ) -> Result<Payment, ApiError> {
        let scope = self.caller.require(ApiResource::Payments, Access::Write)?;
        let id = id.get()?;
        self.run(scope, "payment", move |r, s| {
            r.change_payment(s, id, change)
        })
        .await
    }
}

impl Ops {
    /// The numbers of these invoices of the caller's tenant, read together (rows that name
    /// invoices by id: the payments to verify).
    pub async fn invoice_numbers(
        &self,
        ids: Vec<InvoiceId>,
    ) -> Result<std::collections::HashMap<InvoiceId, String>, ApiError> {
        let scope = self.caller.require(ApiResource::Invoices, Access::Read)?;
        if ids.is_empty() {
            return Ok(std::collections::HashMap::new());
        }
        self.run(scope, "invoice", move |r, s| {
            let wanted: Vec<_> = ids.into_iter().map(|id| (s, id)).collect();
            Ok(r.get_invoices(&wanted)?
                .into_iter()
                .flatten()
                .map(|i| (i.id, i.invoice_number))
                .collect())
        })
        .await
    }

    /// Payments waiting for the merchant to verify or reject them, in the list's order.
    pub async fn pending_payments(&self, page: PageRequest) -> Result<Page<Payment>, ApiError> {
        let scope = self.caller.require(ApiResource::Payments, Access::Read)?;
        let filter = PaymentFilter {
            status: Some(PaymentStatus::Pending),
            customer_id: None,
            invoice_id: None,
            amount_min: None,
        };
        self.run(scope, "payment", move |r, s| {
            r.list_payments(s, &filter, page)
        })
        .await
    }
}
