//! Online payments (SPEC §25): connecting an environment's Stripe account, paying an invoice by
//! card on its public page, recording what Stripe reports (its webhook, the customer's return,
//! the sweep) through storage's one idempotent operation, refunds and proof files.

mod checkout;
mod notifications;
mod refunds;

pub use checkout::{card_offer, card_return, start_card_payment, sweep_checkouts, CardOutcome};
pub use notifications::receive_notification;
pub use refunds::retry_refunds;

use super::{Ops, Permits};
use crate::error::ApiError;
use actix_web::web;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::gateway::{
    GatewayError, GatewayKeysInput, GatewayKind, GatewaySettings, PaymentGateway,
};
use invoicing_domain::tenant::Scope;
use invoicing_domain::validation::Violations;
use std::sync::Arc;

const STRIPE: GatewayKind = GatewayKind::Stripe;

/// Runs a gateway call (blocking HTTP with its own timeout) off the async workers and outside
/// the request's storage budget.
pub(crate) async fn gateway_call<T, F>(f: F) -> Result<T, GatewayError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, GatewayError> + Send + 'static,
{
    web::block(f)
        .await
        .unwrap_or_else(|e| Err(GatewayError::Unreachable(format!("gateway call: {e}"))))
}

impl Ops {
    /// Keys to real money: an API key with `account:write`, or an owner in the dashboard.
    fn require_gateway_admin(&self) -> Result<Scope, ApiError> {
        match &self.caller.permits {
            Permits::Key(_) => self.caller.require(ApiResource::Account, Access::Write),
            Permits::Role(_) | Permits::Portal(_) => self.caller.require_owner(),
        }
    }

    fn gateway(&self) -> Result<Arc<dyn PaymentGateway>, ApiError> {
        self.gateway
            .clone()
            .ok_or_else(ApiError::gateway_not_connected)
    }

    /// `PUT /api/v1/account/gateways/stripe`: the keys checked against Stripe, then kept
    /// sealed; the settings as `GET` shows them.
    pub async fn connect_stripe(
        &self,
        input: GatewayKeysInput,
    ) -> Result<GatewaySettings, ApiError> {
        let scope = self.require_gateway_admin()?;
        let keys = input.parse_stripe(scope.environment)?;
        let gateway = self.gateway()?;
        let checked = keys.clone();
        gateway_call(move || gateway.check_keys(&checked))
            .await
            .map_err(|e| match e {
                GatewayError::Unauthorized(_) | GatewayError::Refused { .. } => {
                    ApiError::from(Violations::single(
                        "secret_key",
                        "was refused by Stripe: copy the secret key of this environment from \
                         Stripe's dashboard (Developers → API keys)",
                    ))
                }
                other => ApiError::from(other),
            })?;
        let now = self.clock.now();
        self.run(scope, "gateway", move |r, s| {
            r.save_gateway(s, STRIPE, &keys, now)
        })
        .await
    }

    /// `GET /api/v1/account/gateways/stripe`: never a secret.
    pub async fn stripe_settings(&self) -> Result<GatewaySettings, ApiError> {
        let scope = self.require_gateway_admin()?;
        self.run(scope, "gateway", |r, s| r.gateway_settings(s, STRIPE))
            .await?
            .ok_or_else(ApiError::gateway_not_connected)
    }

    /// `DELETE /api/v1/account/gateways/stripe`: card payment stops being offered.
    pub async fn disconnect_stripe(&self) -> Result<(), ApiError> {
        let scope = self.require_gateway_admin()?;
        let gone = self
            .run(scope, "gateway", |r, s| r.delete_gateway(s, STRIPE))
            .await?;
        if gone {
            Ok(())
        } else {
            Err(ApiError::gateway_not_connected())
        }
    }
}
