//! Credit notes on both backends (SPEC §19): full and partial credits by amount or lines, the
//! invoice's credited amount and amount due, paid or cancelled at zero (never a receipt), refunds
//! of money already paid, gap-free `CN-` numbers and no over-credit under concurrency, tenants.

use chrono::Utc;
use invoicing_domain::credit_note::{
    CreditNoteFilter, CreditNoteId, CreditNoteInput, NewCreditNote,
};
use invoicing_domain::currency::Currency;
use invoicing_domain::email::{EmailFilter, EmailKind, EmailRequest};
use invoicing_domain::event::EventFilter;
use invoicing_domain::invoice::{Invoice, InvoiceInput, InvoicePatchInput};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::paging::PageRequest;
use invoicing_domain::payment::PaymentInput;
use invoicing_domain::ports::{
    AccountRepository, CreditNoteRepository, EmailRepository, EventRepository, InvoiceRepository,
    PaymentRepository, ProfileRepository, RepoError, ReportRepository,
};
use invoicing_domain::profile::ProfilePatchInput;
use invoicing_domain::tenant::{Environment, Scope};
use invoicing_storage::testing::TestDb;
use invoicing_storage::{backend_tests, Store};
use serde_json::{json, Value};

fn scope(db: &TestDb, name: &str) -> Scope {
    let a = db
        .store
        .create_account(name, Currency::parse("EUR").unwrap())
        .unwrap();
    Scope::new(a.id, Environment::Test)
}

/// 119.00 at 19 % and 107.00 at 7 %: 226.00 in all, sent.
fn sent_invoice(store: &Store, s: Scope) -> Invoice {
    let new = serde_json::from_value::<InvoiceInput>(json!({
        "customer": {"name": "Ada", "email": "ada@example.com"},
        "line_items": [
            {"description": "Design", "quantity": "1", "unit_price_cents": 10000, "tax_rate": "19"},
            {"description": "Books", "quantity": "1", "unit_price_cents": 10000, "tax_rate": "7"}
        ]
    }))
    .unwrap()
    .parse(
        Utc::now().date_naive(),
        format!("t{}", rand::random::<u64>()),
    )
    .unwrap();
    let inv = store.create_invoice(s, new).unwrap();
    let sent = serde_json::from_value::<InvoicePatchInput>(json!({"status": "sent"}))
        .unwrap()
        .parse()
        .unwrap();
    store.update_invoice(s, inv.id, sent).unwrap()
}

fn credit(body: Value) -> NewCreditNote {
    serde_json::from_value::<CreditNoteInput>(body)
        .unwrap()
        .parse()
        .unwrap()
        .0
}

fn events(store: &Store, s: Scope, t: &str) -> i64 {
    let f = EventFilter {
        event_type: Some(t.into()),
    };
    store
        .list_events(s, &f, PageRequest::new(1, 100).unwrap())
        .unwrap()
        .total
}

fn pay(store: &Store, s: Scope, inv: &Invoice, amount: i64) {
    let p = serde_json::from_value::<PaymentInput>(json!({
        "invoice_id": inv.id.0, "amount_cents": amount, "method": "bank_transfer", "status": "verified"
    }))
    .unwrap()
    .parse()
    .unwrap();
    store.create_payment(s, p).unwrap();
}

fn a_partial_credit_lowers_the_amount_due(db: TestDb) {
    let s = scope(&db, "Acme");
    let inv = sent_invoice(&db.store, s);
    let note = db
        .store
        .create_credit_note(
            s,
            inv.id,
            credit(json!({"reason": "order_change", "amount_cents": 10000, "memo": "Less work"})),
            None,
        )
        .unwrap();
    let year = Utc::now().format("%Y");
    assert_eq!(note.credit_note_number, format!("CN-{year}-000001"));
    assert_eq!(note.total_cents, 10000);
    assert_eq!(note.line_items.len(), 2, "one line per tax rate");
    assert_eq!(
        note.line_items.iter().map(|l| l.total_cents).sum::<i64>(),
        10000
    );
    assert_eq!(note.subtotal_cents + note.tax_cents, 10000);
    assert_eq!(note.refund_due_cents, 0);
    assert_eq!(note.memo.as_deref(), Some("Less work"));
    let inv = db.store.get_invoice(s, inv.id).unwrap();
    assert_eq!(inv.amount_credited_cents, 10000);
    assert_eq!(inv.amount_due_cents, 22600 - 10000);
    assert_eq!(inv.status, InvoiceStatus::Sent);
    assert_eq!(events(&db.store, s, "credit_note.created"), 1);

    // By lines, as on an invoice.
    let by_lines = db
        .store
        .create_credit_note(
            s,
            inv.id,
            credit(json!({"reason": "product_unsatisfactory", "line_items": [
                {"description": "Damaged book", "quantity": "1", "unit_price_cents": 1000, "tax_rate": "7"}
            ]})),
            None,
        )
        .unwrap();
    assert_eq!(by_lines.total_cents, 1070);
    assert_eq!(by_lines.credit_note_number, format!("CN-{year}-000002"));
    let got = db.store.get_credit_note(s, by_lines.id).unwrap();
    assert_eq!(got, by_lines);
    let listed = db
        .store
        .list_credit_notes(
            s,
            &CreditNoteFilter {
                invoice_id: Some(inv.id),
                ..Default::default()
            },
            PageRequest::new(1, 10).unwrap(),
        )
        .unwrap();
    assert_eq!(listed.total, 2);
    assert_eq!(listed.data[0].id, by_lines.id, "newest first");
}

fn credited_to_zero_an_invoice_is_paid_or_cancelled(db: TestDb) {
    let s = scope(&db, "Acme");
    let mailing = db.store.clone().with_mail(true);
    let p = serde_json::from_value::<ProfilePatchInput>(json!({"send_receipts": true}))
        .unwrap()
        .parse()
        .unwrap();
    mailing.update_profile(s, p).unwrap();
    // Part paid, the rest credited: paid, and no receipt for a credit.
    let inv = sent_invoice(&mailing, s);
    pay(&mailing, s, &inv, 6000);
    let note = mailing
        .create_credit_note(s, inv.id, credit(json!({"reason": "other"})), None)
        .unwrap();
    assert_eq!(
        note.total_cents, 22600,
        "all that is left to credit: the total"
    );
    assert_eq!(note.refund_due_cents, 6000, "what was paid is owed back");
    let inv = mailing.get_invoice(s, inv.id).unwrap();
    assert_eq!(inv.status, InvoiceStatus::Paid);
    assert_eq!(inv.amount_due_cents, 0);
    assert_eq!(events(&mailing, s, "invoice.paid"), 1);
    let receipts = mailing
        .list_emails(s, &EmailFilter::default(), PageRequest::new(1, 10).unwrap())
        .unwrap()
        .data
        .into_iter()
        .filter(|e| e.kind == EmailKind::Receipt)
        .count();
    assert_eq!(receipts, 0);

    // Part paid, the exact rest credited: paid, nothing to refund.
    let inv = sent_invoice(&mailing, s);
    pay(&mailing, s, &inv, 6000);
    let note = mailing
        .create_credit_note(
            s,
            inv.id,
            credit(json!({"reason": "other", "amount_cents": 16600})),
            None,
        )
        .unwrap();
    assert_eq!(note.refund_due_cents, 0);
    assert_eq!(
        mailing.get_invoice(s, inv.id).unwrap().status,
        InvoiceStatus::Paid
    );

    // Nothing paid, all credited: cancelled.
    let inv = sent_invoice(&mailing, s);
    mailing
        .create_credit_note(s, inv.id, credit(json!({"reason": "duplicate"})), None)
        .unwrap();
    let inv = mailing.get_invoice(s, inv.id).unwrap();
    assert_eq!(inv.status, InvoiceStatus::Cancelled);
    assert_eq!(inv.amount_due_cents, 0);
    assert_eq!(events(&mailing, s, "invoice.cancelled"), 1);

    // A paid invoice may still be credited: the whole credit is owed back.
    let inv = sent_invoice(&mailing, s);
    pay(&mailing, s, &inv, 22600);
    let note = mailing
        .create_credit_note(
            s,
            inv.id,
            credit(json!({"reason": "other", "amount_cents": 500})),
            None,
        )
        .unwrap();
    assert_eq!(note.refund_due_cents, 500);
}

fn what_may_not_be_credited(db: TestDb) {
    let s = scope(&db, "Acme");
    let other = scope(&db, "Other");
    let inv = sent_invoice(&db.store, s);
    let too_much = db.store.create_credit_note(
        s,
        inv.id,
        credit(json!({"reason": "other", "amount_cents": 22601})),
        None,
    );
    assert!(
        matches!(too_much, Err(RepoError::Invalid(_))),
        "{too_much:?}"
    );
    db.store
        .create_credit_note(
            s,
            inv.id,
            credit(json!({"reason": "other", "amount_cents": 22000})),
            None,
        )
        .unwrap();
    let over = db.store.create_credit_note(
        s,
        inv.id,
        credit(json!({"reason": "other", "line_items": [
            {"description": "x", "quantity": "1", "unit_price_cents": 601}
        ]})),
        None,
    );
    assert!(matches!(over, Err(RepoError::Invalid(_))), "{over:?}");
    // A draft is not credited; nor is another tenant's invoice.
    let new = serde_json::from_value::<InvoiceInput>(json!({
        "customer": {"name": "Bo", "email": "bo@example.com"},
        "line_items": [{"description": "x", "quantity": "1", "unit_price_cents": 100}]
    }))
    .unwrap()
    .parse(Utc::now().date_naive(), "draft-token".into())
    .unwrap();
    let draft = db.store.create_invoice(s, new).unwrap();
    let r = db
        .store
        .create_credit_note(s, draft.id, credit(json!({"reason": "other"})), None);
    assert!(matches!(r, Err(RepoError::InvalidTransition(_))), "{r:?}");
    let r = db
        .store
        .create_credit_note(other, inv.id, credit(json!({"reason": "other"})), None);
    assert!(matches!(r, Err(RepoError::Forbidden)), "{r:?}");
    let mine = db
        .store
        .list_credit_notes(
            s,
            &CreditNoteFilter::default(),
            PageRequest::new(1, 10).unwrap(),
        )
        .unwrap();
    assert_eq!(mine.total, 1, "refused credits leave nothing behind");
    let id = mine.data[0].id;
    assert!(matches!(
        db.store.get_credit_note(other, id),
        Err(RepoError::Forbidden)
    ));
    let live = Scope::new(s.account_id, Environment::Live);
    assert!(matches!(
        db.store.get_credit_note(live, id),
        Err(RepoError::Forbidden)
    ));
    assert!(matches!(
        db.store.get_credit_note(s, CreditNoteId(999_999)),
        Err(RepoError::NotFound)
    ));
    assert_eq!(
        db.store
            .get_invoice(s, inv.id)
            .unwrap()
            .amount_credited_cents,
        22000
    );
}

fn a_credit_note_can_be_emailed(db: TestDb) {
    let s = scope(&db, "Acme");
    let inv = sent_invoice(&db.store, s);
    let note = db
        .store
        .create_credit_note(
            s,
            inv.id,
            credit(json!({"reason": "other", "amount_cents": 100})),
            Some(EmailRequest::default()),
        )
        .unwrap();
    let emails = db
        .store
        .list_emails(s, &EmailFilter::default(), PageRequest::new(1, 10).unwrap())
        .unwrap()
        .data;
    assert_eq!(emails.len(), 1);
    assert_eq!(emails[0].kind, EmailKind::CreditNote);
    assert_eq!(emails[0].credit_note_id, Some(note.id.0));
    assert_eq!(emails[0].invoice_id, Some(inv.id.0));
    assert!(
        emails[0].subject.contains(&note.credit_note_number),
        "{}",
        emails[0].subject
    );
    let shown = db.store.credit_note_as_shown(s, note.id).unwrap();
    assert_eq!(shown.invoice_number, inv.invoice_number);
    assert_eq!(shown.parties.recipient.email, "ada@example.com");
}

/// Eight credits of 30 % each at once: at most three fit, the credited total never exceeds the
/// invoice's, and the numbers of those issued have no gaps.
fn concurrent_credits_never_exceed_the_total(db: TestDb) {
    let s = scope(&db, "Acme");
    let inv = sent_invoice(&db.store, s);
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let store = Store::connect(&db.url, 2).unwrap();
            let id = inv.id;
            std::thread::spawn(move || {
                store
                    .create_credit_note(
                        s,
                        id,
                        credit(json!({"reason": "other", "amount_cents": 6780})),
                        None,
                    )
                    .map(|n| n.credit_note_number)
            })
        })
        .collect();
    let mut numbers: Vec<String> = handles
        .into_iter()
        .filter_map(|h| h.join().unwrap().ok())
        .collect();
    assert_eq!(numbers.len(), 3, "{numbers:?}");
    numbers.sort();
    let year = Utc::now().format("%Y");
    let expected: Vec<String> = (1..=3).map(|n| format!("CN-{year}-{n:06}")).collect();
    assert_eq!(numbers, expected);
    let inv = db.store.get_invoice(s, inv.id).unwrap();
    assert_eq!(inv.amount_credited_cents, 3 * 6780);
    assert!(inv.amount_credited_cents <= inv.total_cents);
}

backend_tests!(
    the_books_count_each_document_once_and_the_migration_agrees,
    a_partial_credit_lowers_the_amount_due,
    credited_to_zero_an_invoice_is_paid_or_cancelled,
    what_may_not_be_credited,
    a_credit_note_can_be_emailed,
    concurrent_credits_never_exceed_the_total,
);

fn patch_status(store: &Store, s: Scope, inv: &Invoice, status: &str) -> Invoice {
    let patch = serde_json::from_value::<InvoicePatchInput>(json!({ "status": status }))
        .unwrap()
        .parse()
        .unwrap();
    store.update_invoice(s, inv.id, patch).unwrap()
}

/// Every way an invoice ends (credited in full, voided after a partial credit, cancelled as a
/// draft, paid from its draft, paid in part) leaves books that equal the domain's rule over the
/// documents (the check every test database runs when dropped), and the migration that made the
/// books backfills the same from the documents alone.
fn the_books_count_each_document_once_and_the_migration_agrees(db: TestDb) {
    let s = scope(&db, "Books");
    let store = &db.store;
    let full = sent_invoice(store, s);
    store
        .create_credit_note(s, full.id, credit(json!({"reason": "duplicate"})), None)
        .unwrap();
    assert_eq!(
        store.get_invoice(s, full.id).unwrap().status,
        InvoiceStatus::Cancelled
    );
    let voided = sent_invoice(store, s);
    store
        .create_credit_note(
            s,
            voided.id,
            credit(json!({"reason": "other", "amount_cents": 5000})),
            None,
        )
        .unwrap();
    patch_status(store, s, &voided, "cancelled");
    let open = sent_invoice(store, s);
    pay(store, s, &open, 1000);
    let draft = serde_json::from_value::<InvoiceInput>(json!({
        "customer": {"name": "Ada", "email": "ada@example.com"},
        "line_items": [{"description": "Draft", "quantity": "1", "unit_price_cents": 999, "tax_rate": "19"}]
    }))
    .unwrap()
    .parse(Utc::now().date_naive(), "t-draft".into())
    .unwrap();
    let cancelled_draft = store.create_invoice(s, draft.clone()).unwrap();
    patch_status(store, s, &cancelled_draft, "cancelled");
    let paid_draft = store.create_invoice(s, draft).unwrap();
    patch_status(store, s, &paid_draft, "paid");
    db.assert_kept_counts();
    store.replay_migrations_from("000028").unwrap();
    db.assert_kept_counts();
    // The open invoice and the draft paid as it was are what is left: 226.00 + 11.89.
    let today = Utc::now().date_naive();
    let range = invoicing_domain::report::DateRange::new(today, today).unwrap();
    let gross: i64 = store
        .tax_report(s, range)
        .unwrap()
        .iter()
        .map(|l| l.taxable_cents + l.tax_cents)
        .sum();
    assert_eq!(gross, 22_600 + 1_189);
}
