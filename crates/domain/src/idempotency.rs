//! Idempotency keys (SPEC §15): a client's `Idempotency-Key` on a `POST`, what identifies the
//! request it was first used with, and what a later request with the same key gets.

use sha2::{Digest, Sha256};
use std::time::Duration;

pub const KEY_MAX: usize = 255;
/// Keys are kept at least this long; the scheduler forgets older ones.
pub const RETENTION: Duration = Duration::from_secs(24 * 3600);

/// 1 to 255 printable ASCII characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdempotencyKey(String);

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("must be 1 to 255 printable ASCII characters")]
pub struct InvalidIdempotencyKey;

impl IdempotencyKey {
    pub fn parse(raw: &[u8]) -> Result<IdempotencyKey, InvalidIdempotencyKey> {
        let printable = raw.iter().all(|b| (0x20..=0x7e).contains(b));
        if raw.is_empty() || raw.len() > KEY_MAX || !printable {
            return Err(InvalidIdempotencyKey);
        }
        String::from_utf8(raw.to_vec())
            .map(IdempotencyKey)
            .map_err(|_| InvalidIdempotencyKey)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What makes two requests "the same": method, path with query, and the body's SHA-256.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestFingerprint {
    pub method: String,
    pub path: String,
    pub body_sha256: String,
}

impl RequestFingerprint {
    pub fn new(method: &str, path: &str, body: &[u8]) -> RequestFingerprint {
        let digest = Sha256::digest(body);
        RequestFingerprint {
            method: method.to_string(),
            path: path.to_string(),
            body_sha256: hex::encode(digest),
        }
    }
}

/// The first request's answer, replayed for its retries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredResponse {
    pub status: u16,
    pub body: String,
}

impl StoredResponse {
    /// Which answers are kept: those of requests that ran (success, a missing resource, a refused
    /// change). Rejections before any effect (400, 401, 403, 413, 415, 422, 429) and failures
    /// whose outcome is unknown (5xx) keep nothing, so the client may simply retry.
    pub fn is_kept(status: u16) -> bool {
        (200..300).contains(&status) || status == 404 || status == 409
    }
}

/// What a request carrying a key may do. `R` is what running it needs (storage hands out the
/// transaction the request runs in).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdempotencyClaim<R> {
    /// No request with this key has finished, and none is running: run this one.
    Run(R),
    /// The first request finished: answer what it answered.
    Replay(StoredResponse),
    /// The first request is still running.
    InUse,
    /// The key was first used with another method, path or body.
    Reused,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_printable_ascii_up_to_255() {
        assert!(IdempotencyKey::parse(b"order-42/attempt 1").is_ok());
        assert!(IdempotencyKey::parse(&[b'k'; 255]).is_ok());
        for bad in [
            &b""[..],
            &[b'k'; 256][..],
            b"tab\there",
            b"nul\0",
            "café".as_bytes(),
        ] {
            assert!(IdempotencyKey::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn fingerprints_tell_requests_apart() {
        let a = RequestFingerprint::new("POST", "/api/v1/invoices", b"{\"a\":1}");
        assert_eq!(
            a,
            RequestFingerprint::new("POST", "/api/v1/invoices", b"{\"a\":1}")
        );
        assert_ne!(
            a,
            RequestFingerprint::new("POST", "/api/v1/invoices", b"{\"a\":2}")
        );
        assert_ne!(
            a,
            RequestFingerprint::new("POST", "/api/v1/quotations", b"{\"a\":1}")
        );
        assert_eq!(a.body_sha256.len(), 64);
    }

    #[test]
    fn only_answers_of_requests_that_ran_are_kept() {
        for kept in [200, 201, 202, 204, 404, 409] {
            assert!(StoredResponse::is_kept(kept), "{kept}");
        }
        for not in [400, 401, 403, 405, 413, 415, 422, 429, 500, 503] {
            assert!(!StoredResponse::is_kept(not), "{not}");
        }
    }
}
