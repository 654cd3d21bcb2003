//! Email on both backends (SPEC §18): messages queued in the transaction of the change that
//! asks for them, the outbox on the same leases as webhook deliveries (claims, retries on the
//! schedule, permanent failures, stale claims), `email.sent` / `email.failed`, receipts and
//! reminders exactly once, and tenant isolation.

use chrono::{Days, Duration, NaiveDate, Timelike, Utc};
use invoicing_domain::currency::Currency;
use invoicing_domain::email::{
    EmailFilter, EmailInput, EmailJob, EmailKind, EmailRequest, EmailStatus, EmailSubject,
    RefusedRecipient, SendOutcome,
};
use invoicing_domain::event::EventFilter;
use invoicing_domain::invoice::{
    Invoice, InvoiceInput, InvoicePatch, InvoicePatchInput, NewInvoice,
};
use invoicing_domain::paging::PageRequest;
use invoicing_domain::ports::{
    AccountRepository, EmailQueue, EmailRepository, EventRepository, InvoiceRepository,
    ProfileRepository, QuotationRepository, RepoError,
};
use invoicing_domain::profile::ProfilePatchInput;
use invoicing_domain::quotation::QuotationInput;
use invoicing_domain::tenant::{Environment, Scope};
use invoicing_domain::webhook_delivery::RetrySchedule;
use invoicing_storage::testing::TestDb;
use invoicing_storage::{backend_tests, Store};
use serde_json::{json, Value};

const LEASE: std::time::Duration = std::time::Duration::from_secs(300);

fn scope(db: &TestDb, name: &str) -> Scope {
    let account = db
        .store
        .create_account(name, Currency::parse("EUR").unwrap())
        .unwrap();
    Scope::new(account.id, Environment::Test)
}

fn today() -> NaiveDate {
    Utc::now().date_naive()
}

fn now() -> chrono::DateTime<Utc> {
    Utc::now().with_nanosecond(0).unwrap()
}

fn new_invoice(body: Value) -> NewInvoice {
    serde_json::from_value::<InvoiceInput>(body)
        .unwrap()
        .parse(today(), format!("tok{}", rand::random::<u64>()))
        .unwrap()
}

fn invoice(store: &Store, scope: Scope, extra: Value) -> Invoice {
    let mut body = json!({
        "customer": {"name": "Jürgen", "email": "juergen@example.de", "locale": "de"},
        "line_items": [{"description": "Beratung", "quantity": "1", "unit_price_cents": 10000}]
    });
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    store.create_invoice(scope, new_invoice(body)).unwrap()
}

fn patch(body: Value) -> InvoicePatch {
    serde_json::from_value::<InvoicePatchInput>(body)
        .unwrap()
        .parse()
        .unwrap()
}

fn request(body: Value) -> EmailRequest {
    serde_json::from_value::<EmailInput>(body)
        .unwrap()
        .parse("email")
        .unwrap()
}

fn send(store: &Store, scope: Scope, inv: &Invoice, email: Option<EmailRequest>) -> Invoice {
    let mut p = patch(json!({"status": "sent"}));
    p.email = email;
    store.update_invoice(scope, inv.id, p).unwrap()
}

fn emails(store: &Store, scope: Scope) -> Vec<invoicing_domain::email::OutgoingEmail> {
    store
        .list_emails(
            scope,
            &EmailFilter::default(),
            PageRequest::new(1, 100).unwrap(),
        )
        .unwrap()
        .data
}

fn events(store: &Store, scope: Scope, event_type: &str) -> usize {
    let filter = EventFilter {
        event_type: Some(event_type.into()),
    };
    store
        .list_events(scope, &filter, PageRequest::new(1, 100).unwrap())
        .unwrap()
        .total as usize
}

fn claim_one(store: &Store, at: chrono::DateTime<Utc>) -> Option<EmailJob> {
    let mut jobs = store.claim_emails(at, LEASE, 10).unwrap();
    assert!(jobs.len() <= 1, "{jobs:?}");
    jobs.pop()
}

fn sent(id: &str) -> SendOutcome {
    SendOutcome::Sent {
        message_id: format!("<{id}@example.com>"),
        refused: Vec::new(),
    }
}

fn refusal(address: &str) -> RefusedRecipient {
    RefusedRecipient {
        address: address.into(),
        reply: format!("550 5.1.1 <{address}>: mailbox unavailable"),
    }
}

/// The `data.object` of the newest event of `event_type`.
fn last_event(store: &Store, scope: Scope, event_type: &str) -> Value {
    let filter = EventFilter {
        event_type: Some(event_type.into()),
    };
    store
        .list_events(scope, &filter, PageRequest::new(1, 1).unwrap())
        .unwrap()
        .data[0]
        .data
        .object
        .clone()
}

fn profile(store: &Store, scope: Scope, body: Value) {
    let p = serde_json::from_value::<ProfilePatchInput>(body)
        .unwrap()
        .parse()
        .unwrap();
    store.update_profile(scope, p).unwrap();
}

fn a_send_with_email_queues_it_in_the_same_transaction(db: TestDb) {
    let s = scope(&db, "Acme");
    profile(&db.store, s, json!({"legal_name": "Acme GmbH"}));
    let inv = invoice(&db.store, s, json!({}));
    send(
        &db.store,
        s,
        &inv,
        Some(request(json!({"cc": ["boss@example.com"]}))),
    );
    let queued = emails(&db.store, s);
    assert_eq!(queued.len(), 1);
    let e = &queued[0];
    assert_eq!(e.kind, EmailKind::Invoice);
    assert_eq!(e.invoice_id, Some(inv.id.0));
    assert_eq!(e.to, ["juergen@example.de"], "the customer by default");
    assert_eq!(e.cc, ["boss@example.com"]);
    assert_eq!(e.status, EmailStatus::Queued);
    assert_eq!(e.attempts, 0);
    assert_eq!(
        e.subject,
        format!("Rechnung {} von Acme GmbH", inv.invoice_number),
        "the customer's language and the document's number"
    );

    // A refused send (no longer a draft) changes nothing and queues nothing.
    let mut again = patch(json!({"status": "sent"}));
    again.email = Some(EmailRequest::default());
    assert!(matches!(
        db.store.update_invoice(s, inv.id, again),
        Err(RepoError::InvalidTransition(_))
    ));
    assert_eq!(emails(&db.store, s).len(), 1);

    // Quotations too, with the addresses and subject asked for.
    let q = serde_json::from_value::<QuotationInput>(json!({
        "customer": {"name": "Pat", "email": "pat@example.com"},
        "line_items": [{"description": "Plan", "quantity": "1", "unit_price_cents": 500}]
    }))
    .unwrap()
    .parse(today(), "qtok".into())
    .unwrap();
    let q = db.store.create_quotation(s, q).unwrap();
    let req = request(json!({"to": ["a@example.com", "b@example.com"], "subject": "Our offer"}));
    db.store.send_quotation(s, q.id, Some(req)).unwrap();
    let mine = db
        .store
        .list_emails(
            s,
            &EmailFilter {
                quotation_id: Some(q.id.0),
                ..Default::default()
            },
            PageRequest::new(1, 10).unwrap(),
        )
        .unwrap()
        .data;
    assert_eq!(mine.len(), 1);
    assert_eq!(mine[0].kind, EmailKind::Quotation);
    assert_eq!(mine[0].to, ["a@example.com", "b@example.com"]);
    assert_eq!(mine[0].subject, format!("Our offer ({})", q.quote_number));
}

fn resend_needs_a_document_that_left_draft(db: TestDb) {
    let s = scope(&db, "Acme");
    let other = scope(&db, "Other");
    let inv = invoice(&db.store, s, json!({}));
    let about = EmailSubject::Invoice(inv.id.0);
    assert!(matches!(
        db.store.resend_document(s, about, EmailRequest::default()),
        Err(RepoError::InvalidTransition(_))
    ));
    assert!(emails(&db.store, s).is_empty());
    send(&db.store, s, &inv, None);
    assert!(
        emails(&db.store, s).is_empty(),
        "a send without email queues none"
    );
    let e = db
        .store
        .resend_document(s, about, EmailRequest::default())
        .unwrap();
    assert_eq!(e.status, EmailStatus::Queued);
    assert_eq!(db.store.get_email(s, e.id).unwrap(), e);
    // Another tenant neither resends nor reads it.
    assert!(matches!(
        db.store
            .resend_document(other, about, EmailRequest::default()),
        Err(RepoError::Forbidden)
    ));
    assert!(matches!(
        db.store.get_email(other, e.id),
        Err(RepoError::Forbidden)
    ));
    assert!(emails(&db.store, other).is_empty());
    let live = Scope::new(s.account_id, Environment::Live);
    assert!(matches!(
        db.store.get_email(live, e.id),
        Err(RepoError::Forbidden)
    ));
    assert!(matches!(
        db.store
            .get_email(s, invoicing_domain::email::EmailId(999_999)),
        Err(RepoError::NotFound)
    ));
}

fn attempts_retry_on_the_schedule_then_fail_or_succeed(db: TestDb) {
    let s = scope(&db, "Acme");
    let schedule = RetrySchedule::parse("1m,5m").unwrap();
    let inv = invoice(&db.store, s, json!({}));
    send(&db.store, s, &inv, Some(EmailRequest::default()));
    let t0 = now();
    let job = claim_one(&db.store, t0).expect("due at once");
    assert_eq!(job.attempt, 1);
    assert_eq!(job.about, EmailSubject::Invoice(inv.id.0));
    assert!(claim_one(&db.store, t0).is_none(), "claimed: not again");
    let refused = SendOutcome::Transient("connection refused".into());
    assert!(db
        .store
        .record_email(&job, &refused, &schedule, t0)
        .unwrap());
    let e = &emails(&db.store, s)[0];
    assert_eq!((e.status, e.attempts), (EmailStatus::Queued, 1));
    assert_eq!(e.last_error.as_deref(), Some("connection refused"));
    assert_eq!(e.next_attempt_at, Some(t0 + Duration::minutes(1)));
    assert!(claim_one(&db.store, t0 + Duration::seconds(59)).is_none());
    let job = claim_one(&db.store, t0 + Duration::seconds(61)).expect("due after 1m");
    assert_eq!(job.attempt, 2);
    let greylisted = SendOutcome::Transient("451 try later".into());
    db.store
        .record_email(&job, &greylisted, &schedule, t0)
        .unwrap();
    let job = claim_one(&db.store, t0 + Duration::minutes(6)).unwrap();
    assert_eq!(job.attempt, 3);
    db.store
        .record_email(&job, &greylisted, &schedule, t0)
        .unwrap();
    let e = &emails(&db.store, s)[0];
    assert_eq!(
        (e.status, e.attempts),
        (EmailStatus::Failed, 3),
        "schedule spent"
    );
    assert_eq!(events(&db.store, s, "email.failed"), 1);
    assert!(claim_one(&db.store, t0 + Duration::days(1)).is_none());

    // A 5xx fails at once; success records the Message-ID and `email.sent`.
    let a = db
        .store
        .resend_document(s, EmailSubject::Invoice(inv.id.0), EmailRequest::default())
        .unwrap();
    let job = claim_one(&db.store, now()).unwrap();
    assert_eq!(job.id, a.id);
    let rejected = SendOutcome::Permanent("550 mailbox unavailable".into());
    db.store
        .record_email(&job, &rejected, &schedule, now())
        .unwrap();
    let a = db.store.get_email(s, a.id).unwrap();
    assert_eq!((a.status, a.attempts), (EmailStatus::Failed, 1));
    assert_eq!(events(&db.store, s, "email.failed"), 2);

    let b = db
        .store
        .resend_document(s, EmailSubject::Invoice(inv.id.0), EmailRequest::default())
        .unwrap();
    let job = claim_one(&db.store, now()).unwrap();
    db.store
        .record_email(&job, &sent("b"), &schedule, now())
        .unwrap();
    let b = db.store.get_email(s, b.id).unwrap();
    assert_eq!(b.status, EmailStatus::Sent);
    assert_eq!(b.message_id.as_deref(), Some("<b@example.com>"));
    assert!(b.sent_at.is_some() && b.last_error.is_none() && b.next_attempt_at.is_none());
    assert_eq!(events(&db.store, s, "email.sent"), 1);
}

/// Recipients refused at RCPT are kept with their replies, shown by the email (get and list)
/// and named in `email.sent`; when every one is refused the email fails with all of them.
fn refused_recipients_are_kept_and_shown(db: TestDb) {
    let s = scope(&db, "Acme");
    let schedule = RetrySchedule::parse("1m").unwrap();
    let inv = invoice(&db.store, s, json!({}));
    send(
        &db.store,
        s,
        &inv,
        Some(request(json!({
            "to": ["juergen@example.de"],
            "cc": ["tpyo@example.de", "boss@example.de"]
        }))),
    );
    let queued = &emails(&db.store, s)[0];
    assert_eq!(queued.refused_recipients, vec![], "none before an attempt");
    let job = claim_one(&db.store, now()).unwrap();
    let partly = SendOutcome::Sent {
        message_id: "<p@example.com>".into(),
        refused: vec![refusal("tpyo@example.de")],
    };
    assert!(db
        .store
        .record_email(&job, &partly, &schedule, now())
        .unwrap());
    let e = db.store.get_email(s, job.id).unwrap();
    assert_eq!(e.status, EmailStatus::Sent);
    assert_eq!(e.last_error, None);
    assert_eq!(e.refused_recipients, vec![refusal("tpyo@example.de")]);
    assert_eq!(
        emails(&db.store, s)[0].refused_recipients,
        e.refused_recipients
    );
    let shown = serde_json::to_value(&e).unwrap();
    assert_eq!(
        shown["refused_recipients"],
        json!([{"address": "tpyo@example.de",
                "reply": "550 5.1.1 <tpyo@example.de>: mailbox unavailable"}])
    );
    let event = last_event(&db.store, s, "email.sent");
    assert_eq!(event["id"], json!(job.id.0));
    assert_eq!(event["refused_recipients"], shown["refused_recipients"]);

    // Every recipient refused: failed at once, with the last refusal as the error.
    let all = db
        .store
        .resend_document(
            s,
            EmailSubject::Invoice(inv.id.0),
            request(json!({"to": ["a@example.de"], "cc": ["b@example.de"]})),
        )
        .unwrap();
    let job = claim_one(&db.store, now()).unwrap();
    assert_eq!(job.id, all.id);
    let refused = vec![refusal("a@example.de"), refusal("b@example.de")];
    let outcome = SendOutcome::AllRefused {
        error: "permanent error (550): 5.1.1 <b@example.de>: mailbox unavailable".into(),
        refused: refused.clone(),
    };
    db.store
        .record_email(&job, &outcome, &schedule, now())
        .unwrap();
    let e = db.store.get_email(s, all.id).unwrap();
    assert_eq!((e.status, e.attempts), (EmailStatus::Failed, 1));
    assert!(e.last_error.as_deref().unwrap().contains("b@example.de"));
    assert_eq!(e.refused_recipients, refused);
    assert!(e.next_attempt_at.is_none() && e.sent_at.is_none());
    assert!(
        claim_one(&db.store, now() + Duration::days(1)).is_none(),
        "not retried"
    );
    assert_eq!(
        last_event(&db.store, s, "email.failed")["refused_recipients"],
        serde_json::to_value(&refused).unwrap()
    );
    assert_eq!(events(&db.store, s, "email.sent"), 1);
}

fn a_stale_claim_records_nothing(db: TestDb) {
    let s = scope(&db, "Acme");
    let schedule = RetrySchedule::parse("1m").unwrap();
    let inv = invoice(&db.store, s, json!({}));
    send(&db.store, s, &inv, Some(EmailRequest::default()));
    let t0 = now();
    let stale = claim_one(&db.store, t0).unwrap();
    let fresh = claim_one(&db.store, t0 + Duration::seconds(301)).expect("the lease ran out");
    assert_ne!(stale.claim, fresh.claim);
    assert!(!db
        .store
        .record_email(&stale, &sent("stale"), &schedule, t0)
        .unwrap());
    assert_eq!(emails(&db.store, s)[0].status, EmailStatus::Queued);
    db.store.release_email(&stale).unwrap();
    assert!(
        claim_one(&db.store, t0 + Duration::seconds(302)).is_none(),
        "still the fresh claim's"
    );
    db.store.release_email(&fresh).unwrap();
    assert!(claim_one(&db.store, t0).is_some(), "released: due at once");
}

/// A renewed lease keeps a slow send's email from being claimed again; the Message-ID given
/// at the first attempt comes back with every retry.
fn renewed_leases_and_a_stable_message_id(db: TestDb) {
    let s = scope(&db, "Acme");
    let schedule = RetrySchedule::parse("1m").unwrap();
    let inv = invoice(&db.store, s, json!({}));
    send(&db.store, s, &inv, Some(EmailRequest::default()));
    let t0 = now();
    let job = claim_one(&db.store, t0).unwrap();
    assert_eq!(job.message_id, None);
    assert!(db
        .store
        .assign_message_id(&job, "<m1@example.com>")
        .unwrap());
    assert!(db
        .store
        .extend_email(&job, t0 + Duration::seconds(250), LEASE)
        .unwrap());
    assert!(
        claim_one(&db.store, t0 + Duration::seconds(400)).is_none(),
        "renewed until t0 + 550 s"
    );
    let failed = SendOutcome::Transient("451 later".into());
    db.store.record_email(&job, &failed, &schedule, t0).unwrap();
    let retry = claim_one(&db.store, t0 + Duration::minutes(2)).unwrap();
    assert_eq!(retry.message_id.as_deref(), Some("<m1@example.com>"));
    // A lost claim renews nothing and names nothing.
    assert!(!db.store.extend_email(&job, t0, LEASE).unwrap());
    assert!(!db
        .store
        .assign_message_id(&job, "<m2@example.com>")
        .unwrap());
    assert_eq!(
        db.store
            .get_email(s, retry.id)
            .unwrap()
            .message_id
            .as_deref(),
        Some("<m1@example.com>")
    );
}

fn receipts_only_with_mail_on_and_asked_for(db: TestDb) {
    let s = scope(&db, "Acme");
    let mailing = db.store.clone().with_mail(true);
    let receipts = |store: &Store| {
        emails(store, s)
            .into_iter()
            .filter(|e| e.kind == EmailKind::Receipt)
            .count()
    };
    // Asked for, but mail is off: none.
    profile(&db.store, s, json!({"send_receipts": true}));
    let inv = invoice(&db.store, s, json!({}));
    send(&db.store, s, &inv, None);
    db.store
        .update_invoice(s, inv.id, patch(json!({"status": "paid"})))
        .unwrap();
    assert_eq!(receipts(&db.store), 0);
    // Mail on and asked for: a marked-paid invoice gets one.
    let inv = invoice(&mailing, s, json!({}));
    send(&mailing, s, &inv, None);
    mailing
        .update_invoice(s, inv.id, patch(json!({"status": "paid"})))
        .unwrap();
    assert_eq!(receipts(&mailing), 1);
    // Not asked for: none.
    profile(&mailing, s, json!({"send_receipts": false}));
    let inv = invoice(&mailing, s, json!({}));
    send(&mailing, s, &inv, None);
    mailing
        .update_invoice(s, inv.id, patch(json!({"status": "paid"})))
        .unwrap();
    assert_eq!(receipts(&mailing), 1);
    // A cancelled invoice gets none.
    profile(&mailing, s, json!({"send_receipts": true}));
    let inv = invoice(&mailing, s, json!({}));
    send(&mailing, s, &inv, None);
    mailing
        .update_invoice(s, inv.id, patch(json!({"status": "cancelled"})))
        .unwrap();
    assert_eq!(receipts(&mailing), 1);
}

/// Makes the invoice look sent on `day`.
fn sent_on(db: &TestDb, inv: &Invoice, day: NaiveDate) {
    db.execute(&format!(
        "UPDATE invoices SET sent_at = '{} 09:00:00' WHERE id = {}",
        day, inv.id.0
    ));
}

fn reminders(store: &Store, s: Scope) -> Vec<i64> {
    emails(store, s)
        .into_iter()
        .filter(|e| e.kind == EmailKind::Reminder)
        .filter_map(|e| e.invoice_id)
        .collect()
}

fn reminders_go_out_once_per_offset_and_only_the_latest(db: TestDb) {
    let s = scope(&db, "Acme");
    let mailing = db.store.clone().with_mail(true);
    let day = today();
    let iso = |d: NaiveDate| d.format("%Y-%m-%d").to_string();
    // Due today with its own offset 0: one reminder, however many sweeps.
    let due_today = invoice(&mailing, s, json!({"due_date": iso(day), "reminders": [0]}));
    assert_eq!(
        due_today.reminders.as_ref().map(|r| r.days().to_vec()),
        Some(vec![0])
    );
    send(&mailing, s, &due_today, None);
    assert_eq!(
        db.store
            .queue_reminders(invoicing_storage::testing::noon(day))
            .unwrap(),
        0,
        "mail off: none"
    );
    assert_eq!(
        mailing
            .queue_reminders(invoicing_storage::testing::noon(day))
            .unwrap(),
        1
    );
    assert_eq!(
        mailing
            .queue_reminders(invoicing_storage::testing::noon(day))
            .unwrap(),
        0
    );
    let restarted = Store::connect(&db.url, 2).unwrap().with_mail(true);
    assert_eq!(
        restarted
            .queue_reminders(invoicing_storage::testing::noon(day))
            .unwrap(),
        0,
        "a restart sends none again"
    );
    assert_eq!(reminders(&mailing, s), vec![due_today.id.0]);
    let r = &emails(&mailing, s)[0];
    assert!(
        r.subject.contains(&due_today.invoice_number),
        "{}",
        r.subject
    );

    // The account's offsets; after downtime only the latest passed one goes out.
    profile(&mailing, s, json!({"reminders": [-3, 0, 7]}));
    let start = day - Days::new(40);
    let late = invoice(
        &mailing,
        s,
        json!({"issue_date": iso(start), "due_date": iso(day - Days::new(10))}),
    );
    send(&mailing, s, &late, None);
    sent_on(&db, &late, start);
    assert_eq!(
        mailing
            .queue_reminders(invoicing_storage::testing::noon(day))
            .unwrap(),
        1
    );
    assert_eq!(
        mailing
            .queue_reminders(invoicing_storage::testing::noon(day + Days::new(30)))
            .unwrap(),
        0,
        "7 was the last"
    );
    let mine: Vec<_> = reminders(&mailing, s)
        .into_iter()
        .filter(|i| *i == late.id.0)
        .collect();
    assert_eq!(mine.len(), 1);

    // None once paid or cancelled, none for a draft, none when the invoice opts out.
    let paid = invoice(&mailing, s, json!({"due_date": iso(day)}));
    send(&mailing, s, &paid, None);
    mailing
        .update_invoice(s, paid.id, patch(json!({"status": "paid"})))
        .unwrap();
    let cancelled = invoice(&mailing, s, json!({"due_date": iso(day)}));
    send(&mailing, s, &cancelled, None);
    mailing
        .update_invoice(s, cancelled.id, patch(json!({"status": "cancelled"})))
        .unwrap();
    invoice(&mailing, s, json!({"due_date": iso(day)}));
    let opted_out = invoice(&mailing, s, json!({"due_date": iso(day), "reminders": []}));
    send(&mailing, s, &opted_out, None);
    assert_eq!(
        mailing
            .queue_reminders(invoicing_storage::testing::noon(day))
            .unwrap(),
        0
    );

    // `null` follows the account's again.
    let back = mailing
        .update_invoice(s, opted_out.id, patch(json!({"reminders": null})))
        .unwrap();
    assert_eq!(back.reminders, None);
    assert_eq!(
        mailing
            .queue_reminders(invoicing_storage::testing::noon(day))
            .unwrap(),
        1
    );
}

/// Several processes sweeping at once queue each reminder once (PostgreSQL; SQLite's writers
/// are serialised anyway).
fn concurrent_sweeps_queue_each_reminder_once(db: TestDb) {
    let s = scope(&db, "Acme");
    let mailing = db.store.clone().with_mail(true);
    let day = today();
    for _ in 0..5 {
        let inv = invoice(
            &mailing,
            s,
            json!({"due_date": day.format("%Y-%m-%d").to_string(), "reminders": [0]}),
        );
        send(&mailing, s, &inv, None);
    }
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let store = Store::connect(&db.url, 2).unwrap().with_mail(true);
            std::thread::spawn(move || {
                store
                    .queue_reminders(invoicing_storage::testing::noon(day))
                    .unwrap()
            })
        })
        .collect();
    let total: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(total, 5);
    assert_eq!(reminders(&mailing, s).len(), 5);
}

/// Two workers claiming at once never get the same email.
fn concurrent_claimers_never_share_an_email(db: TestDb) {
    let s = scope(&db, "Acme");
    let inv = invoice(&db.store, s, json!({}));
    send(&db.store, s, &inv, None);
    for _ in 0..20 {
        db.store
            .resend_document(s, EmailSubject::Invoice(inv.id.0), EmailRequest::default())
            .unwrap();
    }
    let at = now();
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let store = Store::connect(&db.url, 2).unwrap();
            std::thread::spawn(move || {
                let mut mine = Vec::new();
                while let Some(job) = store.claim_emails(at, LEASE, 1).unwrap().pop() {
                    mine.push(job.id.0);
                }
                mine
            })
        })
        .collect();
    let mut all: Vec<i64> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    let n = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(
        (n, all.len()),
        (20, 20),
        "each of the 20 claimed exactly once"
    );
}

backend_tests!(
    a_send_with_email_queues_it_in_the_same_transaction,
    resend_needs_a_document_that_left_draft,
    attempts_retry_on_the_schedule_then_fail_or_succeed,
    refused_recipients_are_kept_and_shown,
    a_stale_claim_records_nothing,
    renewed_leases_and_a_stable_message_id,
    receipts_only_with_mail_on_and_asked_for,
    reminders_go_out_once_per_offset_and_only_the_latest,
    concurrent_sweeps_queue_each_reminder_once,
    concurrent_claimers_never_share_an_email,
);
