//! Mail to people (invitations, password resets, test emails): one claimed notice composed in
//! its reader's language and sent over the same SMTP settings as customers' email, run by the
//! durable-job workers of [`crate::jobs`].

use crate::jobs::JobRunner;
use crate::mail::MailConfig;
use chrono::{DateTime, Utc};
use invoicing_domain::notice::NoticeJob;
use invoicing_domain::ports::{NoticeQueue, RepoResult};
use invoicing_mail::compose_notice;
use invoicing_storage::Store;
use std::time::Duration;

pub struct NoticeRunner {
    store: Store,
    config: MailConfig,
}

impl NoticeRunner {
    pub fn new(store: Store, config: MailConfig) -> NoticeRunner {
        NoticeRunner { store, config }
    }
}

impl JobRunner for NoticeRunner {
    type Job = NoticeJob;
    const NAME: &'static str = "notices";
    const LEASE: Duration = Duration::from_secs(60);

    fn claim(&self, now: DateTime<Utc>, lease: Duration) -> RepoResult<Vec<NoticeJob>> {
        self.store.claim_notices(now, lease, 1)
    }

    fn next_due(&self) -> RepoResult<Option<DateTime<Utc>>> {
        self.store.next_notice_due()
    }

    fn extend(&self, job: &NoticeJob, now: DateTime<Utc>, lease: Duration) -> RepoResult<bool> {
        self.store.extend_notice(job, now, lease)
    }

    fn run_ref(&self, job: &NoticeJob) {
        let message_id = self.config.sender.new_message_id();
        let outcome = match compose_notice(&self.config.sender, job, &message_id) {
            Ok(message) => {
                self.config
                    .mailer
                    .send(&message, &message_id, std::slice::from_ref(&job.recipient))
            }
            Err(e) => invoicing_domain::email::SendOutcome::Permanent(e),
        };
        let (id, kind) = (job.id, job.kind.as_str());
        match self
            .store
            .record_notice(job, &outcome, &self.config.schedule, Utc::now())
        {
            // Never the body: it may hold a one-time link.
            Ok(true) => log::info!("mail: notice {id} ({kind}): {}", outcome_line(&outcome)),
            Ok(false) => log::warn!("mail: notice {id} was claimed elsewhere meanwhile"),
            Err(e) => log::warn!("mail: recording notice {id}: {e}"),
        }
    }

    fn release(&self, job: &NoticeJob) -> RepoResult<()> {
        self.store.release_notice(job)
    }
}

fn outcome_line(outcome: &invoicing_domain::email::SendOutcome) -> String {
    use invoicing_domain::email::SendOutcome;
    match outcome {
        SendOutcome::Sent { message_id, .. } => format!("sent as {message_id}"),
        SendOutcome::Transient(e) => format!("attempt failed: {e}"),
        SendOutcome::Permanent(e) | SendOutcome::AllRefused { error: e, .. } => {
            format!("failed: {e}")
        }
    }
}
