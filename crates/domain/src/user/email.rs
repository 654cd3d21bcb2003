//! A user's email: the address rules customers' emails follow ([`crate::customer`]), trimmed, with
//! the domain in lower case (domains are case-insensitive; the local part keeps its spelling).

use crate::customer::parse_email_address;
use crate::validation::Problem;
use serde::Serialize;
use std::fmt;

/// A valid, trimmed address with a lower-case domain. `localhost` is accepted as a domain for the
/// first-start `admin@localhost` (SPEC §21). Users are unique by [`UserEmail::normalized`], so
/// `Ada@example.com` and `ada@example.com` are one person signing in either way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct UserEmail(String);

impl UserEmail {
    pub fn parse(raw: &str) -> Result<UserEmail, Problem> {
        let s = parse_email_address(raw, true)?;
        // `parse_email_address` accepted it, so there is exactly one unquoted `@` before the domain.
        let (local, domain) = s.rsplit_once('@').ok_or(Problem::Email)?;
        Ok(UserEmail(format!("{local}@{}", domain.to_lowercase())))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The form uniqueness and sign-in compare: the whole address in lower case.
    pub fn normalized(&self) -> String {
        self.0.to_lowercase()
    }
}

impl fmt::Display for UserEmail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_and_lowercases_the_domain_only() {
        let e = UserEmail::parse("  Ada.Lovelace@Example.COM \n").unwrap();
        assert_eq!(e.as_str(), "Ada.Lovelace@example.com");
        assert_eq!(e.normalized(), "ada.lovelace@example.com");
        assert_eq!(e.to_string(), "Ada.Lovelace@example.com");
    }

    #[test]
    fn takes_localhost_but_not_other_undotted_domains() {
        assert_eq!(
            UserEmail::parse("admin@LOCALHOST").unwrap().as_str(),
            "admin@localhost"
        );
        assert!(UserEmail::parse("admin@intranet").is_err());
        assert!(crate::customer::Email::parse("admin@localhost").is_err());
    }

    #[test]
    fn refuses_what_customers_refuse() {
        for bad in [
            "",
            "  ",
            "ada",
            "ada@",
            "@example.com",
            "a b@example.com",
            "\"ada\"@example.com",
            "ada@[127.0.0.1]",
        ] {
            assert!(UserEmail::parse(bad).is_err(), "{bad:?} accepted");
        }
        assert_eq!(UserEmail::parse("").unwrap_err(), Problem::Required);
        let long = format!("{}@example.com", "a".repeat(250));
        assert_eq!(
            UserEmail::parse(&long).unwrap_err().to_string(),
            "must be at most 254 characters"
        );
    }
}
