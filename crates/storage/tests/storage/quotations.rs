//! Quotations on both backends (SPEC §10, §11): gap-free numbering of their own, the lifecycle
//! table (send, public view, answers, expiry, conversion), edits and deletion of drafts, events
//! atomic with their change and equal to the quotation as read back, tenant isolation, and the
//! races that must have exactly one winner.

use chrono::{Datelike, Duration, NaiveDate, Utc};
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::{CustomerId, CustomerInput};
use invoicing_domain::document::PaymentTerms;
use invoicing_domain::event::EventFilter;
use invoicing_domain::invoice::{Due, Invoice, InvoiceFilter, InvoiceId, InvoiceInput};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::paging::PageRequest;
use invoicing_domain::ports::{
    AccountRepository, CustomerRepository, EventRepository, InvoiceRepository, QuotationRepository,
    RepoError,
};
use invoicing_domain::quotation::{
    Answer, NewQuotation, Quotation, QuotationFilter, QuotationId, QuotationInput, QuotationPatch,
    QuotationPatchInput,
};
use invoicing_domain::quotation_status::QuotationStatus;
use invoicing_domain::tenant::{Environment, Scope};
use invoicing_storage::testing::TestDb;
use invoicing_storage::{backend_tests, Backend};
use serde_json::{json, Value};
use std::sync::{Arc, Barrier};

/// Fails unless `$result` is an `Err` matching `$pattern`, showing what it was otherwise.
macro_rules! assert_err {
    ($result:expr, $pattern:pat) => {
        match $result {
            Err($pattern) => {}
            other => panic!("expected Err({}), got {:?}", stringify!($pattern), other),
        }
    };
}

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

fn day(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

fn token() -> String {
    format!("tok{}", rand::random::<u64>())
}

fn new_quotation(body: Value) -> NewQuotation {
    serde_json::from_value::<QuotationInput>(body)
        .unwrap()
        .parse(today(), token())
        .unwrap()
}

/// 2 × 12.50 at 7.5 %: 2500 + 188 = 2688.
fn simple(email: &str) -> NewQuotation {
    new_quotation(json!({
        "customer": {"name": "Ada", "email": email},
        "line_items": [{"description": "Work", "quantity": "2", "unit_price_cents": 1250, "tax_rate": "7.5"}]
    }))
}

/// Issued 2026-01-01, valid until 2026-01-10.
fn dated(email: &str) -> NewQuotation {
    new_quotation(json!({
        "customer": {"name": "Ada", "email": email},
        "issue_date": "2026-01-01", "valid_until": "2026-01-10",
        "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 100}]
    }))
}

fn simple_invoice(email: &str) -> invoicing_domain::invoice::NewInvoice {
    serde_json::from_value::<InvoiceInput>(json!({
        "customer": {"name": "Ada", "email": email},
        "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 100}]
    }))
    .unwrap()
    .parse(today(), token())
    .unwrap()
}

fn patch(body: Value) -> QuotationPatch {
    serde_json::from_value::<QuotationPatchInput>(body)
        .unwrap()
        .parse()
        .unwrap()
}

fn accept() -> Answer {
    Answer::Accept {
        name: Some("Grace Hopper".into()),
        ip: Some("203.0.113.7".into()),
        user_agent: Some("Mozilla/5.0 (test)".into()),
    }
}

fn reject(reason: &str) -> Answer {
    Answer::Reject {
        reason: Some(reason.into()),
    }
}

fn token_of(q: &Quotation) -> String {
    q.public_url.rsplit("token=").next().unwrap().to_string()
}

fn value(q: &impl serde::Serialize) -> Value {
    serde_json::to_value(q).unwrap()
}

/// The `data.object` of every event of this type in the scope, newest first.
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

/// The `data.object` of the events of this type about quotation `id`.
fn events_about(db: &TestDb, scope: Scope, event_type: &str, id: QuotationId) -> Vec<Value> {
    events_of(db, scope, event_type)
        .into_iter()
        .filter(|o| o["id"] == json!(id.0))
        .collect()
}

fn get(db: &TestDb, scope: Scope, id: QuotationId) -> Quotation {
    db.store.get_quotation(scope, id).unwrap()
}

fn create_sent(db: &TestDb, scope: Scope, new: NewQuotation) -> Quotation {
    let q = db.store.create_quotation(scope, new).unwrap();
    db.store.send_quotation(scope, q.id, None).unwrap()
}

fn create_accepted(db: &TestDb, scope: Scope, new: NewQuotation) -> Quotation {
    let q = create_sent(db, scope, new);
    db.store
        .answer_quotation(scope, q.id, accept(), today())
        .unwrap()
}

fn all_invoices(db: &TestDb, scope: Scope) -> Vec<Invoice> {
    db.store
        .list_invoices(
            scope,
            &InvoiceFilter::default(),
            PageRequest::new(1, 100).unwrap(),
        )
        .unwrap()
        .data
}

fn list(db: &TestDb, scope: Scope, filter: QuotationFilter, page: PageRequest) -> Vec<QuotationId> {
    db.store
        .list_quotations(scope, &filter, page)
        .unwrap()
        .data
        .into_iter()
        .map(|q| q.id)
        .collect()
}

/// Makes every line described "FAIL" abort its transaction, after the number was taken.
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

fn numbering_is_gap_free_and_independent_of_invoices(db: TestDb) {
    let scope = scope(&db);
    inject_line_failures(&db);
    let year = Utc::now().year();
    // Quotations and invoices created together, a third of the quotations failing after their
    // number was taken.
    let threads = 18;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|i| {
            let store = db.store.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let email = format!("c{i}@example.com");
                barrier.wait();
                if i % 2 == 0 {
                    let description = if i % 3 == 0 { "FAIL" } else { "Work" };
                    let new = new_quotation(json!({
                        "customer": {"name": "C", "email": email},
                        "line_items": [{"description": description, "quantity": 1, "unit_price_cents": 100}]
                    }));
                    ("quotation", store.create_quotation(scope, new).is_ok())
                } else {
                    ("invoice", store.create_invoice(scope, simple_invoice(&email)).is_ok())
                }
            })
        })
        .collect();
    let outcomes: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let succeeded = |kind: &str| outcomes.iter().filter(|(k, ok)| *k == kind && *ok).count();
    assert_eq!(
        succeeded("quotation"),
        6,
        "9 quotations, 3 of them (i = 0, 6, 12) failing"
    );
    assert_eq!(succeeded("invoice"), 9);

    let page = db
        .store
        .list_quotations(
            scope,
            &QuotationFilter::default(),
            PageRequest::new(1, 100).unwrap(),
        )
        .unwrap();
    let mut numbers: Vec<String> = page.data.iter().map(|q| q.quote_number.clone()).collect();
    numbers.sort();
    let expected: Vec<String> = (1..=6).map(|n| format!("QUO-{year}-{n:06}")).collect();
    assert_eq!(
        numbers, expected,
        "distinct, consecutive, no holes left by failures or by invoices"
    );
    let mut invoice_numbers: Vec<String> = all_invoices(&db, scope)
        .into_iter()
        .map(|i| i.invoice_number)
        .collect();
    invoice_numbers.sort();
    let expected: Vec<String> = (1..=9).map(|n| format!("INV-{year}-{n:06}")).collect();
    assert_eq!(
        invoice_numbers, expected,
        "quotations take no invoice numbers either"
    );

    // A refused create (unknown customer) takes no number.
    let unknown = new_quotation(
        json!({"customer_id": 999_999, "line_items": [{"description": "x", "quantity": 1, "unit_price_cents": 1}]}),
    );
    assert_err!(
        db.store.create_quotation(scope, unknown),
        RepoError::Invalid(_)
    );
    let seventh = db
        .store
        .create_quotation(scope, simple("ada@example.com"))
        .unwrap();
    assert_eq!(seventh.quote_number, format!("QUO-{year}-000007"));
    // A deleted draft's number is never given out again.
    db.store.delete_quotation(scope, seventh.id).unwrap();
    let eighth = db
        .store
        .create_quotation(scope, simple("ada@example.com"))
        .unwrap();
    assert_eq!(eighth.quote_number, format!("QUO-{year}-000008"));
    // Another environment counts on its own.
    let live = Scope::new(scope.account_id, Environment::Live);
    assert_eq!(
        db.store
            .create_quotation(live, simple("x@example.com"))
            .unwrap()
            .quote_number,
        format!("QUO-{year}-000001")
    );
}

fn create_stores_defaults_customer_and_event(db: TestDb) {
    let scope = scope(&db);
    let new = new_quotation(json!({
        "customer": {"name": "Ada", "email": "Ada@Example.com"},
        "issue_date": "2026-03-10",
        "line_items": [{"description": "Work", "quantity": "2", "unit_price_cents": 1250, "tax_rate": "7.5"}],
        "notes": "Thanks", "metadata": {"deal": "42"}
    }));
    let token = new.token.clone();
    let q = db.store.create_quotation(scope, new).unwrap();
    assert_eq!(q.status, QuotationStatus::Draft);
    assert_eq!(q.object, "quotation");
    assert_eq!(q.issue_date, day("2026-03-10"));
    assert_eq!(q.valid_until, day("2026-04-09"), "issue date + 30 days");
    assert_eq!(
        q.currency.code(),
        "EUR",
        "the account's currency by default"
    );
    assert_eq!(
        (q.subtotal_cents, q.tax_cents, q.total_cents),
        (2500, 188, 2688)
    );
    assert_eq!(q.line_items.len(), 1);
    assert_eq!(q.line_items[0].description, "Work");
    assert_eq!(q.line_items[0].total_cents, 2688);
    assert_eq!(q.notes.as_deref(), Some("Thanks"));
    assert_eq!(
        q.metadata.as_map().get("deal").map(String::as_str),
        Some("42")
    );
    assert!(!q.livemode);
    assert_eq!(
        q.public_url,
        format!(
            "https://localhost:8443/quote/{}?token={token}",
            q.quote_number
        )
    );
    assert!(q.sent_at.is_none() && q.accepted_at.is_none() && q.invoice_id.is_none());
    assert_eq!(get(&db, scope, q.id), q);
    assert_eq!(events_of(&db, scope, "quotation.created"), vec![value(&q)]);

    // The inline customer was created once, and is found again by email (case-insensitively).
    assert_eq!(events_of(&db, scope, "customer.created").len(), 1);
    let customer = db.store.get_customer(scope, q.customer_id).unwrap();
    assert_eq!(customer.email.as_str(), "Ada@Example.com");
    let again = db
        .store
        .create_quotation(
            scope,
            new_quotation(json!({
                "customer": {"name": "Someone else", "email": "ada@example.COM"},
                "currency": "jpy",
                "line_items": [{"description": "x", "quantity": 1, "unit_price_cents": 1000}]
            })),
        )
        .unwrap();
    assert_eq!(again.customer_id, q.customer_id);
    assert_eq!(again.currency.code(), "JPY");
    assert_eq!(again.valid_until, today() + Duration::days(30));
    assert_eq!(events_of(&db, scope, "customer.created").len(), 1);
    assert_eq!(
        db.store
            .list_customers(scope, &Default::default(), PageRequest::default())
            .unwrap()
            .total,
        1
    );
    // An existing customer by id.
    let by_id = db
        .store
        .create_quotation(
            scope,
            new_quotation(json!({"customer_id": q.customer_id.0, "line_items": [{"description": "x", "quantity": 1, "unit_price_cents": 1}]})),
        )
        .unwrap();
    assert_eq!(by_id.customer_id, q.customer_id);
    // An unknown customer is invalid input, and writes nothing.
    let unknown = new_quotation(
        json!({"customer_id": 999_999, "line_items": [{"description": "x", "quantity": 1, "unit_price_cents": 1}]}),
    );
    assert_err!(
        db.store.create_quotation(scope, unknown),
        RepoError::Invalid(_)
    );
    assert_eq!(events_of(&db, scope, "quotation.created").len(), 3);
    assert_eq!(
        db.store
            .list_quotations(scope, &QuotationFilter::default(), PageRequest::default())
            .unwrap()
            .total,
        3
    );
}

fn failed_create_rolls_back_customer_and_event(db: TestDb) {
    let scope = scope(&db);
    inject_line_failures(&db);
    let failing = new_quotation(json!({
        "customer": {"name": "Ghost", "email": "ghost@example.com"},
        "line_items": [{"description": "FAIL", "quantity": 1, "unit_price_cents": 1}]
    }));
    assert!(db.store.create_quotation(scope, failing).is_err());
    assert!(events_of(&db, scope, "quotation.created").is_empty());
    assert!(
        events_of(&db, scope, "customer.created").is_empty(),
        "the inline customer rolled back too"
    );
    assert_eq!(
        db.store
            .list_customers(scope, &Default::default(), PageRequest::default())
            .unwrap()
            .total,
        0
    );
}

fn lists_filter_by_status_and_customer_and_page_newest_first(db: TestDb) {
    let scope = scope(&db);
    let first = db
        .store
        .create_quotation(scope, simple("ada@example.com"))
        .unwrap();
    let second = db
        .store
        .create_quotation(scope, simple("bob@example.com"))
        .unwrap();
    let third = db
        .store
        .create_quotation(scope, simple("ada@example.com"))
        .unwrap();
    db.store.send_quotation(scope, second.id, None).unwrap();
    let all = PageRequest::default();
    assert_eq!(
        list(&db, scope, QuotationFilter::default(), all),
        vec![third.id, second.id, first.id],
        "newest first"
    );
    let status = |s| QuotationFilter {
        status: Some(s),
        ..Default::default()
    };
    assert_eq!(
        list(&db, scope, status(QuotationStatus::Sent), all),
        vec![second.id]
    );
    assert_eq!(
        list(&db, scope, status(QuotationStatus::Draft), all),
        vec![third.id, first.id]
    );
    assert!(list(&db, scope, status(QuotationStatus::Accepted), all).is_empty());
    let customer = |c| QuotationFilter {
        customer_id: Some(c),
        ..Default::default()
    };
    assert_eq!(
        list(&db, scope, customer(first.customer_id), all),
        vec![third.id, first.id]
    );
    assert!(list(&db, scope, customer(CustomerId(999_999)), all).is_empty());
    // Filters combine with AND.
    let both = QuotationFilter {
        status: Some(QuotationStatus::Sent),
        customer_id: Some(first.customer_id),
        awaiting_answer: false,
    };
    assert!(list(&db, scope, both, all).is_empty());
    let both = QuotationFilter {
        status: Some(QuotationStatus::Sent),
        customer_id: Some(second.customer_id),
        awaiting_answer: false,
    };
    assert_eq!(list(&db, scope, both, all), vec![second.id]);

    let page1 = db
        .store
        .list_quotations(
            scope,
            &QuotationFilter::default(),
            PageRequest::new(1, 2).unwrap(),
        )
        .unwrap();
    assert_eq!(
        page1.data.iter().map(|q| q.id).collect::<Vec<_>>(),
        vec![third.id, second.id]
    );
    assert_eq!(
        (page1.total, page1.has_more, page1.page, page1.per_page),
        (3, true, 1, 2)
    );
    let page2 = db
        .store
        .list_quotations(
            scope,
            &QuotationFilter::default(),
            PageRequest::new(2, 2).unwrap(),
        )
        .unwrap();
    assert_eq!(
        page2.data.iter().map(|q| q.id).collect::<Vec<_>>(),
        vec![first.id]
    );
    assert_eq!((page2.total, page2.has_more), (3, false));
    // A listed quotation is the same as get answers, lines included.
    assert_eq!(page2.data[0], get(&db, scope, first.id));
    assert_eq!(page2.data[0].line_items.len(), 1);
    assert_eq!(page1.data[1], get(&db, scope, second.id));
}

fn drafts_can_be_edited_sent_ones_only_in_part(db: TestDb) {
    let scope = scope(&db);
    let draft = db
        .store
        .create_quotation(scope, simple("ada@example.com"))
        .unwrap();
    let bob = db
        .store
        .create_customer(
            scope,
            serde_json::from_value::<CustomerInput>(
                json!({"name": "Bob", "email": "bob@example.com"}),
            )
            .unwrap()
            .parse()
            .unwrap(),
        )
        .unwrap()
        .into_inner();
    let edited = db
        .store
        .update_quotation(
            scope,
            draft.id,
            patch(json!({
                "line_items": [
                    {"description": "New", "quantity": "1.5", "unit_price_cents": 333, "tax_rate": 19},
                    {"description": "Discount", "quantity": 1, "unit_price_cents": -100}
                ],
                "currency": "usd", "customer_id": bob.id.0
            })),
        )
        .unwrap();
    assert_eq!(
        (edited.subtotal_cents, edited.tax_cents, edited.total_cents),
        (400, 95, 495),
        "1.5 × 333 = 500, 19 % = 95, minus 100"
    );
    assert_eq!(
        edited
            .line_items
            .iter()
            .map(|l| (l.description.as_str(), l.total_cents))
            .collect::<Vec<_>>(),
        vec![("New", 595), ("Discount", -100)]
    );
    assert_eq!(edited.currency.code(), "USD");
    assert_eq!(edited.customer_id, bob.id);
    assert_eq!(edited.status, QuotationStatus::Draft);
    assert_eq!(get(&db, scope, draft.id), edited);
    assert_eq!(
        events_about(&db, scope, "quotation.updated", draft.id),
        vec![value(&edited)]
    );

    // Refused edits change nothing and write nothing.
    assert_err!(
        db.store
            .update_quotation(scope, draft.id, patch(json!({"customer_id": 999_999}))),
        RepoError::Invalid(_)
    );
    assert_err!(
        db.store
            .update_quotation(scope, draft.id, patch(json!({"valid_until": "2000-01-01"}))),
        RepoError::Invalid(_)
    );
    let unchanged = db
        .store
        .update_quotation(scope, draft.id, QuotationPatch::default())
        .unwrap();
    assert_eq!(unchanged, edited, "an empty patch changes nothing");
    assert_eq!(get(&db, scope, draft.id), edited);
    assert_eq!(
        events_of(&db, scope, "quotation.updated").len(),
        1,
        "and no refused or empty patch wrote an event"
    );

    db.store.send_quotation(scope, draft.id, None).unwrap();
    let sent = get(&db, scope, draft.id);
    for draft_only in [
        json!({"line_items": [{"description": "x", "quantity": 1, "unit_price_cents": 1}]}),
        json!({"currency": "EUR"}),
        json!({"customer_id": draft.customer_id.0}),
        json!({"notes": "allowed alone", "currency": "EUR"}),
    ] {
        assert_err!(
            db.store
                .update_quotation(scope, draft.id, patch(draft_only)),
            RepoError::InvalidTransition(_)
        );
    }
    assert_eq!(
        get(&db, scope, draft.id),
        sent,
        "the refused patches changed nothing"
    );
    assert_eq!(events_of(&db, scope, "quotation.updated").len(), 1);

    let later = db
        .store
        .update_quotation(
            scope,
            draft.id,
            patch(json!({"valid_until": "2099-12-31", "notes": "n", "metadata": {"po": "7"}})),
        )
        .unwrap();
    assert_eq!(later.valid_until, day("2099-12-31"));
    assert_eq!(later.notes.as_deref(), Some("n"));
    assert_eq!(
        later.metadata.as_map().get("po").map(String::as_str),
        Some("7")
    );
    assert_eq!(
        later.status,
        QuotationStatus::Sent,
        "editing is no status change"
    );
    assert_eq!(later.line_items, sent.line_items);
    assert_eq!(get(&db, scope, draft.id), later);
    let cleared = db
        .store
        .update_quotation(scope, draft.id, patch(json!({"notes": null})))
        .unwrap();
    assert_eq!(cleared.notes, None);
    let updates = events_about(&db, scope, "quotation.updated", draft.id);
    assert_eq!(updates.len(), 3);
    assert_eq!(updates[0], value(&cleared));
    assert_eq!(updates[1], value(&later));
}

fn only_drafts_can_be_deleted(db: TestDb) {
    let scope = scope(&db);
    let draft = db
        .store
        .create_quotation(scope, simple("ada@example.com"))
        .unwrap();
    let sent = create_sent(&db, scope, simple("bob@example.com"));
    db.store.delete_quotation(scope, draft.id).unwrap();
    assert_err!(db.store.get_quotation(scope, draft.id), RepoError::NotFound);
    assert_err!(
        db.store.delete_quotation(scope, draft.id),
        RepoError::NotFound
    );
    assert_err!(
        db.store.send_quotation(scope, draft.id, None),
        RepoError::NotFound
    );
    assert_eq!(
        events_of(&db, scope, "quotation.deleted"),
        vec![value(&draft)],
        "the event carries the quotation as it was"
    );
    assert_eq!(
        list(
            &db,
            scope,
            QuotationFilter::default(),
            PageRequest::default()
        ),
        vec![sent.id]
    );

    assert_err!(
        db.store.delete_quotation(scope, sent.id),
        RepoError::InvalidTransition(_)
    );
    assert_eq!(get(&db, scope, sent.id), sent);
    assert_eq!(events_of(&db, scope, "quotation.deleted").len(), 1);
    // With its quotation gone, the customer is free to go (no dangling reference to it).
    assert!(db.store.delete_customer(scope, draft.customer_id).is_ok());
    assert_err!(
        db.store.delete_customer(scope, sent.customer_id),
        RepoError::InUse(_)
    );
}

fn send_moves_a_draft_to_sent_once(db: TestDb) {
    let scope = scope(&db);
    let draft = db
        .store
        .create_quotation(scope, simple("ada@example.com"))
        .unwrap();
    let sent = db.store.send_quotation(scope, draft.id, None).unwrap();
    assert_eq!(sent.status, QuotationStatus::Sent);
    assert!(sent.sent_at.is_some());
    assert!(sent.updated_at >= draft.updated_at);
    assert_eq!(get(&db, scope, draft.id), sent);
    assert_eq!(events_of(&db, scope, "quotation.sent"), vec![value(&sent)]);
    assert_err!(
        db.store.send_quotation(scope, draft.id, None),
        RepoError::InvalidTransition(_)
    );
    assert_eq!(get(&db, scope, draft.id), sent);
    assert_eq!(events_of(&db, scope, "quotation.sent").len(), 1);
    assert_err!(
        db.store
            .send_quotation(scope, QuotationId(draft.id.0 + 10_000), None),
        RepoError::NotFound
    );
}

fn public_view_marks_viewed_once(db: TestDb) {
    let scope = scope(&db);
    let q = db
        .store
        .create_quotation(scope, simple("ada@example.com"))
        .unwrap();
    let token = token_of(&q);
    assert_err!(
        db.store.view_public_quotation(&q.quote_number, &token),
        RepoError::NotFound
    );
    db.store.send_quotation(scope, q.id, None).unwrap();
    assert_err!(
        db.store.view_public_quotation(&q.quote_number, "wrong"),
        RepoError::NotFound
    );
    assert_err!(
        db.store.view_public_quotation(&q.quote_number, ""),
        RepoError::NotFound
    );
    assert_err!(
        db.store.view_public_quotation("QUO-1999-000001", &token),
        RepoError::NotFound
    );
    // Another quotation's token does not open this one.
    let other = create_sent(&db, scope, simple("bob@example.com"));
    assert_err!(
        db.store
            .view_public_quotation(&q.quote_number, &token_of(&other)),
        RepoError::NotFound
    );
    assert!(
        events_of(&db, scope, "quotation.viewed").is_empty(),
        "refused reads mark nothing viewed"
    );

    let first = db
        .store
        .view_public_quotation(&q.quote_number, &token)
        .unwrap();
    assert_eq!(first.quotation.status, QuotationStatus::Viewed);
    assert!(first.quotation.viewed_at.is_some());
    assert_eq!(first.parties.issuer.name, "Acme");
    assert_eq!(first.parties.recipient.email, "ada@example.com");
    assert_eq!(first.quotation, get(&db, scope, q.id));
    for _ in 0..3 {
        let again = db
            .store
            .view_public_quotation(&q.quote_number, &token)
            .unwrap();
        assert_eq!(again.quotation, first.quotation);
    }
    assert_eq!(
        events_of(&db, scope, "quotation.viewed"),
        vec![value(&first.quotation)]
    );
    // Still public once answered, and no longer "viewed" by a read.
    db.store
        .answer_quotation(scope, q.id, accept(), today())
        .unwrap();
    let answered = db
        .store
        .view_public_quotation(&q.quote_number, &token)
        .unwrap();
    assert_eq!(answered.quotation.status, QuotationStatus::Accepted);
    assert_eq!(events_of(&db, scope, "quotation.viewed").len(), 1);
    assert_eq!(get(&db, scope, other.id).status, QuotationStatus::Sent);
}

fn concurrent_first_views_all_succeed_with_one_event(db: TestDb) {
    let scope = scope(&db);
    let q = create_sent(&db, scope, simple("ada@example.com"));
    let threads = 8;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let store = db.store.clone();
            let barrier = barrier.clone();
            let (number, token) = (q.quote_number.clone(), token_of(&q));
            std::thread::spawn(move || {
                barrier.wait();
                store.view_public_quotation(&number, &token)
            })
        })
        .collect();
    for h in handles {
        let view = h.join().unwrap();
        match view {
            Ok(v) => assert_eq!(v.quotation.status, QuotationStatus::Viewed),
            Err(e) => panic!("a customer opening the page got {e:?}"),
        }
    }
    assert_eq!(events_of(&db, scope, "quotation.viewed").len(), 1);
}

fn api_answers_record_who_and_why(db: TestDb) {
    let scope = scope(&db);
    let to_accept = create_sent(&db, scope, simple("ada@example.com"));
    let accepted = db
        .store
        .answer_quotation(scope, to_accept.id, accept(), today())
        .unwrap();
    assert_eq!(accepted.status, QuotationStatus::Accepted);
    assert_eq!(accepted.accepted_by_name.as_deref(), Some("Grace Hopper"));
    assert_eq!(accepted.accepted_from_ip.as_deref(), Some("203.0.113.7"));
    assert_eq!(
        accepted.accepted_user_agent.as_deref(),
        Some("Mozilla/5.0 (test)")
    );
    assert!(accepted.accepted_at.is_some());
    assert!(accepted.rejected_at.is_none() && accepted.rejection_reason.is_none());
    assert_eq!(get(&db, scope, to_accept.id), accepted);
    assert_eq!(
        events_of(&db, scope, "quotation.accepted"),
        vec![value(&accepted)]
    );

    // A viewed quotation can be answered too; a reject keeps its reason.
    let to_reject = create_sent(&db, scope, simple("bob@example.com"));
    db.store
        .view_public_quotation(&to_reject.quote_number, &token_of(&to_reject))
        .unwrap();
    let rejected = db
        .store
        .answer_quotation(scope, to_reject.id, reject("Too expensive"), today())
        .unwrap();
    assert_eq!(rejected.status, QuotationStatus::Rejected);
    assert_eq!(rejected.rejection_reason.as_deref(), Some("Too expensive"));
    assert!(rejected.rejected_at.is_some());
    assert!(rejected.accepted_at.is_none() && rejected.accepted_by_name.is_none());
    assert_eq!(get(&db, scope, to_reject.id), rejected);
    assert_eq!(
        events_of(&db, scope, "quotation.rejected"),
        vec![value(&rejected)]
    );

    // An answer with nothing to record is still an answer.
    let silent = create_sent(&db, scope, simple("carol@example.com"));
    let silent = db
        .store
        .answer_quotation(scope, silent.id, Answer::Reject { reason: None }, today())
        .unwrap();
    assert_eq!(
        (silent.status, silent.rejection_reason),
        (QuotationStatus::Rejected, None)
    );

    let draft = db
        .store
        .create_quotation(scope, simple("dan@example.com"))
        .unwrap();
    for (id, answer) in [
        (to_accept.id, accept()),
        (to_accept.id, reject("changed my mind")),
        (to_reject.id, accept()),
        (to_reject.id, reject("again")),
        (draft.id, accept()),
        (draft.id, reject("no")),
    ] {
        assert_err!(
            db.store.answer_quotation(scope, id, answer, today()),
            RepoError::InvalidTransition(_)
        );
    }
    assert_eq!(
        get(&db, scope, to_accept.id),
        accepted,
        "a refused answer changes nothing"
    );
    assert_eq!(get(&db, scope, to_reject.id), rejected);
    assert_eq!(get(&db, scope, draft.id), draft);
    assert_eq!(events_of(&db, scope, "quotation.accepted").len(), 1);
    assert_eq!(events_of(&db, scope, "quotation.rejected").len(), 2);
    assert_err!(
        db.store
            .answer_quotation(scope, QuotationId(draft.id.0 + 10_000), accept(), today()),
        RepoError::NotFound
    );
}

fn public_answers_follow_the_same_rules(db: TestDb) {
    let scope = scope(&db);
    let draft = db
        .store
        .create_quotation(scope, simple("ada@example.com"))
        .unwrap();
    assert_err!(
        db.store.answer_public_quotation(
            &draft.quote_number,
            &token_of(&draft),
            accept(),
            invoicing_storage::testing::noon(today())
        ),
        RepoError::NotFound
    );
    assert_eq!(
        get(&db, scope, draft.id),
        draft,
        "a draft is not public, so not answerable"
    );

    let q = create_sent(&db, scope, simple("bob@example.com"));
    assert_err!(
        db.store.answer_public_quotation(
            &q.quote_number,
            "wrong",
            accept(),
            invoicing_storage::testing::noon(today())
        ),
        RepoError::NotFound
    );
    let page = db
        .store
        .answer_public_quotation(
            &q.quote_number,
            &token_of(&q),
            accept(),
            invoicing_storage::testing::noon(today()),
        )
        .unwrap();
    assert_eq!(page.quotation.status, QuotationStatus::Accepted);
    assert_eq!(
        page.quotation.accepted_by_name.as_deref(),
        Some("Grace Hopper")
    );
    assert_eq!(
        page.quotation.accepted_from_ip.as_deref(),
        Some("203.0.113.7")
    );
    assert_eq!(
        page.quotation.accepted_user_agent.as_deref(),
        Some("Mozilla/5.0 (test)")
    );
    assert!(page.quotation.accepted_at.is_some());
    assert_eq!(page.parties.issuer.name, "Acme");
    assert_eq!(page.parties.recipient.email, "bob@example.com");
    assert_eq!(page.quotation, get(&db, scope, q.id));
    assert_eq!(
        events_of(&db, scope, "quotation.accepted"),
        vec![value(&page.quotation)]
    );
    for answer in [accept(), reject("late")] {
        assert_err!(
            db.store.answer_public_quotation(
                &q.quote_number,
                &token_of(&q),
                answer,
                invoicing_storage::testing::noon(today())
            ),
            RepoError::InvalidTransition(_)
        );
    }
    assert_eq!(get(&db, scope, q.id), page.quotation);

    let declined = create_sent(&db, scope, simple("carol@example.com"));
    let page = db
        .store
        .answer_public_quotation(
            &declined.quote_number,
            &token_of(&declined),
            reject("Went elsewhere"),
            invoicing_storage::testing::noon(today()),
        )
        .unwrap();
    assert_eq!(page.quotation.status, QuotationStatus::Rejected);
    assert_eq!(
        page.quotation.rejection_reason.as_deref(),
        Some("Went elsewhere")
    );
    assert_eq!(
        events_of(&db, scope, "quotation.rejected"),
        vec![value(&page.quotation)]
    );
    assert_err!(
        db.store.answer_public_quotation(
            &declined.quote_number,
            &token_of(&declined),
            accept(),
            invoicing_storage::testing::noon(today())
        ),
        RepoError::InvalidTransition(_)
    );
    assert_eq!(events_of(&db, scope, "quotation.accepted").len(), 1);
}

fn late_accept_expires_the_quotation_instead(db: TestDb) {
    let scope = scope(&db);
    // On its last valid day it can still be accepted.
    let on_time = create_sent(&db, scope, dated("ada@example.com"));
    let accepted = db
        .store
        .answer_quotation(scope, on_time.id, accept(), day("2026-01-10"))
        .unwrap();
    assert_eq!(accepted.status, QuotationStatus::Accepted);

    // The day after, the accept is refused and the quotation is expired, durably.
    let late = create_sent(&db, scope, dated("bob@example.com"));
    assert_err!(
        db.store
            .answer_quotation(scope, late.id, accept(), day("2026-01-11")),
        RepoError::InvalidTransition(_)
    );
    let expired = get(&db, scope, late.id);
    assert_eq!(expired.status, QuotationStatus::Expired);
    assert!(expired.expired_at.is_some());
    assert!(expired.accepted_at.is_none() && expired.accepted_by_name.is_none());
    assert_eq!(
        events_about(&db, scope, "quotation.expired", late.id),
        vec![value(&expired)]
    );
    assert!(events_about(&db, scope, "quotation.accepted", late.id).is_empty());
    // Asking again is refused as expired, without a second expiry.
    assert_err!(
        db.store
            .answer_quotation(scope, late.id, accept(), day("2026-01-11")),
        RepoError::InvalidTransition(_)
    );
    assert_eq!(get(&db, scope, late.id), expired);
    assert_eq!(
        events_about(&db, scope, "quotation.expired", late.id).len(),
        1
    );

    // The same through the public page, from viewed.
    let public = create_sent(&db, scope, dated("carol@example.com"));
    let token = token_of(&public);
    db.store
        .view_public_quotation(&public.quote_number, &token)
        .unwrap();
    assert_err!(
        db.store.answer_public_quotation(
            &public.quote_number,
            &token,
            accept(),
            invoicing_storage::testing::noon(day("2026-02-01"))
        ),
        RepoError::InvalidTransition(_)
    );
    let expired = get(&db, scope, public.id);
    assert_eq!(expired.status, QuotationStatus::Expired);
    assert!(expired.accepted_at.is_none());
    assert_eq!(
        events_about(&db, scope, "quotation.expired", public.id),
        vec![value(&expired)]
    );
    let page = db
        .store
        .view_public_quotation(&public.quote_number, &token)
        .unwrap();
    assert_eq!(
        page.quotation.status,
        QuotationStatus::Expired,
        "still readable, as expired"
    );
    assert_eq!(events_of(&db, scope, "quotation.accepted").len(), 1);
}

fn expiry_sweep_expires_only_open_quotations_past_validity(db: TestDb) {
    let a = scope(&db);
    let b = scope(&db);
    let sweep_day = day("2026-02-01");
    let sent1 = create_sent(&db, a, dated("a1@example.com"));
    let sent2 = create_sent(&db, a, dated("a2@example.com"));
    let viewed = create_sent(&db, a, dated("a3@example.com"));
    db.store
        .view_public_quotation(&viewed.quote_number, &token_of(&viewed))
        .unwrap();
    let draft = db
        .store
        .create_quotation(a, dated("a4@example.com"))
        .unwrap();
    let accepted = create_sent(&db, a, dated("a5@example.com"));
    db.store
        .answer_quotation(a, accepted.id, accept(), day("2026-01-05"))
        .unwrap();
    let rejected = create_sent(&db, a, dated("a6@example.com"));
    db.store
        .answer_quotation(a, rejected.id, reject("no"), day("2026-01-05"))
        .unwrap();
    let last_day = create_sent(
        &db,
        a,
        new_quotation(json!({
            "customer": {"name": "Ada", "email": "a7@example.com"},
            "issue_date": "2026-01-01", "valid_until": "2026-02-01",
            "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 100}]
        })),
    );
    let other_tenant = create_sent(&db, b, dated("b@example.com"));
    let untouched = |db: &TestDb| {
        [
            get(db, a, draft.id),
            get(db, a, accepted.id),
            get(db, a, rejected.id),
            get(db, a, last_day.id),
        ]
    };
    let before = untouched(&db);

    assert_eq!(
        db.store
            .mark_expired_quotations(invoicing_storage::testing::noon(sweep_day))
            .unwrap(),
        4
    );
    for (scope, id) in [
        (a, sent1.id),
        (a, sent2.id),
        (a, viewed.id),
        (b, other_tenant.id),
    ] {
        let q = get(&db, scope, id);
        assert_eq!(q.status, QuotationStatus::Expired);
        assert!(q.expired_at.is_some());
        assert_eq!(
            events_about(&db, scope, "quotation.expired", id),
            vec![value(&q)]
        );
    }
    assert_eq!(
        untouched(&db),
        before,
        "drafts, answered and still valid ones are left alone"
    );
    assert_eq!(events_of(&db, a, "quotation.expired").len(), 3);
    assert_eq!(events_of(&db, b, "quotation.expired").len(), 1);

    assert_eq!(
        db.store
            .mark_expired_quotations(invoicing_storage::testing::noon(sweep_day))
            .unwrap(),
        0
    );
    assert_eq!(events_of(&db, a, "quotation.expired").len(), 3);
    assert_eq!(events_of(&db, b, "quotation.expired").len(), 1);
    assert_eq!(untouched(&db), before);

    // The next day, the one valid until the sweep day goes too.
    assert_eq!(
        db.store
            .mark_expired_quotations(invoicing_storage::testing::noon(
                sweep_day + Duration::days(1)
            ))
            .unwrap(),
        1
    );
    assert_eq!(get(&db, a, last_day.id).status, QuotationStatus::Expired);
    assert_eq!(get(&db, a, draft.id).status, QuotationStatus::Draft);
    assert_eq!(events_of(&db, a, "quotation.expired").len(), 4);
}

fn concurrent_sweepers_expire_each_quotation_once(db: TestDb) {
    let a = scope(&db);
    let b = scope(&db);
    for i in 0..5 {
        create_sent(&db, a, dated(&format!("a{i}@example.com")));
    }
    create_sent(&db, b, dated("b@example.com"));
    let threads = 4;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let store = db.store.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                store
                    .mark_expired_quotations(invoicing_storage::testing::noon(day("2026-02-01")))
                    .unwrap()
            })
        })
        .collect();
    let changed: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(changed, 6);
    assert_eq!(events_of(&db, a, "quotation.expired").len(), 5);
    assert_eq!(events_of(&db, b, "quotation.expired").len(), 1);
}

fn convert_makes_one_draft_invoice_from_an_accepted_quotation(db: TestDb) {
    let scope = scope(&db);
    let year = Utc::now().year();
    let q = db
        .store
        .create_quotation(
            scope,
            new_quotation(json!({
                "customer": {"name": "Ada", "email": "ada@example.com"},
                "currency": "usd",
                "line_items": [
                    {"description": "Design", "quantity": "1.5", "unit_price_cents": 333, "tax_rate": "19"},
                    {"description": "Hosting", "quantity": "12", "unit_price_cents": 999, "tax_rate": "7.5"},
                    {"description": "Discount", "quantity": 1, "unit_price_cents": -100}
                ],
                "notes": "As discussed"
            })),
        )
        .unwrap();
    let due = Due::Terms(PaymentTerms::DEFAULT);
    // Only an accepted quotation converts; a refused convert takes no invoice number.
    assert_err!(
        db.store
            .convert_quotation(scope, q.id, due, token(), today()),
        RepoError::InvalidTransition(_)
    );
    db.store.send_quotation(scope, q.id, None).unwrap();
    assert_err!(
        db.store
            .convert_quotation(scope, q.id, due, token(), today()),
        RepoError::InvalidTransition(_)
    );
    assert!(all_invoices(&db, scope).is_empty());
    assert!(events_of(&db, scope, "invoice.created").is_empty());
    let accepted = db
        .store
        .answer_quotation(scope, q.id, accept(), today())
        .unwrap();

    let on = today() + Duration::days(3);
    let invoice_token = token();
    let result = db
        .store
        .convert_quotation(scope, q.id, due, invoice_token.clone(), on)
        .unwrap();
    assert_eq!(result.quotation_id, q.id.0);
    assert_eq!(result.status, QuotationStatus::Converted);
    assert_eq!(result.invoice_number, format!("INV-{year}-000001"));
    let invoice = db
        .store
        .get_invoice(scope, InvoiceId(result.invoice_id))
        .unwrap();
    assert_eq!(result.invoice_url, invoice.payment_link);
    assert!(invoice
        .payment_link
        .ends_with(&format!("?token={invoice_token}")));
    assert_eq!(invoice.invoice_number, result.invoice_number);
    assert_eq!(invoice.status, InvoiceStatus::Draft);
    assert_eq!(invoice.quotation_id, Some(q.id.0));
    assert_eq!(invoice.customer_id, accepted.customer_id);
    assert_eq!(invoice.currency, accepted.currency);
    assert_eq!(invoice.issue_date, on);
    assert_eq!(
        invoice.due_date,
        on + Duration::days(30),
        "net_30 from the day of conversion"
    );
    assert_eq!(invoice.payment_terms.as_deref(), Some("net_30"));
    let amounts = |lines: &[invoicing_domain::document::LineItemView]| {
        lines
            .iter()
            .map(|l| {
                (
                    l.description.clone(),
                    l.quantity,
                    l.unit_price_cents,
                    l.tax_rate,
                    l.subtotal_cents,
                    l.tax_cents,
                    l.total_cents,
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(amounts(&invoice.line_items), amounts(&accepted.line_items));
    assert_eq!(
        (
            invoice.subtotal_cents,
            invoice.tax_cents,
            invoice.total_cents
        ),
        (
            accepted.subtotal_cents,
            accepted.tax_cents,
            accepted.total_cents
        )
    );
    assert_eq!(
        invoice.total_cents, 13_382,
        "595 + (11988 + 899) - 100, computed exactly"
    );
    assert_eq!(invoice.amount_due_cents, invoice.total_cents);

    let converted = get(&db, scope, q.id);
    assert_eq!(converted.status, QuotationStatus::Converted);
    assert_eq!(converted.invoice_id, Some(invoice.id.0));
    assert!(converted.converted_at.is_some());
    assert_eq!(converted.line_items, accepted.line_items);
    assert_eq!(
        events_of(&db, scope, "invoice.created"),
        vec![value(&invoice)]
    );
    assert_eq!(
        events_of(&db, scope, "quotation.converted"),
        vec![value(&converted)]
    );

    // Once only.
    assert_err!(
        db.store.convert_quotation(scope, q.id, due, token(), on),
        RepoError::InvalidTransition(_)
    );
    assert_eq!(all_invoices(&db, scope).len(), 1);
    assert_eq!(get(&db, scope, q.id), converted);
    assert_eq!(events_of(&db, scope, "quotation.converted").len(), 1);
    assert_eq!(events_of(&db, scope, "invoice.created").len(), 1);
    // Other answers and edits are refused now too.
    assert_err!(
        db.store.answer_quotation(scope, q.id, reject("x"), today()),
        RepoError::InvalidTransition(_)
    );
    assert_err!(
        db.store.delete_quotation(scope, q.id),
        RepoError::InvalidTransition(_)
    );
    // The invoice is an ordinary draft: the invoice numbering carries on from it.
    assert_eq!(
        db.store
            .create_invoice(scope, simple_invoice("ada@example.com"))
            .unwrap()
            .invoice_number,
        format!("INV-{year}-000002")
    );
}

fn convert_takes_the_due_date_or_terms(db: TestDb) {
    let scope = scope(&db);
    let on = today();
    let by_date = create_accepted(&db, scope, simple("ada@example.com"));
    let result = db
        .store
        .convert_quotation(scope, by_date.id, Due::Date(day("2099-12-31")), token(), on)
        .unwrap();
    let invoice = db
        .store
        .get_invoice(scope, InvoiceId(result.invoice_id))
        .unwrap();
    assert_eq!(invoice.due_date, day("2099-12-31"));
    assert_eq!(invoice.payment_terms, None);

    let on_receipt = create_accepted(&db, scope, simple("bob@example.com"));
    let result = db
        .store
        .convert_quotation(
            scope,
            on_receipt.id,
            Due::Terms(PaymentTerms::DueOnReceipt),
            token(),
            on,
        )
        .unwrap();
    let invoice = db
        .store
        .get_invoice(scope, InvoiceId(result.invoice_id))
        .unwrap();
    assert_eq!(invoice.due_date, on);
    assert_eq!(invoice.payment_terms.as_deref(), Some("due_on_receipt"));

    let net_7 = create_accepted(&db, scope, simple("carol@example.com"));
    let result = db
        .store
        .convert_quotation(
            scope,
            net_7.id,
            Due::Terms(PaymentTerms::Net(7)),
            token(),
            on,
        )
        .unwrap();
    let invoice = db
        .store
        .get_invoice(scope, InvoiceId(result.invoice_id))
        .unwrap();
    assert_eq!(invoice.due_date, on + Duration::days(7));
    assert_eq!(invoice.payment_terms.as_deref(), Some("net_7"));
    assert_eq!(invoice.quotation_id, Some(net_7.id.0));
    assert_eq!(all_invoices(&db, scope).len(), 3);
}

fn concurrent_converts_make_exactly_one_invoice(db: TestDb) {
    let scope = scope(&db);
    let q = create_accepted(&db, scope, simple("ada@example.com"));
    let threads = 8;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let store = db.store.clone();
            let barrier = barrier.clone();
            let id = q.id;
            std::thread::spawn(move || {
                let token = token();
                barrier.wait();
                store.convert_quotation(
                    scope,
                    id,
                    Due::Terms(PaymentTerms::DEFAULT),
                    token,
                    today(),
                )
            })
        })
        .collect();
    let mut won = Vec::new();
    let mut refused = 0;
    for h in handles {
        match h.join().unwrap() {
            Ok(result) => won.push(result),
            Err(RepoError::InvalidTransition(_)) => refused += 1,
            Err(e) => panic!("a losing convert must be an invalid transition, got {e:?}"),
        }
    }
    assert_eq!((won.len(), refused), (1, threads - 1));
    let invoices: Vec<Invoice> = all_invoices(&db, scope)
        .into_iter()
        .filter(|i| i.quotation_id == Some(q.id.0))
        .collect();
    assert_eq!(invoices.len(), 1);
    assert_eq!(invoices[0].id.0, won[0].invoice_id);
    assert_eq!(all_invoices(&db, scope).len(), 1);
    assert_eq!(events_of(&db, scope, "quotation.converted").len(), 1);
    assert_eq!(events_of(&db, scope, "invoice.created").len(), 1);
    let converted = get(&db, scope, q.id);
    assert_eq!(converted.invoice_id, Some(won[0].invoice_id));
}

fn concurrent_answers_have_one_winner(db: TestDb) {
    let scope = scope(&db);
    let q = create_sent(&db, scope, simple("ada@example.com"));
    let threads = 8;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|i| {
            let store = db.store.clone();
            let barrier = barrier.clone();
            let id = q.id;
            std::thread::spawn(move || {
                let answer = if i % 2 == 0 {
                    accept()
                } else {
                    reject(&format!("r{i}"))
                };
                barrier.wait();
                store.answer_quotation(scope, id, answer, today())
            })
        })
        .collect();
    let mut won = Vec::new();
    for h in handles {
        match h.join().unwrap() {
            Ok(q) => won.push(q),
            Err(RepoError::InvalidTransition(_)) => {}
            Err(e) => panic!("a losing answer must be an invalid transition, got {e:?}"),
        }
    }
    assert_eq!(won.len(), 1);
    let final_state = get(&db, scope, q.id);
    assert_eq!(final_state, won[0], "the winner's answer is the one kept");
    let answers = events_of(&db, scope, "quotation.accepted").len()
        + events_of(&db, scope, "quotation.rejected").len();
    assert_eq!(answers, 1);
    match final_state.status {
        QuotationStatus::Accepted => assert!(final_state.rejection_reason.is_none()),
        QuotationStatus::Rejected => assert!(final_state.accepted_by_name.is_none()),
        other => panic!("answered quotation is {other}"),
    }
}

fn tenants_are_isolated(db: TestDb) {
    let a = scope(&db);
    let other_account = scope(&db);
    let a_live = Scope::new(a.account_id, Environment::Live);
    let draft = db
        .store
        .create_quotation(a, simple("ada@example.com"))
        .unwrap();
    let accepted = create_accepted(&db, a, simple("bob@example.com"));
    let missing = QuotationId(accepted.id.0 + 10_000);
    let due = Due::Terms(PaymentTerms::DEFAULT);
    for other in [other_account, a_live] {
        for (id, expected) in [
            (draft.id, "Forbidden"),
            (accepted.id, "Forbidden"),
            (missing, "NotFound"),
        ] {
            let check = |what: &str, e: RepoError| {
                let got = match e {
                    RepoError::Forbidden => "Forbidden",
                    RepoError::NotFound => "NotFound",
                    _ => "something else",
                };
                assert_eq!(got, expected, "{what} of {id:?} in {other:?}: {e:?}");
            };
            check("get", db.store.get_quotation(other, id).unwrap_err());
            check(
                "update",
                db.store
                    .update_quotation(other, id, patch(json!({"notes": "x"})))
                    .unwrap_err(),
            );
            check(
                "draft-only update",
                db.store
                    .update_quotation(other, id, patch(json!({"currency": "USD"})))
                    .unwrap_err(),
            );
            check("delete", db.store.delete_quotation(other, id).unwrap_err());
            check(
                "send",
                db.store.send_quotation(other, id, None).unwrap_err(),
            );
            check(
                "accept",
                db.store
                    .answer_quotation(other, id, accept(), today())
                    .unwrap_err(),
            );
            check(
                "reject",
                db.store
                    .answer_quotation(other, id, reject("x"), today())
                    .unwrap_err(),
            );
            check(
                "convert",
                db.store
                    .convert_quotation(other, id, due, token(), today())
                    .unwrap_err(),
            );
        }
        let listed = db
            .store
            .list_quotations(other, &QuotationFilter::default(), PageRequest::default())
            .unwrap();
        assert_eq!((listed.total, listed.data.len()), (0, 0));
        let by_customer = QuotationFilter {
            customer_id: Some(draft.customer_id),
            ..Default::default()
        };
        assert_eq!(
            db.store
                .list_quotations(other, &by_customer, PageRequest::default())
                .unwrap()
                .total,
            0
        );
        // A quotation cannot name another tenant's customer, on create or on edit.
        let foreign = new_quotation(
            json!({"customer_id": draft.customer_id.0, "line_items": [{"description": "x", "quantity": 1, "unit_price_cents": 1}]}),
        );
        assert_err!(
            db.store.create_quotation(other, foreign),
            RepoError::Invalid(_)
        );
        let own = db
            .store
            .create_quotation(other, simple("own@example.com"))
            .unwrap();
        assert_err!(
            db.store.update_quotation(
                other,
                own.id,
                patch(json!({"customer_id": draft.customer_id.0}))
            ),
            RepoError::Invalid(_)
        );
        assert_eq!(
            list(
                &db,
                other,
                QuotationFilter::default(),
                PageRequest::default()
            ),
            vec![own.id],
            "each tenant lists only its own"
        );
        assert!(all_invoices(&db, other).is_empty());
        assert!(events_of(&db, other, "quotation.sent").is_empty());
    }
    assert_eq!(
        get(&db, a, draft.id),
        draft,
        "nothing reached the owner's quotations"
    );
    assert_eq!(get(&db, a, accepted.id), accepted);
    assert_eq!(
        list(&db, a, QuotationFilter::default(), PageRequest::default()),
        vec![accepted.id, draft.id]
    );
    assert!(all_invoices(&db, a).is_empty());
    assert!(events_of(&db, a, "quotation.updated").is_empty());
}

/// Every kind of change writes one event whose object is the quotation exactly as `get`
/// answers right after the change.
fn each_event_carries_the_quotation_after_its_change(db: TestDb) {
    let scope = scope(&db);
    let q = db
        .store
        .create_quotation(scope, simple("ada@example.com"))
        .unwrap();
    let mut expected: Vec<(&str, Value)> =
        vec![("quotation.created", value(&get(&db, scope, q.id)))];
    db.store
        .update_quotation(scope, q.id, patch(json!({"notes": "v2"})))
        .unwrap();
    expected.push(("quotation.updated", value(&get(&db, scope, q.id))));
    db.store.send_quotation(scope, q.id, None).unwrap();
    expected.push(("quotation.sent", value(&get(&db, scope, q.id))));
    db.store
        .view_public_quotation(&q.quote_number, &token_of(&q))
        .unwrap();
    expected.push(("quotation.viewed", value(&get(&db, scope, q.id))));
    db.store
        .answer_quotation(scope, q.id, accept(), today())
        .unwrap();
    expected.push(("quotation.accepted", value(&get(&db, scope, q.id))));
    db.store
        .convert_quotation(
            scope,
            q.id,
            Due::Terms(PaymentTerms::DEFAULT),
            token(),
            today(),
        )
        .unwrap();
    expected.push(("quotation.converted", value(&get(&db, scope, q.id))));

    let r = create_sent(&db, scope, simple("bob@example.com"));
    db.store
        .answer_quotation(scope, r.id, reject("no"), today())
        .unwrap();
    let rejected = value(&get(&db, scope, r.id));
    let e = create_sent(&db, scope, dated("carol@example.com"));
    db.store
        .mark_expired_quotations(invoicing_storage::testing::noon(today()))
        .unwrap();
    let expired = value(&get(&db, scope, e.id));
    let d = db
        .store
        .create_quotation(scope, simple("dan@example.com"))
        .unwrap();
    let before_delete = value(&get(&db, scope, d.id));
    db.store.delete_quotation(scope, d.id).unwrap();

    for (event_type, object) in &expected {
        assert_eq!(
            &events_about(&db, scope, event_type, q.id),
            &vec![object.clone()],
            "{event_type}"
        );
    }
    assert_eq!(
        events_about(&db, scope, "quotation.rejected", r.id),
        vec![rejected]
    );
    assert_eq!(
        events_about(&db, scope, "quotation.expired", e.id),
        vec![expired]
    );
    assert_eq!(
        events_about(&db, scope, "quotation.deleted", d.id),
        vec![before_delete]
    );
    // The converted event names the invoice, which exists with that id.
    let converted = &expected.last().unwrap().1;
    let invoice_id = converted["invoice_id"].as_i64().expect("invoice_id set");
    assert_eq!(
        db.store
            .get_invoice(scope, InvoiceId(invoice_id))
            .unwrap()
            .quotation_id,
        Some(q.id.0)
    );
    // Every event about q is one of the expected, in order of the changes (newest first).
    let all: Vec<(String, Value)> = db
        .store
        .list_events(
            scope,
            &EventFilter::default(),
            PageRequest::new(1, 100).unwrap(),
        )
        .unwrap()
        .data
        .into_iter()
        .filter(|e| e.event_type.starts_with("quotation.") && e.data.object["id"] == json!(q.id.0))
        .map(|e| (e.event_type, e.data.object))
        .rev()
        .collect();
    let expected: Vec<(String, Value)> = expected
        .into_iter()
        .map(|(t, o)| (t.to_string(), o))
        .collect();
    assert_eq!(all, expected);
}

/// A send racing an edit or a delete of the same draft: whichever order the database picks,
/// a sent quotation is never edited in its draft-only fields nor deleted. Several rounds, since
/// the window is small.
fn racing_sends_never_let_a_sent_quotation_be_edited_or_deleted(db: TestDb) {
    let scope = scope(&db);
    for round in 0..20 {
        let draft = db
            .store
            .create_quotation(scope, simple(&format!("r{round}@example.com")))
            .unwrap();
        let barrier = Arc::new(Barrier::new(2));
        let sender = {
            let (store, barrier, id) = (db.store.clone(), barrier.clone(), draft.id);
            std::thread::spawn(move || {
                barrier.wait();
                store.send_quotation(scope, id, None)
            })
        };
        let editor = {
            let (store, barrier, id) = (db.store.clone(), barrier.clone(), draft.id);
            let edit = patch(
                json!({"line_items": [{"description": "Edited", "quantity": 1, "unit_price_cents": 7}]}),
            );
            std::thread::spawn(move || {
                barrier.wait();
                store.update_quotation(scope, id, edit)
            })
        };
        let (sent, edited) = (sender.join().unwrap(), editor.join().unwrap());
        let now = get(&db, scope, draft.id);
        match (sent, edited) {
            (Ok(sent), Ok(_)) => assert_eq!(
                now, sent,
                "round {round}: both succeeded, so the edit must have come before the send"
            ),
            (Ok(sent), Err(RepoError::InvalidTransition(_))) => assert_eq!(now, sent),
            other => panic!("round {round}: unexpected outcome {other:?}"),
        }

        let draft = db
            .store
            .create_quotation(scope, simple(&format!("d{round}@example.com")))
            .unwrap();
        let barrier = Arc::new(Barrier::new(2));
        let sender = {
            let (store, barrier, id) = (db.store.clone(), barrier.clone(), draft.id);
            std::thread::spawn(move || {
                barrier.wait();
                store.send_quotation(scope, id, None)
            })
        };
        let deleter = {
            let (store, barrier, id) = (db.store.clone(), barrier.clone(), draft.id);
            std::thread::spawn(move || {
                barrier.wait();
                store.delete_quotation(scope, id)
            })
        };
        match (sender.join().unwrap(), deleter.join().unwrap()) {
            (Ok(sent), Err(RepoError::InvalidTransition(_))) => {
                assert_eq!(get(&db, scope, draft.id), sent)
            }
            (Err(RepoError::NotFound), Ok(())) => {
                assert_err!(db.store.get_quotation(scope, draft.id), RepoError::NotFound)
            }
            other => panic!("round {round}: a send and a delete both won, or neither: {other:?}"),
        }
    }
    let sent = events_of(&db, scope, "quotation.sent").len();
    let deleted = events_of(&db, scope, "quotation.deleted").len();
    assert_eq!(sent + deleted, 40, "one winner, one event, per race");
}

/// A quotation is read with its lines on one snapshot: while its lines change, a get shows the
/// totals and the lines of one version, never one's totals with the other's lines.
fn a_get_pairs_the_totals_with_their_own_lines(db: TestDb) {
    use std::sync::atomic::{AtomicBool, Ordering};
    let scope = scope(&db);
    let line =
        |d: &str, cents: i64| json!({"description": d, "quantity": 1, "unit_price_cents": cents});
    let one = json!([line("A1", 1000)]);
    let six = json!((0..6)
        .map(|i| line(&format!("B{i}"), 1500 + i))
        .collect::<Vec<_>>());
    let id = db
        .store
        .create_quotation(scope, simple("snap@example.com"))
        .unwrap()
        .id;
    let done = Arc::new(AtomicBool::new(false));
    let editor = {
        let (store, done) = (db.store.clone(), done.clone());
        std::thread::spawn(move || {
            for i in 0..150 {
                let lines = if i % 2 == 0 { &six } else { &one };
                store
                    .update_quotation(scope, id, patch(json!({"line_items": lines})))
                    .unwrap();
            }
            done.store(true, Ordering::SeqCst);
        })
    };
    let mut gets = 0;
    while !done.load(Ordering::SeqCst) {
        let q = db.store.get_quotation(scope, id).unwrap();
        let lines: i64 = q.line_items.iter().map(|l| l.subtotal_cents).sum();
        assert_eq!(q.subtotal_cents, lines, "after {gets} gets");
        gets += 1;
    }
    editor.join().unwrap();
    assert!(gets > 0);
}

/// "Save and send" is one transaction: in test the quotation is created already sent; a send
/// the live profile refuses leaves neither the draft nor its new customer behind.
fn created_and_sent_in_one_transaction(db: TestDb) {
    let scope = scope(&db);
    let sent = db
        .store
        .create_and_send_quotation(scope, simple("a@example.com"), None)
        .unwrap();
    assert_eq!(sent.status, QuotationStatus::Sent);
    assert_eq!(events_of(&db, scope, "quotation.sent").len(), 1);

    let live = Scope::new(scope.account_id, Environment::Live);
    let refused = db
        .store
        .create_and_send_quotation(live, simple("b@example.com"), None);
    assert!(matches!(refused, Err(RepoError::Invalid(_))), "{refused:?}");
    let page = || PageRequest::new(1, 10).unwrap();
    let listed = db
        .store
        .list_quotations(live, &QuotationFilter::default(), page());
    assert_eq!(listed.unwrap().total, 0, "no draft is left behind");
    let customers = db.store.list_customers(live, &Default::default(), page());
    assert_eq!(customers.unwrap().total, 0, "nor the customer it named");
}

backend_tests!(
    created_and_sent_in_one_transaction,
    a_get_pairs_the_totals_with_their_own_lines,
    numbering_is_gap_free_and_independent_of_invoices,
    create_stores_defaults_customer_and_event,
    failed_create_rolls_back_customer_and_event,
    lists_filter_by_status_and_customer_and_page_newest_first,
    drafts_can_be_edited_sent_ones_only_in_part,
    only_drafts_can_be_deleted,
    send_moves_a_draft_to_sent_once,
    public_view_marks_viewed_once,
    concurrent_first_views_all_succeed_with_one_event,
    api_answers_record_who_and_why,
    public_answers_follow_the_same_rules,
    late_accept_expires_the_quotation_instead,
    expiry_sweep_expires_only_open_quotations_past_validity,
    concurrent_sweepers_expire_each_quotation_once,
    convert_makes_one_draft_invoice_from_an_accepted_quotation,
    convert_takes_the_due_date_or_terms,
    concurrent_converts_make_exactly_one_invoice,
    concurrent_answers_have_one_winner,
    racing_sends_never_let_a_sent_quotation_be_edited_or_deleted,
    tenants_are_isolated,
    each_event_carries_the_quotation_after_its_change,
);
