//! The email log and outbox (SPEC §18): the tenant's view (list, get, resend) and the mail
//! workers' and scheduler's side (claim, record, reminders), on the leases of [`crate::jobs`].

use crate::capped::{capped_page, count_up_to_cap, uncounted_page};
use crate::connection::AnyConnection;
use crate::documents::DocumentRow;
use crate::events::record;
use crate::invoice_rows::InvoiceRow;
use crate::jobs::{self, EMAILS};
use crate::local_days::zone_of;
use crate::outbox::{insert, json, queue, Document, EmailRow, Refs};
use crate::profiles::load_profile;
use crate::quotation_rows::QuotationRow;
use crate::rows::{from_db, missing_or_forbidden, now_db, scoped, to_db};
use crate::schema::{emails, invoice_reminders, invoices};
use crate::store::{Store, TxError};
use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Timestamp};
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::document::DocumentKind;
use invoicing_domain::document_rules::DocumentStatus;
use invoicing_domain::email::{
    reminder_due, EmailFilter, EmailId, EmailJob, EmailKind, EmailRequest, EmailStatus,
    EmailSubject, OutgoingEmail, SendOutcome, StatementOf,
};
use invoicing_domain::paging::{Page, PageRequest};
use invoicing_domain::parties::{Issuer, Parties, Recipient};
use invoicing_domain::ports::{EmailQueue, EmailRepository, RepoError, RepoResult};
use invoicing_domain::profile::{Reminders, REMINDER_DAYS_MAX};
use invoicing_domain::report::{statement_reference, DateRange};
use invoicing_domain::tenant::{AccountId, Environment, Scope};
use invoicing_domain::time_zone::TimeZone;
use invoicing_domain::webhook_delivery::RetrySchedule;
use std::collections::HashMap;

fn load_email(conn: &mut AnyConnection, scope: Scope, id: EmailId) -> Result<EmailRow, TxError> {
    match scoped!(emails, scope)
        .filter(emails::id.eq(id.0))
        .select(EmailRow::as_select())
        .first::<EmailRow>(conn)
        .optional()?
    {
        Some(row) => Ok(row),
        None => Err(missing_or_forbidden!(conn, emails, id.0).into()),
    }
}

fn not_a_draft(what: &str) -> TxError {
    RepoError::InvalidTransition(format!(
        "a draft {what} has no public page to email: send it first"
    ))
    .into()
}

/// The number and customer of a document that has left its draft (409 for a draft).
fn sent_document<R: DocumentRow>(
    conn: &mut AnyConnection,
    scope: Scope,
    id: i64,
) -> Result<(String, CustomerId), TxError> {
    let row = R::reload(conn, scope, id)?;
    if row.status()? == R::Status::DRAFT {
        return Err(not_a_draft(R::Status::KIND.as_str()));
    }
    Ok((row.number().to_string(), row.customer()))
}

/// Queues an email about a document that has left draft, in the caller's transaction.
pub(crate) fn queue_document(
    conn: &mut AnyConnection,
    scope: Scope,
    about: EmailSubject,
    request: EmailRequest,
) -> Result<OutgoingEmail, TxError> {
    let (kind, email_kind, id, (number, customer)) = match about {
        EmailSubject::Invoice(id) => (
            DocumentKind::Invoice,
            EmailKind::Invoice,
            id,
            sent_document::<InvoiceRow>(conn, scope, id)?,
        ),
        EmailSubject::Quotation(id) => (
            DocumentKind::Quotation,
            EmailKind::Quotation,
            id,
            sent_document::<QuotationRow>(conn, scope, id)?,
        ),
        EmailSubject::CreditNote(id) => {
            let note = crate::credit_notes::credit_note_ref(conn, scope, id)?;
            let customer = CustomerId(note.customer_id);
            (
                DocumentKind::CreditNote,
                EmailKind::CreditNote,
                id,
                (note.number, customer),
            )
        }
        EmailSubject::Statement(of) => return queue_statement(conn, scope, of, request),
    };
    let doc = Document {
        kind,
        id,
        number: &number,
        customer,
    };
    queue(conn, scope, email_kind, doc, request)
}

/// Queues a customer's statement, its currency fixed now (the account's default unless asked).
fn queue_statement(
    conn: &mut AnyConnection,
    scope: Scope,
    of: StatementOf,
    request: EmailRequest,
) -> Result<OutgoingEmail, TxError> {
    let customer = crate::customers::load_scoped(conn, scope, of.customer)?;
    let profile = load_profile(conn, scope)?;
    let currency = of.currency.unwrap_or(profile.default_currency);
    let parties = Parties {
        issuer: Issuer::from_profile(&profile, None),
        recipient: Recipient::from_customer(&customer),
    };
    let refs = Refs {
        customer_id: Some(customer.id.0),
        statement: Some((currency, of.range)),
        ..Refs::default()
    };
    let number = statement_reference(customer.id.0, of.range.to);
    insert(
        conn,
        scope,
        EmailKind::Statement,
        &parties,
        &number,
        refs,
        request,
    )
}

impl EmailRepository for Store {
    fn list_emails(
        &self,
        scope: Scope,
        filter: &EmailFilter,
        page: PageRequest,
    ) -> RepoResult<Page<OutgoingEmail>> {
        self.read(|conn| {
            let query = || {
                let mut q = scoped!(emails, scope).into_boxed();
                if let Some(s) = filter.status {
                    q = q.filter(emails::state.eq(s.as_str()));
                }
                if let Some(i) = filter.invoice_id {
                    q = q.filter(emails::invoice_id.eq(i));
                }
                if let Some(i) = filter.quotation_id {
                    q = q.filter(emails::quotation_id.eq(i));
                }
                q
            };
            // Reminders and receipts add emails on their own: counted up to the cap (SPEC §5).
            let rows = crate::rows::below!(query(), emails, page)
                .order((emails::created_at.desc(), emails::id.desc()))
                .limit(page.limit() + 1)
                .offset(page.offset())
                .select(EmailRow::as_select())
                .load::<EmailRow>(conn)?;
            let convert =
                |rows: Vec<EmailRow>| rows.into_iter().map(EmailRow::into_domain).collect();
            if !page.counts() {
                return uncounted_page(rows, page, convert);
            }
            let counted = count_up_to_cap(conn, query().select(emails::id))?;
            capped_page(rows, page, counted, convert)
        })
    }

    fn get_email(&self, scope: Scope, id: EmailId) -> RepoResult<OutgoingEmail> {
        self.read(|conn| load_email(conn, scope, id)?.into_domain())
    }

    fn resend_document(
        &self,
        scope: Scope,
        about: EmailSubject,
        request: EmailRequest,
    ) -> RepoResult<OutgoingEmail> {
        self.write(|conn| queue_document(conn, scope, about, request))
    }
}

fn job_for(row: EmailRow, claim: &str) -> Result<EmailJob, TxError> {
    let kind = row.kind()?;
    let about = match (row.credit_note_id, row.invoice_id, row.quotation_id) {
        (Some(c), _, _) => EmailSubject::CreditNote(c),
        (None, Some(i), _) => EmailSubject::Invoice(i),
        (None, None, Some(q)) => EmailSubject::Quotation(q),
        (None, None, None) => statement_of(&row)
            .ok_or_else(|| RepoError::Internal(format!("email {} names no document", row.id)))?,
    };
    Ok(EmailJob {
        id: EmailId(row.id),
        claim: claim.to_string(),
        scope: Scope::new(
            AccountId(row.account_id),
            Environment::from_livemode(row.livemode),
        ),
        kind,
        about,
        to: row.recipients(),
        cc: row.cc(),
        subject: row.subject.clone(),
        message: row.message.clone(),
        message_id: row.message_id.clone(),
        attempt: u32::try_from(row.attempts).unwrap_or(0).saturating_add(1),
    })
}

/// The statement a `statement` email carries, as queued.
fn statement_of(row: &EmailRow) -> Option<EmailSubject> {
    let currency = Currency::parse(row.statement_currency.as_deref()?).ok()?;
    Some(EmailSubject::Statement(StatementOf {
        customer: CustomerId(row.customer_id?),
        currency: Some(currency),
        range: DateRange {
            from: row.statement_from?,
            to: row.statement_to?,
        },
    }))
}

/// An open invoice that may owe a reminder, as the sweep reads it.
#[derive(Queryable)]
struct Candidate {
    id: i64,
    account_id: i64,
    livemode: bool,
    due_date: NaiveDate,
    sent_at: Option<NaiveDateTime>,
    created_at: NaiveDateTime,
    reminders: Option<String>,
}

impl Candidate {
    fn scope(&self) -> Scope {
        Scope::new(
            AccountId(self.account_id),
            Environment::from_livemode(self.livemode),
        )
    }
}

const OPEN: [&str; 3] = ["sent", "viewed", "overdue"];

/// In one transaction: the reminder marker for (invoice, offset) and its email, or nothing if
/// another sweep got there first or the invoice stopped being open.
fn remind(conn: &mut AnyConnection, c: &Candidate, offset: i32) -> Result<bool, TxError> {
    let scope = c.scope();
    let row = InvoiceRow::reload(conn, scope, c.id)?;
    let open = OPEN.contains(&row.status.as_str())
        && row.total_cents > row.amount_paid_cents + row.amount_credited_cents;
    if !open {
        return Ok(false);
    }
    // The primary key decides which sweep sends it, in every process.
    let inserted = diesel::sql_query(
        "INSERT INTO invoice_reminders (account_id, invoice_id, offset_days, email_id, created_at) \
         VALUES ($1, $2, $3, 0, $4) ON CONFLICT DO NOTHING",
    )
    .bind::<BigInt, _>(c.account_id)
    .bind::<BigInt, _>(c.id)
    .bind::<Integer, _>(offset)
    .bind::<Timestamp, _>(now_db())
    .execute(conn)?;
    if inserted == 0 {
        return Ok(false);
    }
    let doc = Document {
        kind: DocumentKind::Invoice,
        id: row.id,
        number: &row.number,
        customer: CustomerId(row.customer_id),
    };
    let email = queue(
        conn,
        scope,
        EmailKind::Reminder,
        doc,
        EmailRequest::default(),
    )?;
    diesel::update(
        invoice_reminders::table
            .filter(invoice_reminders::account_id.eq(c.account_id))
            .filter(invoice_reminders::invoice_id.eq(c.id))
            .filter(invoice_reminders::offset_days.eq(offset)),
    )
    .set(invoice_reminders::email_id.eq(email.id.0))
    .execute(conn)?;
    Ok(true)
}

impl EmailQueue for Store {
    fn next_email_due(&self) -> RepoResult<Option<DateTime<Utc>>> {
        self.read(|conn| jobs::next_due(conn, &EMAILS))
    }

    fn claim_emails(
        &self,
        now: DateTime<Utc>,
        lease: std::time::Duration,
        limit: u32,
    ) -> RepoResult<Vec<EmailJob>> {
        if self
            .read(|conn| jobs::due(conn, &EMAILS, now, 1, false))?
            .is_empty()
        {
            return Ok(Vec::new());
        }
        self.write(|conn| {
            let (ids, claim) = jobs::claim(conn, &EMAILS, now, lease, limit)?;
            let rows = emails::table
                .filter(emails::id.eq_any(&ids))
                .select(EmailRow::as_select())
                .load::<EmailRow>(conn)?;
            rows.into_iter().map(|r| job_for(r, &claim)).collect()
        })
    }

    fn record_email(
        &self,
        job: &EmailJob,
        outcome: &SendOutcome,
        schedule: &RetrySchedule,
        now: DateTime<Utc>,
    ) -> RepoResult<bool> {
        self.write(|conn| {
            if !jobs::settle(conn, &EMAILS, job.id.0, &job.claim)? {
                return Ok(false);
            }
            let attempts = i32::try_from(job.attempt).unwrap_or(i32::MAX);
            let row = emails::table.filter(emails::id.eq(job.id.0));
            let stamp = to_db(now);
            let event = match outcome {
                SendOutcome::Sent {
                    message_id,
                    refused,
                } => {
                    diesel::update(row)
                        .set((
                            emails::state.eq(EmailStatus::Sent.as_str()),
                            emails::attempts.eq(attempts),
                            emails::message_id.eq(message_id),
                            emails::sent_at.eq(stamp),
                            emails::last_error.eq(None::<String>),
                            emails::refused_recipients.eq(json(refused)),
                            emails::updated_at.eq(stamp),
                        ))
                        .execute(conn)?;
                    Some("email.sent")
                }
                // Every recipient refused is a permanent failure that keeps the refusals.
                SendOutcome::Transient(error)
                | SendOutcome::Permanent(error)
                | SendOutcome::AllRefused { error, .. } => {
                    let retry = match outcome {
                        SendOutcome::Transient(_) => schedule.retry_delay(job.attempt),
                        _ => None,
                    };
                    let (state, next) = match retry {
                        Some(delay) => (
                            EmailStatus::Queued,
                            to_db(now + chrono::Duration::from_std(delay).unwrap_or_default()),
                        ),
                        None => (EmailStatus::Failed, stamp),
                    };
                    diesel::update(row)
                        .set((
                            emails::state.eq(state.as_str()),
                            emails::attempts.eq(attempts),
                            emails::last_error.eq(error),
                            emails::refused_recipients.eq(json(outcome.refused())),
                            emails::next_attempt_at.eq(next),
                            emails::updated_at.eq(stamp),
                        ))
                        .execute(conn)?;
                    (state == EmailStatus::Failed).then_some("email.failed")
                }
            };
            if let Some(event) = event {
                let email = load_email(conn, job.scope, job.id)?.into_domain()?;
                record(conn, job.scope, event, &email)?;
            }
            Ok(true)
        })
    }

    fn assign_message_id(&self, job: &EmailJob, message_id: &str) -> RepoResult<bool> {
        self.write(|conn| {
            let n = diesel::update(
                emails::table
                    .filter(emails::id.eq(job.id.0))
                    .filter(emails::claim.eq(&job.claim)),
            )
            .set(emails::message_id.eq(message_id))
            .execute(conn)?;
            Ok(n == 1)
        })
    }

    fn extend_email(
        &self,
        job: &EmailJob,
        now: DateTime<Utc>,
        lease: std::time::Duration,
    ) -> RepoResult<bool> {
        self.write(|conn| {
            jobs::extend(
                conn,
                &EMAILS,
                job.id.0,
                &job.claim,
                jobs::lease_end(now, lease),
            )
        })
    }

    fn release_email(&self, job: &EmailJob) -> RepoResult<()> {
        self.write(|conn| {
            jobs::settle(conn, &EMAILS, job.id.0, &job.claim)?;
            Ok(())
        })
    }

    fn queue_reminders(&self, now: DateTime<Utc>) -> RepoResult<usize> {
        if !self.mail_enabled() {
            return Ok(0);
        }
        // Every account's date is within a day of UTC's.
        let reach = chrono::Days::new(u64::from(REMINDER_DAYS_MAX.unsigned_abs()) + 1);
        let utc_today = now.date_naive();
        let (from, until) = (utc_today - reach, utc_today + reach);
        let candidates: Vec<Candidate> = self.read(|conn| {
            Ok(invoices::table
                .filter(invoices::status.eq_any(OPEN))
                .filter(
                    invoices::total_cents
                        .gt(invoices::amount_paid_cents + invoices::amount_credited_cents),
                )
                .filter(invoices::due_date.between(from, until))
                .select((
                    invoices::id,
                    invoices::account_id,
                    invoices::livemode,
                    invoices::due_date,
                    invoices::sent_at,
                    invoices::created_at,
                    invoices::reminders,
                ))
                .load(conn)?)
        })?;
        // What was already sent, for all candidates in one query rather than one each.
        let ids: Vec<i64> = candidates.iter().map(|c| c.id).collect();
        let mut sent: HashMap<i64, Vec<i32>> = HashMap::new();
        for chunk in ids.chunks(1000) {
            let rows: Vec<(i64, i32)> = self.read(|conn| {
                Ok(invoice_reminders::table
                    .filter(invoice_reminders::invoice_id.eq_any(chunk))
                    .select((
                        invoice_reminders::invoice_id,
                        invoice_reminders::offset_days,
                    ))
                    .load(conn)?)
            })?;
            for (invoice, offset) in rows {
                sent.entry(invoice).or_default().push(offset);
            }
        }
        let mut account_offsets: HashMap<Scope, Reminders> = HashMap::new();
        let mut zones: HashMap<Scope, TimeZone> = HashMap::new();
        let mut queued = 0;
        for c in candidates {
            let offsets = match &c.reminders {
                Some(own) => Reminders::from_json(own),
                None => match account_offsets.get(&c.scope()) {
                    Some(r) => r.clone(),
                    None => {
                        let r = self.read(|conn| Ok(load_profile(conn, c.scope())?.reminders))?;
                        account_offsets.insert(c.scope(), r.clone());
                        r
                    }
                },
            };
            if offsets.days().is_empty() {
                continue;
            }
            let zone = match zones.get(&c.scope()) {
                Some(zone) => *zone,
                None => {
                    let zone = self.read(|conn| zone_of(conn, c.scope()))?;
                    zones.insert(c.scope(), zone);
                    zone
                }
            };
            let today = zone.today(now);
            let already = sent.get(&c.id).map(Vec::as_slice).unwrap_or_default();
            let sent_on = zone.today(from_db(c.sent_at.unwrap_or(c.created_at)));
            let Some(offset) = reminder_due(offsets.days(), c.due_date, sent_on, today, already)
            else {
                continue;
            };
            if self.write(|conn| remind(conn, &c, offset))? {
                queued += 1;
            }
        }
        Ok(queued)
    }
}
