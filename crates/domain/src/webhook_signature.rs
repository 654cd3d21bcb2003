//! Standard Webhooks signing (SPEC §11): secrets, and the `v1,` HMAC-SHA256 signature over
//! `{id}.{timestamp}.{body}`. Receivers written in Rust can verify with the same code.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;
use std::fmt;

const PREFIX: &str = "whsec_";

/// A signing secret, `whsec_` + base64 of 32 random bytes. Its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSecret(String);

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a webhook secret is whsec_ followed by base64")]
pub struct InvalidSecret;

impl WebhookSecret {
    pub fn generate(rng: &mut impl RngCore) -> WebhookSecret {
        let mut bytes = [0u8; 32];
        rng.fill_bytes(&mut bytes);
        WebhookSecret(format!("{PREFIX}{}", STANDARD.encode(bytes)))
    }

    /// A stored or received secret; checked so that signing cannot fail later.
    pub fn parse(text: &str) -> Result<WebhookSecret, InvalidSecret> {
        let secret = WebhookSecret(text.to_string());
        secret.key().map(|_| secret)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    fn key(&self) -> Result<Vec<u8>, InvalidSecret> {
        let encoded = self.0.strip_prefix(PREFIX).ok_or(InvalidSecret)?;
        match STANDARD.decode(encoded) {
            Ok(key) if !key.is_empty() => Ok(key),
            _ => Err(InvalidSecret),
        }
    }

    fn mac(&self, msg_id: &str, timestamp: i64, body: &[u8]) -> Hmac<Sha256> {
        // `parse` and `generate` guarantee a decodable key; HMAC takes keys of any length.
        let key = self.key().unwrap_or_default();
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&key)
            .unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
        mac.update(msg_id.as_bytes());
        mac.update(b".");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        mac
    }

    /// The `webhook-signature` header value.
    pub fn sign(&self, msg_id: &str, timestamp: i64, body: &[u8]) -> String {
        let tag = self.mac(msg_id, timestamp, body).finalize().into_bytes();
        format!("v1,{}", STANDARD.encode(tag))
    }

    /// Whether any `v1,` signature in a (space-separated) header value matches, in constant time.
    pub fn verify(&self, msg_id: &str, timestamp: i64, body: &[u8], header: &str) -> bool {
        header.split(' ').any(|candidate| {
            let Some(encoded) = candidate.strip_prefix("v1,") else {
                return false;
            };
            let Ok(tag) = STANDARD.decode(encoded) else {
                return false;
            };
            self.mac(msg_id, timestamp, body).verify_slice(&tag).is_ok()
        })
    }
}

impl fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WebhookSecret(whsec_…)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_webhooks_test_vector() {
        let secret = WebhookSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let body = br#"{"test": 2432232314}"#;
        let signature = secret.sign("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body);
        assert_eq!(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        assert!(secret.verify("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body, &signature));
        assert!(secret.verify(
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            body,
            &format!("v1,bm9wZQ== {signature}")
        ));
        assert!(!secret.verify("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265331, body, &signature));
        assert!(!secret.verify("msg_other", 1614265330, body, &signature));
        assert!(!secret.verify(
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            b"{}",
            &signature
        ));
    }

    #[test]
    fn generated_secrets_are_32_random_bytes() {
        let a = WebhookSecret::generate(&mut rand::rngs::OsRng);
        let b = WebhookSecret::generate(&mut rand::rngs::OsRng);
        assert_ne!(a, b);
        assert!(a.as_str().starts_with("whsec_"));
        assert_eq!(a.key().unwrap().len(), 32);
        assert_eq!(WebhookSecret::parse(a.as_str()).unwrap(), a);
        for bad in [
            "",
            "whsec_",
            "whsec_!!",
            "sk_test_abc",
            "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        ] {
            assert!(WebhookSecret::parse(bad).is_err(), "{bad}");
        }
        assert!(!format!("{a:?}").contains(&a.as_str()[6..]));
    }
}
