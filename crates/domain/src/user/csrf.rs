//! The dashboard's per-session CSRF token (SPEC §21): an HMAC-SHA256 of a fixed label keyed by the
//! session's secret cookie token. Nothing is stored: whoever holds the session can derive it, a
//! page from another origin cannot read it, and it changes with every new session.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

const LABEL: &[u8] = b"invoicing dashboard csrf v1";

fn mac(session_token: &str) -> Hmac<Sha256> {
    // HMAC takes a key of any length, so this cannot fail.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(session_token.as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC accepts keys of every length"));
    mac.update(LABEL);
    mac
}

/// The token the session's forms carry in their `csrf` field.
pub fn csrf_token(session_token: &str) -> String {
    URL_SAFE_NO_PAD.encode(mac(session_token).finalize().into_bytes())
}

/// Whether a posted `csrf` field is the session's token, compared in constant time.
pub fn csrf_matches(session_token: &str, posted: &str) -> bool {
    match URL_SAFE_NO_PAD.decode(posted) {
        Ok(tag) => mac(session_token).verify_slice(&tag).is_ok(),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_accepts_its_own_token_only() {
        let (a, b) = ("session-token-a", "session-token-b");
        let token = csrf_token(a);
        assert_eq!(token.len(), 43);
        assert!(csrf_matches(a, &token));
        assert!(!csrf_matches(b, &token));
        assert!(!csrf_matches(a, ""));
        assert!(!csrf_matches(a, &token[1..]));
        assert!(!csrf_matches(a, "not base64 !"));
        assert_ne!(token, csrf_token(b));
    }
}
