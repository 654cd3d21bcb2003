//! Queueing email (SPEC §18): always inside the transaction of the change that asks for it (a
//! send, a payment that pays an invoice, a reminder sweep), so the change and its message
//! commit together or not at all. The mail workers drain the queue through [`crate::jobs`].

use crate::connection::AnyConnection;
use crate::parties::kept_parties;
use crate::profiles::load_profile;
use crate::rows::{from_db, now_db, returning};
use crate::schema::emails;
use crate::store::TxError;
use chrono::{NaiveDate, NaiveDateTime};
use diesel::prelude::*;
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::document::DocumentKind;
use invoicing_domain::email::{EmailId, EmailKind, EmailRequest, EmailStatus, OutgoingEmail};
use invoicing_domain::invoice::Invoice;
use invoicing_domain::parties::Parties;
use invoicing_domain::ports::RepoError;
use invoicing_domain::report::DateRange;
use invoicing_domain::tenant::Scope;

/// The document an email carries.
pub(crate) struct Document<'a> {
    pub kind: DocumentKind,
    pub id: i64,
    pub number: &'a str,
    pub customer: CustomerId,
}

impl<'a> From<&'a Invoice> for Document<'a> {
    fn from(i: &'a Invoice) -> Self {
        Document {
            kind: DocumentKind::Invoice,
            id: i.id.0,
            number: &i.invoice_number,
            customer: i.customer_id,
        }
    }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = emails)]
pub(crate) struct EmailRow {
    pub id: i64,
    pub account_id: i64,
    pub livemode: bool,
    pub kind: String,
    pub invoice_id: Option<i64>,
    pub quotation_id: Option<i64>,
    pub credit_note_id: Option<i64>,
    pub recipients: String,
    pub cc: String,
    pub subject: String,
    pub message: Option<String>,
    pub state: String,
    pub attempts: i32,
    pub last_error: Option<String>,
    pub message_id: Option<String>,
    pub sent_at: Option<NaiveDateTime>,
    pub next_attempt_at: NaiveDateTime,
    pub created_at: NaiveDateTime,
    /// JSON: `[{address, reply}]`.
    pub refused_recipients: String,
    pub customer_id: Option<i64>,
    pub statement_currency: Option<String>,
    pub statement_from: Option<NaiveDate>,
    pub statement_to: Option<NaiveDate>,
}

fn addresses(text: &str) -> Vec<String> {
    serde_json::from_str(text).unwrap_or_default()
}

impl EmailRow {
    pub(crate) fn kind(&self) -> Result<EmailKind, TxError> {
        EmailKind::parse(&self.kind).ok_or_else(|| {
            RepoError::Internal(format!("email {} kind {:?}", self.id, self.kind)).into()
        })
    }

    pub(crate) fn into_domain(self) -> Result<OutgoingEmail, TxError> {
        let kind = self.kind()?;
        let status = EmailStatus::parse(&self.state)
            .ok_or_else(|| RepoError::Internal(format!("email {} state", self.id)))?;
        Ok(OutgoingEmail {
            id: EmailId(self.id),
            object: OutgoingEmail::OBJECT,
            kind,
            invoice_id: self.invoice_id,
            quotation_id: self.quotation_id,
            credit_note_id: self.credit_note_id,
            customer_id: self.customer_id,
            to: addresses(&self.recipients),
            cc: addresses(&self.cc),
            subject: self.subject,
            next_attempt_at: (status == EmailStatus::Queued).then(|| from_db(self.next_attempt_at)),
            status,
            attempts: self.attempts,
            last_error: self.last_error,
            refused_recipients: serde_json::from_str(&self.refused_recipients).map_err(|e| {
                RepoError::Internal(format!("email {} refused_recipients: {e}", self.id))
            })?,
            message_id: self.message_id,
            sent_at: self.sent_at.map(from_db),
            livemode: self.livemode,
            created_at: from_db(self.created_at),
        })
    }

    pub(crate) fn recipients(&self) -> Vec<String> {
        addresses(&self.recipients)
    }

    pub(crate) fn cc(&self) -> Vec<String> {
        addresses(&self.cc)
    }
}

/// A list column as stored (addresses, refused recipients; each defaults to `[]`).
pub(crate) fn json<T: serde::Serialize>(list: &[T]) -> String {
    serde_json::to_string(list).unwrap_or_else(|_| "[]".into())
}

/// What an email's row points at: a document, or a customer's statement.
#[derive(Default)]
pub(crate) struct Refs {
    pub invoice_id: Option<i64>,
    pub quotation_id: Option<i64>,
    pub credit_note_id: Option<i64>,
    pub customer_id: Option<i64>,
    pub statement: Option<(Currency, DateRange)>,
}

/// Queues `kind` about `doc`: to the addresses asked for, else the document's customer; with
/// the subject asked for, else one in the customer's language naming the document's number.
pub(crate) fn queue(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: EmailKind,
    doc: Document<'_>,
    request: EmailRequest,
) -> Result<OutgoingEmail, TxError> {
    let parties = kept_parties(conn, scope, doc.kind, doc.id, doc.customer)?;
    let refs = match doc.kind {
        DocumentKind::Invoice => Refs {
            invoice_id: Some(doc.id),
            ..Refs::default()
        },
        DocumentKind::Quotation => Refs {
            quotation_id: Some(doc.id),
            ..Refs::default()
        },
        DocumentKind::RecurringInvoice => {
            return Err(RepoError::Internal("a schedule is not emailed".into()).into())
        }
        // Listed with its invoice's emails too.
        DocumentKind::CreditNote => Refs {
            invoice_id: Some(crate::credit_notes::credit_note_ref(conn, scope, doc.id)?.invoice_id),
            credit_note_id: Some(doc.id),
            ..Refs::default()
        },
    };
    insert(conn, scope, kind, &parties, doc.number, refs, request)
}

/// Writes the queued email: to the addresses asked for, else the customer's; with the subject
/// asked for (the number added if it lacks it), else one in the customer's language.
pub(crate) fn insert(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: EmailKind,
    parties: &Parties,
    number: &str,
    refs: Refs,
    request: EmailRequest,
) -> Result<OutgoingEmail, TxError> {
    let to: Vec<String> = if request.to.is_empty() {
        vec![parties.recipient.email.clone()]
    } else {
        request.to.iter().map(|e| e.as_str().to_string()).collect()
    };
    let cc: Vec<String> = request.cc.iter().map(|e| e.as_str().to_string()).collect();
    let subject = match request.subject {
        // Every subject names the document (SPEC §18): the customer files and finds it by that.
        Some(s) if s.contains(number) => s,
        Some(s) => format!("{s} ({number})"),
        None => kind.default_subject(parties.locale(), number, parties.issuer.display_name()),
    };
    let now = now_db();
    let row = diesel::insert_into(emails::table)
        .values((
            emails::account_id.eq(scope.account_id.0),
            emails::livemode.eq(scope.livemode()),
            emails::kind.eq(kind.as_str()),
            emails::invoice_id.eq(refs.invoice_id),
            emails::quotation_id.eq(refs.quotation_id),
            emails::credit_note_id.eq(refs.credit_note_id),
            emails::customer_id.eq(refs.customer_id),
            emails::statement_currency.eq(refs.statement.map(|(c, _)| c.code())),
            emails::statement_from.eq(refs.statement.map(|(_, r)| r.from)),
            emails::statement_to.eq(refs.statement.map(|(_, r)| r.to)),
            emails::recipients.eq(json(&to)),
            emails::cc.eq(json(&cc)),
            emails::subject.eq(&subject),
            emails::message.eq(&request.message),
            emails::state.eq(EmailStatus::Queued.as_str()),
            emails::attempts.eq(0),
            emails::next_attempt_at.eq(now),
            emails::created_at.eq(now),
            emails::updated_at.eq(now),
        ))
        .returning(returning::<EmailRow>())
        .get_result::<EmailRow>(conn)?;
    crate::wakeup::bell().ring();
    row.into_domain()
}

/// In the transaction that made the invoice paid: its receipt, when mail is on and the
/// account asked for receipts (SPEC §18).
pub(crate) fn queue_receipt(
    conn: &mut AnyConnection,
    scope: Scope,
    invoice: &Invoice,
    mail_enabled: bool,
) -> Result<(), TxError> {
    if !mail_enabled || !load_profile(conn, scope)?.send_receipts {
        return Ok(());
    }
    queue(
        conn,
        scope,
        EmailKind::Receipt,
        invoice.into(),
        EmailRequest::default(),
    )?;
    Ok(())
}
