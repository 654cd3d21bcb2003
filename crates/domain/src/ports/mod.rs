//! Repository traits (ports): what the application needs from storage, stated in domain types.
//! Every tenant method takes a [`Scope`](crate::tenant::Scope), so no query can forget its account and environment.

mod account;
mod credit_note;
mod customer;
mod email;
mod event;
mod gateway;
mod health;
mod idempotency;
mod invoice;
mod notice;
mod payment;
mod payment_request;
mod portal;
mod product;
mod profile;
mod quotation;
mod rate_limits;
mod recurring;
mod report;
mod user;
mod webhook;

pub use account::*;
pub use credit_note::*;
pub use customer::*;
pub use email::*;
pub use event::*;
pub use gateway::*;
pub use health::*;
pub use idempotency::*;
pub use invoice::*;
pub use notice::*;
pub use payment::*;
pub use payment_request::*;
pub use portal::*;
pub use product::*;
pub use profile::*;
pub use quotation::*;
pub use rate_limits::*;
pub use recurring::*;
pub use report::*;
pub use user::*;
pub use webhook::*;

use crate::validation::Violations;

/// Storage failures in the terms the API answers with.
#[derive(Clone, Debug, thiserror::Error)]
pub enum RepoError {
    #[error("no such resource")]
    NotFound,
    /// The id exists but belongs to another account or environment (403, not 404: SPEC §2).
    #[error("the resource belongs to another account or environment")]
    Forbidden,
    #[error("{0}")]
    InUse(String),
    /// A state change the transition table refuses (409 `invalid_state_transition`).
    #[error("{0}")]
    InvalidTransition(String),
    /// Input that is only known to be invalid once stored data is consulted (422).
    #[error("{0}")]
    Invalid(Violations),
    #[error("the database is unavailable: {0}")]
    Unavailable(String),
    #[error("storage failure: {0}")]
    Internal(String),
}

impl RepoError {
    /// One field's problem, found against stored data (422).
    pub fn invalid(
        param: impl Into<String>,
        problem: impl Into<crate::validation::Problem>,
    ) -> RepoError {
        RepoError::Invalid(Violations::single(param, problem))
    }
}

pub type RepoResult<T> = Result<T, RepoError>;

/// Everything the API needs from storage, as one object-safe handle.
pub trait Repositories:
    AccountRepository
    + ApiKeyRepository
    + CustomerRepository
    + InvoiceRepository
    + QuotationRepository
    + EventRepository
    + WebhookRepository
    + PaymentRepository
    + PaymentRequestRepository
    + PortalRepository
    + GatewayRepository
    + ProductRepository
    + ProfileRepository
    + EmailRepository
    + CreditNoteRepository
    + RecurringRepository
    + IdempotencyRepository
    + UserRepository
    + NoticeRepository
    + ReportRepository
    + RateLimits
    + HealthCheck
    + Send
    + Sync
{
}

impl<T> Repositories for T where
    T: AccountRepository
        + ApiKeyRepository
        + CustomerRepository
        + InvoiceRepository
        + QuotationRepository
        + EventRepository
        + WebhookRepository
        + PaymentRepository
        + PaymentRequestRepository
        + PortalRepository
        + GatewayRepository
        + GatewayRepository
        + ProductRepository
        + ProfileRepository
        + EmailRepository
        + CreditNoteRepository
        + RecurringRepository
        + IdempotencyRepository
        + UserRepository
        + NoticeRepository
        + ReportRepository
        + RateLimits
        + HealthCheck
        + Send
        + Sync
{
}
