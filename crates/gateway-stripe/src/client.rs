//! The HTTP side: one blocking request to Stripe's API with the merchant's key, its answer
//! sorted into the port's errors. The secret key goes into the `Authorization` header and
//! nowhere else: every message that leaves here has it masked, whatever echoed it.

use crate::form::Form;
use crate::objects::stripe_error;
use invoicing_domain::gateway::{GatewayError, GatewayKeys};
use serde_json::Value;
use std::time::Duration;
use ureq::http::Response;
use ureq::Body;

/// Stripe's API version, sent with every request: without it the merchant's account default
/// decides the shape of every answer, and Stripe changes shapes between versions (2022-08-01
/// stopped creating a Checkout Session's PaymentIntent up front; 2022-11-15 dropped a Charge's
/// `refunds`). Pinned, the responses this adapter reads are the ones its tests read. Webhook
/// events are rendered in the *endpoint's* version instead, so they are read by fields stable
/// across versions. Move it only with the tests and a read of Stripe's changelog.
pub const STRIPE_VERSION: &str = "2024-06-20";

/// Sent as `User-Agent` on every request.
pub const USER_AGENT: &str = concat!(
    "invoicing-gateway-stripe/",
    env!("CARGO_PKG_VERSION"),
    " (invoicing service)"
);

/// The most of a response body read (Stripe's objects are a few kilobytes).
const BODY_LIMIT: u64 = 1 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Method {
    Get,
    Post,
}

impl Method {
    fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

#[derive(Debug)]
pub(crate) struct Client {
    /// Scheme, host and any path prefix, without a trailing slash.
    base: String,
    agent: ureq::Agent,
    timeout: Duration,
}

/// Masks `secret` wherever it appears in `text` (a stand-in or proxy might echo it).
pub(crate) fn redact(text: String, secret: &str) -> String {
    if secret.is_empty() || !text.contains(secret) {
        return text;
    }
    let last4: String = {
        let chars: Vec<char> = secret.chars().collect();
        chars[chars.len().saturating_sub(4)..].iter().collect()
    };
    text.replace(secret, &format!("…{last4}"))
}

/// Printable ASCII without spaces: what a header value can carry unchanged.
fn header_safe(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_graphic())
}

impl Client {
    pub(crate) fn new(base: String, timeout: Duration, loopback: bool) -> Client {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            // Statuses are sorted here, with Stripe's error body read.
            .http_status_as_error(false)
            // Stripe's API does not redirect: one would be a misconfiguration, and following it
            // would carry the key elsewhere.
            .max_redirects(0)
            .max_redirects_will_error(false)
            .https_only(!loopback)
            // A local stand-in is reached directly, whatever proxy the environment names.
            .proxy(if loopback {
                None
            } else {
                ureq::Proxy::try_from_env()
            })
            .user_agent(USER_AGENT)
            .build();
        Client {
            base,
            agent: config.into(),
            timeout,
        }
    }

    pub(crate) fn base(&self) -> &str {
        &self.base
    }

    /// One request: `form` and `idempotency_key` with POST only.
    pub(crate) fn call(
        &self,
        keys: &GatewayKeys,
        method: Method,
        path: &str,
        form: Option<&Form>,
        idempotency_key: Option<&str>,
    ) -> Result<Value, GatewayError> {
        let secret = keys.secret_key.expose();
        if !header_safe(secret) {
            return Err(GatewayError::Unauthorized(
                "the secret key is empty or holds characters a header cannot carry".into(),
            ));
        }
        let url = format!("{}{path}", self.base);
        let authorization = format!("Bearer {secret}");
        let result = match method {
            Method::Get => self
                .agent
                .get(&url)
                .header("Authorization", &authorization)
                .header("Stripe-Version", STRIPE_VERSION)
                .call(),
            Method::Post => {
                let key = idempotency_key.unwrap_or_default();
                if !header_safe(key) || key.len() > 255 {
                    return Err(GatewayError::Refused {
                        param: Some("idempotency_key".into()),
                        message: "must be 1 to 255 printable ASCII characters".into(),
                    });
                }
                let body = form.map(Form::encode).unwrap_or_default();
                self.agent
                    .post(&url)
                    .header("Authorization", &authorization)
                    .header("Stripe-Version", STRIPE_VERSION)
                    .header("Idempotency-Key", key)
                    .content_type("application/x-www-form-urlencoded")
                    .send(body)
            }
        };
        let (status, request_id, outcome) = match result {
            Ok(response) => self.answer(response),
            Err(e) => (None, String::new(), Err(self.failure(&e))),
        };
        // Whatever came back is masked before it goes anywhere, the log included.
        let outcome = outcome.map_err(|e| redact_error(e, secret));
        let method = method.as_str();
        match (&outcome, status) {
            (Ok(_), Some(status)) => {
                log::debug!("stripe: {method} {path} -> {status} ({request_id})")
            }
            (Err(e), Some(status)) => {
                log::warn!("stripe: {method} {path} -> {status} ({request_id}): {e}")
            }
            (Err(e), None) => log::warn!("stripe: {method} {path}: {e}"),
            (Ok(_), None) => {}
        }
        outcome
    }

    /// A response, read: its status and Stripe's request id (for the log), and what it means.
    fn answer(
        &self,
        mut response: Response<Body>,
    ) -> (Option<u16>, String, Result<Value, GatewayError>) {
        let status = response.status().as_u16();
        let request_id = response
            .headers()
            .get("request-id")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("no request id")
            .to_string();
        let outcome = match response
            .body_mut()
            .with_config()
            .limit(BODY_LIMIT)
            .read_to_vec()
        {
            Ok(body) => classify(status, &body),
            Err(e) => Err(self.failure(&e)),
        };
        (Some(status), request_id, outcome)
    }

    /// A request that got no (whole) answer.
    fn failure(&self, e: &ureq::Error) -> GatewayError {
        match e {
            ureq::Error::Timeout(_) => GatewayError::Unreachable(format!(
                "no answer within {} ms",
                self.timeout.as_millis()
            )),
            ureq::Error::BodyExceedsLimit(_) => {
                GatewayError::Malformed(format!("a response longer than {BODY_LIMIT} bytes"))
            }
            other => GatewayError::Unreachable(other.to_string()),
        }
    }
}

fn redact_error(e: GatewayError, secret: &str) -> GatewayError {
    match e {
        GatewayError::Unreachable(m) => GatewayError::Unreachable(redact(m, secret)),
        GatewayError::Unauthorized(m) => GatewayError::Unauthorized(redact(m, secret)),
        GatewayError::Refused { param, message } => GatewayError::Refused {
            param: param.map(|p| redact(p, secret)),
            message: redact(message, secret),
        },
        GatewayError::Malformed(m) => GatewayError::Malformed(redact(m, secret)),
        e @ GatewayError::BadSignature(_) => e,
    }
}

/// What a status and body mean:
/// - 2xx: the JSON object asked for;
/// - 401, 403: the key was refused (or lacks a permission, for a restricted key);
/// - 409 (a concurrent request with the same idempotency key, or a lock timeout), 429 (rate
///   limited) and 5xx: try again later, `Unreachable`;
/// - any other 4xx with Stripe's error body: `Refused`, with its `param` and `message`;
/// - anything else (a redirect, an error page that is not Stripe's): `Malformed`.
pub(crate) fn classify(status: u16, body: &[u8]) -> Result<Value, GatewayError> {
    let error = || stripe_error(body);
    let message = |fallback: String| {
        error()
            .and_then(|e| e.message.or(e.code).or(e.kind))
            .unwrap_or(fallback)
    };
    match status {
        200..=299 => match serde_json::from_slice::<Value>(body) {
            Ok(value) if value.is_object() => Ok(value),
            Ok(_) => Err(GatewayError::Malformed(
                "the response is not a JSON object".into(),
            )),
            Err(e) => Err(GatewayError::Malformed(format!(
                "the response is not JSON: {e}"
            ))),
        },
        401 | 403 => Err(GatewayError::Unauthorized(message(format!(
            "HTTP {status}"
        )))),
        409 | 429 | 500..=599 => Err(GatewayError::Unreachable(format!(
            "HTTP {status}: {}",
            message("no details".into())
        ))),
        400..=499 => match error() {
            Some(e) => Err(GatewayError::Refused {
                message: e
                    .message
                    .or(e.code)
                    .or(e.kind)
                    .unwrap_or_else(|| format!("HTTP {status}")),
                param: e.param,
            }),
            None => Err(GatewayError::Malformed(format!(
                "HTTP {status} without Stripe's error body"
            ))),
        },
        _ => Err(GatewayError::Malformed(format!("unexpected HTTP {status}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ERROR: &[u8] = br#"{"error":{"type":"invalid_request_error","code":"parameter_missing","message":"Missing required param: line_items[0][price_data][currency].","param":"line_items[0][price_data][currency]"}}"#;

    #[test]
    fn success_is_a_json_object() {
        assert_eq!(
            classify(200, br#"{"object":"balance"}"#).unwrap()["object"],
            "balance"
        );
        assert!(matches!(
            classify(200, b"[1]"),
            Err(GatewayError::Malformed(_))
        ));
        assert!(matches!(
            classify(200, b"<html>"),
            Err(GatewayError::Malformed(_))
        ));
        assert!(matches!(
            classify(200, b""),
            Err(GatewayError::Malformed(_))
        ));
    }

    #[test]
    fn stripes_error_shape_is_a_refusal_with_its_param() {
        for status in [400, 402, 404] {
            assert_eq!(
                classify(status, ERROR),
                Err(GatewayError::Refused {
                    param: Some("line_items[0][price_data][currency]".into()),
                    message: "Missing required param: line_items[0][price_data][currency].".into(),
                })
            );
        }
        let card = br#"{"error":{"type":"card_error","code":"card_declined","message":"Your card was declined."}}"#;
        assert_eq!(
            classify(402, card),
            Err(GatewayError::Refused {
                param: None,
                message: "Your card was declined.".into()
            })
        );
        let bare = br#"{"error":{"type":"invalid_request_error","code":"resource_missing"}}"#;
        assert_eq!(
            classify(404, bare),
            Err(GatewayError::Refused {
                param: None,
                message: "resource_missing".into()
            })
        );
        // Not Stripe's body: something else answered.
        assert!(matches!(
            classify(404, b"<html>Not Found</html>"),
            Err(GatewayError::Malformed(_))
        ));
    }

    #[test]
    fn keys_refused() {
        let body = br#"{"error":{"type":"invalid_request_error","message":"Invalid API Key provided: sk_test_****1234"}}"#;
        assert_eq!(
            classify(401, body),
            Err(GatewayError::Unauthorized(
                "Invalid API Key provided: sk_test_****1234".into()
            ))
        );
        assert_eq!(
            classify(403, b""),
            Err(GatewayError::Unauthorized("HTTP 403".into()))
        );
    }

    #[test]
    fn retryable_statuses_are_unreachable() {
        for status in [409, 429, 500, 502, 503, 504] {
            assert!(
                matches!(classify(status, ERROR), Err(GatewayError::Unreachable(_))),
                "{status}"
            );
        }
        let rate = br#"{"error":{"type":"invalid_request_error","code":"rate_limit","message":"Too many requests"}}"#;
        assert_eq!(
            classify(429, rate),
            Err(GatewayError::Unreachable(
                "HTTP 429: Too many requests".into()
            ))
        );
        assert_eq!(
            classify(502, b"<html>"),
            Err(GatewayError::Unreachable("HTTP 502: no details".into()))
        );
    }

    #[test]
    fn redirects_and_oddities_are_malformed() {
        for status in [100, 301, 302, 304, 600] {
            assert!(
                matches!(classify(status, b""), Err(GatewayError::Malformed(_))),
                "{status}"
            );
        }
    }

    #[test]
    fn the_secret_is_masked_wherever_it_appears() {
        let secret = "sk_test_51Habcdefghijkl1234";
        assert_eq!(
            redact(format!("bad key {secret}, really {secret}"), secret),
            "bad key …1234, really …1234"
        );
        assert_eq!(redact("nothing here".into(), secret), "nothing here");
        assert_eq!(redact("x".into(), ""), "x");
    }
}
