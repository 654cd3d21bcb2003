//! The customer portal's links (SPEC §26): made and revoked by the API and the dashboard alike.

use super::invoices::new_token;
use super::Ops;
use crate::error::ApiError;
use crate::path_id::Id;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::customer::CustomerId;
use invoicing_domain::portal::{token_hash, PortalLink, PortalLinkInput};

impl Ops {
    /// A new link to the customer's portal; its token is shown this once.
    pub async fn create_portal_link(
        &self,
        id: Id<CustomerId>,
        input: PortalLinkInput,
    ) -> Result<PortalLink, ApiError> {
        let scope = self.caller.require(ApiResource::Customers, Access::Write)?;
        let id = id.get()?;
        let expires_at = input.parse(self.clock.now())?;
        let token = new_token();
        let hash = token_hash(&token);
        self.run(scope, "customer", move |r, s| {
            r.create_portal_link(s, id, &hash, expires_at)
        })
        .await?;
        Ok(PortalLink::new(&self.public_url, &token, expires_at))
    }

    /// Ends every link to the customer's portal; answers how many there were.
    pub async fn revoke_portal_links(&self, id: Id<CustomerId>) -> Result<usize, ApiError> {
        let scope = self.caller.require(ApiResource::Customers, Access::Write)?;
        let id = id.get()?;
        self.run(scope, "customer", move |r, s| r.revoke_portal_links(s, id))
            .await
    }
}
