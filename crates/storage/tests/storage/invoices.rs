//! Invoices on both backends: gap-free numbering under concurrency and failures, events atomic
//! with their change, tenant isolation, the lifecycle, the public view and the overdue sweep.

use chrono::{Datelike, Duration, NaiveDate, Utc};
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::event::{EventFilter, EventId};
use invoicing_domain::invoice::{
    Invoice, InvoiceFilter, InvoiceId, InvoiceInput, InvoicePatch, InvoicePatchInput, NewInvoice,
    Standing,
};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::paging::PageRequest;
use invoicing_domain::ports::{
    AccountRepository, CustomerRepository, EventRepository, InvoiceRepository, RepoError,
};
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

fn today() -> NaiveDate {
    Utc::now().date_naive()
}

fn new_invoice(body: Value) -> NewInvoice {
    serde_json::from_value::<InvoiceInput>(body)
        .unwrap()
        .parse(today(), format!("tok{}", rand::random::<u64>()))
        .unwrap()
}

fn simple(email: &str, description: &str) -> NewInvoice {
    new_invoice(json!({
        "customer": {"name": "Ada", "email": email},
        "line_items": [{"description": description, "quantity": "2", "unit_price_cents": 1250, "tax_rate": "7.5"}]
    }))
}

fn patch(body: Value) -> InvoicePatch {
    serde_json::from_value::<InvoicePatchInput>(body)
        .unwrap()
        .parse()
        .unwrap()
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

/// Makes every line described "FAIL" abort its transaction, after the number was taken.
/// `n` copies of the invoice `id` (numbers and tokens made unique), written directly: the API
/// would take minutes for the thousands a test needs. The kept counts follow by their triggers.
fn copies_of(db: &TestDb, id: i64, n: u32) {
    db.execute(&format!(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n}) \
         INSERT INTO invoices (account_id, livemode, number, status, customer_id, currency, \
           issue_date, due_date, subtotal_cents, tax_cents, total_cents, amount_paid_cents, \
           metadata, token, created_at, updated_at, amount_credited_cents) \
         SELECT account_id, livemode, number || '-' || i, status, customer_id, currency, \
           issue_date, due_date, subtotal_cents, tax_cents, total_cents, amount_paid_cents, \
           metadata, token || i, created_at, updated_at, amount_credited_cents \
         FROM invoices, n WHERE id = {id}"
    ));
}

fn inject_line_failures(db: &TestDb) {
    match db.backend() {
        Backend::Sqlite => db.execute(
            "CREATE TRIGGER fail_lines BEFORE INSERT ON line_items WHEN NEW.description = 'FAIL' \
             BEGIN SELECT RAISE(ABORT, 'injected failure'); END;",
        ),
        Backend::Postgres => db.execute(
            "CREATE FUNCTION fail_lines() RETURNS trigger AS $$ BEGIN \
               IF NEW.description = 'FAIL' THEN RAISE EXCEPTION 'injected failure'; END IF; \
               RETURN NEW; END $$ LANGUAGE plpgsql; \
             CREATE TRIGGER fail_lines BEFORE INSERT ON line_items \
               FOR EACH ROW EXECUTE FUNCTION fail_lines();",
        ),
    }
}

fn numbering_is_gap_free_under_concurrency_and_failures(db: TestDb) {
    let scope = scope(&db);
    inject_line_failures(&db);
    let threads = 24;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|i| {
            let store = db.store.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let description = if i % 3 == 0 { "FAIL" } else { "Work" };
                barrier.wait();
                store
                    .create_invoice(scope, simple(&format!("c{i}@example.com"), description))
                    .is_ok()
            })
        })
        .collect();
    let ok = handles
        .into_iter()
        .map(|h| h.join().unwrap())
        .filter(|ok| *ok)
        .count();
    assert_eq!(ok, 16);
    let page = db
        .store
        .list_invoices(
            scope,
            &InvoiceFilter::default(),
            PageRequest::new(1, 100).unwrap(),
        )
        .unwrap();
    let mut numbers: Vec<String> = page.data.iter().map(|i| i.invoice_number.clone()).collect();
    numbers.sort();
    let year = Utc::now().year();
    let expected: Vec<String> = (1..=16).map(|n| format!("INV-{year}-{n:06}")).collect();
    assert_eq!(
        numbers, expected,
        "distinct, consecutive, no gaps left by the failures"
    );
    // For an existing customer the counter moves in the customer's read (on PostgreSQL): a
    // failure after it, or a customer not the scope's, leaves no gap either.
    let customer = page.data[0].customer_id.0;
    let for_customer = |customer: i64, description: &str| {
        new_invoice(json!({
            "customer_id": customer,
            "line_items": [{"description": description, "quantity": "1", "unit_price_cents": 100}]
        }))
    };
    let other = self::scope(&db);
    let number = |scope, customer, description| {
        db.store
            .create_invoice(scope, for_customer(customer, description))
            .map(|i| i.invoice_number)
    };
    let other_customer = db
        .store
        .create_invoice(other, simple("o@example.com", "Work"))
        .unwrap();
    assert_eq!(other_customer.invoice_number, format!("INV-{year}-000001"));
    assert!(number(scope, customer, "FAIL").is_err());
    assert!(number(other, customer, "Work").is_err(), "not its customer");
    assert!(number(scope, other_customer.customer_id.0, "Work").is_err());
    assert!(number(scope, i64::MAX, "Work").is_err());
    assert_eq!(
        number(scope, customer, "Work").unwrap(),
        format!("INV-{year}-000017")
    );
    assert_eq!(
        number(other, other_customer.customer_id.0, "Work").unwrap(),
        format!("INV-{year}-000002")
    );
    // Another environment counts on its own.
    let live = Scope::new(scope.account_id, Environment::Live);
    assert_eq!(
        db.store
            .create_invoice(live, simple("x@example.com", "Work"))
            .unwrap()
            .invoice_number,
        format!("INV-{year}-000001")
    );
}

fn events_are_written_with_their_change_or_not_at_all(db: TestDb) {
    let scope = scope(&db);
    inject_line_failures(&db);
    assert!(db
        .store
        .create_invoice(scope, simple("ghost@example.com", "FAIL"))
        .is_err());
    assert!(events_of(&db, scope, "invoice.created").is_empty());
    assert!(
        events_of(&db, scope, "customer.created").is_empty(),
        "the inline customer rolled back too"
    );
    let customers = db
        .store
        .list_customers(scope, &Default::default(), PageRequest::default())
        .unwrap();
    assert_eq!(customers.total, 0);

    let invoice = db
        .store
        .create_invoice(scope, simple("ada@example.com", "Work"))
        .unwrap();
    assert_eq!(invoice.subtotal_cents, 2500);
    assert_eq!(
        invoice.tax_cents, 188,
        "7.5 % of 2500 = 187.5, rounded half away from zero"
    );
    assert_eq!(invoice.total_cents, 2688);
    assert_eq!(
        events_of(&db, scope, "invoice.created"),
        vec![serde_json::to_value(&invoice).unwrap()]
    );
    assert_eq!(events_of(&db, scope, "customer.created").len(), 1);
    // A refused transition writes nothing either.
    assert!(db
        .store
        .update_invoice(scope, invoice.id, patch(json!({"status": "overdue"})))
        .is_err());
    assert!(events_of(&db, scope, "invoice.overdue").is_empty());
}

fn tenants_are_isolated(db: TestDb) {
    let a = scope(&db);
    let other_account = scope(&db);
    let a_live = Scope::new(a.account_id, Environment::Live);
    let invoice = db
        .store
        .create_invoice(a, simple("ada@example.com", "Work"))
        .unwrap();
    let event_id = db
        .store
        .list_events(a, &EventFilter::default(), PageRequest::default())
        .unwrap()
        .data[0]
        .id;
    for other in [other_account, a_live] {
        assert!(matches!(
            db.store.get_invoice(other, invoice.id),
            Err(RepoError::Forbidden)
        ));
        assert!(matches!(
            db.store
                .update_invoice(other, invoice.id, patch(json!({"status": "sent"}))),
            Err(RepoError::Forbidden)
        ));
        assert!(matches!(
            db.store.get_event(other, event_id),
            Err(RepoError::Forbidden)
        ));
        assert_eq!(
            db.store
                .list_invoices(other, &InvoiceFilter::default(), PageRequest::default())
                .unwrap()
                .total,
            0
        );
        assert_eq!(
            db.store
                .list_events(other, &EventFilter::default(), PageRequest::default())
                .unwrap()
                .total,
            0
        );
        // A document cannot name another tenant's customer.
        let foreign = new_invoice(
            json!({"customer_id": invoice.customer_id.0, "line_items": [{"description": "x", "quantity": 1, "unit_price_cents": 1}]}),
        );
        assert!(matches!(
            db.store.create_invoice(other, foreign),
            Err(RepoError::Invalid(_))
        ));
    }
    assert_eq!(db.store.get_invoice(a, invoice.id).unwrap(), invoice);
    assert!(matches!(
        db.store.get_event(a, EventId(event_id.0 + 10_000)),
        Err(RepoError::NotFound)
    ));
}

/// Invoices of several tenants read together answer each asker as reading it alone would:
/// in the order asked, each with its own lines in order, another tenant's id refused as
/// another's, a missing one missing, the same one twice.
fn invoices_read_together_answer_each_as_alone(db: TestDb) {
    let a = scope(&db);
    let b = scope(&db);
    let a_live = Scope::new(a.account_id, Environment::Live);
    let two_lines = new_invoice(json!({
        "customer": {"name": "Ada", "email": "ada@example.com"},
        "line_items": [
            {"description": "First", "quantity": "2", "unit_price_cents": 1250},
            {"description": "Second", "quantity": 1, "unit_price_cents": 100, "tax_rate": "19"}
        ]
    }));
    let of_a = db.store.create_invoice(a, two_lines).unwrap();
    let of_b = db
        .store
        .create_invoice(b, simple("bob@example.com", "Work"))
        .unwrap();
    let live = db
        .store
        .create_invoice(a_live, simple("ada@example.com", "Live"))
        .unwrap();
    let missing = InvoiceId(live.id.0 + 10_000);
    let wanted = [
        (b, of_b.id),
        (a, of_a.id),
        (b, of_a.id),
        (a, live.id),
        (a_live, live.id),
        (a, missing),
        (a, of_a.id),
    ];
    let answers = db.store.get_invoices(&wanted).unwrap();
    assert_eq!(answers.len(), wanted.len());
    for ((scope, id), answer) in wanted.iter().zip(&answers) {
        match (answer, db.store.get_invoice(*scope, *id)) {
            (Ok(together), Ok(alone)) => assert_eq!(together, &alone),
            (Err(together), Err(alone)) => {
                assert_eq!(format!("{together:?}"), format!("{alone:?}"))
            }
            (together, alone) => panic!("{id:?} in {scope:?}: {together:?} against {alone:?}"),
        }
    }
    let lines: Vec<&str> = answers[1]
        .as_ref()
        .unwrap()
        .line_items
        .iter()
        .map(|l| l.description.as_str())
        .collect();
    assert_eq!(lines, ["First", "Second"]);
    assert_eq!(answers[0].as_ref().unwrap(), &of_b);
    assert!(matches!(answers[2], Err(RepoError::Forbidden)));
    assert!(matches!(answers[3], Err(RepoError::Forbidden)));
    assert_eq!(answers[4].as_ref().unwrap(), &live);
    assert!(matches!(answers[5], Err(RepoError::NotFound)));
    assert_eq!(answers[6].as_ref().unwrap(), &of_a);
    // More than one statement asks for at once: the same answers.
    let many: Vec<(Scope, InvoiceId)> =
        (0..45).map(|k| (a, InvoiceId(of_a.id.0 - 2 + k))).collect();
    let answers = db.store.get_invoices(&many).unwrap();
    for ((scope, id), answer) in many.iter().zip(&answers) {
        let alone = db.store.get_invoice(*scope, *id);
        assert_eq!(format!("{answer:?}"), format!("{alone:?}"), "{id:?}");
    }
    assert_eq!(answers[2].as_ref().unwrap(), &of_a);
    // Each count of ids a statement is prepared for (1, 2, 4, … 32), padded or exact.
    for n in [1, 2, 3, 4, 5, 8, 9, 16, 17, 32] {
        let some = &many[..n];
        let answers = db.store.get_invoices(some).unwrap();
        assert_eq!(answers.len(), n);
        for ((scope, id), answer) in some.iter().zip(&answers) {
            let alone = db.store.get_invoice(*scope, *id);
            assert_eq!(format!("{answer:?}"), format!("{alone:?}"), "{id:?} of {n}");
        }
    }
}

fn lifecycle_follows_the_table(db: TestDb) {
    let scope = scope(&db);
    let draft = db
        .store
        .create_invoice(scope, simple("ada@example.com", "Work"))
        .unwrap();
    assert_eq!(draft.status, InvoiceStatus::Draft);
    let edited = db.store.update_invoice(scope, draft.id, patch(json!({"line_items": [{"description": "New", "quantity": 1, "unit_price_cents": 999}], "currency": "usd", "notes": "n"}))).unwrap();
    assert_eq!(
        (
            edited.total_cents,
            edited.currency.code(),
            edited.line_items.len()
        ),
        (999, "USD", 1)
    );
    assert_eq!(events_of(&db, scope, "invoice.updated").len(), 1);
    let sent = db
        .store
        .update_invoice(scope, draft.id, patch(json!({"status": "sent"})))
        .unwrap();
    assert!(sent.sent_at.is_some());
    for draft_only in [
        json!({"line_items": [{"description": "x", "quantity": 1, "unit_price_cents": 1}]}),
        json!({"currency": "EUR"}),
        json!({"customer_id": draft.customer_id.0}),
    ] {
        assert!(matches!(
            db.store.update_invoice(scope, draft.id, patch(draft_only)),
            Err(RepoError::InvalidTransition(_))
        ));
    }
    assert!(matches!(
        db.store
            .update_invoice(scope, draft.id, patch(json!({"status": "sent"}))),
        Err(RepoError::InvalidTransition(_))
    ));
    assert!(matches!(
        db.store
            .update_invoice(scope, draft.id, patch(json!({"due_date": "2000-01-01"}))),
        Err(RepoError::Invalid(_))
    ));
    let later = db
        .store
        .update_invoice(
            scope,
            draft.id,
            patch(json!({"due_date": "2099-12-31", "metadata": {"po": "7"}})),
        )
        .unwrap();
    assert_eq!(later.due_date.to_string(), "2099-12-31");
    assert_eq!(later.payment_terms, None);
    let unchanged = db
        .store
        .update_invoice(scope, draft.id, InvoicePatch::default())
        .unwrap();
    assert_eq!(unchanged, later, "an empty patch changes nothing");
    assert_eq!(
        events_of(&db, scope, "invoice.updated").len(),
        2,
        "and writes no event"
    );
    let paid = db
        .store
        .update_invoice(scope, draft.id, patch(json!({"status": "paid"})))
        .unwrap();
    assert!(paid.paid_at.is_some());
    assert!(matches!(
        db.store
            .update_invoice(scope, draft.id, patch(json!({"status": "cancelled"}))),
        Err(RepoError::InvalidTransition(_))
    ));
    assert!(matches!(
        db.store.delete_customer(scope, draft.customer_id),
        Err(RepoError::InUse(_))
    ));
    assert!(db.store.get_customer(scope, draft.customer_id).is_ok());
}

fn public_view_marks_viewed_once(db: TestDb) {
    let scope = scope(&db);
    let invoice = db
        .store
        .create_invoice(scope, simple("ada@example.com", "Work"))
        .unwrap();
    let token = invoice
        .payment_link
        .rsplit("token=")
        .next()
        .unwrap()
        .to_string();
    assert!(
        matches!(
            db.store
                .view_public_invoice(&invoice.invoice_number, &token),
            Err(RepoError::NotFound)
        ),
        "drafts are private"
    );
    db.store
        .update_invoice(scope, invoice.id, patch(json!({"status": "sent"})))
        .unwrap();
    assert!(matches!(
        db.store
            .view_public_invoice(&invoice.invoice_number, "wrong"),
        Err(RepoError::NotFound)
    ));
    assert!(matches!(
        db.store.view_public_invoice("INV-1999-000001", &token),
        Err(RepoError::NotFound)
    ));
    let first = db
        .store
        .view_public_invoice(&invoice.invoice_number, &token)
        .unwrap();
    assert_eq!(first.invoice.status, InvoiceStatus::Viewed);
    assert_eq!(first.parties.issuer.name, "Acme");
    assert_eq!(first.parties.recipient.email, "ada@example.com");
    let second = db
        .store
        .view_public_invoice(&invoice.invoice_number, &token)
        .unwrap();
    assert_eq!(second.invoice.viewed_at, first.invoice.viewed_at);
    assert_eq!(events_of(&db, scope, "invoice.viewed").len(), 1);
}

fn past_due(db: &TestDb, scope: Scope, email: &str, send: bool) -> Invoice {
    let invoice = db
        .store
        .create_invoice(scope, new_invoice(json!({
            "customer": {"name": "Late", "email": email}, "issue_date": "2026-01-01", "due_date": "2026-01-02",
            "line_items": [{"description": "x", "quantity": 1, "unit_price_cents": 100}]
        })))
        .unwrap();
    if send {
        db.store
            .update_invoice(scope, invoice.id, patch(json!({"status": "sent"})))
            .unwrap();
    }
    invoice
}

fn overdue_sweep_is_idempotent_across_sweepers(db: TestDb) {
    let a = scope(&db);
    let b = scope(&db);
    for i in 0..4 {
        past_due(&db, a, &format!("a{i}@example.com"), true);
    }
    let viewed = past_due(&db, b, "b@example.com", true);
    let token = viewed
        .payment_link
        .rsplit("token=")
        .next()
        .unwrap()
        .to_string();
    db.store
        .view_public_invoice(&viewed.invoice_number, &token)
        .unwrap();
    let draft = past_due(&db, a, "draft@example.com", false);
    let not_due = db
        .store
        .create_invoice(a, simple("fresh@example.com", "Work"))
        .unwrap();
    db.store
        .update_invoice(a, not_due.id, patch(json!({"status": "sent"})))
        .unwrap();

    let barrier = Arc::new(Barrier::new(4));
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let store = db.store.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                store
                    .mark_overdue_invoices(invoicing_storage::testing::noon(today()))
                    .unwrap()
            })
        })
        .collect();
    let changed: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(changed, 5);
    assert_eq!(events_of(&db, a, "invoice.overdue").len(), 4);
    assert_eq!(events_of(&db, b, "invoice.overdue").len(), 1);
    assert_eq!(
        db.store
            .mark_overdue_invoices(invoicing_storage::testing::noon(today()))
            .unwrap(),
        0
    );
    assert_eq!(
        db.store.get_invoice(a, draft.id).unwrap().status,
        InvoiceStatus::Draft
    );
    assert_eq!(
        db.store.get_invoice(a, not_due.id).unwrap().status,
        InvoiceStatus::Sent
    );
    assert_eq!(
        db.store.get_invoice(b, viewed.id).unwrap().status,
        InvoiceStatus::Overdue
    );
}

/// Each account's invoices turn overdue at midnight where the account is (SPEC §27): one due
/// on 2 January is overdue from 10:00 UTC that day in Kiritimati (UTC+14), from midnight UTC
/// without a zone, and from 04:00 UTC on the 3rd in Port of Spain (UTC−4).
fn overdue_comes_at_each_accounts_local_midnight(db: TestDb) {
    use chrono::TimeZone as _;
    use invoicing_domain::ports::ProfileRepository;
    use invoicing_domain::profile::ProfilePatch;
    use invoicing_domain::time_zone::TimeZone;
    let zoned = |name: &str| {
        let scope = scope(&db);
        let zone = TimeZone::parse(name).unwrap();
        let patch = ProfilePatch {
            time_zone: Some(zone),
            ..Default::default()
        };
        db.store.update_profile(scope, patch).unwrap();
        scope
    };
    let port_of_spain = zoned("America/Port_of_Spain");
    let kiritimati = zoned("Pacific/Kiritimati");
    let utc = scope(&db);
    let due = [port_of_spain, kiritimati, utc].map(|s| past_due(&db, s, "late@example.com", true));
    let status = |scope: Scope, i: usize| db.store.get_invoice(scope, due[i].id).unwrap().status;
    let at =
        |h: u32, m: u32, s: u32, day: u32| Utc.with_ymd_and_hms(2026, 1, day, h, m, s).unwrap();
    let sweep = |now| db.store.mark_overdue_invoices(now).unwrap();

    assert_eq!(sweep(at(9, 59, 59, 2)), 0, "nowhere past the 2nd yet");
    assert_eq!(sweep(at(10, 0, 0, 2)), 1);
    assert_eq!(status(kiritimati, 1), InvoiceStatus::Overdue);
    assert_eq!(sweep(at(23, 59, 59, 2)), 0);
    assert_eq!(sweep(at(0, 0, 0, 3)), 1);
    assert_eq!(status(utc, 2), InvoiceStatus::Overdue);
    assert_eq!(sweep(at(3, 59, 59, 3)), 0, "still the 2nd in Port of Spain");
    assert_eq!(status(port_of_spain, 0), InvoiceStatus::Sent);
    assert_eq!(sweep(at(4, 0, 0, 3)), 1);
    assert_eq!(status(port_of_spain, 0), InvoiceStatus::Overdue);
}

fn lists_filter_by_status_customer_and_day(db: TestDb) {
    let scope = scope(&db);
    let first = db
        .store
        .create_invoice(scope, simple("ada@example.com", "Work"))
        .unwrap();
    let second = db
        .store
        .create_invoice(scope, simple("bob@example.com", "Work"))
        .unwrap();
    db.store
        .update_invoice(scope, second.id, patch(json!({"status": "sent"})))
        .unwrap();
    // Every filter reads the same invoices for an export's lean rows as for the list.
    let list = |f: InvoiceFilter| {
        let page = db
            .store
            .list_invoices(scope, &f, PageRequest::default())
            .unwrap();
        let summaries = db
            .store
            .invoice_summaries(scope, &f, PageRequest::default())
            .unwrap();
        assert_eq!(
            summaries.data,
            page.data.iter().map(Invoice::summary).collect::<Vec<_>>(),
            "{f:?}"
        );
        page
    };
    let all = list(InvoiceFilter::default());
    assert_eq!(
        all.data.iter().map(|i| i.id).collect::<Vec<_>>(),
        vec![second.id, first.id],
        "newest first"
    );
    assert_eq!(
        list(InvoiceFilter {
            status: Some(InvoiceStatus::Sent),
            ..Default::default()
        })
        .data[0]
            .id,
        second.id
    );
    assert_eq!(
        list(InvoiceFilter {
            customer_id: Some(first.customer_id),
            ..Default::default()
        })
        .total,
        1
    );
    assert_eq!(
        list(InvoiceFilter {
            customer_id: Some(CustomerId(999_999)),
            ..Default::default()
        })
        .total,
        0
    );
    let day = today();
    assert_eq!(
        list(InvoiceFilter {
            created_after: Some(day),
            created_before: Some(day),
            ..Default::default()
        })
        .total,
        2,
        "inclusive whole days"
    );
    assert_eq!(
        list(InvoiceFilter {
            created_before: Some(day - Duration::days(1)),
            ..Default::default()
        })
        .total,
        0
    );
    assert_eq!(
        list(InvoiceFilter {
            created_after: Some(day + Duration::days(1)),
            ..Default::default()
        })
        .total,
        0
    );
    // Search: by number or by the customer's email, any case.
    let search = |text: &str| {
        list(InvoiceFilter {
            search: invoicing_domain::paging::SearchText::parse(text).unwrap(),
            ..Default::default()
        })
        .data
        .iter()
        .map(|i| i.id)
        .collect::<Vec<_>>()
    };
    assert_eq!(search("BOB@"), vec![second.id]);
    assert_eq!(search(&first.invoice_number.to_lowercase()), vec![first.id]);
    assert!(search("no such text").is_empty());
    // What is outstanding: the sent invoice only, per currency; one customer's.
    let due = db.store.outstanding(scope, None).unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!(
        (
            due[0].currency.code(),
            due[0].outstanding_cents,
            due[0].open_count,
            due[0].overdue_cents
        ),
        ("EUR", second.total_cents, 1, 0)
    );
    assert!(db
        .store
        .outstanding(scope, Some(first.customer_id))
        .unwrap()
        .is_empty());
    // The sent invoice's timeline: created, then sent.
    let events = db
        .store
        .object_events(scope, "invoice", second.id.0, 10)
        .unwrap();
    let types: Vec<&str> = events.iter().map(|e| e.event_type.as_str()).collect();
    assert_eq!(types, vec!["invoice.created", "invoice.sent"]);
    assert!(db
        .store
        .object_events(scope, "quotation", second.id.0, 10)
        .unwrap()
        .is_empty());
    // Where they stand: the draft is neither open nor settled.
    let standing = |standing| {
        let f = InvoiceFilter {
            standing,
            ..Default::default()
        };
        list(f).data.iter().map(|i| i.id).collect::<Vec<_>>()
    };
    assert_eq!(standing(Standing::Open), vec![second.id]);
    assert_eq!(standing(Standing::Settled), Vec::<InvoiceId>::new());
    db.store
        .update_invoice(scope, second.id, patch(json!({"status": "paid"})))
        .unwrap();
    assert_eq!(standing(Standing::Settled), vec![second.id]);
    assert_eq!(standing(Standing::Open), Vec::<InvoiceId>::new());
}

/// Racing status changes and draft-only edits: each change is decided on the row as it is when
/// the change commits, so one send wins, one event is written, and a sent invoice keeps its lines.
fn racing_changes_have_one_winner(db: TestDb) {
    let scope = scope(&db);
    let store = Arc::new(db.store.clone());
    for round in 0..10 {
        let inv = store
            .create_invoice(scope, simple(&format!("r{round}@example.com"), "Work"))
            .unwrap();
        let threads = 6;
        let barrier = Arc::new(Barrier::new(threads));
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let (store, barrier) = (store.clone(), barrier.clone());
                std::thread::spawn(move || {
                    let change = if i % 2 == 0 {
                        patch(json!({"status": "sent"}))
                    } else {
                        patch(json!({"line_items": [{"description": "Edited", "quantity": 1, "unit_price_cents": 1}]}))
                    };
                    barrier.wait();
                    store.update_invoice(scope, inv.id, change).is_ok()
                })
            })
            .collect();
        let outcomes: Vec<bool> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let sends_won = outcomes.iter().step_by(2).filter(|ok| **ok).count();
        assert_eq!(sends_won, 1, "round {round}: {outcomes:?}");
        let after = store.get_invoice(scope, inv.id).unwrap();
        assert_eq!(after.status, InvoiceStatus::Sent);
        let edits_won = outcomes.iter().skip(1).step_by(2).filter(|ok| **ok).count();
        assert_eq!(after.line_items[0].description == "Edited", edits_won > 0);
    }
    let sent = events_of(&db, scope, "invoice.sent");
    assert_eq!(sent.len(), 10, "one invoice.sent per invoice");
    for e in sent {
        let lines_in_event = &e["line_items"];
        let id = e["id"].as_i64().unwrap();
        let now = store
            .get_invoice(scope, invoicing_domain::invoice::InvoiceId(id))
            .unwrap();
        assert_eq!(
            lines_in_event[0]["description"],
            now.line_items[0].description.as_str(),
            "no edit landed after the send"
        );
    }
}

/// PostgreSQL only (SQLite's write transactions are exclusive): a first view that reads the
/// invoice as sent while a cancel is committing must not write "viewed" over "cancelled", nor an
/// `invoice.viewed` event.
#[test]
fn postgres_a_view_racing_a_cancel_leaves_it_cancelled() {
    use diesel::connection::SimpleConnection;
    use diesel::sql_types::BigInt;
    use diesel::{Connection, PgConnection, RunQueryDsl};

    let Some(db) = TestDb::postgres() else {
        return;
    };
    let scope = scope(&db);
    let invoice = db
        .store
        .create_invoice(scope, simple("ada@example.com", "Work"))
        .unwrap();
    db.store
        .update_invoice(scope, invoice.id, patch(json!({"status": "sent"})))
        .unwrap();
    let token = invoice
        .payment_link
        .rsplit("token=")
        .next()
        .unwrap()
        .to_string();

    // A cancel in flight: its row lock held, not yet committed. (By hand, so it books the void
    // as the store would: the invoice's lines taken back on the day.)
    let mut cancel = PgConnection::establish(&db.url).unwrap();
    cancel
        .batch_execute(&format!(
            "BEGIN; UPDATE invoices SET status = 'cancelled', cancelled_at = now() WHERE id = {id}; \
             INSERT INTO booked_days SELECT account_id, livemode, 'EUR', CAST(now() AS DATE), \
               tax_rate_milli, COALESCE(tax_category, ''), -subtotal_cents, -tax_cents \
               FROM line_items WHERE document_kind = 'invoice' AND document_id = {id} \
             ON CONFLICT (account_id, livemode, currency, day, tax_rate_milli, tax_category) \
             DO UPDATE SET taxable = booked_days.taxable + excluded.taxable, \
               tax = booked_days.tax + excluded.tax",
            id = invoice.id.0
        ))
        .unwrap();
    let store = db.store.clone();
    let number = invoice.invoice_number.clone();
    let viewer = std::thread::spawn(move || store.view_public_invoice(&number, &token));
    let mut watcher = PgConnection::establish(&db.url).unwrap();
    let waiting = || {
        diesel::select(diesel::dsl::sql::<BigInt>(
            "(SELECT count(*) FROM pg_stat_activity \
              WHERE datname = current_database() AND wait_event_type = 'Lock')",
        ))
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while waiting().get_result::<i64>(&mut watcher).unwrap() == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the view never waited for the cancel's row lock"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    cancel.batch_execute("COMMIT").unwrap();

    let shown = viewer.join().unwrap().unwrap();
    assert_eq!(shown.invoice.status, InvoiceStatus::Cancelled);
    let now = db.store.get_invoice(scope, invoice.id).unwrap();
    assert_eq!(now.status, InvoiceStatus::Cancelled, "the cancel stands");
    assert!(now.viewed_at.is_none());
    assert!(events_of(&db, scope, "invoice.viewed").is_empty());
}

/// The totals of unfiltered and status-filtered lists come from counts kept with every change:
/// after concurrent creates and status moves they equal the rows.
fn kept_counts_match_the_rows_after_concurrent_changes(db: TestDb) {
    let scope = scope(&db);
    let barrier = Arc::new(Barrier::new(6));
    let handles: Vec<_> = (0..6)
        .map(|t| {
            let store = db.store.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                for i in 0..5 {
                    let inv = store
                        .create_invoice(scope, simple(&format!("c{t}-{i}@example.com"), "Work"))
                        .unwrap();
                    if i % 2 == 0 {
                        store
                            .update_invoice(scope, inv.id, patch(json!({"status": "sent"})))
                            .unwrap();
                    }
                    if i == 4 {
                        store
                            .update_invoice(scope, inv.id, patch(json!({"status": "cancelled"})))
                            .unwrap();
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let page = PageRequest::new(1, 100).unwrap();
    let total = |status: Option<InvoiceStatus>| {
        let filter = InvoiceFilter {
            status,
            ..InvoiceFilter::default()
        };
        let listed = db.store.list_invoices(scope, &filter, page).unwrap();
        assert!(!listed.total_capped);
        (listed.total, listed.data.len() as i64)
    };
    assert_eq!(total(None), (30, 30));
    assert_eq!(total(Some(InvoiceStatus::Draft)), (12, 12));
    assert_eq!(total(Some(InvoiceStatus::Sent)), (12, 12));
    assert_eq!(total(Some(InvoiceStatus::Cancelled)), (6, 6));
    assert_eq!(total(Some(InvoiceStatus::Paid)), (0, 0));
    // A page past the end has no row to carry the total: it is read apart, the same number.
    let past_the_end = db
        .store
        .list_invoices(
            scope,
            &InvoiceFilter::default(),
            PageRequest::new(2, 100).unwrap(),
        )
        .unwrap();
    assert_eq!((past_the_end.total, past_the_end.data.len()), (30, 0));
    // Another tenant's counts are its own.
    let other = self::scope(&db);
    let listed = db
        .store
        .list_invoices(other, &InvoiceFilter::default(), page)
        .unwrap();
    assert_eq!((listed.total, listed.has_more), (0, false));
}

/// Lists filtered by more than their status count rows, up to 10,000: past that the total is
/// 10000 with `total_capped`, and `has_more` still tells whether a next page exists.
fn other_filters_count_up_to_ten_thousand(db: TestDb) {
    let scope = scope(&db);
    let first = db
        .store
        .create_invoice(scope, simple("many@example.com", "Work"))
        .unwrap();
    // 10,001 more rows for the same customer, written directly (the API would take minutes).
    copies_of(&db, first.id.0, 10001);
    let by_customer = |page: u32| {
        let filter = InvoiceFilter {
            customer_id: Some(first.customer_id),
            ..InvoiceFilter::default()
        };
        db.store
            .list_invoices(scope, &filter, PageRequest::new(page, 100).unwrap())
            .unwrap()
    };
    let listed = by_customer(1);
    assert_eq!((listed.total, listed.total_capped), (10_000, true));
    assert!(listed.has_more);
    assert_eq!(listed.data.len(), 100);
    let last = by_customer(101);
    assert_eq!((last.data.len(), last.has_more), (2, false));
    // The kept counts include rows written by any means.
    let all = db
        .store
        .list_invoices(scope, &InvoiceFilter::default(), PageRequest::default())
        .unwrap();
    assert_eq!((all.total, all.total_capped), (10_002, false));
}

/// The event log grows with every change: its total is exact up to 10,000, then capped.
fn the_event_log_counts_up_to_ten_thousand(db: TestDb) {
    let scope = scope(&db);
    // A customer and an invoice: two events.
    db.store
        .create_invoice(scope, simple("log@example.com", "Work"))
        .unwrap();
    let all = |page: u32| {
        db.store
            .list_events(
                scope,
                &EventFilter::default(),
                PageRequest::new(page, 100).unwrap(),
            )
            .unwrap()
    };
    let two = all(1);
    assert_eq!(
        (two.total, two.total_capped, two.has_more),
        (2, false, false)
    );
    // Copies written directly, `copies` of each of the two, then one more.
    let copy = |copies: u32, limit: u32| {
        db.execute(&format!(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {copies}) \
             INSERT INTO events (account_id, livemode, event_type, data, created_at) \
             SELECT account_id, livemode, event_type, data, created_at FROM events, n \
             WHERE account_id = {} AND livemode = {} LIMIT {limit}",
            scope.account_id.0,
            scope.livemode()
        ))
    };
    copy(4999, 9998);
    let exact = all(1);
    assert_eq!((exact.total, exact.total_capped), (10_000, false));
    copy(1, 1);
    let listed = all(1);
    assert_eq!((listed.total, listed.total_capped), (10_000, true));
    assert!(listed.has_more);
    assert_eq!(listed.data.len(), 100);
    let last = all(101);
    assert_eq!((last.data.len(), last.has_more), (1, false));
}

/// An export's walk: rows below the last one seen, by `created_at` then `id`; rows that share a
/// `created_at` come once each, and a row added during the walk never shifts it.
fn a_keyset_walk_sees_every_row_once(db: TestDb) {
    let scope = scope(&db);
    let first = db
        .store
        .create_invoice(scope, simple("walk@example.com", "Work"))
        .unwrap();
    // 2,500 more with the same created_at (three steps of a walk): only the id orders them.
    copies_of(&db, first.id.0, 2500);
    let mut seen: Vec<Invoice> = Vec::new();
    let mut late = None;
    let mut cursor = None;
    loop {
        let page = PageRequest::walk(cursor);
        let listed = db
            .store
            .list_invoices(scope, &InvoiceFilter::default(), page)
            .unwrap();
        if seen.is_empty() {
            // A newer invoice made during the walk is above it: not in this export.
            late = Some(
                db.store
                    .create_invoice(scope, simple("late@example.com", "Late"))
                    .unwrap()
                    .id
                    .0,
            );
        }
        let full = listed.data.len() == listed.per_page as usize;
        seen.extend(listed.data);
        if !full {
            break;
        }
        cursor = seen.last().map(invoicing_domain::paging::Keyed::cursor);
    }
    let ids: Vec<i64> = seen.iter().map(|i| i.id.0).collect();
    let mut once = ids.clone();
    once.sort_unstable();
    once.dedup();
    assert_eq!(once.len(), 2501, "every row once: {ids:?}");
    assert!(
        seen.windows(2)
            .all(|w| (w[0].created_at, w[0].id.0) > (w[1].created_at, w[1].id.0)),
        "newest first"
    );
    assert!(!ids.contains(&late.unwrap()), "made after the walk began");
}

/// Lines travel to the database as one JSON array (one prepared statement, whatever their
/// number): every field, in every position, reads back as written, text that is JSON's or
/// SQL's own syntax included, and a draft's edit does the same.
fn lines_read_back_as_written(db: TestDb) {
    let scope = scope(&db);
    let hostile = [
        "Quote \" and backslash \\ and 'single'",
        "{\"description\": \"nested\"}, ]]>",
        "Zeilen\nund\tTabs, Ελληνικά, 中文, emoji 🧾",
        "$1, ?, :name, %s",
    ];
    let body = |n: usize| {
        let lines: Vec<Value> = (0..n)
            .map(|i| {
                json!({
                    "description": format!("{} #{i}", hostile[i % hostile.len()]),
                    "quantity": format!("{}.{:03}", i + 1, i % 1000),
                    "unit_price_cents": 1000 + i as i64,
                    "tax_rate": if i % 2 == 0 { "19" } else { "0" },
                    "unit": if i % 3 == 0 { "HUR" } else { "C62" },
                    "tax_category": if i % 2 == 0 { "S" } else { "E" },
                    "tax_exemption_reason": if i % 2 == 0 { Value::Null } else { json!("VATEX-EU-132") },
                })
            })
            .collect();
        json!({"customer": {"name": "Ada", "email": "ada@example.com"}, "line_items": lines})
    };
    for n in [1, 3, 40] {
        let created = db
            .store
            .create_invoice(scope, new_invoice(body(n)))
            .unwrap();
        let read = db.store.get_invoice(scope, created.id).unwrap();
        // What the create answered (the insert's own RETURNING) is what is stored.
        assert_eq!(read, created);
        assert_eq!(read.line_items.len(), n);
        let expected = body(n)["line_items"].clone();
        for (i, (line, sent)) in read
            .line_items
            .iter()
            .zip(expected.as_array().unwrap())
            .enumerate()
        {
            let shown = serde_json::to_value(line).unwrap();
            for field in [
                "description",
                "unit",
                "tax_exemption_reason",
                "unit_price_cents",
            ] {
                assert_eq!(shown[field], sent[field], "line {i} of {n}: {field}");
            }
            assert_eq!(
                shown["quantity"],
                sent["quantity"]
                    .as_str()
                    .unwrap()
                    .trim_end_matches('0')
                    .trim_end_matches('.'),
                "line {i} of {n}"
            );
        }
        let lines_total: i64 = read.line_items.iter().map(|l| l.total_cents).sum();
        assert_eq!(lines_total, read.total_cents);
    }
    // A list reads the lines of all its invoices at once: each in its own order, as a get.
    let listed = db
        .store
        .list_invoices(scope, &InvoiceFilter::default(), PageRequest::default())
        .unwrap();
    assert_eq!(listed.data.len(), 3);
    for invoice in &listed.data {
        let read = db.store.get_invoice(scope, invoice.id).unwrap();
        assert_eq!(invoice.line_items, read.line_items);
    }
    let draft = db
        .store
        .create_invoice(scope, new_invoice(body(2)))
        .unwrap();
    let edited = db
        .store
        .update_invoice(
            scope,
            draft.id,
            patch(json!({"line_items": body(5)["line_items"]})),
        )
        .unwrap();
    assert_eq!(edited.line_items.len(), 5);
    assert_eq!(
        db.store.get_invoice(scope, draft.id).unwrap().line_items,
        edited.line_items
    );
}

/// The list's later pages (an offset, bound in the statement) continue the first in both
/// orders: every invoice once, each with its own lines, the same total on every page.
fn later_pages_continue_the_first(db: TestDb) {
    use invoicing_domain::invoice::InvoiceOrder;
    let scope = scope(&db);
    for i in 0..5 {
        let body = json!({
            "customer": {"name": "Ada", "email": format!("pages{i}@example.com")},
            "due_date": (today() + chrono::Duration::days(30 - i)).to_string(),
            "line_items": (0..=i)
                .map(|n| json!({"description": format!("{i}.{n}"), "quantity": 1, "unit_price_cents": 100}))
                .collect::<Vec<_>>(),
        });
        db.store.create_invoice(scope, new_invoice(body)).unwrap();
    }
    for order in [InvoiceOrder::Newest, InvoiceOrder::DueFirst] {
        let filter = InvoiceFilter {
            status: Some(InvoiceStatus::Draft),
            order,
            ..InvoiceFilter::default()
        };
        let list = |page: u32, per_page: u32| {
            let request = PageRequest::new(page, per_page).unwrap();
            db.store.list_invoices(scope, &filter, request).unwrap()
        };
        let all = list(1, 100).data;
        assert_eq!(all.len(), 5);
        let mut walked = Vec::new();
        for page in 1..=3 {
            let listed = list(page, 2);
            assert_eq!(listed.total, 5);
            assert_eq!(listed.has_more, page < 3, "page {page} of {order:?}");
            walked.extend(listed.data);
        }
        assert_eq!(walked, all, "{order:?}");
        for invoice in &walked {
            let first = &invoice.line_items[0].description;
            let i: usize = first[..1].parse().unwrap();
            assert_eq!(invoice.line_items.len(), i + 1, "{order:?}");
            let described: Vec<String> = (0..=i).map(|n| format!("{i}.{n}")).collect();
            let read: Vec<&String> = invoice.line_items.iter().map(|l| &l.description).collect();
            assert_eq!(read, described.iter().collect::<Vec<_>>(), "lines in order");
        }
    }
}

/// A list reads its page and the page's lines in one statement, so a draft whose lines change
/// meanwhile is listed with the totals and the lines of one version.
fn a_list_pairs_each_invoices_totals_with_its_own_lines(db: TestDb) {
    use std::sync::atomic::{AtomicBool, Ordering};
    let scope = scope(&db);
    let line =
        |d: &str, cents: i64| json!({"description": d, "quantity": 1, "unit_price_cents": cents});
    let one = json!([line("A1", 1000)]);
    let six: Vec<Value> = (0..6).map(|i| line(&format!("B{i}"), 1500 + i)).collect();
    let drafts: Vec<invoicing_domain::invoice::InvoiceId> = (0..3)
        .map(|i| {
            let body = json!({"customer": {"name": "Ada", "email": format!("snap{i}@example.com")}, "line_items": one});
            db.store.create_invoice(scope, new_invoice(body)).unwrap().id
        })
        .collect();
    let done = Arc::new(AtomicBool::new(false));
    let editor = {
        let (store, done, drafts) = (db.store.clone(), done.clone(), drafts.clone());
        let (one, six) = (one.clone(), json!(six));
        std::thread::spawn(move || {
            for i in 0..150 {
                let lines = if i % 2 == 0 { &six } else { &one };
                let id = drafts[i % drafts.len()];
                store
                    .update_invoice(scope, id, patch(json!({"line_items": lines})))
                    .unwrap();
            }
            done.store(true, Ordering::SeqCst);
        })
    };
    let mut lists = 0;
    while !done.load(Ordering::SeqCst) {
        let listed = db
            .store
            .list_invoices(
                scope,
                &InvoiceFilter::default(),
                PageRequest::new(1, 100).unwrap(),
            )
            .unwrap();
        for invoice in &listed.data {
            let lines: i64 = invoice.line_items.iter().map(|l| l.subtotal_cents).sum();
            assert_eq!(
                invoice.subtotal_cents, lines,
                "invoice {:?} after {lists} lists",
                invoice.id
            );
        }
        lists += 1;
    }
    editor.join().unwrap();
    assert!(lists > 0);
}

/// "Save and send" is one transaction: in test the invoice is created already sent (its
/// creation and its send both recorded); a send the live profile refuses (no seller's details
/// yet) leaves neither the draft nor its new customer behind.
fn created_and_sent_in_one_transaction(db: TestDb) {
    let scope = scope(&db);
    let send = || patch(json!({"status": "sent"}));
    let sent = db
        .store
        .create_and_send_invoice(scope, simple("a@example.com", "Work"), send())
        .unwrap();
    assert_eq!(sent.status, InvoiceStatus::Sent);
    assert_eq!(events_of(&db, scope, "invoice.created").len(), 1);
    assert_eq!(events_of(&db, scope, "invoice.sent").len(), 1);

    let live = Scope::new(scope.account_id, Environment::Live);
    let refused = db
        .store
        .create_and_send_invoice(live, simple("b@example.com", "Work"), send());
    assert!(matches!(refused, Err(RepoError::Invalid(_))), "{refused:?}");
    let page = || PageRequest::new(1, 10).unwrap();
    let invoices = db
        .store
        .list_invoices(live, &InvoiceFilter::default(), page());
    assert_eq!(invoices.unwrap().total, 0, "no draft is left behind");
    let customers = db.store.list_customers(live, &Default::default(), page());
    assert_eq!(customers.unwrap().total, 0, "nor the customer it named");
    assert!(events_of(&db, live, "invoice.created").is_empty());
}

backend_tests!(
    created_and_sent_in_one_transaction,
    later_pages_continue_the_first,
    a_list_pairs_each_invoices_totals_with_its_own_lines,
    a_keyset_walk_sees_every_row_once,
    lines_read_back_as_written,
    kept_counts_match_the_rows_after_concurrent_changes,
    other_filters_count_up_to_ten_thousand,
    the_event_log_counts_up_to_ten_thousand,
    racing_changes_have_one_winner,
    numbering_is_gap_free_under_concurrency_and_failures,
    events_are_written_with_their_change_or_not_at_all,
    tenants_are_isolated,
    invoices_read_together_answer_each_as_alone,
    lifecycle_follows_the_table,
    public_view_marks_viewed_once,
    overdue_sweep_is_idempotent_across_sweepers,
    overdue_comes_at_each_accounts_local_midnight,
    lists_filter_by_status_customer_and_day,
);

/// The check every test database runs when it is dropped does see counts that drifted.
#[test]
fn the_kept_count_check_sees_a_drift() {
    let db = TestDb::sqlite();
    let scope = scope(&db);
    db.store
        .create_invoice(scope, simple("drift@example.com", "Work"))
        .unwrap();
    db.assert_kept_counts();
    db.execute("UPDATE document_counts SET n = n + 1 WHERE kind = 'invoice'");
    let drifted =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| db.assert_kept_counts()));
    assert!(drifted.is_err(), "a drifted count went unnoticed");
    db.execute("UPDATE document_counts SET n = n - 1 WHERE kind = 'invoice'");
}

/// The same check sees kept receivables and books that drifted from the documents.
#[test]
fn the_kept_receivables_check_sees_a_drift() {
    let db = TestDb::sqlite();
    let scope = scope(&db);
    let inv = db
        .store
        .create_invoice(scope, simple("owed@example.com", "Work"))
        .unwrap();
    db.store
        .update_invoice(scope, inv.id, patch(json!({"status": "sent"})))
        .unwrap();
    db.assert_kept_counts();
    db.execute("UPDATE receivable_changes SET delta = delta + 1");
    let drifted =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| db.assert_kept_counts()));
    assert!(drifted.is_err(), "drifted receivables went unnoticed");
    db.execute("UPDATE receivable_changes SET delta = delta - 1");
    db.store
        .update_invoice(scope, inv.id, patch(json!({"status": "paid"})))
        .unwrap();
    db.assert_kept_counts();
    for (drift, back) in [
        (
            "UPDATE booked_days SET taxable = taxable + 1",
            "UPDATE booked_days SET taxable = taxable - 1",
        ),
        (
            "UPDATE booked_days SET tax_category = 'Z'",
            "UPDATE booked_days SET tax_category = 'S'",
        ),
    ] {
        db.execute(drift);
        let drifted =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| db.assert_kept_counts()));
        assert!(drifted.is_err(), "drifted books went unnoticed: {drift}");
        db.execute(back);
    }
}

/// SQLite's one writer: 32 threads creating at once all succeed in turn (none waits out a busy
/// handler into "unavailable"), and every number comes once. A reader's connection refuses to
/// write, so no write can skip the queue.
#[test]
fn sqlite_thirty_two_writers_take_turns_and_readers_never_write() {
    let db = TestDb::sqlite();
    let scope = scope(&db);
    let threads = 32;
    let each = 5;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|i| {
            let store = db.store.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                (0..each)
                    .map(|n| {
                        store
                            .create_invoice(scope, simple(&format!("c{i}-{n}@example.com"), "Work"))
                            .map(|i| i.invoice_number)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut numbers = Vec::new();
    for h in handles {
        for made in h.join().unwrap() {
            numbers.push(made.expect("every writer gets its turn"));
        }
    }
    numbers.sort();
    let year = Utc::now().year();
    let expected: Vec<String> = (1..=threads * each)
        .map(|n| format!("INV-{year}-{n:06}"))
        .collect();
    assert_eq!(numbers, expected);
    assert!(
        db.store.reader_refuses_writes(),
        "the pool's connections are query_only"
    );
}

/// PostgreSQL only: a list's page by status, with its lines and kept total, is one statement,
/// prepared once per connection and, once PostgreSQL has planned it five times with the values
/// (its rule), run on its generic plan, never planned per request (newest first). The account
/// holds thousands of drafts, as the plan's estimates then differ from a tiny table's. Fails if
/// the page's SQL is marked unsafe to prepare (diesel's `sql()` literal did that), if its limit
/// or a first page's offset is bound (PostgreSQL takes a bound one as a tenth of the rows and
/// keeps planning anew), or if the lines are read by a statement of their own.
#[test]
fn postgres_list_pages_run_prepared_on_generic_plans() {
    use invoicing_domain::invoice::InvoiceOrder;
    use invoicing_storage::testing::prepared_plans;
    use invoicing_storage::Store;
    let Some(db) = TestDb::postgres() else {
        return;
    };
    let scope = scope(&db);
    for i in 0..3 {
        db.store
            .create_invoice(scope, simple(&format!("p{i}@example.com"), "Work"))
            .unwrap();
    }
    // Older drafts of the same account, without lines, as the bench writes its million.
    db.execute(
        "SET statement_timeout = 0; \
         INSERT INTO invoices (account_id, livemode, number, status, customer_id, currency, \
           issue_date, due_date, subtotal_cents, tax_cents, total_cents, amount_paid_cents, \
           metadata, token, created_at, updated_at, amount_credited_cents) \
         SELECT account_id, livemode, 'OLD-' || g, status, customer_id, currency, issue_date, \
           due_date + 1, subtotal_cents, tax_cents, total_cents, 0, '{}', 'old' || g, \
           created_at - make_interval(secs => g), updated_at, 0 \
         FROM invoices, generate_series(1, 10000) g WHERE id = (SELECT min(id) FROM invoices); \
         ANALYZE",
    );
    let one = Store::connect(&db.url, 1).unwrap();
    let list = |order: InvoiceOrder| {
        let drafts = InvoiceFilter {
            status: Some(InvoiceStatus::Draft),
            order,
            ..InvoiceFilter::default()
        };
        for _ in 0..8 {
            let page = one
                .list_invoices(scope, &drafts, PageRequest::default())
                .unwrap();
            assert_eq!(page.data.len(), 20);
            assert_eq!(page.total, 10_003);
            assert_eq!(page.data[0].line_items.len(), 1);
        }
    };
    let plans = |order: &str| {
        let found = prepared_plans(&one, order);
        assert_eq!(found.len(), 1, "one prepared statement: {found:?}");
        assert!(found[0]
            .statement
            .contains("LEFT OUTER JOIN \"line_items\""));
        (found[0].custom_plans, found[0].generic_plans)
    };
    list(InvoiceOrder::Newest);
    assert_eq!(plans("ORDER BY \"invoices\".\"created_at\" DESC"), (5, 3));
    // Due first, no index gives the order, and PostgreSQL plans with the values each time (its
    // choice); still one statement with the lines.
    list(InvoiceOrder::DueFirst);
    let (custom, generic) = plans("ORDER BY \"invoices\".\"due_date\"");
    assert_eq!(custom + generic, 8);
    let alone = prepared_plans(&one, "FROM \"line_items\" WHERE");
    assert!(alone.is_empty(), "the lines read apart: {alone:?}");
}
