//! Secrets kept for tenants (their gateway keys, SPEC §25) are sealed before they reach a table:
//! XChaCha20-Poly1305 under the server's `SECRETS_KEY`, with the row they belong to as associated
//! data, so a sealed value copied into another account's row does not open. Several keys may be
//! given (the first seals, every one opens), which is how a fleet rotates: deploy "new,old",
//! reseal, then drop the old one (docs/DEPLOYMENT.md).

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng, Payload};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};
use sha2::{Digest, Sha256};
use std::fmt;

const VERSION: &str = "v1";
const NONCE_LEN: usize = 24;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SecretsError {
    #[error("SECRETS_KEY must be one or more base64 keys of 32 bytes, comma-separated")]
    BadKey,
    #[error("a sealed secret was made with a key SECRETS_KEY no longer holds")]
    UnknownKey,
    #[error("a sealed secret does not open (damaged, or moved from another row)")]
    DoesNotOpen,
}

/// The keys that seal and open tenants' secrets.
#[derive(Clone)]
pub struct SecretsKey {
    /// (id, cipher): the id is the start of the key's SHA-256, written beside each sealed value
    /// so the right key opens it.
    keys: Vec<(String, XChaCha20Poly1305)>,
}

impl fmt::Debug for SecretsKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ids: Vec<&str> = self.keys.iter().map(|(id, _)| id.as_str()).collect();
        write!(f, "SecretsKey({ids:?})")
    }
}

impl SecretsKey {
    /// A new key's text, for `SECRETS_KEY` or the file a single server keeps it in.
    pub fn generate() -> String {
        B64.encode(XChaCha20Poly1305::generate_key(&mut OsRng))
    }

    /// `SECRETS_KEY`'s text: base64 keys of 32 bytes, comma-separated; the first seals.
    pub fn parse(text: &str) -> Result<SecretsKey, SecretsError> {
        let keys = text
            .split(',')
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .map(|k| {
                let bytes = B64.decode(k).map_err(|_| SecretsError::BadKey)?;
                if bytes.len() != 32 {
                    return Err(SecretsError::BadKey);
                }
                let id = hex::encode(&Sha256::digest(&bytes)[..4]);
                Ok((id, XChaCha20Poly1305::new(Key::from_slice(&bytes))))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if keys.is_empty() {
            return Err(SecretsError::BadKey);
        }
        Ok(SecretsKey { keys })
    }

    /// A key of this process only (tests, and a store nobody gave a key to: what it seals
    /// does not open after a restart).
    pub fn ephemeral() -> SecretsKey {
        // A freshly generated key always parses.
        SecretsKey::parse(&SecretsKey::generate()).unwrap_or_else(|_| unreachable!())
    }

    /// `v1.<key id>.<base64 of nonce and ciphertext>`, bound to `context` (the row).
    pub fn seal(&self, plaintext: &str, context: &str) -> String {
        let (id, cipher) = &self.keys[0];
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let payload = Payload {
            msg: plaintext.as_bytes(),
            aad: context.as_bytes(),
        };
        // Encryption fails only for messages past 256 GiB.
        let sealed = cipher.encrypt(&nonce, payload).unwrap_or_default();
        let mut bytes = nonce.to_vec();
        bytes.extend_from_slice(&sealed);
        format!("{VERSION}.{id}.{}", B64.encode(bytes))
    }

    pub fn open(&self, sealed: &str, context: &str) -> Result<String, SecretsError> {
        let mut parts = sealed.splitn(3, '.');
        let (Some(VERSION), Some(id), Some(body)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(SecretsError::DoesNotOpen);
        };
        let (_, cipher) = self
            .keys
            .iter()
            .find(|(k, _)| k == id)
            .ok_or(SecretsError::UnknownKey)?;
        let bytes = B64.decode(body).map_err(|_| SecretsError::DoesNotOpen)?;
        if bytes.len() < NONCE_LEN {
            return Err(SecretsError::DoesNotOpen);
        }
        let (nonce, ciphertext) = bytes.split_at(NONCE_LEN);
        let payload = Payload {
            msg: ciphertext,
            aad: context.as_bytes(),
        };
        let plain = cipher
            .decrypt(XNonce::from_slice(nonce), payload)
            .map_err(|_| SecretsError::DoesNotOpen)?;
        String::from_utf8(plain).map_err(|_| SecretsError::DoesNotOpen)
    }

    /// Whether `sealed` was made with a key other than the one that seals now.
    pub fn is_stale(&self, sealed: &str) -> bool {
        sealed.split('.').nth(1) != Some(self.keys[0].0.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_secrets_open_only_with_their_key_and_row() {
        let key = SecretsKey::ephemeral();
        let sealed = key.seal("sk_test_secret", "1:test:stripe:secret_key");
        assert!(!sealed.contains("sk_test_secret"));
        assert_eq!(
            key.open(&sealed, "1:test:stripe:secret_key").unwrap(),
            "sk_test_secret"
        );
        assert_eq!(
            key.open(&sealed, "2:test:stripe:secret_key"),
            Err(SecretsError::DoesNotOpen),
            "moved to another account's row"
        );
        assert_eq!(
            SecretsKey::ephemeral().open(&sealed, "1:test:stripe:secret_key"),
            Err(SecretsError::UnknownKey)
        );
        let mut damaged = sealed.clone();
        damaged.pop();
        damaged.push(if sealed.ends_with('A') { 'B' } else { 'A' });
        assert!(key.open(&damaged, "1:test:stripe:secret_key").is_err());
        assert_ne!(
            sealed,
            key.seal("sk_test_secret", "1:test:stripe:secret_key")
        );
    }

    #[test]
    fn rotation_opens_with_every_key_and_seals_with_the_first() {
        let (old, new) = (SecretsKey::generate(), SecretsKey::generate());
        let before = SecretsKey::parse(&old).unwrap();
        let sealed = before.seal("whsec_x", "ctx");
        let both = SecretsKey::parse(&format!("{new}, {old}")).unwrap();
        assert_eq!(both.open(&sealed, "ctx").unwrap(), "whsec_x");
        assert!(both.is_stale(&sealed));
        let resealed = both.seal("whsec_x", "ctx");
        assert!(!both.is_stale(&resealed));
        assert_eq!(
            SecretsKey::parse(&new)
                .unwrap()
                .open(&resealed, "ctx")
                .unwrap(),
            "whsec_x"
        );
    }

    #[test]
    fn keys_must_be_32_bytes_of_base64() {
        for bad in ["", " , ", "not base64!", "AAAA", &B64.encode([0u8; 31])] {
            assert_eq!(
                SecretsKey::parse(bad).unwrap_err(),
                SecretsError::BadKey,
                "{bad}"
            );
        }
        assert!(format!("{:?}", SecretsKey::ephemeral()).starts_with("SecretsKey(["));
    }
}
