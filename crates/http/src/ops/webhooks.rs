//! Webhook endpoints and their delivery log (SPEC §11): targets checked against the SSRF rules
//! before they are stored.

use super::Ops;
use crate::error::ApiError;
use crate::path_id::Id;
use crate::query::ListQuery;
use crate::webhook_target::check_target;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::paging::Page;
use invoicing_domain::ports::RepoError;
use invoicing_domain::webhook::{
    WebhookEndpoint, WebhookEndpointId, WebhookInput, WebhookPatchInput,
};
use invoicing_domain::webhook_delivery::DeliveryAttempt;
use invoicing_domain::webhook_signature::WebhookSecret;

const WHAT: &str = "webhook endpoint";

fn new_secret() -> WebhookSecret {
    WebhookSecret::generate(&mut rand::rngs::OsRng)
}

impl Ops {
    pub async fn create_webhook(&self, input: WebhookInput) -> Result<WebhookEndpoint, ApiError> {
        let scope = self.caller.require(ApiResource::Webhooks, Access::Write)?;
        let allow_private = self.webhook_allow_private;
        let new = input.parse(scope.environment, allow_private, new_secret())?;
        // The target's addresses are resolved off the async workers too.
        self.run(scope, WHAT, move |r, s| {
            check_target(&new.url, allow_private).map_err(RepoError::Invalid)?;
            r.create_webhook(s, new)
        })
        .await
    }

    pub async fn list_webhooks(&self, query: &str) -> Result<Page<WebhookEndpoint>, ApiError> {
        self.list(
            ApiResource::Webhooks,
            query,
            &[],
            |_| Ok(()),
            |r, s, _, p| r.list_webhooks(s, p),
        )
        .await
    }

    pub async fn webhook(&self, id: Id<WebhookEndpointId>) -> Result<WebhookEndpoint, ApiError> {
        let scope = self.caller.require(ApiResource::Webhooks, Access::Read)?;
        let id = id.get()?;
        self.run(scope, WHAT, move |r, s| r.get_webhook(s, id))
            .await
    }

    pub async fn update_webhook(
        &self,
        id: Id<WebhookEndpointId>,
        input: WebhookPatchInput,
    ) -> Result<WebhookEndpoint, ApiError> {
        let scope = self.caller.require(ApiResource::Webhooks, Access::Write)?;
        let id = id.get()?;
        let allow_private = self.webhook_allow_private;
        let patch = input.parse(scope.environment, allow_private)?;
        self.run(scope, WHAT, move |r, s| {
            if let Some(url) = &patch.url {
                check_target(url, allow_private).map_err(RepoError::Invalid)?;
            }
            r.update_webhook(s, id, patch)
        })
        .await
    }

    pub async fn delete_webhook(&self, id: Id<WebhookEndpointId>) -> Result<(), ApiError> {
        let scope = self.caller.require(ApiResource::Webhooks, Access::Write)?;
        let id = id.get()?;
        self.run(scope, WHAT, move |r, s| r.delete_webhook(s, id))
            .await
    }

    /// A new signing secret, shown once in the answer.
    pub async fn rotate_webhook_secret(
        &self,
        id: Id<WebhookEndpointId>,
    ) -> Result<WebhookEndpoint, ApiError> {
        let scope = self.caller.require(ApiResource::Webhooks, Access::Write)?;
        let id = id.get()?;
        let secret = new_secret();
        self.run(scope, WHAT, move |r, s| {
            r.rotate_webhook_secret(s, id, secret)
        })
        .await
    }

    pub async fn delivery_attempts(
        &self,
        id: Id<WebhookEndpointId>,
        query: &str,
    ) -> Result<Page<DeliveryAttempt>, ApiError> {
        let scope = self.caller.require(ApiResource::Webhooks, Access::Read)?;
        let id = id.get()?;
        let page = self.page(&ListQuery::parse(query, &[])?)?;
        self.run(scope, WHAT, move |r, s| {
            r.list_delivery_attempts(s, id, page)
        })
        .await
    }
}
