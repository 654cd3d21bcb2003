//! The customer portal's links (SPEC §26): kept by their token's hash, found only while they
//! last, deleted when revoked.

use crate::customers::load_scoped;
use crate::rows::{now_db, scoped, to_db};
use crate::schema::portal_links;
use crate::store::Store;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::ports::{PortalRepository, RepoError, RepoResult};
use invoicing_domain::tenant::{AccountId, Environment, Scope};

impl PortalRepository for Store {
    fn create_portal_link(
        &self,
        scope: Scope,
        customer: CustomerId,
        token_hash: &str,
        expires_at: DateTime<Utc>,
    ) -> RepoResult<()> {
        self.write(|conn| {
            load_scoped(conn, scope, customer)?;
            diesel::insert_into(portal_links::table)
                .values((
                    portal_links::account_id.eq(scope.account_id.0),
                    portal_links::livemode.eq(scope.livemode()),
                    portal_links::customer_id.eq(customer.0),
                    portal_links::token_hash.eq(token_hash),
                    portal_links::expires_at.eq(to_db(expires_at)),
                    portal_links::created_at.eq(now_db()),
                ))
                .execute(conn)?;
            Ok(())
        })
    }

    fn revoke_portal_links(&self, scope: Scope, customer: CustomerId) -> RepoResult<usize> {
        self.write(|conn| {
            load_scoped(conn, scope, customer)?;
            let of_customer =
                scoped!(portal_links, scope).filter(portal_links::customer_id.eq(customer.0));
            Ok(diesel::delete(of_customer).execute(conn)?)
        })
    }

    fn portal_owner(
        &self,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> RepoResult<(Scope, CustomerId)> {
        let found: Option<(i64, bool, i64)> = self.read(|conn| {
            Ok(portal_links::table
                .filter(portal_links::token_hash.eq(token_hash))
                .filter(portal_links::expires_at.gt(to_db(now)))
                .select((
                    portal_links::account_id,
                    portal_links::livemode,
                    portal_links::customer_id,
                ))
                .first(conn)
                .optional()?)
        })?;
        let (account, livemode, customer) = found.ok_or(RepoError::NotFound)?;
        Ok((
            Scope::new(AccountId(account), Environment::from_livemode(livemode)),
            CustomerId(customer),
        ))
    }
}
