//! Webhook endpoints and the delivery queue (SPEC §12).

use super::RepoResult;
use crate::event::EventId;
use crate::paging::{Page, PageRequest};
use crate::tenant::Scope;
use crate::webhook::{NewWebhookEndpoint, WebhookEndpoint, WebhookEndpointId, WebhookPatch};
use crate::webhook_delivery::{AttemptOutcome, DeliveryAttempt, DeliveryJob, RetrySchedule};
use crate::webhook_signature::WebhookSecret;
use chrono::{DateTime, Utc};

pub trait WebhookRepository {
    /// The answer carries the secret, the only time besides a rotation.
    fn create_webhook(&self, scope: Scope, new: NewWebhookEndpoint) -> RepoResult<WebhookEndpoint>;
    fn list_webhooks(&self, scope: Scope, page: PageRequest) -> RepoResult<Page<WebhookEndpoint>>;
    fn get_webhook(&self, scope: Scope, id: WebhookEndpointId) -> RepoResult<WebhookEndpoint>;
    fn update_webhook(
        &self,
        scope: Scope,
        id: WebhookEndpointId,
        patch: WebhookPatch,
    ) -> RepoResult<WebhookEndpoint>;
    /// Removes the endpoint with its pending deliveries and its delivery log.
    fn delete_webhook(&self, scope: Scope, id: WebhookEndpointId) -> RepoResult<()>;
    fn rotate_webhook_secret(
        &self,
        scope: Scope,
        id: WebhookEndpointId,
        secret: WebhookSecret,
    ) -> RepoResult<WebhookEndpoint>;
    /// The endpoint's attempts, newest first.
    fn list_delivery_attempts(
        &self,
        scope: Scope,
        id: WebhookEndpointId,
        page: PageRequest,
    ) -> RepoResult<Page<DeliveryAttempt>>;
    /// Queues a new delivery of the event to every matching enabled endpoint; how many.
    fn redeliver_event(&self, scope: Scope, id: EventId) -> RepoResult<usize>;
}

/// The delivery worker's side, across tenants. Deliveries are written with their event (in the
/// same transaction), so nothing here can lose one.
pub trait DeliveryQueue {
    /// Claims up to `limit` due deliveries of enabled endpoints for `lease`; no other caller (of
    /// any process) gets them until the result is recorded or the lease runs out.
    fn claim_deliveries(
        &self,
        now: DateTime<Utc>,
        lease: std::time::Duration,
        limit: u32,
    ) -> RepoResult<Vec<DeliveryJob>>;
    /// Records the attempt and schedules what follows; `false` if the claim was lost meanwhile.
    fn record_attempt(
        &self,
        job: &DeliveryJob,
        outcome: &AttemptOutcome,
        schedule: &RetrySchedule,
        now: DateTime<Utc>,
    ) -> RepoResult<bool>;
    /// Gives a claimed delivery back unattempted (shutting down), due again at once.
    fn release_delivery(&self, job: &DeliveryJob) -> RepoResult<()>;
    /// When the next pending delivery falls due (its attempt time or its lease's end), if any.
    fn next_delivery_due(&self) -> RepoResult<Option<DateTime<Utc>>>;
    /// Renews the lease of a delivery in flight; `false` if the claim was lost.
    fn extend_delivery(
        &self,
        job: &DeliveryJob,
        now: DateTime<Utc>,
        lease: std::time::Duration,
    ) -> RepoResult<bool>;
}
