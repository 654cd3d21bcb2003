//! The optional second factor of a sign-in (SPEC §21): a time-based one-time password (RFC 6238:
//! SHA-1, 6 digits, 30-second steps, through `totp-rs`) and ten single-use recovery codes. A code
//! is accepted for its step and the one either side (clocks drift), and only for a step later
//! than the last one used, so a code seen once cannot be used again. Recovery codes are 50 random
//! bits each, kept only as their SHA-256.

use chrono::{DateTime, Utc};
use rand::{CryptoRng, RngCore};
use totp_rs::{Algorithm, Secret, TOTP};

const DIGITS: usize = 6;
const STEP_SECS: u64 = 30;
/// RFC 4226 recommends 160 bits.
const SECRET_BYTES: usize = 20;
/// How many recovery codes a user gets at a time.
pub const RECOVERY_CODES: usize = 10;
/// Lower-case base32 without look-alikes is easy to read out and type: 10 characters.
const RECOVERY_ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";
const RECOVERY_CHARS: usize = 10;

/// A TOTP secret in base32, as authenticator apps take it. Not `Debug`: it is a credential.
#[derive(Clone, PartialEq, Eq)]
pub struct TotpSecret(String);

impl TotpSecret {
    pub fn generate<R: RngCore + CryptoRng>(rng: &mut R) -> TotpSecret {
        let mut bytes = [0u8; SECRET_BYTES];
        rng.fill_bytes(&mut bytes);
        TotpSecret(Secret::Raw(bytes.to_vec()).to_encoded().to_string())
    }

    /// A secret as stored or as posted back by the set-up form; `None` unless it is base32 of
    /// the right length.
    pub fn parse(text: &str) -> Option<TotpSecret> {
        let bytes = Secret::Encoded(text.trim().to_string()).to_bytes().ok()?;
        (bytes.len() == SECRET_BYTES).then(|| TotpSecret(text.trim().to_string()))
    }

    pub fn base32(&self) -> &str {
        &self.0
    }

    fn totp(&self, issuer: &str, account: &str) -> Option<TOTP> {
        let bytes = Secret::Encoded(self.0.clone()).to_bytes().ok()?;
        // `:` separates the issuer from the account in the label; neither may hold one.
        TOTP::new(
            Algorithm::SHA1,
            DIGITS,
            0,
            STEP_SECS,
            bytes,
            Some(issuer.replace(':', " ")),
            account.replace(':', " "),
        )
        .ok()
    }

    /// The `otpauth://` URL an authenticator app scans.
    pub fn otpauth_url(&self, issuer: &str, account: &str) -> String {
        self.totp(issuer, account)
            .map(|t| t.get_url())
            .unwrap_or_default()
    }

    /// The step `code` belongs to, if it is this secret's code at `now` (or one step either
    /// side) and later than `last_used`. Whatever else `code` holds is refused.
    pub fn accepts(&self, code: &str, now: DateTime<Utc>, last_used: Option<i64>) -> Option<i64> {
        let code: String = code.chars().filter(|c| !c.is_whitespace()).collect();
        if code.len() != DIGITS || !code.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let totp = self.totp("x", "x")?;
        let current = u64::try_from(now.timestamp()).ok()? / STEP_SECS;
        [current.saturating_sub(1), current, current + 1]
            .into_iter()
            .filter(|step| last_used.is_none_or(|last| i64::try_from(*step).unwrap_or(0) > last))
            .find(|step| totp.check(&code, step * STEP_SECS))
            .and_then(|step| i64::try_from(step).ok())
    }

    /// The code of `now`'s step (for tests and the set-up page's check).
    pub fn code_at(&self, now: DateTime<Utc>) -> String {
        let secs = u64::try_from(now.timestamp()).unwrap_or(0);
        self.totp("x", "x")
            .map(|t| t.generate(secs))
            .unwrap_or_default()
    }
}

/// Fresh recovery codes, shown once: `xxxxx-xxxxx`.
pub fn recovery_codes<R: RngCore + CryptoRng>(rng: &mut R) -> Vec<String> {
    (0..RECOVERY_CODES)
        .map(|_| {
            let chars: String = (0..RECOVERY_CHARS)
                .map(|_| {
                    let i = (rng.next_u32() as usize) % RECOVERY_ALPHABET.len();
                    char::from(RECOVERY_ALPHABET[i])
                })
                .collect();
            format!("{}-{}", &chars[..5], &chars[5..])
        })
        .collect()
}

/// What storage keeps of a recovery code: the SHA-256 of its characters, lower-cased, without
/// the dash or spaces (as people retype them).
pub fn hash_recovery_code(code: &str) -> String {
    let canonical: String = code
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    crate::api_key::hash_key(&canonical)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;
    use rand::rngs::OsRng;

    #[test]
    fn the_rfc_6238_test_vector() {
        // RFC 6238 appendix B, SHA-1: secret "12345678901234567890", T = 59 → 94287082 (8
        // digits); its last six digits are the 6-digit code.
        let secret = TotpSecret(
            Secret::Raw(b"12345678901234567890".to_vec())
                .to_encoded()
                .to_string(),
        );
        let at = DateTime::from_timestamp(59, 0).unwrap();
        assert_eq!(secret.code_at(at), "287082");
        assert_eq!(secret.accepts("287082", at, None), Some(1));
        assert_eq!(secret.accepts(" 287 082 ", at, None), Some(1));
    }

    #[test]
    fn a_code_works_one_step_either_side_and_never_twice() {
        let secret = TotpSecret::generate(&mut OsRng);
        assert!(TotpSecret::parse(secret.base32()).is_some());
        let now = Utc::now();
        let code = secret.code_at(now);
        let step = secret.accepts(&code, now, None).expect("the current code");
        assert_eq!(secret.accepts(&code, now, Some(step)), None, "used once");
        let late = now + Duration::seconds(30);
        assert!(secret.accepts(&code, late, None).is_some(), "a step late");
        let too_late = now + Duration::seconds(95);
        assert_eq!(secret.accepts(&code, too_late, None), None, "expired");
        let wrong = if code == "000000" { "000001" } else { "000000" };
        assert_eq!(secret.accepts(wrong, now, None), None);
        assert_eq!(secret.accepts("12345", now, None), None);
        assert_eq!(secret.accepts("abcdef", now, None), None);
        let url = secret.otpauth_url("Acme: Ltd", "ada@example.com");
        assert!(url.starts_with("otpauth://totp/"), "{url}");
        assert!(
            url.contains(&format!("secret={}", secret.base32())),
            "{url}"
        );
    }

    #[test]
    fn recovery_codes_are_ten_distinct_and_hashed_as_typed() {
        let codes = recovery_codes(&mut OsRng);
        assert_eq!(codes.len(), 10);
        let mut unique = codes.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 10);
        assert!(codes
            .iter()
            .all(|c| c.len() == 11 && c.as_bytes()[5] == b'-'));
        let c = &codes[0];
        assert_eq!(
            hash_recovery_code(c),
            hash_recovery_code(&c.to_uppercase().replace('-', " "))
        );
        assert_ne!(hash_recovery_code(c), hash_recovery_code(&codes[1]));
    }
}
