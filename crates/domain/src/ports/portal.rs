//! The customer portal's links (SPEC §26).

use super::RepoResult;
use crate::customer::{CustomerId, Email};
use crate::locale::Locale;
use crate::notice::NewNotice;
use crate::tenant::Scope;
use chrono::{DateTime, Utc};

/// A link made for a customer who asked for one by email: what its message needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AskedPortal {
    pub scope: Scope,
    pub customer: CustomerId,
    /// The customer's address as they gave it.
    pub email: String,
    /// The customer's language, else the merchant's.
    pub locale: Locale,
    /// The merchant's legal name, else their name.
    pub merchant: String,
    /// The new link's token (only its hash is kept).
    pub token: String,
    pub expires_at: DateTime<Utc>,
}

pub trait PortalRepository {
    /// A new link to the customer's portal until `expires_at`: answers its token, of which only
    /// the hash is kept. The customer must be the tenant's.
    fn create_portal_link(
        &self,
        scope: Scope,
        customer: CustomerId,
        expires_at: DateTime<Utc>,
    ) -> RepoResult<String>;
    /// Ends every link to the customer's portal; answers how many there were. The customer must
    /// be the tenant's.
    fn revoke_portal_links(&self, scope: Scope, customer: CustomerId) -> RepoResult<usize>;
    /// Whose portal a token opens at `now`: `NotFound` for a token never made, revoked or
    /// expired, alike.
    fn portal_owner(&self, token_hash: &str, now: DateTime<Utc>)
        -> RepoResult<(Scope, CustomerId)>;
    /// For every customer of any tenant with this email, a link valid 24 hours, unless one was
    /// asked for in the last minute (the login page's, SPEC §26), queued with the email `notice`
    /// writes for it in the same transaction. Answers how many were mailed.
    fn ask_portal_links(
        &self,
        email: &Email,
        now: DateTime<Utc>,
        notice: &(dyn Fn(&AskedPortal) -> Option<NewNotice> + Sync),
    ) -> RepoResult<usize>;
}
