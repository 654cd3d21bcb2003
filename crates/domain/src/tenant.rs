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

/// Who caused a change (SPEC §21, "Audit"): recorded with every event the change writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "ActorObject", try_from = "ActorObject")]
pub enum Actor {
    /// A request authenticated with this API key (its id).
    ApiKey(i64),
    /// A dashboard user (their id).
    User(i64),
    /// The service itself: the scheduler's sweeps, recurring issuing, the workers, the CLI.
    System,
    /// A customer or prospect on a public page (viewing, reporting a payment, answering a
    /// quotation): known only by the document's link, so without an id.
    Customer,
}

/// What kind of actor caused an event: an API key, a dashboard user, the service itself, or a
/// customer on a public page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum ActorType {
    ApiKey,
    User,
    System,
    Customer,
}

impl ActorType {
    pub fn as_str(self) -> &'static str {
        match self {
            ActorType::ApiKey => "api_key",
            ActorType::User => "user",
            ActorType::System => "system",
            ActorType::Customer => "customer",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "api_key" => Some(ActorType::ApiKey),
            "user" => Some(ActorType::User),
            "system" => Some(ActorType::System),
            "customer" => Some(ActorType::Customer),
            _ => None,
        }
    }
}

impl Actor {
    pub fn kind(self) -> ActorType {
        match self {
            Actor::ApiKey(_) => ActorType::ApiKey,
            Actor::User(_) => ActorType::User,
            Actor::System => ActorType::System,
            Actor::Customer => ActorType::Customer,
        }
    }

    /// The key's or the user's id; `None` for the system and a customer.
    pub fn id(self) -> Option<i64> {
        match self {
            Actor::ApiKey(id) | Actor::User(id) => Some(id),
            Actor::System | Actor::Customer => None,
        }
    }

    /// The actor a kind and an id name, if they fit together (an id exactly for a key or a
    /// user).
    pub fn from_parts(kind: ActorType, id: Option<i64>) -> Option<Actor> {
        match (kind, id) {
            (ActorType::ApiKey, Some(id)) => Some(Actor::ApiKey(id)),
            (ActorType::User, Some(id)) => Some(Actor::User(id)),
            (ActorType::System, None) => Some(Actor::System),
            (ActorType::Customer, None) => Some(Actor::Customer),
            _ => None,
        }
    }
}

/// Who caused the event: an API key (`id` is the key's id), a dashboard user (`id` is the
/// user's id), the service itself (`system`: scheduled sweeps, recurring invoices, workers) or
/// the customer on a public page (`customer`); `id` is null for `system` and `customer`.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
struct ActorObject {
    #[serde(rename = "type")]
    kind: ActorType,
    id: Option<i64>,
}

impl From<Actor> for ActorObject {
    fn from(a: Actor) -> Self {
        ActorObject {
            kind: a.kind(),
            id: a.id(),
        }
    }
}

impl TryFrom<ActorObject> for Actor {
    type Error = String;

    fn try_from(o: ActorObject) -> Result<Self, String> {
        Actor::from_parts(o.kind, o.id).ok_or_else(|| match o.id {
            Some(_) => format!("an actor of type {} has no id", o.kind.as_str()),
            None => format!("an actor of type {} needs an id", o.kind.as_str()),
        })
    }
}

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for Actor {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        <ActorObject as utoipa::PartialSchema>::schema()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for Actor {
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        <ActorObject as utoipa::ToSchema>::schemas(schemas);
    }
}

/// The tenant a request acts for, and who acts: only obtainable from an authenticated key (or a
/// CLI operator), and required by every tenant repository method, so every event a change
/// writes knows its [`Actor`].
///
/// Equality and hashing look at the tenant only (account and environment): two scopes are
/// equal when they reach the same data, whoever acts.
#[derive(Clone, Copy, Debug)]
pub struct Scope {
    pub account_id: AccountId,
    pub environment: Environment,
    pub actor: Actor,
}

impl Scope {
    /// The tenant, acting as [`Actor::System`] (workers, the scheduler, the CLI).
    pub fn new(account_id: AccountId, environment: Environment) -> Self {
        Scope {
            account_id,
            environment,
            actor: Actor::System,
        }
    }

    /// The same tenant, acting as `actor`.
    pub fn acting_as(self, actor: Actor) -> Self {
        Scope { actor, ..self }
    }

    pub fn livemode(self) -> bool {
        self.environment.is_live()
    }
}

impl PartialEq for Scope {
    fn eq(&self, other: &Self) -> bool {
        (self.account_id, self.environment) == (other.account_id, other.environment)
    }
}

impl Eq for Scope {}

impl std::hash::Hash for Scope {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.account_id, self.environment).hash(state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn actors_are_written_with_their_type_and_id() {
        for (actor, written) in [
            (Actor::ApiKey(7), json!({"type": "api_key", "id": 7})),
            (Actor::User(3), json!({"type": "user", "id": 3})),
            (Actor::System, json!({"type": "system", "id": null})),
            (Actor::Customer, json!({"type": "customer", "id": null})),
        ] {
            assert_eq!(serde_json::to_value(actor).unwrap(), written);
            assert_eq!(serde_json::from_value::<Actor>(written).unwrap(), actor);
            assert_eq!(Actor::from_parts(actor.kind(), actor.id()), Some(actor));
            assert_eq!(ActorType::parse(actor.kind().as_str()), Some(actor.kind()));
        }
        assert!(serde_json::from_value::<Actor>(json!({"type": "system", "id": 1})).is_err());
        assert!(serde_json::from_value::<Actor>(json!({"type": "api_key", "id": null})).is_err());
        assert_eq!(ActorType::parse("robot"), None);
    }

    #[test]
    fn scopes_compare_by_tenant_and_keep_their_actor() {
        let scope = Scope::new(AccountId(1), Environment::Test);
        assert_eq!(scope.actor, Actor::System);
        let key = scope.acting_as(Actor::ApiKey(9));
        assert_eq!(key.actor, Actor::ApiKey(9));
        assert_eq!(
            (key.account_id, key.environment),
            (AccountId(1), Environment::Test)
        );
        assert_eq!(key, scope, "the same tenant");
        let mut seen = std::collections::HashSet::new();
        seen.insert(scope);
        assert!(!seen.insert(key), "one entry per tenant");
        assert_ne!(scope, Scope::new(AccountId(1), Environment::Live));
        assert_ne!(scope, Scope::new(AccountId(2), Environment::Test));
    }
}
