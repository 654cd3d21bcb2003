//! Repository traits (ports): what the application needs from storage, stated in domain types.
//! Every tenant method takes a [`Scope`], so no query can forget its account and environment.

use crate::api_key::{ApiKey, ApiKeyId, NewApiKey};
use crate::credit_note::{
    CreditNote, CreditNoteFilter, CreditNoteId, NewCreditNote, PublicCreditNote,
};
use crate::currency::Currency;
use crate::customer::{Created, Customer, CustomerFilter, CustomerId, CustomerPatch, NewCustomer};
use crate::email::{
    EmailFilter, EmailId, EmailJob, EmailRequest, EmailSubject, OutgoingEmail, SendOutcome,
};
use crate::event::{Event, EventFilter, EventId};
use crate::idempotency::{IdempotencyClaim, IdempotencyKey, RequestFingerprint, StoredResponse};
use crate::invoice::{
    Due, Invoice, InvoiceFilter, InvoiceId, InvoicePatch, InvoiceSummary, NewInvoice, Outstanding,
    PublicInvoice,
};
use crate::notice::{NewNotice, Notice, NoticeJob, NoticeKind};
use crate::paging::{Page, PageRequest};
use crate::payment::{
    NewPayment, Payment, PaymentChange, PaymentFilter, PaymentId, PaymentReport, PaymentRequest,
};
use crate::product::{NewProduct, Product, ProductFilter, ProductId, ProductPatch};
use crate::profile::{Logo, Profile, ProfilePatch};
use crate::quotation::{
    Answer, ConversionResult, NewQuotation, PublicQuotation, Quotation, QuotationFilter,
    QuotationId, QuotationPatch,
};
use crate::recurring::{
    NewRecurring, RecurringFilter, RecurringId, RecurringInvoice, RecurringPatch, RecurringStatus,
};
use crate::report::{
    AgingByCurrency, AgingByCustomer, DateRange, ReportInterval, RevenuePeriod, StatementShown,
    TaxLine,
};
use crate::tenant::{AccountId, Environment, Scope};
use crate::user::{
    Credentials, Invitation, Link, Member, Membership, NewLink, NewSession, PasswordHash,
    PendingInvitation, Role, SecretToken, Session, SessionId, SignedIn, ThrottleKey, TotpSecret,
    User, UserEmail, UserId,
};
use crate::validation::Violations;
use crate::webhook::{NewWebhookEndpoint, WebhookEndpoint, WebhookEndpointId, WebhookPatch};
use crate::webhook_delivery::{AttemptOutcome, DeliveryAttempt, DeliveryJob, RetrySchedule};
use crate::webhook_signature::WebhookSecret;
use chrono::NaiveDate;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::sync::Arc;

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

pub type RepoResult<T> = Result<T, RepoError>;

/// A tenant: everything else hangs off one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Account {
    pub id: AccountId,
    pub name: String,
    pub default_currency: Currency,
    #[serde(serialize_with = "crate::time::serialize")]
    pub created_at: DateTime<Utc>,
}

pub trait AccountRepository {
    fn create_account(&self, name: &str, default_currency: Currency) -> RepoResult<Account>;
    fn get_account(&self, id: AccountId) -> RepoResult<Account>;
    /// Creates the first account and key on an empty database, exactly once even when several
    /// processes start together; `None` when the database already had an account.
    fn bootstrap_if_empty(
        &self,
        name: &str,
        default_currency: Currency,
        key: NewApiKey,
    ) -> RepoResult<Option<(Account, ApiKey)>>;
}

pub trait ApiKeyRepository {
    fn insert_key(&self, account: AccountId, key: NewApiKey) -> RepoResult<ApiKey>;
    fn get_key(&self, id: ApiKeyId) -> RepoResult<ApiKey>;
    fn find_key_by_hash(&self, key_hash: &str) -> RepoResult<Option<ApiKey>>;
    /// The key with this hash when this process already holds it, without reaching storage,
    /// so an async caller may ask before handing [`Self::find_key_by_hash`] to a thread;
    /// `None` means "ask `find_key_by_hash`", never "no such key".
    fn known_key_by_hash(&self, _key_hash: &str) -> Option<ApiKey> {
        None
    }
    fn list_keys(&self, account: AccountId) -> RepoResult<Vec<ApiKey>>;
    fn revoke_key(&self, id: ApiKeyId, at: DateTime<Utc>) -> RepoResult<ApiKey>;
    /// Issues `replacement` (same account and environment) and makes the old key expire at
    /// `old_expires_at` if that is sooner, in one transaction, so a rotation never leaves an
    /// account without a working key. Answers `(old, new)`.
    fn rotate_key(
        &self,
        id: ApiKeyId,
        replacement: NewApiKey,
        old_expires_at: DateTime<Utc>,
    ) -> RepoResult<(ApiKey, ApiKey)>;
}

pub trait CustomerRepository {
    /// Creates the customer, or returns the existing one with the same email unchanged: exactly
    /// one row per email even under concurrent identical requests.
    fn create_customer(&self, scope: Scope, new: NewCustomer) -> RepoResult<Created<Customer>>;
    fn get_customer(&self, scope: Scope, id: CustomerId) -> RepoResult<Customer>;
    fn list_customers(
        &self,
        scope: Scope,
        filter: &CustomerFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Customer>>;
    fn update_customer(
        &self,
        scope: Scope,
        id: CustomerId,
        patch: CustomerPatch,
    ) -> RepoResult<Customer>;
    fn delete_customer(&self, scope: Scope, id: CustomerId) -> RepoResult<()>;
    /// The names and emails of these customers of the tenant, in one statement (lists of
    /// documents show who they are for); ids of no customer of the tenant are left out.
    fn customer_names(
        &self,
        scope: Scope,
        ids: &[CustomerId],
    ) -> RepoResult<Vec<(CustomerId, String, String)>>;
}

pub trait InvoiceRepository {
    /// Creates a draft with the next gap-free number, its customer if inline, and the events.
    fn create_invoice(&self, scope: Scope, new: NewInvoice) -> RepoResult<Invoice>;
    fn get_invoice(&self, scope: Scope, id: InvoiceId) -> RepoResult<Invoice>;
    /// Invoices of any tenants, each answered as [`Self::get_invoice`] answers it, in the order
    /// asked; in one statement where the store can (a server gathers the reads that wait for
    /// storage at the same time). `Err` when the read as a whole failed.
    fn get_invoices(&self, wanted: &[(Scope, InvoiceId)]) -> RepoResult<Vec<RepoResult<Invoice>>> {
        Ok(wanted
            .iter()
            .map(|&(s, id)| self.get_invoice(s, id))
            .collect())
    }
    fn list_invoices(
        &self,
        scope: Scope,
        filter: &InvoiceFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Invoice>>;
    /// The same list as [`Self::list_invoices`] without lines: what an export writes. Never
    /// counted.
    fn invoice_summaries(
        &self,
        scope: Scope,
        filter: &InvoiceFilter,
        page: PageRequest,
    ) -> RepoResult<Page<InvoiceSummary>>;
    /// Per currency, what the open invoices (sent, viewed, overdue) still have due, of one
    /// customer or of all; by currency.
    fn outstanding(
        &self,
        scope: Scope,
        customer: Option<CustomerId>,
    ) -> RepoResult<Vec<Outstanding>>;
    fn update_invoice(
        &self,
        scope: Scope,
        id: InvoiceId,
        patch: InvoicePatch,
    ) -> RepoResult<Invoice>;
    /// The public page's read: by number and capability token, never a draft. The first read
    /// of a sent invoice makes it viewed.
    fn view_public_invoice(&self, number: &str, token: &str) -> RepoResult<PublicInvoice>;
    /// The invoice and the parties it names (its kept copy once sent), without the logo, the
    /// payments or the credit notes: what its e-invoice check reads.
    fn invoice_with_parties(
        &self,
        scope: Scope,
        id: InvoiceId,
    ) -> RepoResult<(Invoice, crate::parties::Parties)>;
    /// The invoice as its page and PDF show it (with its parties), for the API.
    fn invoice_as_shown(&self, scope: Scope, id: InvoiceId) -> RepoResult<PublicInvoice>;
    /// [`Self::view_public_invoice`] without marking it viewed: a PDF download is no view
    /// (SPEC §9).
    fn find_public_invoice(&self, number: &str, token: &str) -> RepoResult<PublicInvoice>;
    /// Turns sent and viewed invoices due before their account's date at `now` (SPEC §27) into
    /// overdue, across all tenants, each with its event; safe when several processes sweep at once. Answers how many changed.
    fn mark_overdue_invoices(&self, now: DateTime<Utc>) -> RepoResult<usize>;
}

pub trait QuotationRepository {
    fn create_quotation(&self, scope: Scope, new: NewQuotation) -> RepoResult<Quotation>;
    fn get_quotation(&self, scope: Scope, id: QuotationId) -> RepoResult<Quotation>;
    fn list_quotations(
        &self,
        scope: Scope,
        filter: &QuotationFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Quotation>>;
    fn update_quotation(
        &self,
        scope: Scope,
        id: QuotationId,
        patch: QuotationPatch,
    ) -> RepoResult<Quotation>;
    /// Drafts only; anything else is an invalid transition.
    fn delete_quotation(&self, scope: Scope, id: QuotationId) -> RepoResult<()>;
    /// Sends a draft; with `email`, the message is queued in the same transaction.
    fn send_quotation(
        &self,
        scope: Scope,
        id: QuotationId,
        email: Option<EmailRequest>,
    ) -> RepoResult<Quotation>;
    /// Accepts or rejects on the prospect's behalf. An accept after `valid_until` expires the
    /// quotation (committed, with its event) and answers an invalid transition.
    fn answer_quotation(
        &self,
        scope: Scope,
        id: QuotationId,
        answer: Answer,
        today: NaiveDate,
    ) -> RepoResult<Quotation>;
    /// The public page's read by number and token; never a draft; the first read marks it viewed.
    fn view_public_quotation(&self, number: &str, token: &str) -> RepoResult<PublicQuotation>;
    /// The quotation as its page and PDF show it (with its parties), for the API.
    fn quotation_as_shown(&self, scope: Scope, id: QuotationId) -> RepoResult<PublicQuotation>;
    /// [`Self::view_public_quotation`] without marking it viewed.
    fn find_public_quotation(&self, number: &str, token: &str) -> RepoResult<PublicQuotation>;
    /// The public page's Accept and Decline buttons, with the same rules as `answer_quotation`
    /// on the merchant's date at `now`.
    fn answer_public_quotation(
        &self,
        number: &str,
        token: &str,
        answer: Answer,
        now: DateTime<Utc>,
    ) -> RepoResult<PublicQuotation>;
    /// In one transaction: a draft invoice with the quotation's customer, currency and lines,
    /// the quotation converted, and both events. Only once per quotation.
    fn convert_quotation(
        &self,
        scope: Scope,
        id: QuotationId,
        due: Due,
        token: String,
        today: NaiveDate,
    ) -> RepoResult<ConversionResult>;
    /// Turns sent and viewed quotations valid until before their account's date at `now` into
    /// expired, across tenants.
    fn mark_expired_quotations(&self, now: DateTime<Utc>) -> RepoResult<usize>;
}

pub trait EventRepository {
    fn list_events(
        &self,
        scope: Scope,
        filter: &EventFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Event>>;
    fn get_event(&self, scope: Scope, id: EventId) -> RepoResult<Event>;
    /// The events about one object (`kind` is the event types' first word, e.g. `invoice`), the
    /// oldest first, at most `limit`: a document's timeline.
    fn object_events(
        &self,
        scope: Scope,
        kind: &str,
        id: i64,
        limit: i64,
    ) -> RepoResult<Vec<Event>>;
}

pub trait WebhookRepository {
    /// The answer carries the secret, the only time besides a rotation.
    fn create_webhook(&self, scope: Scope, new: NewWebhookEndpoint) -> RepoResult<WebhookEndpoint>;
    fn list_webhooks(&self, scope: Scope, page: PageRequest) -> RepoResult<Page<WebhookEndpoint>>;
    fn get_webhook(&self, scope: Scope, id: WebhookEndpointId) -> RepoResult<WebhookEndpoint>;
    fn update_webhook(
        &self,
        scope: Scope,
        id: WebhookEndpointId,
        patch: WebhookPatch,
    ) -> RepoResult<WebhookEndpoint>;
    /// Removes the endpoint with its pending deliveries and its delivery log.
    fn delete_webhook(&self, scope: Scope, id: WebhookEndpointId) -> RepoResult<()>;
    fn rotate_webhook_secret(
        &self,
        scope: Scope,
        id: WebhookEndpointId,
        secret: WebhookSecret,
    ) -> RepoResult<WebhookEndpoint>;
    /// The endpoint's attempts, newest first.
    fn list_delivery_attempts(
        &self,
        scope: Scope,
        id: WebhookEndpointId,
        page: PageRequest,
    ) -> RepoResult<Page<DeliveryAttempt>>;
    /// Queues a new delivery of the event to every matching enabled endpoint; how many.
    fn redeliver_event(&self, scope: Scope, id: EventId) -> RepoResult<usize>;
}

/// The delivery worker's side, across tenants. Deliveries are written with their event (in the
/// same transaction), so nothing here can lose one.
pub trait DeliveryQueue {
    /// Claims up to `limit` due deliveries of enabled endpoints for `lease`; no other caller (of
    /// any process) gets them until the result is recorded or the lease runs out.
    fn claim_deliveries(
        &self,
        now: DateTime<Utc>,
        lease: std::time::Duration,
        limit: u32,
    ) -> RepoResult<Vec<DeliveryJob>>;
    /// Records the attempt and schedules what follows; `false` if the claim was lost meanwhile.
    fn record_attempt(
        &self,
        job: &DeliveryJob,
        outcome: &AttemptOutcome,
        schedule: &RetrySchedule,
        now: DateTime<Utc>,
    ) -> RepoResult<bool>;
    /// Gives a claimed delivery back unattempted (shutting down), due again at once.
    fn release_delivery(&self, job: &DeliveryJob) -> RepoResult<()>;
    /// When the next pending delivery falls due (its attempt time or its lease's end), if any.
    fn next_delivery_due(&self) -> RepoResult<Option<DateTime<Utc>>>;
    /// Renews the lease of a delivery in flight; `false` if the claim was lost.
    fn extend_delivery(
        &self,
        job: &DeliveryJob,
        now: DateTime<Utc>,
        lease: std::time::Duration,
    ) -> RepoResult<bool>;
}

/// Recurring invoices (SPEC §20).
pub trait RecurringRepository {
    /// An active schedule; its first invoice comes from the next sweep on its start date.
    fn create_recurring(&self, scope: Scope, new: NewRecurring) -> RepoResult<RecurringInvoice>;
    fn get_recurring(&self, scope: Scope, id: RecurringId) -> RepoResult<RecurringInvoice>;
    fn list_recurring(
        &self,
        scope: Scope,
        filter: &RecurringFilter,
        page: PageRequest,
    ) -> RepoResult<Page<RecurringInvoice>>;
    /// Changes what the invoices not yet issued will be; an active or paused schedule only.
    fn update_recurring(
        &self,
        scope: Scope,
        id: RecurringId,
        patch: RecurringPatch,
    ) -> RepoResult<RecurringInvoice>;
    /// Pause, resume (from the first period on or after `today`) or cancel, as the table
    /// allows.
    fn change_recurring(
        &self,
        scope: Scope,
        id: RecurringId,
        to: RecurringStatus,
        today: NaiveDate,
    ) -> RepoResult<RecurringInvoice>;
    /// Issues every period due by its account's date at `now` of every active schedule, across
    /// tenants, each exactly once
    /// however many processes sweep; answers how many invoices were issued.
    fn issue_recurring(&self, now: DateTime<Utc>) -> RepoResult<usize>;
}

/// Credit notes (SPEC §19): final once issued.
pub trait CreditNoteRepository {
    /// In one transaction: the credit note (never more than the invoice has left to credit,
    /// however many are issued at once) with the next gap-free `CN-` number, the invoice's
    /// credited amount, its move to paid or cancelled when its amount due reaches zero, the
    /// events, and the email when `email` asks for one.
    fn create_credit_note(
        &self,
        scope: Scope,
        invoice: InvoiceId,
        new: NewCreditNote,
        email: Option<EmailRequest>,
    ) -> RepoResult<CreditNote>;
    fn get_credit_note(&self, scope: Scope, id: CreditNoteId) -> RepoResult<CreditNote>;
    fn list_credit_notes(
        &self,
        scope: Scope,
        filter: &CreditNoteFilter,
        page: PageRequest,
    ) -> RepoResult<Page<CreditNote>>;
    /// The credit note as its PDF shows it.
    fn credit_note_as_shown(&self, scope: Scope, id: CreditNoteId) -> RepoResult<PublicCreditNote>;
}

/// Email to customers (SPEC §18), per account and environment.
pub trait EmailRepository {
    fn list_emails(
        &self,
        scope: Scope,
        filter: &EmailFilter,
        page: PageRequest,
    ) -> RepoResult<Page<OutgoingEmail>>;
    fn get_email(&self, scope: Scope, id: EmailId) -> RepoResult<OutgoingEmail>;
    /// Queues the document (sent or later, never a draft) to be emailed again.
    fn resend_document(
        &self,
        scope: Scope,
        about: EmailSubject,
        request: EmailRequest,
    ) -> RepoResult<OutgoingEmail>;
}

/// Reports (SPEC §22): sums over the tenant's stored integers, one statement each (revenue:
/// four per period).
pub trait ReportRepository {
    /// What open invoices owe at `as_of`, by currency and bucket.
    fn aging(&self, scope: Scope, as_of: NaiveDate) -> RepoResult<Vec<AgingByCurrency>>;
    /// The same per customer and currency, the largest total first.
    fn aging_by_customer(
        &self,
        scope: Scope,
        as_of: NaiveDate,
        page: PageRequest,
    ) -> RepoResult<Page<AgingByCustomer>>;
    /// By currency and tax rate over the range (a VAT return's figures).
    fn tax_report(&self, scope: Scope, range: DateRange) -> RepoResult<Vec<TaxLine>>;
    /// By period and currency over the range.
    fn revenue(
        &self,
        scope: Scope,
        range: DateRange,
        interval: ReportInterval,
    ) -> RepoResult<Vec<RevenuePeriod>>;
    /// A customer's statement in one currency (`None`: the account's default): the balance
    /// owed at the range's start, the invoices sent, payments verified and credit notes made in
    /// it, and the aging of what is owed now; with the parties as they are now, to print it.
    fn statement(
        &self,
        scope: Scope,
        customer: CustomerId,
        currency: Option<Currency>,
        range: DateRange,
    ) -> RepoResult<StatementShown>;
}

/// Mail to people rather than customers (invitations, password resets, test emails).
pub trait NoticeRepository {
    fn queue_notice(&self, notice: NewNotice) -> RepoResult<Notice>;
    /// The account's newest notice of `kind` (the settings show how the last test email went).
    fn latest_notice(&self, account: AccountId, kind: NoticeKind) -> RepoResult<Option<Notice>>;
    /// How many notices the account queued at or after `since`.
    fn notices_since(&self, account: AccountId, since: DateTime<Utc>) -> RepoResult<u64>;
}

/// The mail workers' side of [`NoticeRepository`]: the same leases as [`EmailQueue`].
pub trait NoticeQueue {
    fn next_notice_due(&self) -> RepoResult<Option<DateTime<Utc>>>;
    fn claim_notices(
        &self,
        now: DateTime<Utc>,
        lease: std::time::Duration,
        limit: u32,
    ) -> RepoResult<Vec<NoticeJob>>;
    /// Records the attempt; a settled notice loses its body and link. `false` if the claim was
    /// lost meanwhile.
    fn record_notice(
        &self,
        job: &NoticeJob,
        outcome: &SendOutcome,
        schedule: &RetrySchedule,
        now: DateTime<Utc>,
    ) -> RepoResult<bool>;
    fn extend_notice(
        &self,
        job: &NoticeJob,
        now: DateTime<Utc>,
        lease: std::time::Duration,
    ) -> RepoResult<bool>;
    fn release_notice(&self, job: &NoticeJob) -> RepoResult<()>;
}

/// The mail workers' and the scheduler's side, across tenants: the same leases as
/// [`DeliveryQueue`].
pub trait EmailQueue {
    /// When the next queued email falls due (its attempt time or its lease's end), if any.
    fn next_email_due(&self) -> RepoResult<Option<DateTime<Utc>>>;
    fn claim_emails(
        &self,
        now: DateTime<Utc>,
        lease: std::time::Duration,
        limit: u32,
    ) -> RepoResult<Vec<EmailJob>>;
    /// Records the attempt (with `email.sent` or `email.failed` when it settles it);
    /// `false` if the claim was lost meanwhile.
    fn record_email(
        &self,
        job: &EmailJob,
        outcome: &SendOutcome,
        schedule: &RetrySchedule,
        now: DateTime<Utc>,
    ) -> RepoResult<bool>;
    fn release_email(&self, job: &EmailJob) -> RepoResult<()>;
    /// Keeps the `Message-ID` an email is about to be sent with (conditional on the claim).
    fn assign_message_id(&self, job: &EmailJob, message_id: &str) -> RepoResult<bool>;
    /// Renews the lease of an email being sent; `false` if the claim was lost.
    fn extend_email(
        &self,
        job: &EmailJob,
        now: DateTime<Utc>,
        lease: std::time::Duration,
    ) -> RepoResult<bool>;
    /// Queues the reminders due on each account's date at `now` (SPEC §18, §27), each invoice
    /// and offset once; how many.
    fn queue_reminders(&self, now: DateTime<Utc>) -> RepoResult<usize>;
}

pub trait PaymentRepository {
    /// Records a payment of an open invoice (pending, or verified at once), never more than the
    /// amount due, with its events; a verified payment that covers the total pays the invoice.
    fn create_payment(&self, scope: Scope, new: NewPayment) -> RepoResult<Payment>;
    fn get_payment(&self, scope: Scope, id: PaymentId) -> RepoResult<Payment>;
    fn list_payments(
        &self,
        scope: Scope,
        filter: &PaymentFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Payment>>;
    /// Verifies or rejects a pending payment. Verifications of one invoice are serialised on
    /// the invoice row, so together they never exceed its total, and the one that covers it
    /// marks the invoice paid (`invoice.paid`) in the same transaction.
    fn change_payment(
        &self,
        scope: Scope,
        id: PaymentId,
        change: PaymentChange,
    ) -> RepoResult<Payment>;
    /// The customer's "I have paid" from the public page (number and capability token): a
    /// pending payment, never more than the amount due; never marks the invoice paid.
    fn report_payment(
        &self,
        number: &str,
        token: &str,
        report: PaymentReport,
    ) -> RepoResult<Payment>;
    /// The open (sent, viewed, overdue) invoices, newest first.
    fn list_payment_requests(
        &self,
        scope: Scope,
        page: PageRequest,
    ) -> RepoResult<Page<PaymentRequest>>;
}

pub trait ProductRepository {
    fn create_product(&self, scope: Scope, new: NewProduct) -> RepoResult<Product>;
    fn get_product(&self, scope: Scope, id: ProductId) -> RepoResult<Product>;
    fn list_products(
        &self,
        scope: Scope,
        filter: &ProductFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Product>>;
    fn update_product(
        &self,
        scope: Scope,
        id: ProductId,
        patch: ProductPatch,
    ) -> RepoResult<Product>;
    /// Refused (in use) once a line item names the product: archive it instead.
    fn delete_product(&self, scope: Scope, id: ProductId) -> RepoResult<()>;
}

/// Idempotency keys (SPEC §15), per account and environment.
pub trait IdempotencyRepository {
    /// Opens the transaction a request carrying `key` runs in, or says what it must answer
    /// instead. The key stays claimed exactly as long as that transaction is open, so a process
    /// that dies releases it at once, and the answer is stored in the same transaction as the
    /// request's effect: no crash can keep one without the other.
    fn begin_idempotent(
        &self,
        scope: Scope,
        key: &IdempotencyKey,
        request: &RequestFingerprint,
    ) -> RepoResult<IdempotencyClaim<Box<dyn IdempotentRequest>>>;
    /// Forgets keys first used before `before`, across tenants; how many.
    fn purge_idempotency_keys(&self, before: DateTime<Utc>) -> RepoResult<usize>;
}

/// The open transaction of a request that carries an idempotency key.
pub trait IdempotentRequest: Send + Sync {
    /// Repositories whose every call joins this transaction.
    fn repos(&self) -> Arc<dyn Repositories>;
    /// Stores the answer with the request's effect and commits both.
    fn commit(self: Box<Self>, answer: &StoredResponse) -> RepoResult<()>;
    /// Undoes the request's effect and frees the key. Dropping it without either also does.
    fn rollback(self: Box<Self>) -> RepoResult<()>;
}

/// Liveness of the store, for `/readyz`.
/// The merchant's profile and logo (SPEC §16), one per account and environment. A profile that
/// was never changed is read as its defaults (the account's name and currency).
pub trait ProfileRepository {
    fn get_profile(&self, scope: Scope) -> RepoResult<Profile>;
    /// The zone `scope` keeps its days in (SPEC §27): the profile's, UTC without one.
    fn time_zone(&self, scope: Scope) -> RepoResult<crate::time_zone::TimeZone>;
    fn update_profile(&self, scope: Scope, patch: ProfilePatch) -> RepoResult<Profile>;
    fn put_logo(&self, scope: Scope, logo: Logo) -> RepoResult<()>;
    fn get_logo(&self, scope: Scope) -> RepoResult<Option<Logo>>;
    /// `false` when there was none.
    fn delete_logo(&self, scope: Scope) -> RepoResult<bool>;
    /// Copies the test profile and logo of `scope`'s account over its live ones (SPEC §27;
    /// never keys, webhooks or secrets); the live profile as it is then.
    fn copy_profile_to_live(&self, scope: Scope) -> RepoResult<Profile>;
}

pub trait HealthCheck {
    fn ping(&self) -> RepoResult<()>;
}

/// What a process asks of a shared rate-limit bucket in one take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BucketTake {
    /// Requests waiting now; as many as fit are granted, the first ones first.
    pub requests: u32,
    /// Requests to grant ahead of demand, for the process to hand out during a short lease;
    /// granted only while the bucket keeps at least half its capacity after them, so spares
    /// never take what other processes' requests would need.
    pub spare: u32,
    /// The bucket refills one request per `interval` and holds `tolerance / interval + 1`.
    pub interval: std::time::Duration,
    pub tolerance: std::time::Duration,
}

/// What a take from a shared rate-limit bucket granted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Taken {
    /// Requests granted: the waiting ones first (up to `requests`), then spares.
    pub granted: u32,
    /// How far the bucket's theoretical arrival time (GCRA) is ahead of now after the
    /// decision, in seconds: 0 for a full bucket, `burst × interval` for an empty one.
    pub ahead_secs: f64,
}

/// Rate-limit buckets shared by every process on one database (GCRA: a bucket is one time).
pub trait RateLimits {
    /// Whether buckets are shared here; when not, each process limits on its own.
    fn shares_rate_limits(&self) -> bool;
    /// Takes from `bucket` what `ask` asks, as much as fits, by the database's clock, in one
    /// statement.
    fn take(&self, bucket: &str, ask: BucketTake) -> RepoResult<Taken>;
    /// Forgets buckets that are full again (they mean the same as no row); how many.
    fn purge_rate_limits(&self) -> RepoResult<usize>;
}

/// Dashboard users, their memberships, set-password links, sessions and the sign-in throttle
/// (SPEC §21). Users are not tenant data: one user may belong to several accounts, so these
/// methods name the account where it matters instead of taking a [`Scope`]. Tokens are only
/// ever passed and kept as their SHA-256 (`user::hash_token`).
pub trait UserRepository {
    /// Makes the user with `email` (created without a password if there is none) a member of
    /// `account` with `role`. `InUse` when they are a member already; `NotFound` for no account.
    fn add_member(&self, account: AccountId, email: &UserEmail, role: Role) -> RepoResult<Member>;
    /// The account's members, by email.
    fn list_members(&self, account: AccountId) -> RepoResult<Vec<Member>>;
    /// `NotFound` when the user is no member of `account` (a member of another account included);
    /// `InvalidTransition` (409 `invalid_state_transition`) for the last owner's demotion.
    fn change_member_role(
        &self,
        account: AccountId,
        user: UserId,
        role: Role,
    ) -> RepoResult<Member>;
    /// Ends the membership and the user's sessions in that account; the user stays (they may
    /// belong elsewhere). Refused like [`Self::change_member_role`] for the last owner.
    fn remove_member(&self, account: AccountId, user: UserId) -> RepoResult<()>;
    fn get_user(&self, id: UserId) -> RepoResult<User>;
    /// By [`UserEmail::normalized`]: `Ada@Example.com` finds `ada@example.com`.
    fn find_user_by_email(&self, email: &UserEmail) -> RepoResult<Option<User>>;
    /// The user and their password's hash, for a sign-in.
    fn find_credentials(&self, email: &UserEmail) -> RepoResult<Option<Credentials>>;
    /// The same by id, to confirm a signed-in user's password.
    fn get_credentials(&self, user: UserId) -> RepoResult<Credentials>;
    /// `InUse` when another user has that email.
    fn change_user_email(&self, user: UserId, email: &UserEmail) -> RepoResult<User>;
    /// The accounts the user belongs to, by account id.
    fn list_memberships(&self, user: UserId) -> RepoResult<Vec<Membership>>;
    /// Stores a new password hash (stamping `password_changed_at`), and in the same transaction
    /// ends every session of the user but `keep` (the one changing it) and voids their unused
    /// set-password links.
    fn set_password(
        &self,
        user: UserId,
        hash: &PasswordHash,
        at: DateTime<Utc>,
        keep: Option<SessionId>,
    ) -> RepoResult<User>;
    /// Keeps a set-password link (its token's hash, never the token).
    fn create_link(&self, link: NewLink) -> RepoResult<Link>;
    /// The set-password link while it works (unused, not expired), without using it: the
    /// page's form. Email-change links are never set-password links.
    fn find_link(&self, token_hash: &str, now: DateTime<Utc>) -> RepoResult<Option<Link>>;
    /// Uses the link: it answers once, however many callers race for it, and never after
    /// `expires_at`. An invitation makes its user a member of its account (keeping the role of
    /// one who is a member already), in the same transaction, and of no other account.
    fn consume_link(&self, token_hash: &str, now: DateTime<Utc>) -> RepoResult<Option<Link>>;
    /// An owner's invitation of `email` to the invitation's account, working from `now` for
    /// [`crate::user::INVITATION_VALIDITY`]: the user is created without a password if there
    /// is none; `InUse` when they are a member already; an earlier pending invitation of them to
    /// that account is replaced.
    /// `notice` (the invitation's email, when this server sends email) is queued in the same
    /// transaction.
    fn invite(
        &self,
        email: &UserEmail,
        invitation: Invitation,
        token_hash: &str,
        now: DateTime<Utc>,
        notice: Option<NewNotice>,
    ) -> RepoResult<Link>;
    /// A password reset asked for on the sign-in page: when `email` is a user's who belongs to
    /// an account, a link for `token_hash` working [`crate::user::EMAILED_RESET_VALIDITY`] and
    /// `notice` (its email) in one transaction; nothing for anyone else, nor when the user was
    /// sent one in the last minute (nobody can flood an inbox from the sign-in page). Whether
    /// it was sent is for the logs, never for the person asking.
    fn email_password_reset(
        &self,
        email: &UserEmail,
        token_hash: &str,
        now: DateTime<Utc>,
        notice: NewNotice,
    ) -> RepoResult<bool>;
    /// Keeps `link` (an [`NewLink::email_change`], replacing the user's earlier ones) and
    /// queues the notices to the new and the old address, in one transaction; `InUse` when the
    /// new email is another user's; `false` (nothing done) when the user asked less than a
    /// minute before.
    fn request_email_change(
        &self,
        link: NewLink,
        to_new: NewNotice,
        to_old: NewNotice,
    ) -> RepoResult<bool>;
    /// Uses an email-change link: its user's email becomes the one it confirms (`InUse` when
    /// another user took it meanwhile). `None` when the link is unknown, used or expired.
    fn confirm_email_change(
        &self,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> RepoResult<Option<User>>;
    /// The account's invitations that still work, newest first.
    fn list_invitations(
        &self,
        account: AccountId,
        now: DateTime<Utc>,
    ) -> RepoResult<Vec<PendingInvitation>>;
    /// Withdraws an invitation; `NotFound` when it is no pending invitation to `account`.
    fn revoke_invitation(&self, account: AccountId, id: i64) -> RepoResult<()>;
    /// In one transaction: uses the link (as [`Self::consume_link`]), then
    /// [`Self::set_password`] for its user with no session kept. `None` when the link is unknown, used or expired.
    fn set_password_with_link(
        &self,
        token_hash: &str,
        hash: &PasswordHash,
        now: DateTime<Utc>,
    ) -> RepoResult<Option<User>>;
    /// Turns the second factor on: the secret, the step of the code that proved it, and the
    /// hashes of fresh recovery codes (replacing any), in one transaction.
    fn enable_totp(
        &self,
        user: UserId,
        secret: &TotpSecret,
        step: i64,
        recovery_hashes: &[String],
    ) -> RepoResult<()>;
    /// Off: the secret and the recovery codes go.
    fn disable_totp(&self, user: UserId) -> RepoResult<()>;
    /// New recovery codes (their hashes), replacing the old ones.
    fn replace_recovery_codes(&self, user: UserId, recovery_hashes: &[String]) -> RepoResult<()>;
    /// The user's secret and the last step used, while the factor is on.
    fn totp_of(&self, user: UserId) -> RepoResult<Option<(TotpSecret, Option<i64>)>>;
    /// Uses `step` of the user's codes: `false` when it (or a later one) was used already,
    /// however many requests race with it.
    fn use_totp_step(&self, user: UserId, step: i64) -> RepoResult<bool>;
    /// Uses a recovery code by its hash: `false` when the user has no such unused code.
    fn use_recovery_code(&self, user: UserId, hash: &str, at: DateTime<Utc>) -> RepoResult<bool>;
    fn recovery_codes_left(&self, user: UserId) -> RepoResult<u32>;
    /// The secret being set up in this session, chosen by the server: the one kept, else
    /// `fresh` (kept from now on). Turning the factor on forgets it.
    fn pending_totp(&self, session: SessionId, fresh: &TotpSecret) -> RepoResult<TotpSecret>;
    /// The second factor was given in this session.
    fn confirm_second_factor(&self, session: SessionId, at: DateTime<Utc>) -> RepoResult<Session>;
    /// Whether every member of the account must sign in with a second factor.
    fn require_totp(&self, account: AccountId, required: bool) -> RepoResult<()>;
    fn account_requires_totp(&self, account: AccountId) -> RepoResult<bool>;
    /// A session in the test environment. `Forbidden` when the user is no member of the account.
    fn create_session(&self, new: NewSession) -> RepoResult<Session>;
    /// The live session with that token hash, its user and their role now, noting the use
    /// (`last_seen_at`, at most once a minute, so a session may end up to a minute early, never
    /// late). A session past its idle or absolute limit, or whose membership is gone, is deleted
    /// and not returned.
    fn find_session(&self, token_hash: &str, now: DateTime<Utc>) -> RepoResult<Option<SignedIn>>;
    fn switch_session_environment(
        &self,
        session: SessionId,
        environment: Environment,
    ) -> RepoResult<Session>;
    /// The password was typed again in this session (re-authentication, SPEC §21).
    fn confirm_session_password(
        &self,
        session: SessionId,
        at: DateTime<Utc>,
    ) -> RepoResult<Session>;
    /// Ends one of the user's sessions; `NotFound` for a session that is not theirs.
    fn delete_session(&self, user: UserId, session: SessionId) -> RepoResult<()>;
    /// Ends every session of the user but `keep`; how many.
    fn delete_other_sessions(&self, user: UserId, keep: Option<SessionId>) -> RepoResult<usize>;
    /// The user's live sessions, newest first.
    fn list_sessions(&self, user: UserId, now: DateTime<Utc>) -> RepoResult<Vec<Session>>;
    /// A failed sign-in of the pair, seen by every process on the database.
    fn record_login_failure(&self, key: &ThrottleKey, at: DateTime<Utc>) -> RepoResult<()>;
    /// The pair's failures at or after `since`.
    fn count_login_failures(&self, key: &ThrottleKey, since: DateTime<Utc>) -> RepoResult<u64>;
    /// Forgets the pair's failures (a successful sign-in).
    fn clear_login_failures(&self, key: &ThrottleKey) -> RepoResult<()>;
    /// Deletes ended sessions, expired links and failures older than the throttle's window,
    /// across users; how many rows.
    fn purge_user_state(&self, now: DateTime<Utc>) -> RepoResult<usize>;
    /// While the database has no user at all: creates `email` as an owner of the first account
    /// (the Default account of a new install) with an invitation link for `token` from `now`,
    /// exactly once even when processes start together. `None` when a user exists or there is
    /// no account.
    fn bootstrap_first_owner(
        &self,
        email: &UserEmail,
        token: &SecretToken,
        now: DateTime<Utc>,
    ) -> RepoResult<Option<(AccountId, User)>>;
}

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
    + crate::gateway::GatewayRepository
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
        + crate::gateway::GatewayRepository
        + crate::gateway::GatewayRepository
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
