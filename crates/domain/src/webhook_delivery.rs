//! Webhook delivery (SPEC §11): the retry schedule, what one attempt produced, what happens next,
//! and the attempt as the delivery log shows it.

use crate::event::EventId;
use crate::tenant::Scope;
use crate::webhook::WebhookEndpointId;
use crate::webhook_signature::WebhookSecret;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::fmt;
use std::time::Duration;

/// At most this much of a response body is kept in the delivery log.
pub const RESPONSE_EXCERPT_MAX: usize = 1024;
/// A receiver that has not answered with a 2xx within this time has failed the attempt.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum DeliveryState {
    Pending,
    Succeeded,
    Failed,
}

impl DeliveryState {
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryState::Pending => "pending",
            DeliveryState::Succeeded => "succeeded",
            DeliveryState::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<DeliveryState> {
        [
            DeliveryState::Pending,
            DeliveryState::Succeeded,
            DeliveryState::Failed,
        ]
        .into_iter()
        .find(|d| d.as_str() == s)
    }
}

impl fmt::Display for DeliveryState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Delays between attempts after the first (`WEBHOOK_RETRY_SCHEDULE`, e.g. `5s,5m,30m,2h`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetrySchedule(Vec<Duration>);

impl RetrySchedule {
    pub fn parse(text: &str) -> Result<RetrySchedule, String> {
        text.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(crate::time::parse_duration)
            .collect::<Result<Vec<_>, _>>()
            .map(RetrySchedule)
    }

    /// Attempts in all: the first and one per delay.
    pub fn max_attempts(&self) -> u32 {
        u32::try_from(self.0.len())
            .unwrap_or(u32::MAX)
            .saturating_add(1)
    }

    /// What follows attempt number `attempt` (1-based) of a delivery.
    pub fn after(&self, attempt: u32, outcome: &AttemptOutcome) -> NextStep {
        if outcome.is_success() {
            return NextStep::Succeeded;
        }
        match self.retry_delay(attempt) {
            Some(delay) => NextStep::RetryIn(delay),
            None => NextStep::Failed,
        }
    }

    /// How long after failed attempt number `attempt` (1-based) the next one is due; `None`
    /// once the schedule is spent. Every durable job (webhooks, email) retries on one.
    pub fn retry_delay(&self, attempt: u32) -> Option<Duration> {
        let index = usize::try_from(attempt)
            .unwrap_or(usize::MAX)
            .saturating_sub(1);
        self.0.get(index).copied()
    }
}

/// What one attempt produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttemptOutcome {
    /// The receiver's status code; `None` when it gave no answer.
    pub status_code: Option<u16>,
    pub duration_ms: i64,
    pub error: Option<String>,
    pub response_excerpt: Option<String>,
}

impl AttemptOutcome {
    pub fn is_success(&self) -> bool {
        self.error.is_none() && self.status_code.is_some_and(|c| (200..300).contains(&c))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextStep {
    Succeeded,
    RetryIn(Duration),
    Failed,
}

/// A claimed delivery, with everything needed to send it without reading the database again.
#[derive(Clone, Debug)]
pub struct DeliveryJob {
    pub delivery_id: i64,
    /// Proves the claim when the result is recorded: a worker whose lease ran out records nothing.
    pub claim: String,
    pub scope: Scope,
    pub endpoint_id: WebhookEndpointId,
    pub url: String,
    pub secret: WebhookSecret,
    pub event_id: EventId,
    pub event_type: String,
    /// The event JSON exactly as it is sent and signed.
    pub payload: String,
    /// The number of this attempt, from 1.
    pub attempt: u32,
}

impl DeliveryJob {
    /// `webhook-id`: the same on every attempt of the event.
    pub fn message_id(&self) -> String {
        format!("evt_{}", self.event_id.0)
    }
}

/// One attempt as `GET /api/v1/webhooks/{id}/deliveries` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeliveryAttempt {
    pub id: i64,
    pub object: &'static str,
    pub event_id: i64,
    pub event_type: String,
    pub attempt: i32,
    pub status_code: Option<i32>,
    pub duration_ms: i64,
    pub error: Option<String>,
    pub response_excerpt: Option<String>,
    /// The delivery's state after this attempt.
    pub state: DeliveryState,
    #[serde(serialize_with = "crate::time::serialize_opt")]
    pub next_attempt_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "crate::time::serialize")]
    pub created_at: DateTime<Utc>,
}

impl DeliveryAttempt {
    pub const OBJECT: &'static str = "webhook_delivery_attempt";
}

/// Cuts a response body to the log's excerpt size on a character boundary.
pub fn excerpt(body: &str) -> String {
    if body.len() <= RESPONSE_EXCERPT_MAX {
        return body.to_string();
    }
    let mut end = RESPONSE_EXCERPT_MAX;
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    body[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed() -> AttemptOutcome {
        AttemptOutcome {
            status_code: Some(500),
            duration_ms: 3,
            error: None,
            response_excerpt: None,
        }
    }

    #[test]
    fn the_default_schedule() {
        let s = RetrySchedule::parse("5s,5m,30m,2h,5h,10h,10h").unwrap();
        assert_eq!(s.max_attempts(), 8);
        assert_eq!(
            s.after(1, &failed()),
            NextStep::RetryIn(Duration::from_secs(5))
        );
        assert_eq!(
            s.after(2, &failed()),
            NextStep::RetryIn(Duration::from_secs(300))
        );
        assert_eq!(
            s.after(7, &failed()),
            NextStep::RetryIn(Duration::from_secs(36_000))
        );
        assert_eq!(s.after(8, &failed()), NextStep::Failed);
        let ok = AttemptOutcome {
            status_code: Some(204),
            ..failed()
        };
        assert_eq!(s.after(8, &ok), NextStep::Succeeded);
        for bad in ["5x", "s", "5", "-5s", "99999999999999999999s", "31d"] {
            assert!(RetrySchedule::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(RetrySchedule::parse("").unwrap().max_attempts(), 1);
    }

    #[test]
    fn success_needs_a_2xx_and_no_error() {
        let with = |code: Option<u16>, error: Option<&str>| AttemptOutcome {
            status_code: code,
            error: error.map(String::from),
            ..failed()
        };
        assert!(with(Some(200), None).is_success());
        assert!(with(Some(299), None).is_success());
        assert!(!with(Some(300), None).is_success());
        assert!(!with(Some(404), None).is_success());
        assert!(!with(None, Some("timed out")).is_success());
        assert!(!with(Some(200), Some("body read failed")).is_success());
    }

    #[test]
    fn excerpts_stop_at_1_kib_on_a_char_boundary() {
        assert_eq!(excerpt("short"), "short");
        let long = "é".repeat(600);
        let cut = excerpt(&long);
        assert!(cut.len() <= RESPONSE_EXCERPT_MAX && cut.len() >= RESPONSE_EXCERPT_MAX - 1);
        assert!(long.starts_with(&cut));
    }
}
