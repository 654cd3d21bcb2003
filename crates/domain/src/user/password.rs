//! Passwords (SPEC §21): the policy a new password must meet, and Argon2id hashing (RustCrypto's
//! `argon2`) into a PHC string, the only form of a password that is ever stored.
//!
//! Hashing costs tens of milliseconds of CPU on purpose: callers on an async runtime run these
//! functions on a blocking thread. Both hashing and verifying apply Unicode NFKC first, so a
//! password typed with composed or decomposed accents (one keyboard or another) is the same
//! password, as NIST SP 800-63B asks.

use crate::validation::Violations;
use argon2::password_hash::{PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use rand::{CryptoRng, RngCore};
use std::collections::HashSet;
use std::fmt;
use std::sync::LazyLock;
use unicode_normalization::UnicodeNormalization;

/// Fewer characters are refused (characters, not bytes: `é` is one).
pub const PASSWORD_MIN_CHARS: usize = 12;
/// More characters are refused, with a message saying so (SPEC §21: up to at least 128).
pub const PASSWORD_MAX_CHARS: usize = 128;

/// Argon2id with OWASP's first recommended setting: 19 MiB of memory, two passes, one lane.
const MEMORY_KIB: u32 = 19_456;
const PASSES: u32 = 2;
const LANES: u32 = 1;

/// The shipped list of common passwords, lower case, one a line (see its header for its source).
const COMMON_LIST: &str = include_str!("../../data/common-passwords.txt");

static COMMON: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    COMMON_LIST
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
});

/// A new password that meets the policy. Deliberately not `Debug`, `Display` or `Serialize`: it
/// is hashed, never shown.
pub struct Password(String);

impl Password {
    /// A new password from the `password` field.
    pub fn parse(raw: &str) -> Result<Password, Violations> {
        Password::parse_field("password", raw)
    }

    /// A new password from the field `param` (a form may call it `new_password`). At least 12
    /// characters and at most 128, anything else goes (any script, spaces, emoji; no rules about
    /// kinds of characters), except NUL, which no text carries, and the shipped common
    /// passwords, compared case-insensitively.
    pub fn parse_field(param: &str, raw: &str) -> Result<Password, Violations> {
        match PasswordProblem::of(raw) {
            None => Ok(Password(raw.to_string())),
            Some(problem) => Err(Violations::single(param, problem.message())),
        }
    }
}

/// Why a new password is refused, for a form to say in its user's language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PasswordProblem {
    TooShort,
    TooLong,
    Nul,
    Common,
}

impl PasswordProblem {
    /// At least 12 characters and at most 128, anything else goes (any script, spaces, emoji; no
    /// rules about kinds of characters), except NUL, which no text carries, and the shipped
    /// common passwords, compared case-insensitively.
    pub fn of(raw: &str) -> Option<PasswordProblem> {
        let chars = raw.chars().count();
        if chars < PASSWORD_MIN_CHARS {
            Some(PasswordProblem::TooShort)
        } else if chars > PASSWORD_MAX_CHARS {
            Some(PasswordProblem::TooLong)
        } else if raw.contains('\0') {
            Some(PasswordProblem::Nul)
        } else if is_common(raw) {
            Some(PasswordProblem::Common)
        } else {
            None
        }
    }

    /// The API's (English) words.
    pub fn message(self) -> String {
        match self {
            PasswordProblem::TooShort => {
                format!("must be at least {PASSWORD_MIN_CHARS} characters")
            }
            PasswordProblem::TooLong => format!("must be at most {PASSWORD_MAX_CHARS} characters"),
            PasswordProblem::Nul => "must not contain NUL characters".into(),
            PasswordProblem::Common => "is one of the most common passwords: choose another".into(),
        }
    }
}

fn is_common(raw: &str) -> bool {
    COMMON.contains(raw.to_lowercase().as_str())
        || COMMON.contains(normalize(raw).to_lowercase().as_str())
}

fn normalize(raw: &str) -> String {
    raw.nfkc().collect()
}

/// A stored password: an Argon2id PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`).
#[derive(Clone, PartialEq, Eq)]
pub struct PasswordHash(String);

impl PasswordHash {
    /// A hash read back from storage; whether it parses is only known when it is verified.
    pub fn from_stored(phc: String) -> PasswordHash {
        PasswordHash(phc)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Only the parameters: even a hash is no business of a log line.
impl fmt::Debug for PasswordHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let params = self.0.split('$').take(4).collect::<Vec<_>>().join("$");
        write!(f, "PasswordHash({params}$…)")
    }
}

#[derive(Debug, thiserror::Error)]
#[error("password hashing failed: {0}")]
pub struct HashError(String);

fn hasher() -> Result<Argon2<'static>, HashError> {
    let params =
        Params::new(MEMORY_KIB, PASSES, LANES, None).map_err(|e| HashError(e.to_string()))?;
    Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

/// Hashes with a fresh 128-bit salt from `rng`. Callers pass the OS CSPRNG; the bound makes a
/// non-cryptographic generator a compile error.
pub fn hash_password<R: RngCore + CryptoRng>(
    password: &Password,
    rng: &mut R,
) -> Result<PasswordHash, HashError> {
    let salt = SaltString::generate(rng);
    hash_with_salt(&normalize(&password.0), &salt)
}

fn hash_with_salt(normalized: &str, salt: &SaltString) -> Result<PasswordHash, HashError> {
    hasher()?
        .hash_password(normalized.as_bytes(), salt)
        .map(|h| PasswordHash(h.to_string()))
        .map_err(|e| HashError(e.to_string()))
}

/// Whether `candidate` is the password `hash` was made from. The hash's own parameters are
/// used, so hashes made with other costs keep verifying. An unreadable hash verifies nothing.
pub fn verify_password(candidate: &str, hash: &PasswordHash) -> bool {
    // No stored password is longer; refusing early costs nothing a caller can time, because
    // `verify_password_or_dummy` still spends a verification on it.
    if candidate.chars().count() > PASSWORD_MAX_CHARS {
        return false;
    }
    let Ok(parsed) = argon2::password_hash::PasswordHash::new(&hash.0) else {
        return false;
    };
    Argon2::default()
        .verify_password(normalize(candidate).as_bytes(), &parsed)
        .is_ok()
}

/// A hash no password typed at sign-in matches in practice (a fixed salt over a fixed text), with
/// the same parameters as real ones, so verifying against it costs what a real check costs.
static DUMMY: LazyLock<Option<PasswordHash>> = LazyLock::new(|| {
    let salt = SaltString::from_b64("ZHVtbXlkdW1teWR1bW15").ok()?;
    hash_with_salt("no user has this password: it only spends time", &salt).ok()
});

/// [`verify_password`] for a sign-in: with no hash (an unknown email, or a user who never set a
/// password) it verifies against a dummy hash and answers `false`, so unknown emails take as
/// long as known ones. A candidate over the maximum length is checked against the dummy too.
pub fn verify_password_or_dummy(candidate: &str, hash: Option<&PasswordHash>) -> bool {
    match hash {
        Some(hash) if candidate.chars().count() <= PASSWORD_MAX_CHARS => {
            verify_password(candidate, hash)
        }
        _ => {
            if let Some(dummy) = DUMMY.as_ref() {
                let spent: String = candidate.chars().take(PASSWORD_MAX_CHARS).collect();
                let _ = verify_password(&spent, dummy);
            }
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::OsRng;

    fn refusal(raw: &str) -> String {
        match Password::parse(raw) {
            Ok(_) => String::from("accepted"),
            Err(v) => v.to_string(),
        }
    }

    #[test]
    fn length_counts_characters_not_bytes() {
        assert_eq!(
            refusal("short pass!"),
            "password must be at least 12 characters"
        );
        // Eleven characters, 33 bytes.
        assert_eq!(
            refusal("日本語のパスワードです"),
            "password must be at least 12 characters"
        );
        assert_eq!(refusal("日本語のパスワードですね"), "accepted");
        assert_eq!(refusal(&"é".repeat(128)), "accepted");
        assert_eq!(
            refusal(&"é".repeat(129)),
            "password must be at most 128 characters"
        );
    }

    #[test]
    fn anything_goes_but_nul_and_the_common_list() {
        for ok in [
            "correct horse battery staple",
            "             x",
            "🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑",
            "alllowercaseletters",
            "كلمة سر طويلة جدا",
        ] {
            assert_eq!(refusal(ok), "accepted", "{ok:?}");
        }
        assert_eq!(
            refusal("nul\0character!"),
            "password must not contain NUL characters"
        );
        for common in [
            "qwerty123456",
            "QWERTY123456",
            "1qaz2wsx3edc",
            "Administrator",
        ] {
            assert_eq!(
                refusal(common),
                "password is one of the most common passwords: choose another",
                "{common:?}"
            );
        }
        let v = Password::parse_field("new_password", "x").err().unwrap();
        assert_eq!(v.errors()[0].param, "new_password");
    }

    #[test]
    fn the_shipped_list_is_lower_case_and_long_enough_to_matter() {
        assert!(COMMON.len() > 300, "{}", COMMON.len());
        for p in COMMON.iter() {
            assert_eq!(*p, p.to_lowercase(), "{p:?} is not lower case");
            assert!(
                p.chars().count() >= PASSWORD_MIN_CHARS,
                "{p:?} is too short to matter"
            );
        }
    }

    #[test]
    fn hashes_are_argon2id_phc_strings_that_verify() {
        let password = Password::parse("correct horse battery staple").unwrap();
        let hash = hash_password(&password, &mut OsRng).unwrap();
        assert!(
            hash.as_str().starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{}",
            hash.as_str()
        );
        assert!(verify_password("correct horse battery staple", &hash));
        assert!(!verify_password("correct horse battery stapl", &hash));
        assert!(!verify_password("Correct horse battery staple", &hash));
        let again = hash_password(&password, &mut OsRng).unwrap();
        assert_ne!(hash, again, "every hash has its own salt");
        assert!(!verify_password(
            "x",
            &PasswordHash::from_stored("not a hash".into())
        ));
        assert!(!format!("{hash:?}").contains(&hash.as_str()[40..]));
    }

    #[test]
    fn composed_and_decomposed_accents_are_one_password() {
        let composed = "mot de passe très sûr";
        let decomposed = "mot de passe tre\u{300}s su\u{302}r";
        assert_ne!(composed, decomposed);
        let hash = hash_password(&Password::parse(composed).unwrap(), &mut OsRng).unwrap();
        assert!(verify_password(decomposed, &hash));
    }

    #[test]
    fn unknown_users_cost_a_verification_too() {
        let hash = hash_password(
            &Password::parse("correct horse battery staple").unwrap(),
            &mut OsRng,
        )
        .unwrap();
        assert!(verify_password_or_dummy(
            "correct horse battery staple",
            Some(&hash)
        ));
        assert!(!verify_password_or_dummy(
            "no user has this password: it only spends time",
            None
        ));
        // What a check costs is set by the hash's parameters: the dummy's are a real hash's, so
        // an unknown email costs what a known one does (timed in no test: timings flake on a
        // loaded machine; the parameters are what makes them equal).
        let parameters = |phc: &str| phc.rsplitn(3, '$').nth(2).map(str::to_string);
        let dummy = DUMMY.as_ref().expect("the dummy hash is made");
        assert_eq!(parameters(dummy.as_str()), parameters(hash.as_str()));
        assert!(hash.as_str().starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        // An over-long candidate is refused, through the dummy as well.
        assert!(!verify_password_or_dummy(&"x".repeat(10_000), Some(&hash)));
    }
}
