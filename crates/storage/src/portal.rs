//! The customer portal's links (SPEC §26): kept by their token's hash, found only while they
//! last, deleted when revoked.

use crate::customers::load_scoped;
use crate::rows::{now_db, random_hex, scoped, to_db};
use crate::schema::{customers, portal_links};
use crate::store::Store;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use invoicing_domain::customer::{CustomerId, Email};
use invoicing_domain::locale::Locale;
use invoicing_domain::notice::NewNotice;
use invoicing_domain::portal::{token_hash, ASKED_HOURS};
use invoicing_domain::ports::{AskedPortal, PortalRepository, RepoError, RepoResult};
use invoicing_domain::tenant::{AccountId, Environment, Scope};

impl PortalRepository for Store {
    fn create_portal_link(
        &self,
        scope: Scope,
        customer: CustomerId,
        expires_at: DateTime<Utc>,
    ) -> RepoResult<String> {
        let token = random_hex::<24>();
        self.write(|conn| {
            load_scoped(conn, scope, customer)?;
            diesel::insert_into(portal_links::table)
                .values((
                    portal_links::account_id.eq(scope.account_id.0),
                    portal_links::livemode.eq(scope.livemode()),
                    portal_links::customer_id.eq(customer.0),
                    portal_links::token_hash.eq(token_hash(&token)),
                    portal_links::expires_at.eq(to_db(expires_at)),
                    portal_links::created_at.eq(now_db()),
                ))
                .execute(conn)?;
            Ok(token.clone())
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

    fn ask_portal_links(
        &self,
        email: &Email,
        now: DateTime<Utc>,
        notice: &(dyn Fn(&AskedPortal) -> Option<NewNotice> + Sync),
    ) -> RepoResult<usize> {
        self.write(|conn| {
            let holders: Vec<(i64, i64, bool, String, Option<String>)> = customers::table
                .filter(customers::email_normalized.eq(email.normalized()))
                .order(customers::id)
                .select((
                    customers::id,
                    customers::account_id,
                    customers::livemode,
                    customers::email,
                    customers::locale,
                ))
                .load(conn)?;
            let lately = to_db(now - Duration::minutes(1));
            let expires_at =
                invoicing_domain::time::whole_seconds(now + Duration::hours(ASKED_HOURS));
            let mut mailed = 0;
            for (id, account, livemode, address, locale) in holders {
                let scope = Scope::new(AccountId(account), Environment::from_livemode(livemode));
                let asked_lately: i64 = scoped!(portal_links, scope)
                    .filter(portal_links::customer_id.eq(id))
                    .filter(portal_links::asked.eq(true))
                    .filter(portal_links::created_at.gt(lately))
                    .count()
                    .get_result(conn)?;
                if asked_lately > 0 {
                    continue;
                }
                let profile = crate::profiles::load_profile_fields(conn, scope)?;
                let token = random_hex::<24>();
                diesel::insert_into(portal_links::table)
                    .values((
                        portal_links::account_id.eq(account),
                        portal_links::livemode.eq(livemode),
                        portal_links::customer_id.eq(id),
                        portal_links::token_hash.eq(token_hash(&token)),
                        portal_links::expires_at.eq(to_db(expires_at)),
                        portal_links::created_at.eq(to_db(now)),
                        portal_links::asked.eq(true),
                    ))
                    .execute(conn)?;
                let asked = AskedPortal {
                    scope,
                    customer: CustomerId(id),
                    email: address,
                    locale: locale
                        .as_deref()
                        .and_then(Locale::parse)
                        .unwrap_or(profile.locale),
                    merchant: profile.legal_name.unwrap_or(profile.name),
                    token,
                    expires_at,
                };
                // The link and its email in one transaction: neither without the other.
                if let Some(message) = notice(&asked) {
                    crate::notices::queue(conn, &message)?;
                    mailed += 1;
                }
            }
            Ok(mailed)
        })
    }
}
