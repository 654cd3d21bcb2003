//! Payments on both backends: partial payments and the verification that pays the invoice,
//! the lifecycle table, amounts never above what is due (also under concurrent verifications),
//! the customer's report from the public page, payment requests, events atomic with their
//! change, and tenant isolation.

use chrono::Utc;
use invoicing_domain::currency::Currency;
use invoicing_domain::event::EventFilter;
use invoicing_domain::invoice::{Invoice, InvoiceId, InvoiceInput, InvoicePatchInput};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::paging::PageRequest;
use invoicing_domain::payment::{
    Payment, PaymentChange, PaymentFilter, PaymentInput, PaymentMethod, PaymentPatchInput,
    PaymentReportInput, RejectPaymentInput,
};
use invoicing_domain::payment_status::PaymentStatus;
use invoicing_domain::ports::{
    AccountRepository, CustomerRepository, EventRepository, InvoiceRepository, PaymentRepository,
    ProfileRepository, RepoError,
};
use invoicing_domain::profile::ProfilePatchInput;
use invoicing_domain::tenant::{Environment, Scope};
use invoicing_storage::testing::TestDb;
use invoicing_storage::{backend_tests, Backend};
use serde_json::{json, Value};
use std::sync::{Arc, Barrier};

fn scope(db: &TestDb) -> Scope {
    let account = db
        .store
        .create_account("Acme", Currency::parse("EUR").unwrap())
        .unwrap();
    Scope::new(account.id, Environment::Test)
}

/// An invoice of `total` cents (no tax), sent unless `send` is false.
fn invoice(db: &TestDb, scope: Scope, email: &str, total: i64, send: bool) -> Invoice {
    let new = serde_json::from_value::<InvoiceInput>(json!({
        "customer": {"name": "Ada", "email": email},
        "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": total}]
    }))
    .unwrap()
    .parse(
        Utc::now().date_naive(),
        format!("tok{}", rand::random::<u64>()),
    )
    .unwrap();
    let inv = db.store.create_invoice(scope, new).unwrap();
    if !send {
        return inv;
    }
    set_invoice_status(db, scope, inv.id, "sent")
}

fn set_invoice_status(db: &TestDb, scope: Scope, id: InvoiceId, status: &str) -> Invoice {
    let patch = serde_json::from_value::<InvoicePatchInput>(json!({ "status": status }))
        .unwrap()
        .parse()
        .unwrap();
    db.store.update_invoice(scope, id, patch).unwrap()
}

fn pay(
    db: &TestDb,
    scope: Scope,
    inv: &Invoice,
    amount: i64,
    status: &str,
) -> Result<Payment, RepoError> {
    let new = serde_json::from_value::<PaymentInput>(json!({
        "invoice_id": inv.id.0, "amount_cents": amount, "method": "bank_transfer",
        "reference": format!("REF-{amount}"), "status": status
    }))
    .unwrap()
    .parse()
    .unwrap();
    db.store.create_payment(scope, new)
}

fn verify(db: &TestDb, scope: Scope, p: &Payment) -> Result<Payment, RepoError> {
    db.store
        .change_payment(scope, p.id, PaymentChange::verify())
}

fn reject(db: &TestDb, scope: Scope, p: &Payment, reason: &str) -> Result<Payment, RepoError> {
    let change = RejectPaymentInput {
        reason: Some(reason.into()),
    }
    .parse()
    .unwrap();
    db.store.change_payment(scope, p.id, change)
}

fn events_of(db: &TestDb, scope: Scope, event_type: &str) -> Vec<Value> {
    let filter = EventFilter {
        event_type: Some(event_type.into()),
    };
    db.store
        .list_events(scope, &filter, PageRequest::new(1, 100).unwrap())
        .unwrap()
        .data
        .into_iter()
        .map(|e| e.data.object)
        .collect()
}

fn value(v: &impl serde::Serialize) -> Value {
    serde_json::to_value(v).unwrap()
}

fn token_of(inv: &Invoice) -> String {
    inv.payment_link.split("token=").nth(1).unwrap().to_string()
}

fn report(amount: &str, reference: &str) -> invoicing_domain::payment::PaymentReport {
    PaymentReportInput {
        amount: Some(amount.into()),
        reference: Some(reference.into()),
    }
    .parse()
    .unwrap()
}

fn partial_payments_then_the_covering_verification_pays(db: TestDb) {
    let scope = scope(&db);
    let inv = invoice(&db, scope, "ada@example.com", 10_000, true);
    let first = pay(&db, scope, &inv, 4_000, "pending").unwrap();
    assert_eq!(first.status, PaymentStatus::Pending);
    assert_eq!(
        (first.invoice_id, first.customer_id, first.currency),
        (inv.id, inv.customer_id, inv.currency)
    );
    assert_eq!(first.method, PaymentMethod::BankTransfer);
    assert_eq!(first.reference.as_deref(), Some("REF-4000"));
    let still = db.store.get_invoice(scope, inv.id).unwrap();
    assert_eq!(
        (still.amount_paid_cents, still.amount_due_cents),
        (0, 10_000),
        "a pending payment does not count"
    );

    let verified = verify(&db, scope, &first).unwrap();
    assert_eq!(verified.status, PaymentStatus::Verified);
    assert!(verified.verified_at.is_some() && verified.rejected_at.is_none());
    let partly = db.store.get_invoice(scope, inv.id).unwrap();
    assert_eq!(
        (partly.amount_paid_cents, partly.amount_due_cents),
        (4_000, 6_000)
    );
    assert_eq!(partly.status, InvoiceStatus::Sent);
    assert!(events_of(&db, scope, "invoice.paid").is_empty());

    // The rest, recorded as verified at once: it covers the total and pays the invoice.
    let rest = pay(&db, scope, &inv, 6_000, "verified").unwrap();
    assert_eq!(rest.status, PaymentStatus::Verified);
    let paid = db.store.get_invoice(scope, inv.id).unwrap();
    assert_eq!(paid.status, InvoiceStatus::Paid);
    assert_eq!((paid.amount_paid_cents, paid.amount_due_cents), (10_000, 0));
    assert!(paid.paid_at.is_some());
    assert_eq!(events_of(&db, scope, "invoice.paid"), vec![value(&paid)]);
    let created = events_of(&db, scope, "payment.created");
    assert_eq!(created.len(), 2);
    assert_eq!(created[1]["id"], first.id.0);
    assert_eq!(created[1]["status"], "pending");
    let verified_events = events_of(&db, scope, "payment.verified");
    assert_eq!(verified_events, vec![value(&rest), value(&verified)]);
    // Nothing more can be paid, and verified is final.
    assert!(matches!(
        pay(&db, scope, &inv, 1, "pending"),
        Err(RepoError::InvalidTransition(_))
    ));
    assert!(matches!(
        reject(&db, scope, &rest, "x"),
        Err(RepoError::InvalidTransition(_))
    ));
}

fn only_open_invoices_take_payments_and_never_too_much(db: TestDb) {
    let scope = scope(&db);
    let draft = invoice(&db, scope, "draft@example.com", 1_000, false);
    let err = pay(&db, scope, &draft, 100, "pending").unwrap_err();
    match err {
        RepoError::InvalidTransition(m) => assert!(m.contains("is draft"), "{m}"),
        other => panic!("{other:?}"),
    }
    let cancelled = invoice(&db, scope, "c@example.com", 1_000, true);
    set_invoice_status(&db, scope, cancelled.id, "cancelled");
    assert!(matches!(
        pay(&db, scope, &cancelled, 100, "pending"),
        Err(RepoError::InvalidTransition(_))
    ));
    let viewed = invoice(&db, scope, "v@example.com", 1_000, true);
    db.store
        .view_public_invoice(&viewed.invoice_number, &token_of(&viewed))
        .unwrap();
    let overdue = invoice(&db, scope, "o@example.com", 1_000, true);
    set_invoice_status(&db, scope, overdue.id, "overdue");
    for open in [&viewed, &overdue] {
        match pay(&db, scope, open, 1_001, "pending") {
            Err(RepoError::Invalid(v)) => {
                assert_eq!(v.errors()[0].param, "amount_cents");
                assert!(v.errors()[0].message.contains("1000"), "{v:?}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            pay(&db, scope, open, 1_000, "pending")
                .unwrap()
                .amount_cents,
            1_000
        );
    }
    let all = db
        .store
        .list_payments(scope, &PaymentFilter::default(), PageRequest::default())
        .unwrap();
    assert_eq!(all.total, 2, "refused payments left nothing behind");
    assert_eq!(events_of(&db, scope, "payment.created").len(), 2);
}

fn verified_and_rejected_are_final(db: TestDb) {
    let scope = scope(&db);
    let inv = invoice(&db, scope, "ada@example.com", 5_000, true);
    let a = pay(&db, scope, &inv, 1_000, "pending").unwrap();
    let b = pay(&db, scope, &inv, 1_000, "pending").unwrap();
    let rejected = reject(&db, scope, &b, "never arrived").unwrap();
    assert_eq!(rejected.status, PaymentStatus::Rejected);
    assert_eq!(rejected.rejection_reason.as_deref(), Some("never arrived"));
    assert!(rejected.rejected_at.is_some() && rejected.verified_at.is_none());
    assert_eq!(
        events_of(&db, scope, "payment.rejected"),
        vec![value(&rejected)]
    );
    verify(&db, scope, &a).unwrap();
    let back_to_pending = serde_json::from_value::<PaymentPatchInput>(json!({"status": "pending"}))
        .unwrap()
        .parse()
        .unwrap();
    for (p, to) in [
        (&a, PaymentChange::verify()),
        (&b, PaymentChange::verify()),
        (&a, back_to_pending.clone()),
        (&b, back_to_pending),
    ] {
        match db.store.change_payment(scope, p.id, to) {
            Err(RepoError::InvalidTransition(m)) => {
                assert!(m.starts_with("a payment cannot go from"), "{m}")
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(matches!(
        reject(&db, scope, &a, "changed my mind"),
        Err(RepoError::InvalidTransition(_))
    ));
    let after = db.store.get_invoice(scope, inv.id).unwrap();
    assert_eq!(
        after.amount_paid_cents, 1_000,
        "the rejected payment never counted"
    );
    assert_eq!(events_of(&db, scope, "payment.verified").len(), 1);
    assert_eq!(events_of(&db, scope, "payment.rejected").len(), 1);
}

/// Pending payments may together exceed the total; verification re-checks what is still due
/// (422, the payment stays pending) and refuses invoices that are no longer open (409).
fn verification_rechecks_the_invoice(db: TestDb) {
    let scope = scope(&db);
    let inv = invoice(&db, scope, "ada@example.com", 1_000, true);
    let a = pay(&db, scope, &inv, 600, "pending").unwrap();
    let b = pay(&db, scope, &inv, 600, "pending").unwrap();
    verify(&db, scope, &a).unwrap();
    match verify(&db, scope, &b) {
        Err(RepoError::Invalid(v)) => {
            assert_eq!(v.errors()[0].param, "amount_cents");
            assert!(v.errors()[0].message.contains("(400)"), "{v:?}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        db.store.get_payment(scope, b.id).unwrap().status,
        PaymentStatus::Pending
    );
    assert_eq!(
        db.store
            .get_invoice(scope, inv.id)
            .unwrap()
            .amount_paid_cents,
        600
    );
    reject(&db, scope, &b, "duplicate").unwrap();

    let other = invoice(&db, scope, "grace@example.com", 1_000, true);
    let p = pay(&db, scope, &other, 500, "pending").unwrap();
    set_invoice_status(&db, scope, other.id, "paid");
    match verify(&db, scope, &p) {
        Err(RepoError::InvalidTransition(m)) => assert!(m.contains("is paid"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        events_of(&db, scope, "invoice.paid").len(),
        1,
        "the manual one only"
    );
    assert_eq!(
        reject(&db, scope, &p, "paid by cheque").unwrap().status,
        PaymentStatus::Rejected
    );
}

/// Eight verifications of one invoice at once, worth more than its total together: the invoice
/// row lock serialises them, so exactly the first three (of 1000 each, total 3000) succeed, the
/// invoice is never over-paid and `invoice.paid` is written once.
fn concurrent_verifications_never_over_pay(db: TestDb) {
    let scope = scope(&db);
    for round in 0..3 {
        let inv = invoice(&db, scope, &format!("r{round}@example.com"), 3_000, true);
        let pending: Vec<Payment> = (0..8)
            .map(|_| pay(&db, scope, &inv, 1_000, "pending").unwrap())
            .collect();
        let barrier = Arc::new(Barrier::new(pending.len()));
        let handles: Vec<_> = pending
            .into_iter()
            .map(|p| {
                let (store, barrier) = (db.store.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    store.change_payment(scope, p.id, PaymentChange::verify())
                })
            })
            .collect();
        let outcomes: Vec<Result<Payment, RepoError>> =
            handles.into_iter().map(|h| h.join().unwrap()).collect();
        let won = outcomes.iter().filter(|r| r.is_ok()).count();
        assert_eq!(won, 3, "round {round}: {outcomes:?}");
        for r in &outcomes {
            assert!(
                matches!(
                    r,
                    Ok(_) | Err(RepoError::InvalidTransition(_) | RepoError::Invalid(_))
                ),
                "{r:?}"
            );
        }
        let after = db.store.get_invoice(scope, inv.id).unwrap();
        assert_eq!(after.status, InvoiceStatus::Paid);
        assert_eq!(
            (after.amount_paid_cents, after.amount_due_cents),
            (3_000, 0)
        );
        let verified = db
            .store
            .list_payments(
                scope,
                &PaymentFilter {
                    invoice_id: Some(inv.id),
                    status: Some(PaymentStatus::Verified),
                    ..Default::default()
                },
                PageRequest::default(),
            )
            .unwrap();
        assert_eq!(verified.total, 3);
        let paid_events: Vec<Value> = events_of(&db, scope, "invoice.paid")
            .into_iter()
            .filter(|e| e["id"] == inv.id.0)
            .collect();
        assert_eq!(paid_events.len(), 1, "round {round}");
        assert_eq!(paid_events[0]["amount_paid_cents"], 3_000);
    }
    assert_eq!(events_of(&db, scope, "payment.verified").len(), 9);
}

/// A failure after the verification's writes (here: writing `invoice.paid`) rolls all of them
/// back: the payment stays pending and nothing counts or is announced.
fn events_are_written_with_their_change_or_not_at_all(db: TestDb) {
    let scope = scope(&db);
    match db.backend() {
        Backend::Sqlite => db.execute(
            "CREATE TRIGGER fail_paid BEFORE INSERT ON events WHEN NEW.event_type = 'invoice.paid' \
             BEGIN SELECT RAISE(ABORT, 'injected failure'); END;",
        ),
        Backend::Postgres => db.execute(
            "CREATE FUNCTION fail_paid() RETURNS trigger AS $$ BEGIN \
               IF NEW.event_type = 'invoice.paid' THEN RAISE EXCEPTION 'injected failure'; END IF; \
               RETURN NEW; END $$ LANGUAGE plpgsql; \
             CREATE TRIGGER fail_paid BEFORE INSERT ON events \
               FOR EACH ROW EXECUTE FUNCTION fail_paid();",
        ),
    }
    let inv = invoice(&db, scope, "ada@example.com", 1_000, true);
    let p = pay(&db, scope, &inv, 1_000, "pending").unwrap();
    assert!(verify(&db, scope, &p).is_err());
    assert_eq!(
        db.store.get_payment(scope, p.id).unwrap().status,
        PaymentStatus::Pending
    );
    let after = db.store.get_invoice(scope, inv.id).unwrap();
    assert_eq!(
        (after.status, after.amount_paid_cents),
        (InvoiceStatus::Sent, 0)
    );
    assert!(events_of(&db, scope, "payment.verified").is_empty());
    assert!(pay(&db, scope, &inv, 1_000, "verified").is_err());
    let all = db
        .store
        .list_payments(scope, &PaymentFilter::default(), PageRequest::default())
        .unwrap();
    assert_eq!(all.total, 1, "the failed verified create left no payment");
    assert_eq!(events_of(&db, scope, "payment.created").len(), 1);
}

fn customer_reports_a_payment_on_the_page(db: TestDb) {
    let scope = scope(&db);
    let inv = invoice(&db, scope, "ada@example.com", 1_595, true);
    let (number, token) = (inv.invoice_number.clone(), token_of(&inv));
    for (n, t) in [
        (number.as_str(), "forged"),
        ("INV-1999-000001", token.as_str()),
    ] {
        assert!(matches!(
            db.store.report_payment(n, t, report("1", "x")),
            Err(RepoError::NotFound)
        ));
    }
    for (amount, message) in [
        ("15.96", "must not exceed the amount due, €15.95"),
        ("0.001", "EUR amounts have at most 2 decimals"),
    ] {
        match db
            .store
            .report_payment(&number, &token, report(amount, "TRX"))
        {
            Err(RepoError::Invalid(v)) => {
                assert_eq!(v.errors()[0].param, "amount");
                assert_eq!(v.errors()[0].message, message);
            }
            other => panic!("{other:?}"),
        }
    }
    let p = db
        .store
        .report_payment(&number, &token, report("10,50", "TRX-42"))
        .unwrap();
    assert_eq!(p.amount_cents, 1_050);
    assert_eq!(p.status, PaymentStatus::Pending);
    assert_eq!(p.method, PaymentMethod::BankTransfer);
    assert_eq!(p.reference.as_deref(), Some("TRX-42"));
    assert_eq!(events_of(&db, scope, "payment.created"), vec![value(&p)]);
    let after = db.store.get_invoice(scope, inv.id).unwrap();
    assert_eq!(
        (after.amount_paid_cents, after.status),
        (0, InvoiceStatus::Sent)
    );
    // The page lists it while it is checked; only what is neither paid nor reported may be
    // reported again, so the same transfer is not reported twice.
    let public = db.store.view_public_invoice(&number, &token).unwrap();
    assert_eq!(public.payments, vec![p.clone()]);
    match db
        .store
        .report_payment(&number, &token, report("15.95", "TRX-43"))
    {
        Err(RepoError::Invalid(v)) => assert_eq!(
            v.errors()[0].message,
            "must not exceed what is neither paid nor reported yet, €5.45"
        ),
        other => panic!("{other:?}"),
    }
    db.store
        .report_payment(&number, &token, report("5.45", "TRX-43"))
        .unwrap();
    match db
        .store
        .report_payment(&number, &token, report("1", "TRX-44"))
    {
        Err(RepoError::Invalid(v)) => assert_eq!(
            v.errors()[0].message,
            "has been reported already: the merchant is checking it"
        ),
        other => panic!("{other:?}"),
    }
    assert!(
        events_of(&db, scope, "invoice.paid").is_empty(),
        "a report never pays"
    );
    assert_eq!(
        db.store.get_invoice(scope, inv.id).unwrap().status,
        InvoiceStatus::Viewed
    );

    let draft = invoice(&db, scope, "d@example.com", 100, false);
    assert!(matches!(
        db.store
            .report_payment(&draft.invoice_number, &token_of(&draft), report("1", "x")),
        Err(RepoError::NotFound)
    ));
    set_invoice_status(&db, scope, inv.id, "cancelled");
    assert!(matches!(
        db.store.report_payment(&number, &token, report("1", "x")),
        Err(RepoError::InvalidTransition(_))
    ));
    let yen = db
        .store
        .create_account("Yen", Currency::parse("JPY").unwrap())
        .unwrap();
    let yen = Scope::new(yen.id, Environment::Live);
    // A live invoice is sent by a seller with an address (SPEC §27).
    let seller = serde_json::from_value::<ProfilePatchInput>(
        json!({"address": {"line1": "1 Chome", "city": "Tokyo", "country": "JP"}}),
    )
    .unwrap()
    .parse()
    .unwrap();
    db.store.update_profile(yen, seller).unwrap();
    let inv = invoice(&db, yen, "ada@example.com", 3_300, true);
    let (number, token) = (inv.invoice_number.clone(), token_of(&inv));
    let p = db
        .store
        .report_payment(&number, &token, report("3300", "T"))
        .unwrap();
    assert!(p.livemode);
    assert_eq!((p.amount_cents, p.currency.code()), (3_300, "JPY"));
}

fn lists_filter_and_page_newest_first(db: TestDb) {
    let scope = scope(&db);
    let a = invoice(&db, scope, "a@example.com", 10_000, true);
    let b = invoice(&db, scope, "b@example.com", 10_000, true);
    let p1 = pay(&db, scope, &a, 100, "pending").unwrap();
    let p2 = pay(&db, scope, &a, 5_000, "verified").unwrap();
    let p3 = pay(&db, scope, &b, 300, "pending").unwrap();
    let ids = |f: PaymentFilter| -> Vec<i64> {
        db.store
            .list_payments(scope, &f, PageRequest::default())
            .unwrap()
            .data
            .iter()
            .map(|p| p.id.0)
            .collect()
    };
    assert_eq!(ids(PaymentFilter::default()), [p3.id.0, p2.id.0, p1.id.0]);
    let pending = PaymentFilter {
        status: Some(PaymentStatus::Pending),
        ..Default::default()
    };
    assert_eq!(ids(pending.clone()), [p3.id.0, p1.id.0]);
    let by_customer = PaymentFilter {
        customer_id: Some(a.customer_id),
        ..Default::default()
    };
    assert_eq!(ids(by_customer), [p2.id.0, p1.id.0]);
    let by_invoice = PaymentFilter {
        invoice_id: Some(b.id),
        ..Default::default()
    };
    assert_eq!(ids(by_invoice), [p3.id.0]);
    let at_least_300 = PaymentFilter {
        amount_min: Some(300),
        ..Default::default()
    };
    assert_eq!(ids(at_least_300.clone()), [p3.id.0, p2.id.0], "inclusive");
    assert_eq!(
        ids(PaymentFilter {
            amount_min: Some(300),
            ..pending
        }),
        [p3.id.0],
        "filters combine"
    );
    let page = db
        .store
        .list_payments(
            scope,
            &PaymentFilter::default(),
            PageRequest::new(2, 2).unwrap(),
        )
        .unwrap();
    assert_eq!(
        (page.total, page.has_more, page.data[0].id),
        (3, false, p1.id)
    );
}

fn payment_requests_are_the_open_invoices(db: TestDb) {
    let scope = scope(&db);
    let _draft = invoice(&db, scope, "draft@example.com", 100, false);
    let sent = invoice(&db, scope, "sent@example.com", 1_000, true);
    let overdue = invoice(&db, scope, "late@example.com", 2_000, true);
    set_invoice_status(&db, scope, overdue.id, "overdue");
    let paid = invoice(&db, scope, "paid@example.com", 500, true);
    pay(&db, scope, &paid, 500, "verified").unwrap();
    let cancelled = invoice(&db, scope, "gone@example.com", 500, true);
    set_invoice_status(&db, scope, cancelled.id, "cancelled");
    pay(&db, scope, &sent, 250, "verified").unwrap();
    let page = db
        .store
        .list_payment_requests(scope, PageRequest::default())
        .unwrap();
    assert_eq!(page.total, 2);
    let r = &page.data;
    assert_eq!((r[0].invoice_id, r[1].invoice_id), (overdue.id, sent.id));
    assert_eq!(r[0].status, InvoiceStatus::Overdue);
    assert_eq!(r[1].amount_due_cents, 750);
    assert_eq!(r[1].invoice_number, sent.invoice_number);
    assert_eq!(r[1].payment_link, sent.payment_link);
    assert_eq!(
        (r[1].due_date, r[1].currency),
        (sent.due_date, sent.currency)
    );
    let other = Scope::new(scope.account_id, Environment::Live);
    assert_eq!(
        db.store
            .list_payment_requests(other, PageRequest::default())
            .unwrap()
            .total,
        0
    );
}

fn tenants_are_isolated(db: TestDb) {
    let a = scope(&db);
    let other_account = scope(&db);
    let a_live = Scope::new(a.account_id, Environment::Live);
    let inv = invoice(&db, a, "ada@example.com", 1_000, true);
    let p = pay(&db, a, &inv, 100, "pending").unwrap();
    for other in [other_account, a_live] {
        assert!(matches!(
            db.store.get_payment(other, p.id),
            Err(RepoError::Forbidden)
        ));
        assert!(matches!(verify(&db, other, &p), Err(RepoError::Forbidden)));
        assert!(matches!(
            reject(&db, other, &p, "x"),
            Err(RepoError::Forbidden)
        ));
        assert!(matches!(
            pay(&db, other, &inv, 100, "pending"),
            Err(RepoError::Forbidden)
        ));
        let listed = db
            .store
            .list_payments(other, &PaymentFilter::default(), PageRequest::default())
            .unwrap();
        assert_eq!(listed.total, 0);
    }
    let missing = invoicing_domain::payment::PaymentId(p.id.0 + 10_000);
    assert!(matches!(
        db.store.get_payment(a, missing),
        Err(RepoError::NotFound)
    ));
    let mut ghost = inv.clone();
    ghost.id = InvoiceId(inv.id.0 + 10_000);
    assert!(matches!(
        pay(&db, a, &ghost, 1, "pending"),
        Err(RepoError::NotFound)
    ));
    assert_eq!(
        db.store.get_payment(a, p.id).unwrap(),
        p,
        "refused calls changed nothing"
    );
    // Payments keep their customer: it cannot be deleted while they refer to it.
    assert!(matches!(
        db.store.delete_customer(a, inv.customer_id),
        Err(RepoError::InUse(_))
    ));
}

backend_tests!(
    partial_payments_then_the_covering_verification_pays,
    only_open_invoices_take_payments_and_never_too_much,
    verified_and_rejected_are_final,
    verification_rechecks_the_invoice,
    concurrent_verifications_never_over_pay,
    events_are_written_with_their_change_or_not_at_all,
    customer_reports_a_payment_on_the_page,
    lists_filter_and_page_newest_first,
    payment_requests_are_the_open_invoices,
    tenants_are_isolated,
);

mod gateways;
