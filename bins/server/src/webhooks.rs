//! Webhook delivery: one claimed delivery POSTed with Standard Webhooks headers and its attempt
//! recorded, run by the durable-job workers of [`crate::jobs`]. Targets that are not globally
//! reachable are refused at connect time, after DNS, unless allowed.

use crate::jobs::JobRunner;
use chrono::{DateTime, Utc};
use invoicing_domain::ports::{DeliveryQueue, RepoResult};
use invoicing_domain::webhook::is_private_target;
use invoicing_domain::webhook_delivery::{
    excerpt, AttemptOutcome, DeliveryJob, RetrySchedule, ATTEMPT_TIMEOUT, RESPONSE_EXCERPT_MAX,
};
use invoicing_storage::Store;
use std::io::Read;
use std::time::{Duration, Instant};
// ureq's resolver hook is outside its semver promise (`unversioned`): Cargo.lock pins the
// version, and an upgrade must re-run the private-target tests (bins/server/tests/server/webhooks.rs).
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

/// Webhook deliveries as durable jobs (see [`crate::jobs`]).
pub struct WebhookRunner {
    store: Store,
    agent: ureq::Agent,
    schedule: RetrySchedule,
}

impl WebhookRunner {
    pub fn new(store: Store, schedule: RetrySchedule, allow_private: bool) -> WebhookRunner {
        WebhookRunner {
            store,
            agent: agent(allow_private),
            schedule,
        }
    }
}

impl JobRunner for WebhookRunner {
    type Job = DeliveryJob;
    const NAME: &'static str = "webhooks";
    /// Longer than an attempt can take (its timeout is 10 s).
    const LEASE: Duration = Duration::from_secs(60);

    fn claim(&self, now: DateTime<Utc>, lease: Duration) -> RepoResult<Vec<DeliveryJob>> {
        self.store.claim_deliveries(now, lease, 1)
    }

    fn next_due(&self) -> RepoResult<Option<DateTime<Utc>>> {
        self.store.next_delivery_due()
    }

    fn extend(&self, job: &DeliveryJob, now: DateTime<Utc>, lease: Duration) -> RepoResult<bool> {
        self.store.extend_delivery(job, now, lease)
    }

    fn run_ref(&self, job: &DeliveryJob) {
        let outcome = attempt(&self.agent, job);
        match self
            .store
            .record_attempt(job, &outcome, &self.schedule, Utc::now())
        {
            Ok(true) => log::info!(
                "webhooks: {} {} attempt {} -> {}",
                job.message_id(),
                job.event_type,
                job.attempt,
                outcome
                    .status_code
                    .map(|c| c.to_string())
                    .or_else(|| outcome.error.clone())
                    .unwrap_or_default()
            ),
            Ok(false) => log::warn!(
                "webhooks: delivery {} was claimed elsewhere meanwhile",
                job.delivery_id
            ),
            Err(e) => log::warn!("webhooks: recording delivery {}: {e}", job.delivery_id),
        }
    }

    fn release(&self, job: &DeliveryJob) -> RepoResult<()> {
        self.store.release_delivery(job)
    }
}

/// One signed POST of the event.
pub fn attempt(agent: &ureq::Agent, job: &DeliveryJob) -> AttemptOutcome {
    let id = job.message_id();
    let timestamp = Utc::now().timestamp();
    let signature = job.secret.sign(&id, timestamp, job.payload.as_bytes());
    let started = Instant::now();
    let result = agent
        .post(&job.url)
        .header("content-type", "application/json")
        .header("webhook-id", &id)
        .header("webhook-timestamp", &timestamp.to_string())
        .header("webhook-signature", &signature)
        .send(job.payload.as_bytes());
    let elapsed = |s: Instant| i64::try_from(s.elapsed().as_millis()).unwrap_or(i64::MAX);
    match result {
        Ok(mut res) => {
            let status = res.status().as_u16();
            let mut body = Vec::new();
            let read = res
                .body_mut()
                .as_reader()
                .take(RESPONSE_EXCERPT_MAX as u64)
                .read_to_end(&mut body);
            let text = String::from_utf8_lossy(&body);
            AttemptOutcome {
                status_code: Some(status),
                duration_ms: elapsed(started),
                error: read.err().map(|e| format!("reading the response: {e}")),
                response_excerpt: (!text.is_empty()).then(|| excerpt(&text)),
            }
        }
        Err(e) => AttemptOutcome {
            status_code: None,
            duration_ms: elapsed(started),
            error: Some(describe(&e)),
            response_excerpt: None,
        },
    }
}

fn describe(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Timeout(_) => format!("no answer within {}s", ATTEMPT_TIMEOUT.as_secs()),
        ureq::Error::Other(inner) if inner.is::<PrivateTarget>() => inner.to_string(),
        other => other.to_string(),
    }
}

#[derive(Debug, thiserror::Error)]
#[error("refused: the host resolves to a private or otherwise not globally reachable address")]
struct PrivateTarget;

/// Resolves as usual, then refuses private addresses: the connection goes only to addresses
/// checked here, so a DNS answer cannot change between the check and the connect.
#[derive(Debug)]
struct GuardedResolver {
    inner: DefaultResolver,
    allow_private: bool,
}

impl Resolver for GuardedResolver {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let addrs = self.inner.resolve(uri, config, timeout)?;
        if !self.allow_private && addrs.iter().any(|a| is_private_target(a.ip())) {
            return Err(ureq::Error::Other(Box::new(PrivateTarget)));
        }
        Ok(addrs)
    }
}

pub fn agent(allow_private: bool) -> ureq::Agent {
    let config = ureq::Agent::config_builder()
        .timeout_global(Some(ATTEMPT_TIMEOUT))
        .http_status_as_error(false)
        // A redirect could lead anywhere, including inside the network: it counts as a failure.
        .max_redirects(0)
        .max_redirects_will_error(false)
        .user_agent("invoicing-webhooks/1")
        .build();
    ureq::Agent::with_parts(
        config,
        DefaultConnector::new(),
        GuardedResolver {
            inner: DefaultResolver::default(),
            allow_private,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use invoicing_domain::event::EventId;
    use invoicing_domain::tenant::{AccountId, Environment, Scope};
    use invoicing_domain::webhook::WebhookEndpointId;
    use invoicing_domain::webhook_signature::WebhookSecret;
    use std::io::Write;
    use std::net::TcpListener;

    fn job(url: String) -> DeliveryJob {
        DeliveryJob {
            delivery_id: 1,
            claim: "c".into(),
            scope: Scope::new(AccountId(1), Environment::Test),
            endpoint_id: WebhookEndpointId(1),
            url,
            secret: WebhookSecret::generate(&mut rand::rngs::OsRng),
            event_id: EventId(7),
            event_type: "invoice.paid".into(),
            payload: "{}".into(),
            attempt: 1,
        }
    }

    /// The address checked is the address connected to: with private targets refused, nothing
    /// on loopback is ever reached, whatever name the URL uses.
    #[test]
    fn private_targets_are_refused_when_connecting() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        for url in [
            format!("http://127.0.0.1:{port}/hook"),
            format!("http://localhost:{port}/hook"),
        ] {
            let outcome = attempt(&agent(false), &job(url.clone()));
            assert_eq!(outcome.status_code, None, "{url}");
            let error = outcome.error.unwrap_or_default();
            assert!(error.contains("private"), "{url}: {error}");
        }
        assert!(listener.accept().is_err(), "no connection was made");

        // Allowed, the same target is reached and its answer recorded.
        listener.set_nonblocking(false).unwrap();
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut buf = [0u8; 4096];
            let _ = std::io::Read::read(&mut stream, &mut buf);
            stream
                .write_all(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
                .unwrap();
        });
        let outcome = attempt(&agent(true), &job(format!("http://127.0.0.1:{port}/hook")));
        server.join().unwrap();
        assert_eq!(outcome.status_code, Some(204), "{:?}", outcome.error);
        assert!(outcome.is_success());
    }
}
