//! Email delivery: one claimed email composed from its document as it is now (the PDF
//! attached) and sent over SMTP, run by the durable-job workers of [`crate::jobs`].

use crate::jobs::JobRunner;
use anyhow::{anyhow, Result};
use chrono::{DateTime, Utc};
use invoicing_domain::credit_note::CreditNoteId;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::email::{EmailJob, EmailKind, EmailSubject, SendOutcome};
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::portal::{self, PortalLink};
use invoicing_domain::ports::{
    CreditNoteRepository, EmailQueue, InvoiceRepository, PortalRepository, QuotationRepository,
    RepoError, RepoResult, ReportRepository,
};
use invoicing_domain::quotation::QuotationId;
use invoicing_domain::time::whole_seconds;
use invoicing_domain::webhook_delivery::RetrySchedule;
use invoicing_mail::{compose, Letter, Mailer, Sender, SmtpSettings};
use invoicing_render as render;
use invoicing_storage::Store;
use std::time::Duration;

/// What `SMTP_URL` and friends configure; checked once at start.
#[derive(Clone)]
pub struct MailConfig {
    pub mailer: Mailer,
    pub sender: Sender,
    pub schedule: RetrySchedule,
}

impl MailConfig {
    /// `None` when `SMTP_URL` is unset: mail is off.
    pub fn from_settings(
        settings: Option<SmtpSettings>,
        mail_from: &str,
        retry_schedule: &str,
    ) -> Result<Option<MailConfig>> {
        let Some(settings) = settings else {
            return Ok(None);
        };
        let mailer = Mailer::new(&settings)?;
        let sender = Sender::parse(mail_from).map_err(|e| anyhow!(e))?;
        let schedule = RetrySchedule::parse(retry_schedule)
            .map_err(|e| anyhow!("MAIL_RETRY_SCHEDULE: {e}"))?;
        Ok(Some(MailConfig {
            mailer,
            sender,
            schedule,
        }))
    }
}

pub struct MailRunner {
    store: Store,
    config: MailConfig,
}

impl MailRunner {
    pub fn new(store: Store, config: MailConfig) -> MailRunner {
        MailRunner { store, config }
    }

    /// A new link to the customer's portal for an email that goes to the customer's own
    /// address alone (SPEC §26): a copy sent elsewhere opens its document, not all of them.
    fn portal_link(
        &self,
        job: &EmailJob,
        customer: CustomerId,
        customer_email: Option<&str>,
    ) -> RepoResult<Option<String>> {
        let own = |address: &String| {
            customer_email.is_some_and(|email| address.eq_ignore_ascii_case(email))
        };
        if !(job.cc.is_empty() && !job.to.is_empty() && job.to.iter().all(own)) {
            return Ok(None);
        }
        let expires_at = whole_seconds(Utc::now() + chrono::Duration::days(portal::DEFAULT_DAYS));
        let token = match self
            .store
            .create_portal_link(job.scope, customer, expires_at)
        {
            Ok(token) => token,
            // A customer deleted since: the email goes without the link.
            Err(RepoError::NotFound) => return Ok(None),
            Err(e) => return Err(e),
        };
        let url = self.store.public_url();
        Ok(Some(PortalLink::new(&url, &token, expires_at).url))
    }

    /// The message as the document stands now; a document or render failure that retrying
    /// cannot fix fails it at once.
    fn deliver(&self, job: &EmailJob) -> SendOutcome {
        let loaded = match job.about {
            EmailSubject::Invoice(id) => {
                let shown = self.store.invoice_as_shown(job.scope, InvoiceId(id));
                // A reminder queued before a payment or a cancellation is not sent after it.
                if let Ok(s) = &shown {
                    let inv = &s.invoice;
                    let owed = inv.status.is_open() && inv.amount_due_cents > 0;
                    if job.kind == EmailKind::Reminder && !owed {
                        return SendOutcome::Permanent(format!(
                            "not sent: invoice {} is {} with {} due",
                            inv.invoice_number, inv.status, inv.amount_due_cents
                        ));
                    }
                }
                shown.map(|shown| {
                    let reply_to = shown.parties.issuer.email.clone();
                    let zone = shown.parties.issuer.time_zone;
                    let paid_on = shown.invoice.paid_at.map(|t| zone.today(t));
                    let customer = shown.invoice.customer_id;
                    (
                        render::invoice_document(shown),
                        reply_to,
                        paid_on,
                        zone,
                        customer,
                    )
                })
            }
            EmailSubject::Quotation(id) => self
                .store
                .quotation_as_shown(job.scope, QuotationId(id))
                .map(|shown| {
                    let reply_to = shown.parties.issuer.email.clone();
                    let zone = shown.parties.issuer.time_zone;
                    let customer = shown.quotation.customer_id;
                    (
                        render::quotation_document(shown),
                        reply_to,
                        None,
                        zone,
                        customer,
                    )
                }),
            EmailSubject::CreditNote(id) => self
                .store
                .credit_note_as_shown(job.scope, CreditNoteId(id))
                .map(|shown| {
                    let reply_to = shown.parties.issuer.email.clone();
                    let zone = shown.parties.issuer.time_zone;
                    let customer = shown.credit_note.customer_id;
                    (
                        render::credit_note_document(shown),
                        reply_to,
                        None,
                        zone,
                        customer,
                    )
                }),
            EmailSubject::Statement(of) => self
                .store
                .statement(job.scope, of.customer, of.currency, of.range)
                .map(|shown| {
                    let reply_to = shown.parties.issuer.email.clone();
                    let zone = shown.parties.issuer.time_zone;
                    let today = zone.today(Utc::now());
                    (
                        render::statement_document(shown, today),
                        reply_to,
                        None,
                        zone,
                        of.customer,
                    )
                }),
        };
        let (document, reply_to, paid_on, zone, customer) = match loaded {
            Ok(loaded) => loaded,
            Err(e @ RepoError::Unavailable(_)) => {
                return SendOutcome::Transient(format!("reading the document: {e}"))
            }
            Err(e) => return SendOutcome::Permanent(format!("reading the document: {e}")),
        };
        let pdf = match render::render_pdf(&document) {
            Ok(pdf) => pdf,
            Err(e) => return SendOutcome::Permanent(format!("rendering the PDF: {e}")),
        };
        let portal = match self.portal_link(job, customer, document.buyer.email.as_deref()) {
            Ok(portal) => portal,
            Err(e) => return SendOutcome::Transient(format!("making the portal link: {e}")),
        };
        let letter = Letter {
            kind: job.kind,
            to: &job.to,
            cc: &job.cc,
            subject: &job.subject,
            message: job.message.as_deref(),
            document: &document,
            pdf,
            reply_to: reply_to.as_deref(),
            paid_on,
            today: zone.today(Utc::now()),
            portal_link: portal.as_deref(),
        };
        let message_id = match &job.message_id {
            Some(id) => id.clone(),
            None => {
                let id = self.config.sender.new_message_id();
                match self.store.assign_message_id(job, &id) {
                    Ok(true) => id,
                    Ok(false) => return SendOutcome::Transient("the claim was lost".into()),
                    Err(e) => {
                        return SendOutcome::Transient(format!("keeping the Message-ID: {e}"))
                    }
                }
            }
        };
        match compose(&self.config.sender, letter, &message_id) {
            Ok(message) => {
                // Refused recipients are named as the email lists them.
                let listed: Vec<String> = job.to.iter().chain(&job.cc).cloned().collect();
                self.config.mailer.send(&message, &message_id, &listed)
            }
            Err(e) => SendOutcome::Permanent(e),
        }
    }
}

impl JobRunner for MailRunner {
    type Job = EmailJob;
    const NAME: &'static str = "mail";
    /// Renewed while a message is being sent, however slow the server; a message a dead
    /// process held is sent again a minute later.
    const LEASE: Duration = Duration::from_secs(60);

    fn claim(&self, now: DateTime<Utc>, lease: Duration) -> RepoResult<Vec<EmailJob>> {
        self.store.claim_emails(now, lease, 1)
    }

    fn next_due(&self) -> RepoResult<Option<DateTime<Utc>>> {
        self.store.next_email_due()
    }

    fn extend(&self, job: &EmailJob, now: DateTime<Utc>, lease: Duration) -> RepoResult<bool> {
        self.store.extend_email(job, now, lease)
    }

    fn run_ref(&self, job: &EmailJob) {
        let outcome = self.deliver(job);
        let result = self
            .store
            .record_email(job, &outcome, &self.config.schedule, Utc::now());
        let id = job.id.0;
        let retries = self.config.schedule.retry_delay(job.attempt).is_some();
        match (result, &outcome) {
            (
                Ok(true),
                SendOutcome::Sent {
                    message_id,
                    refused,
                },
            ) => {
                log::info!(
                    "mail: email {id} ({}) sent to {} as {message_id}",
                    job.kind.as_str(),
                    (job.to.len() + job.cc.len()).saturating_sub(refused.len())
                );
                for r in refused {
                    log::warn!("mail: email {id}: {} refused: {}", r.address, r.reply);
                }
            }
            (Ok(true), SendOutcome::AllRefused { error, refused }) => log::warn!(
                "mail: email {id} failed for good: all {} recipients refused, the last: {error}",
                refused.len()
            ),
            (Ok(true), SendOutcome::Transient(e)) if retries => log::warn!(
                "mail: email {id} attempt {} failed, will retry: {e}",
                job.attempt
            ),
            (Ok(true), SendOutcome::Transient(e)) => log::warn!(
                "mail: email {id} attempt {} failed, the last one: {e}",
                job.attempt
            ),
            (Ok(true), SendOutcome::Permanent(e)) => {
                log::warn!("mail: email {id} failed for good: {e}")
            }
            (Ok(false), _) => log::warn!("mail: email {id} was claimed elsewhere meanwhile"),
            (Err(e), _) => log::warn!("mail: recording email {id}: {e}"),
        }
    }

    fn release(&self, job: &EmailJob) -> RepoResult<()> {
        self.store.release_email(job)
    }
}
