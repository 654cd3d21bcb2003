//! Refunds (SPEC §25): storage reserves what the payment may return, the gateway is asked with
//! the refund's own idempotency key, and its answer settles the refund (a refusal gives the
//! amount back). A payment no gateway took is paid back by hand: recorded, done.

use super::checkout::SWEEP_BATCH;
use super::gateway_call;
use crate::error::ApiError;
use crate::ops::Ops;
use crate::path_id::Id;
use chrono::{DateTime, Utc};
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::gateway::{GatewayError, NewRefund, PaymentGateway, ProofFile, RefundInput};
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::money::Money;
use invoicing_domain::paging::PageRequest;
use invoicing_domain::payment::{Payment, PaymentFilter, PaymentId};
use invoicing_domain::payment_status::PaymentStatus;
use invoicing_domain::ports::{RepoResult, Repositories};

/// Refunds kept and never answered for (the process died before asking the gateway), asked
/// again with their own idempotency key after this long; how many it settled.
pub const REFUND_RETRY_AFTER: chrono::Duration = chrono::Duration::minutes(1);

pub fn retry_refunds(
    repos: &dyn Repositories,
    gateway: &dyn PaymentGateway,
    now: DateTime<Utc>,
) -> RepoResult<usize> {
    let mut settled = 0;
    for (scope, plan) in repos.refunds_to_retry(now - REFUND_RETRY_AFTER, SWEEP_BATCH)? {
        let Some((kind, request)) = plan.request() else {
            continue;
        };
        let Some(keys) = repos.gateway_keys(scope, kind)? else {
            continue;
        };
        match gateway.refund(&keys, &request) {
            Ok(done) => {
                repos.finish_refund(scope, &plan, Some(&done))?;
                settled += 1;
            }
            Err(e) if e.surely_not_done() => {
                repos.finish_refund(scope, &plan, None)?;
                settled += 1;
            }
            Err(e) => log::warn!("refund retry: refund {}: {e}", plan.refund_id),
        }
    }
    Ok(settled)
}

impl Ops {
    /// `POST /api/v1/payments/{id}/refunds`.
    pub async fn refund_payment(
        &self,
        id: Id<PaymentId>,
        input: RefundInput,
    ) -> Result<Payment, ApiError> {
        let id = id.get()?;
        let new = input.parse()?;
        self.refund(id, new).await
    }

    /// What a new credit note made due (`amount`), refunded from the invoice's verified
    /// payments, newest first, each as much as it may return.
    pub(crate) async fn refund_credit(
        &self,
        invoice: InvoiceId,
        amount: i64,
    ) -> Result<(), ApiError> {
        let scope = self.caller.require(ApiResource::Payments, Access::Write)?;
        let filter = PaymentFilter {
            status: Some(PaymentStatus::Verified),
            invoice_id: Some(invoice),
            ..PaymentFilter::default()
        };
        let page = PageRequest::new(1, 100).ok_or_else(ApiError::internal)?;
        let payments = self
            .run(scope, "invoice", move |r, s| {
                r.list_payments(s, &filter, page)
            })
            .await?
            .data;
        let mut left = amount;
        for p in payments {
            let room = p.amount_cents - p.amount_refunded_cents;
            if left == 0 || room <= 0 {
                continue;
            }
            let take = Money::new(left.min(room)).map_err(|_| ApiError::internal())?;
            let new = NewRefund {
                amount: Some(take),
                reason: Some("credit note".into()),
            };
            self.refund(p.id, new).await?;
            left -= take.minor();
        }
        Ok(())
    }

    async fn refund(&self, id: PaymentId, new: NewRefund) -> Result<Payment, ApiError> {
        let scope = self.caller.require(ApiResource::Payments, Access::Write)?;
        let plan = self
            .run(scope, "payment", move |r, s| r.start_refund(s, id, &new))
            .await?;
        let Some((kind, request)) = plan.request() else {
            return self
                .run(scope, "payment", move |r, s| r.get_payment(s, id))
                .await;
        };
        let keys = self
            .run(scope, "payment", move |r, s| r.gateway_keys(s, kind))
            .await?;
        let gateway = self.gateway.clone();
        let asked = match (gateway, keys) {
            (Some(g), Some(k)) => gateway_call(move || g.refund(&k, &request)).await,
            _ => Err(GatewayError::Refused {
                param: None,
                message: "no Stripe account is connected in this environment".into(),
            }),
        };
        match asked {
            Ok(done) => {
                self.run(scope, "payment", move |r, s| {
                    r.finish_refund(s, &plan, Some(&done))
                })
                .await
            }
            Err(e) if e.surely_not_done() => {
                self.run(scope, "payment", move |r, s| {
                    r.finish_refund(s, &plan, None)
                })
                .await?;
                Err(e.into())
            }
            // The gateway may have made it: the refund stays pending and its notification
            // (or a retry with the same key) settles it.
            Err(e) => Err(e.into()),
        }
    }

    /// `GET /api/v1/payments/{id}/proof`: the file the customer attached.
    pub async fn payment_proof(&self, id: Id<PaymentId>) -> Result<ProofFile, ApiError> {
        let scope = self.caller.require(ApiResource::Payments, Access::Read)?;
        let id = id.get()?;
        self.run(scope, "payment", move |r, s| r.payment_proof(s, id))
            .await?
            .ok_or_else(|| ApiError::resource_missing("proof"))
    }
}
