//! The customer portal's links (SPEC §26).

use super::RepoResult;
use crate::customer::CustomerId;
use crate::tenant::Scope;
use chrono::{DateTime, Utc};

pub trait PortalRepository {
    /// Keeps a link to the customer's portal (its token's hash) until `expires_at`; the
    /// customer must be the tenant's.
    fn create_portal_link(
        &self,
        scope: Scope,
        customer: CustomerId,
        token_hash: &str,
        expires_at: DateTime<Utc>,
    ) -> RepoResult<()>;
    /// Ends every link to the customer's portal; answers how many there were. The customer must
    /// be the tenant's.
    fn revoke_portal_links(&self, scope: Scope, customer: CustomerId) -> RepoResult<usize>;
    /// Whose portal a token opens at `now`: `NotFound` for a token never made, revoked or
    /// expired, alike.
    fn portal_owner(&self, token_hash: &str, now: DateTime<Utc>)
        -> RepoResult<(Scope, CustomerId)>;
}
