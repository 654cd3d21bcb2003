//! Tenancy: every resource belongs to one account and one environment. Repositories take a
//! [`Scope`] by value, so a tenant query cannot be written without naming its tenant.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Database id of an account (a tenant).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct AccountId(pub i64);

impl fmt::Display for AccountId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The two environments a key (and everything it creates) lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Environment {
    Test,
    Live,
}

impl Environment {
    pub fn is_live(self) -> bool {
        matches!(self, Environment::Live)
    }

    pub fn from_livemode(livemode: bool) -> Self {
        if livemode {
            Environment::Live
        } else {
            Environment::Test
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Environment::Test => "test",
            Environment::Live => "live",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "test" => Some(Environment::Test),
            "live" => Some(Environment::Live),
            _ => None,
        }
    }
}

impl fmt::Display for Environment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The tenant a request acts for: only obtainable from an authenticated key (or a CLI operator),
/// and required by every tenant repository method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scope {
    pub account_id: AccountId,
    pub environment: Environment,
}

impl Scope {
    pub fn new(account_id: AccountId, environment: Environment) -> Self {
        Scope {
            account_id,
            environment,
        }
    }

    pub fn livemode(self) -> bool {
        self.environment.is_live()
    }
}
