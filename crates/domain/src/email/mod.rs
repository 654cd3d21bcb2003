//! Email to customers (SPEC §18): what a send or resend asks for, the outgoing message as
//! `GET /api/v1/emails` shows it, and what an SMTP attempt can end in. Composing and sending
//! live outside the domain; the rules about who gets what, and when, live here.

mod reminders;
#[cfg(test)]
mod tests;

pub use reminders::reminder_due;

use crate::currency::Currency;
use crate::customer::{CustomerId, Email};
use crate::locale::Locale;
use crate::report::DateRange;
use crate::validation::{join_param, Violations};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::fmt;

/// `to` and `cc` together.
pub const MAX_RECIPIENTS: usize = 10;
pub const SUBJECT_MAX: usize = 200;
pub const MESSAGE_MAX: usize = 2000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct EmailId(pub i64);

/// Why an email is sent; it decides its texts and attachment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum EmailKind {
    Invoice,
    Quotation,
    Reminder,
    Receipt,
    CreditNote,
    /// A customer's statement (SPEC §22).
    Statement,
}

impl EmailKind {
    pub const ALL: [EmailKind; 6] = [
        EmailKind::Invoice,
        EmailKind::Quotation,
        EmailKind::Reminder,
        EmailKind::Receipt,
        EmailKind::CreditNote,
        EmailKind::Statement,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EmailKind::Invoice => "invoice",
            EmailKind::Quotation => "quotation",
            EmailKind::Reminder => "reminder",
            EmailKind::Receipt => "receipt",
            EmailKind::CreditNote => "credit_note",
            EmailKind::Statement => "statement",
        }
    }

    pub fn parse(s: &str) -> Option<EmailKind> {
        EmailKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// The subject a message gets when the request names none; it always carries the number.
    pub fn default_subject(self, locale: Locale, number: &str, merchant: &str) -> String {
        let key = format!("email.{}.subject", self.as_str());
        locale.fill(&key, &[("number", number), ("merchant", merchant)])
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum EmailStatus {
    Queued,
    Sent,
    Failed,
}

impl EmailStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            EmailStatus::Queued => "queued",
            EmailStatus::Sent => "sent",
            EmailStatus::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<EmailStatus> {
        [EmailStatus::Queued, EmailStatus::Sent, EmailStatus::Failed]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

impl fmt::Display for EmailStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `email` object of a send or resend body.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct EmailInput {
    /// Recipients; the customer's email when absent.
    #[cfg_attr(feature = "openapi", schema(max_items = 10))]
    pub to: Option<Vec<String>>,
    #[cfg_attr(feature = "openapi", schema(max_items = 10))]
    pub cc: Option<Vec<String>>,
    /// The subject; by default one in the customer's language with the document's number.
    #[cfg_attr(feature = "openapi", schema(max_length = 200))]
    pub subject: Option<String>,
    /// A note shown above the standard text.
    #[cfg_attr(feature = "openapi", schema(max_length = 2000))]
    pub message: Option<String>,
}

/// A send body: `{"email": {...}}` asks for the document to be emailed too.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SendInput {
    pub email: Option<EmailInput>,
}

/// A checked email request: valid addresses (at most ten in all), a subject without control
/// characters, a message without control characters other than line breaks and tabs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EmailRequest {
    /// Empty: the customer's address.
    pub to: Vec<Email>,
    pub cc: Vec<Email>,
    pub subject: Option<String>,
    pub message: Option<String>,
}

/// Valid addresses, each once (case-insensitively) across `seen`, which collects them.
fn addresses(
    v: &mut Violations,
    param: &str,
    raw: Option<Vec<String>>,
    seen: &mut Vec<String>,
) -> Vec<Email> {
    let mut out = Vec::new();
    for (i, a) in raw.unwrap_or_default().into_iter().enumerate() {
        match Email::parse(&a) {
            Ok(e) if seen.contains(&e.normalized()) => {}
            Ok(e) => {
                seen.push(e.normalized());
                out.push(e);
            }
            Err(msg) => v.push(format!("{param}[{i}]"), msg),
        }
    }
    out
}

fn text(
    v: &mut Violations,
    param: &str,
    raw: Option<String>,
    max: usize,
    allowed: &[char],
) -> Option<String> {
    let s = raw?;
    if s.chars().any(|c| c.is_control() && !allowed.contains(&c)) {
        v.push(param, "must not contain control characters");
        return None;
    }
    if s.chars().count() > max {
        v.push(param, format!("must be at most {max} characters"));
        return None;
    }
    let trimmed = s.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

impl EmailInput {
    /// `prefix` names the object in error params (`email`).
    pub fn parse(self, prefix: &str) -> Result<EmailRequest, Violations> {
        let mut v = Violations::new();
        let p = |name: &str| join_param(prefix, name);
        let count = self.to.as_ref().map_or(0, Vec::len) + self.cc.as_ref().map_or(0, Vec::len);
        if count > MAX_RECIPIENTS {
            v.push(
                p("to"),
                format!("to and cc together must have at most {MAX_RECIPIENTS} addresses"),
            );
        }
        if self.to.as_ref().is_some_and(Vec::is_empty) {
            v.push(p("to"), "must name at least one address, or be left out");
        }
        let mut seen = Vec::new();
        let to = addresses(&mut v, &p("to"), self.to, &mut seen);
        let cc = addresses(&mut v, &p("cc"), self.cc, &mut seen);
        // A line break in a subject would end the header: never allowed there.
        let subject = text(&mut v, &p("subject"), self.subject, SUBJECT_MAX, &[]);
        let message = text(
            &mut v,
            &p("message"),
            self.message,
            MESSAGE_MAX,
            &['\n', '\r', '\t'],
        );
        v.finish(|| EmailRequest {
            to,
            cc,
            subject,
            message,
        })
    }
}

/// An email the service sends, as `GET /api/v1/emails` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OutgoingEmail {
    pub id: EmailId,
    /// Always `email`.
    pub object: &'static str,
    pub kind: EmailKind,
    pub invoice_id: Option<i64>,
    pub quotation_id: Option<i64>,
    pub credit_note_id: Option<i64>,
    /// The customer of a statement (kind `statement`).
    pub customer_id: Option<i64>,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    pub subject: String,
    pub status: EmailStatus,
    /// SMTP attempts so far.
    pub attempts: i32,
    pub last_error: Option<String>,
    /// The recipients the SMTP server refused at `RCPT TO` (5xx), each with its reply: the
    /// message went to every other one. Empty until an attempt names some.
    pub refused_recipients: Vec<RefusedRecipient>,
    /// The `Message-ID` header, once sent.
    pub message_id: Option<String>,
    #[serde(serialize_with = "crate::time::serialize_opt")]
    pub sent_at: Option<DateTime<Utc>>,
    /// When the next attempt is due while queued.
    #[serde(serialize_with = "crate::time::serialize_opt")]
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub livemode: bool,
    #[serde(serialize_with = "crate::time::serialize")]
    pub created_at: DateTime<Utc>,
}

impl OutgoingEmail {
    pub const OBJECT: &'static str = "email";
}

/// A recipient the SMTP server refused at `RCPT TO` with a permanent (5xx) reply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RefusedRecipient {
    /// As the email's `to` or `cc` lists it.
    pub address: String,
    /// The server's reply, code and text on one line, e.g.
    /// `550 5.1.1 <typo@example.com>: mailbox unavailable`.
    pub reply: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EmailFilter {
    pub status: Option<EmailStatus>,
    pub invoice_id: Option<i64>,
    pub quotation_id: Option<i64>,
}

/// Which document an email is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmailSubject {
    Invoice(i64),
    Quotation(i64),
    CreditNote(i64),
    /// A customer's statement, made again when the message is sent.
    Statement(StatementOf),
}

/// The statement an email carries: whose, in which currency (`None` when asked: the account's
/// default, fixed when queued) and for which days.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatementOf {
    pub customer: CustomerId,
    pub currency: Option<Currency>,
    pub range: DateRange,
}

/// A claimed email, with what the worker needs to compose it (the document is read fresh, so
/// the attachment shows its state when sent).
#[derive(Clone, Debug)]
pub struct EmailJob {
    pub id: EmailId,
    /// Proves the claim when the outcome is recorded.
    pub claim: String,
    pub scope: crate::tenant::Scope,
    pub kind: EmailKind,
    pub about: EmailSubject,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    pub subject: String,
    pub message: Option<String>,
    /// The `Message-ID` given at the first attempt, kept for every retry so that a message a
    /// slow server received twice is still one message to the customer's mail program.
    pub message_id: Option<String>,
    /// The number of this attempt, from 1.
    pub attempt: u32,
}

/// What one SMTP attempt ended in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SendOutcome {
    /// The server took the message for at least one recipient; `refused` are the others,
    /// refused at `RCPT TO` with a 5xx (empty when every recipient was accepted).
    Sent {
        message_id: String,
        refused: Vec<RefusedRecipient>,
    },
    /// A connection failure or an SMTP 4xx: tried again on the schedule.
    Transient(String),
    /// An SMTP 5xx, or a message that cannot be built: failed at once.
    Permanent(String),
    /// Every recipient was refused at `RCPT TO` with a 5xx: nothing was sent and the email
    /// fails at once, `error` being the last refusal (as a [`SendOutcome::Permanent`] would
    /// name it) and `refused` every one of them.
    AllRefused {
        error: String,
        refused: Vec<RefusedRecipient>,
    },
}

impl SendOutcome {
    /// The recipients the server refused (none unless it answered the transaction).
    pub fn refused(&self) -> &[RefusedRecipient] {
        match self {
            SendOutcome::Sent { refused, .. } | SendOutcome::AllRefused { refused, .. } => refused,
            SendOutcome::Transient(_) | SendOutcome::Permanent(_) => &[],
        }
    }
}
