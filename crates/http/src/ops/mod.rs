//! The operations both front doors call: the JSON API's handlers and the dashboard's. Each one
//! checks what the caller may do, parses what the domain parses, runs its repository call off the
//! async workers within the request's storage budget, and names the resource a "not found" is
//! about. Handlers only read their request (a JSON body, a form, a query string), call one
//! operation and render its answer, so no rule, status check or validation exists twice.

mod account;
mod credit_notes;
mod customers;
pub mod einvoices;
mod emails;
pub use einvoices::EInvoiceFile;
mod events;
pub mod gateways;
pub mod identity;
mod invoices;
mod keys;
mod payment_requests;
mod payments;
pub mod portal;
mod priced_lines;
mod products;
mod quotations;
mod recurring;
mod reports;
mod team;
mod webhooks;

use crate::error::ApiError;
use crate::query::ListQuery;
use crate::{blocking, AppState};
use chrono::NaiveDate;
use invoicing_domain::api_key::{Access, ApiResource, KeyScopes};
use invoicing_domain::customer::CustomerId;
use invoicing_domain::email::{EmailInput, EmailRequest};
use invoicing_domain::paging::{Cursor, Page, PageRequest, SearchText};
use invoicing_domain::ports::{RepoResult, Repositories};
use invoicing_domain::tenant::{Actor, Scope};
use invoicing_domain::time_zone::{Clock, TimeZone};
use invoicing_domain::user::{Role, SignedIn, UserId};
use std::sync::Arc;

pub use account::refuse_logo;
pub use emails::EmailDraft;
pub use events::Timeline;
pub use invoices::{invoice_reads, InvoiceReads};
pub use keys::IssuedKey;
pub use quotations::Origin;
pub use reports::{AgingReport, RevenueReport, TaxReport};
pub use team::{email_password_reset, Invited};

/// Who is asking: the tenant they act for and what they may do there.
#[derive(Clone, Debug)]
pub struct Caller {
    scope: Scope,
    permits: Permits,
}

/// Where a caller's permissions come from.
#[derive(Clone, Debug)]
pub enum Permits {
    /// An API key's scopes (SPEC §2).
    Key(KeyScopes),
    /// A dashboard user's role in the session's account (SPEC §21).
    Role(Role),
    /// A portal link's holder (SPEC §26): reads of this customer's documents only, which the
    /// portal's operations check document by document.
    Portal(CustomerId),
}

impl Caller {
    pub fn new(scope: Scope, permits: Permits) -> Caller {
        Caller { scope, permits }
    }

    pub fn scope(&self) -> Scope {
        self.scope
    }

    fn allows(&self, resource: ApiResource, access: Access) -> bool {
        match &self.permits {
            Permits::Key(scopes) => scopes.allows(resource, access),
            Permits::Role(role) => role.allows(resource, access),
            Permits::Portal(_) => {
                access == Access::Read
                    && matches!(
                        resource,
                        ApiResource::Customers
                            | ApiResource::Invoices
                            | ApiResource::Quotations
                            | ApiResource::CreditNotes
                            | ApiResource::Payments
                    )
            }
        }
    }

    /// The tenant scope, if the caller may have this access.
    pub fn require(&self, resource: ApiResource, access: Access) -> Result<Scope, ApiError> {
        if self.allows(resource, access) {
            return Ok(self.scope);
        }
        let access = match access {
            Access::Read => "read",
            Access::Write => "write",
        };
        // A role is refused the same access a key would need, by the same name.
        Err(ApiError::insufficient_permissions(&format!(
            "{}:{access}",
            resource.as_str()
        )))
    }

    /// The scope for managing the account's people and API keys: owners only (SPEC §21); no
    /// API key may (there is no such route).
    pub fn require_owner(&self) -> Result<Scope, ApiError> {
        match &self.permits {
            Permits::Role(role) if role.manages_users_and_keys() => Ok(self.scope),
            _ => Err(ApiError::owners_only()),
        }
    }

    /// The user a dashboard caller is (`None` for an API key).
    pub fn user(&self) -> Option<UserId> {
        match self.scope.actor {
            Actor::User(id) => Some(UserId(id)),
            _ => None,
        }
    }

    /// The scope for creating a document (`resource`); a document that brings an inline customer
    /// may create that customer, so the caller must also be allowed to write customers.
    pub fn require_document_write(
        &self,
        resource: ApiResource,
        inline_customer: bool,
    ) -> Result<Scope, ApiError> {
        let scope = self.require(resource, Access::Write)?;
        if inline_customer {
            self.require(ApiResource::Customers, Access::Write)?;
        }
        Ok(scope)
    }
}

/// A list's `q` search, if given.
fn search(q: &ListQuery) -> Result<Option<SearchText>, ApiError> {
    match q.text("q")? {
        Some(text) => SearchText::parse(&text).map_err(|m| ApiError::invalid_parameter("q", m)),
        None => Ok(None),
    }
}

/// The operations, for one caller within one request.
pub struct Ops {
    repos: Arc<dyn Repositories>,
    caller: Caller,
    mail_enabled: bool,
    webhook_allow_private: bool,
    /// Whether list pages report their totals (the API's always do).
    totals: bool,
    /// Where the service is reached, for the links an operation mails (invitations).
    public_url: Arc<str>,
    /// Lists are a step of a keyset walk (exports), below this row when it has one.
    walk: Option<Option<Cursor>>,
    invoice_reads: Arc<InvoiceReads>,
    clock: Arc<dyn Clock>,
    gateway: Option<Arc<dyn invoicing_domain::gateway::PaymentGateway>>,
}

impl Ops {
    /// Takes the request's repositories (its transaction, under an idempotency key).
    pub fn new(state: &AppState, caller: Caller) -> Ops {
        Ops {
            repos: state.repos(),
            caller,
            mail_enabled: state.config.mail_enabled,
            webhook_allow_private: state.config.webhook_allow_private,
            totals: true,
            walk: None,
            public_url: Arc::from(state.config.public_url.as_str()),
            invoice_reads: state.invoice_reads.clone(),
            clock: state.config.clock.clone(),
            gateway: state.config.gateway.clone(),
        }
    }

    /// The same operations with lists that do not count their totals (a statement less each),
    /// for screens that show a few rows and whether more follow.
    pub fn without_totals(&self) -> Ops {
        Ops {
            repos: self.repos.clone(),
            caller: self.caller.clone(),
            public_url: self.public_url.clone(),
            invoice_reads: self.invoice_reads.clone(),
            clock: self.clock.clone(),
            gateway: self.gateway.clone(),
            totals: false,
            ..*self
        }
    }

    /// The same operations with lists that are a step of a keyset walk (exports): the rows
    /// below `cursor` (from the top when `None`), a large page at a time, uncounted.
    pub fn walk(&self, cursor: Option<Cursor>) -> Ops {
        Ops {
            repos: self.repos.clone(),
            caller: self.caller.clone(),
            public_url: self.public_url.clone(),
            invoice_reads: self.invoice_reads.clone(),
            clock: self.clock.clone(),
            gateway: self.gateway.clone(),
            walk: Some(cursor),
            ..*self
        }
    }

    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// The caller's account's date (SPEC §27): where "today" is in every rule that has one.
    pub async fn today(&self) -> Result<NaiveDate, ApiError> {
        let now = self.clock.now();
        let zone = self.time_zone().await?;
        Ok(zone.today(now))
    }

    /// The zone the caller's account keeps its days in.
    pub async fn time_zone(&self) -> Result<TimeZone, ApiError> {
        self.run(self.caller.scope, "account", |r, s| r.time_zone(s))
            .await
    }

    /// Runs `f` off the async workers; a "not found" names `what`.
    async fn run<T, F>(&self, scope: Scope, what: &'static str, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Repositories, Scope) -> RepoResult<T> + Send + 'static,
    {
        let repos = self.repos.clone();
        blocking(move || f(repos.as_ref(), scope))
            .await
            .map_err(|e| e.naming(what))
    }

    /// The page a list's query asks for (uncounted for screens), or a walk's step.
    fn page(&self, q: &ListQuery) -> Result<PageRequest, ApiError> {
        let page = q.page()?;
        Ok(match self.walk {
            Some(cursor) => PageRequest::walk(cursor),
            None if self.totals => page,
            None => page.uncounted(),
        })
    }

    /// A page of a list: `filters` are the query's names beside paging, `filter` reads them.
    async fn list<T, Fl, F>(
        &self,
        resource: ApiResource,
        query: &str,
        filters: &[&str],
        filter: impl FnOnce(&ListQuery) -> Result<Fl, ApiError>,
        f: F,
    ) -> Result<Page<T>, ApiError>
    where
        T: Send + 'static,
        Fl: Send + 'static,
        F: FnOnce(&dyn Repositories, Scope, &Fl, PageRequest) -> RepoResult<Page<T>>
            + Send
            + 'static,
    {
        let scope = self.caller.require(resource, Access::Read)?;
        let q = ListQuery::parse(query, filters)?;
        let page = self.page(&q)?;
        let filter = filter(&q)?;
        let repos = self.repos.clone();
        blocking(move || f(repos.as_ref(), scope, &filter, page)).await
    }

    /// An email to send with a document, when one is asked for and mail is configured.
    fn email_request(&self, input: Option<EmailInput>) -> Result<Option<EmailRequest>, ApiError> {
        let Some(input) = input else {
            return Ok(None);
        };
        if !self.mail_enabled {
            return Err(ApiError::email_not_configured());
        }
        Ok(Some(input.parse("email")?))
    }
}

impl Ops {
    /// The operations for a dashboard request, as the user's role allows, acting as the user in
    /// the session's account and environment.
    pub fn for_session(state: &AppState, signed_in: &SignedIn) -> Ops {
        Ops::new(
            state,
            Caller::new(signed_in.session.scope(), Permits::Role(signed_in.role)),
        )
    }

    /// The operations for an API request, as its key's scopes allow.
    pub fn for_key(state: &AppState, auth: &crate::auth::Auth) -> Ops {
        Ops::new(
            state,
            Caller::new(auth.scope, Permits::Key(auth.scopes.clone())),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use invoicing_domain::tenant::{AccountId, Actor, Environment};

    fn caller(role: Role) -> Caller {
        let scope = Scope::new(AccountId(7), Environment::Live).acting_as(Actor::User(3));
        Caller::new(scope, Permits::Role(role))
    }

    #[test]
    fn a_role_grants_what_its_table_says_and_names_what_it_refuses() {
        let viewer = caller(Role::Viewer);
        assert!(viewer.require(ApiResource::Invoices, Access::Read).is_ok());
        let refused = viewer
            .require(ApiResource::Invoices, Access::Write)
            .unwrap_err();
        assert_eq!(refused.code, "insufficient_permissions");
        let staff = caller(Role::Staff);
        assert!(staff
            .require_document_write(ApiResource::Invoices, true)
            .is_ok());
        assert!(staff.require(ApiResource::Webhooks, Access::Read).is_err());
        assert!(caller(Role::Owner)
            .require(ApiResource::Account, Access::Write)
            .is_ok());
    }

    #[test]
    fn the_scope_granted_acts_as_the_user_in_the_sessions_tenant() {
        let scope = caller(Role::Owner)
            .require(ApiResource::Customers, Access::Read)
            .unwrap();
        assert_eq!(
            (scope.account_id, scope.environment, scope.actor),
            (AccountId(7), Environment::Live, Actor::User(3))
        );
    }
}
