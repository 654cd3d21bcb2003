//! Mail to people (invitations, password resets, test emails): a queue of the one durable-job
//! mechanism (`jobs`), beside customers' `emails`. A settled notice keeps who it went to and how
//! it ended; its body and link (a one-time token, possibly) are cleared.

use crate::connection::AnyConnection;
use crate::jobs::{self, Queue};
use crate::rows::{from_db, now_db, returning, to_db};
use crate::schema::notices;
use crate::store::{Store, TxError};
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use invoicing_domain::email::{EmailStatus, SendOutcome};
use invoicing_domain::locale::Locale;
use invoicing_domain::notice::{NewNotice, Notice, NoticeId, NoticeJob, NoticeKind};
use invoicing_domain::ports::{NoticeQueue, NoticeRepository, RepoError, RepoResult};
use invoicing_domain::tenant::AccountId;
use invoicing_domain::webhook_delivery::RetrySchedule;

pub(crate) const NOTICES: Queue = Queue {
    table: "notices",
    pending: "queued",
    ready: "TRUE",
};

#[derive(Queryable, Selectable)]
#[diesel(table_name = notices)]
struct NoticeRow {
    id: i64,
    kind: String,
    recipient: String,
    locale: String,
    sender_name: String,
    subject: String,
    body: Option<String>,
    link: Option<String>,
    state: String,
    attempts: i32,
    last_error: Option<String>,
    sent_at: Option<NaiveDateTime>,
    created_at: NaiveDateTime,
}

impl NoticeRow {
    fn kind(&self) -> Result<NoticeKind, TxError> {
        NoticeKind::parse(&self.kind).ok_or_else(|| {
            RepoError::Internal(format!("notice {} has kind {:?}", self.id, self.kind)).into()
        })
    }

    fn into_domain(self) -> Result<Notice, TxError> {
        let status = EmailStatus::parse(&self.state).ok_or_else(|| {
            RepoError::Internal(format!("notice {} has state {:?}", self.id, self.state))
        })?;
        Ok(Notice {
            id: NoticeId(self.id),
            kind: self.kind()?,
            recipient: self.recipient,
            status,
            attempts: u32::try_from(self.attempts).unwrap_or(0),
            last_error: self.last_error,
            sent_at: self.sent_at.map(from_db),
            created_at: from_db(self.created_at),
        })
    }

    fn into_job(self, claim: &str) -> Result<NoticeJob, TxError> {
        Ok(NoticeJob {
            id: NoticeId(self.id),
            claim: claim.to_string(),
            kind: self.kind()?,
            locale: Locale::parse(&self.locale).unwrap_or(Locale::DEFAULT),
            recipient: self.recipient,
            sender_name: self.sender_name,
            subject: self.subject,
            body: self.body.unwrap_or_default(),
            link: self.link,
            attempt: u32::try_from(self.attempts).unwrap_or(0).saturating_add(1),
        })
    }
}

/// Queues `notice` in the caller's transaction and wakes this process's workers (other
/// processes: PostgreSQL's trigger, or their next look).
pub(crate) fn queue(conn: &mut AnyConnection, notice: &NewNotice) -> Result<Notice, TxError> {
    let now = now_db();
    let row = diesel::insert_into(notices::table)
        .values((
            notices::account_id.eq(notice.account_id.map(|a| a.0)),
            notices::kind.eq(notice.kind.as_str()),
            notices::recipient.eq(notice.recipient.as_str()),
            notices::locale.eq(notice.locale.code()),
            notices::sender_name.eq(&notice.sender_name),
            notices::subject.eq(&notice.subject),
            notices::body.eq(&notice.body),
            notices::link.eq(&notice.link),
            notices::state.eq(EmailStatus::Queued.as_str()),
            notices::attempts.eq(0),
            notices::next_attempt_at.eq(now),
            notices::created_at.eq(now),
            notices::updated_at.eq(now),
        ))
        .returning(returning::<NoticeRow>())
        .get_result::<NoticeRow>(conn)?;
    crate::wakeup::bell().ring();
    row.into_domain()
}

impl NoticeRepository for Store {
    fn queue_notice(&self, notice: NewNotice) -> RepoResult<Notice> {
        self.write(|conn| queue(conn, &notice))
    }

    fn latest_notice(&self, account: AccountId, kind: NoticeKind) -> RepoResult<Option<Notice>> {
        self.read(|conn| {
            notices::table
                .filter(notices::account_id.eq(account.0))
                .filter(notices::kind.eq(kind.as_str()))
                .order(notices::id.desc())
                .select(NoticeRow::as_select())
                .first::<NoticeRow>(conn)
                .optional()?
                .map(NoticeRow::into_domain)
                .transpose()
        })
    }

    fn notices_since(&self, account: AccountId, since: DateTime<Utc>) -> RepoResult<u64> {
        self.read(|conn| {
            let n: i64 = notices::table
                .filter(notices::account_id.eq(account.0))
                .filter(notices::created_at.ge(to_db(since)))
                .count()
                .get_result(conn)?;
            Ok(u64::try_from(n).unwrap_or(0))
        })
    }
}

impl NoticeQueue for Store {
    fn next_notice_due(&self) -> RepoResult<Option<DateTime<Utc>>> {
        self.read(|conn| jobs::next_due(conn, &NOTICES))
    }

    fn claim_notices(
        &self,
        now: DateTime<Utc>,
        lease: std::time::Duration,
        limit: u32,
    ) -> RepoResult<Vec<NoticeJob>> {
        if self
            .read(|conn| jobs::due(conn, &NOTICES, now, 1, false))?
            .is_empty()
        {
            return Ok(Vec::new());
        }
        self.write(|conn| {
            let (ids, claim) = jobs::claim(conn, &NOTICES, now, lease, limit)?;
            notices::table
                .filter(notices::id.eq_any(&ids))
                .select(NoticeRow::as_select())
                .load::<NoticeRow>(conn)?
                .into_iter()
                .map(|r| r.into_job(&claim))
                .collect()
        })
    }

    fn record_notice(
        &self,
        job: &NoticeJob,
        outcome: &SendOutcome,
        schedule: &RetrySchedule,
        now: DateTime<Utc>,
    ) -> RepoResult<bool> {
        self.write(|conn| {
            if !jobs::settle(conn, &NOTICES, job.id.0, &job.claim)? {
                return Ok(false);
            }
            let attempts = i32::try_from(job.attempt).unwrap_or(i32::MAX);
            let stamp = to_db(now);
            let (state, error, next) = match outcome {
                SendOutcome::Sent { .. } => (EmailStatus::Sent, None, stamp),
                SendOutcome::Transient(error) => match schedule.retry_delay(job.attempt) {
                    Some(delay) => (
                        EmailStatus::Queued,
                        Some(error),
                        to_db(now + chrono::Duration::from_std(delay).unwrap_or_default()),
                    ),
                    None => (EmailStatus::Failed, Some(error), stamp),
                },
                SendOutcome::Permanent(error) | SendOutcome::AllRefused { error, .. } => {
                    (EmailStatus::Failed, Some(error), stamp)
                }
            };
            // Settled, the body and link are of no more use: a one-time token leaves the database.
            let kept = (state == EmailStatus::Queued).then_some(job);
            diesel::update(notices::table.filter(notices::id.eq(job.id.0)))
                .set((
                    notices::body.eq(kept.map(|j| j.body.as_str())),
                    notices::link.eq(kept.and_then(|j| j.link.as_deref())),
                    notices::state.eq(state.as_str()),
                    notices::attempts.eq(attempts),
                    notices::last_error.eq(error),
                    notices::next_attempt_at.eq(next),
                    notices::sent_at.eq((state == EmailStatus::Sent).then_some(stamp)),
                    notices::updated_at.eq(stamp),
                ))
                .execute(conn)?;
            Ok(true)
        })
    }

    fn extend_notice(
        &self,
        job: &NoticeJob,
        now: DateTime<Utc>,
        lease: std::time::Duration,
    ) -> RepoResult<bool> {
        self.write(|conn| {
            jobs::extend(
                conn,
                &NOTICES,
                job.id.0,
                &job.claim,
                jobs::lease_end(now, lease),
            )
        })
    }

    fn release_notice(&self, job: &NoticeJob) -> RepoResult<()> {
        self.write(|conn| {
            jobs::settle(conn, &NOTICES, job.id.0, &job.claim)?;
            Ok(())
        })
    }
}
