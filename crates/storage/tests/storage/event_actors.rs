//! Who caused each event (SPEC §21, "Audit") on both backends: the actor travels with the scope
//! into the event's row, and reads back with it (lists, single events, webhook payloads);
//! public pages act as the customer, sweeps as the system, and events written before the
//! actor was recorded read as the system's.

use chrono::{Duration, NaiveDate, Utc};
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::{CustomerInput, CustomerPatchInput};
use invoicing_domain::event::{Event, EventFilter};
use invoicing_domain::invoice::{InvoiceInput, InvoicePatchInput};
use invoicing_domain::paging::PageRequest;
use invoicing_domain::payment::PaymentReportInput;
use invoicing_domain::ports::{
    AccountRepository, CustomerRepository, DeliveryQueue, EventRepository, InvoiceRepository,
    PaymentRepository, QuotationRepository, WebhookRepository,
};
use invoicing_domain::quotation::{Answer, QuotationInput};
use invoicing_domain::tenant::{Actor, Environment, Scope};
use invoicing_domain::webhook::WebhookInput;
use invoicing_domain::webhook_signature::WebhookSecret;
use invoicing_storage::backend_tests;
use invoicing_storage::testing::TestDb;
use serde_json::{json, Value};

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

fn token() -> String {
    format!("tok{}", rand::random::<u64>())
}

/// The events of this type in the scope, newest first.
fn events(db: &TestDb, scope: Scope, event_type: &str) -> Vec<Event> {
    let filter = EventFilter {
        event_type: Some(event_type.into()),
    };
    db.store
        .list_events(scope, &filter, PageRequest::new(1, 100).unwrap())
        .unwrap()
        .data
}

/// The actor of the only event of this type, as listed and as read alone (which must agree).
fn actor_of(db: &TestDb, scope: Scope, event_type: &str) -> Actor {
    let listed = events(db, scope, event_type);
    assert_eq!(listed.len(), 1, "one {event_type}: {listed:?}");
    let one = db.store.get_event(scope, listed[0].id).unwrap();
    assert_eq!(one, listed[0]);
    one.actor
}

fn accept() -> Answer {
    Answer::Accept {
        name: Some("Grace Hopper".into()),
        ip: Some("203.0.113.7".into()),
        user_agent: None,
    }
}

fn every_actor_reads_back_with_its_event(db: TestDb) {
    let system = scope(&db);
    let key = system.acting_as(Actor::ApiKey(41));
    let user = system.acting_as(Actor::User(7));
    let customer = system.acting_as(Actor::Customer);
    // Every change notifies this endpoint: its payloads carry the actor too.
    let endpoint = WebhookInput {
        url: Some("https://hooks.example.com/in".into()),
        events: Some(vec!["*".into()]),
        description: None,
    }
    .parse(
        Environment::Test,
        false,
        WebhookSecret::generate(&mut rand::rngs::OsRng),
    )
    .unwrap();
    db.store.create_webhook(key, endpoint).unwrap();

    let new = CustomerInput {
        name: Some("Ada".into()),
        email: Some("ada@example.com".into()),
        ..Default::default()
    }
    .parse()
    .unwrap();
    let ada = db.store.create_customer(key, new).unwrap().into_inner();
    let patch = serde_json::from_value::<CustomerPatchInput>(json!({"name": "Ada L."}))
        .unwrap()
        .parse()
        .unwrap();
    db.store.update_customer(user, ada.id, patch).unwrap();
    db.store.delete_customer(customer, ada.id).unwrap();
    assert_eq!(actor_of(&db, system, "customer.created"), Actor::ApiKey(41));
    assert_eq!(actor_of(&db, system, "customer.updated"), Actor::User(7));
    assert_eq!(actor_of(&db, system, "customer.deleted"), Actor::Customer);

    // A status move through the document core records its caller, not the row's tenant.
    let new = serde_json::from_value::<InvoiceInput>(json!({
        "customer": {"name": "Bob", "email": "bob@example.com"},
        "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 1000}]
    }))
    .unwrap()
    .parse(today(), token())
    .unwrap();
    let invoice = db.store.create_invoice(system, new).unwrap();
    let sent = serde_json::from_value::<InvoicePatchInput>(json!({"status": "sent"}))
        .unwrap()
        .parse()
        .unwrap();
    db.store.update_invoice(user, invoice.id, sent).unwrap();
    assert_eq!(actor_of(&db, system, "invoice.created"), Actor::System);
    assert_eq!(actor_of(&db, system, "invoice.sent"), Actor::User(7));

    // The same scope with another actor is the same tenant: it sees every event.
    let all = |s: Scope| {
        db.store
            .list_events(
                s,
                &EventFilter::default(),
                PageRequest::new(1, 100).unwrap(),
            )
            .unwrap()
            .data
    };
    assert_eq!(all(key), all(system));
    assert_eq!(all(key).len(), 6, "with Bob's customer.created");

    // What the webhook workers send is the event as read back, actor included.
    let jobs = db
        .store
        .claim_deliveries(
            Utc::now() + Duration::seconds(5),
            std::time::Duration::from_secs(60),
            100,
        )
        .unwrap();
    let mut sent: Vec<(String, Value)> = jobs
        .iter()
        .map(|j| {
            let payload: Value = serde_json::from_str(&j.payload).unwrap();
            (j.event_type.clone(), payload["actor"].clone())
        })
        .collect();
    sent.sort_by_key(|(t, actor)| (t.clone(), actor.to_string()));
    assert_eq!(
        sent,
        vec![
            (
                "customer.created".into(),
                json!({"type": "api_key", "id": 41})
            ),
            (
                "customer.created".into(),
                json!({"type": "system", "id": null})
            ),
            (
                "customer.deleted".into(),
                json!({"type": "customer", "id": null})
            ),
            ("customer.updated".into(), json!({"type": "user", "id": 7})),
            (
                "invoice.created".into(),
                json!({"type": "system", "id": null})
            ),
            ("invoice.sent".into(), json!({"type": "user", "id": 7})),
        ]
    );
}

/// The public pages act as the customer, whatever the scope of the rows they find; the
/// scheduler's sweeps act as the system, also when a late answer is what finds the expiry.
fn public_pages_act_as_the_customer_and_sweeps_as_the_system(db: TestDb) {
    let system = scope(&db);
    let key = system.acting_as(Actor::ApiKey(3));
    let new = serde_json::from_value::<InvoiceInput>(json!({
        "customer": {"name": "Ada", "email": "ada@example.com"},
        "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 2000}]
    }))
    .unwrap()
    .parse(today(), token())
    .unwrap();
    let invoice = db.store.create_invoice(key, new).unwrap();
    let sent = serde_json::from_value::<InvoicePatchInput>(json!({"status": "sent"}))
        .unwrap()
        .parse()
        .unwrap();
    let invoice = db.store.update_invoice(key, invoice.id, sent).unwrap();
    let number = &invoice.invoice_number;
    let token = invoice.payment_link.rsplit("token=").next().unwrap();
    db.store.view_public_invoice(number, token).unwrap();
    let report = PaymentReportInput {
        amount: Some("5.00".into()),
        reference: Some("TRX-1".into()),
    }
    .parse()
    .unwrap();
    db.store.report_payment(number, token, report).unwrap();
    assert_eq!(actor_of(&db, system, "invoice.sent"), Actor::ApiKey(3));
    assert_eq!(actor_of(&db, system, "invoice.viewed"), Actor::Customer);
    assert_eq!(actor_of(&db, system, "payment.created"), Actor::Customer);
    let later = invoice.due_date + Duration::days(1);
    assert_eq!(
        db.store
            .mark_overdue_invoices(invoicing_storage::testing::noon(later))
            .unwrap(),
        1
    );
    assert_eq!(actor_of(&db, system, "invoice.overdue"), Actor::System);

    let quotation = |email: &str, valid_until: NaiveDate| {
        let new = serde_json::from_value::<QuotationInput>(json!({
            "customer": {"name": "Pat", "email": email},
            "valid_until": valid_until,
            "line_items": [{"description": "Plan", "quantity": 1, "unit_price_cents": 100}]
        }))
        .unwrap()
        .parse(today(), format!("tok{}", rand::random::<u64>()))
        .unwrap();
        let q = db.store.create_quotation(key, new).unwrap();
        db.store.send_quotation(key, q.id, None).unwrap()
    };
    let q = quotation("pat@example.com", today() + Duration::days(10));
    let q_token = q.public_url.rsplit("token=").next().unwrap();
    db.store
        .answer_public_quotation(
            &q.quote_number,
            q_token,
            accept(),
            invoicing_storage::testing::noon(today()),
        )
        .unwrap();
    assert_eq!(actor_of(&db, system, "quotation.accepted"), Actor::Customer);

    let late = quotation("late@example.com", today());
    let late_token = late.public_url.rsplit("token=").next().unwrap();
    let tomorrow = today() + Duration::days(1);
    assert!(db
        .store
        .answer_public_quotation(
            &late.quote_number,
            late_token,
            accept(),
            invoicing_storage::testing::noon(tomorrow)
        )
        .is_err());
    assert_eq!(actor_of(&db, system, "quotation.expired"), Actor::System);
    let sent = events(&db, system, "quotation.sent");
    assert!(sent.iter().all(|e| e.actor == Actor::ApiKey(3)), "{sent:?}");
}

/// Rows written before the actor was recorded (the migration's default) read as the system's.
fn events_without_an_actor_read_as_the_system(db: TestDb) {
    let s = scope(&db);
    db.execute(&format!(
        "INSERT INTO events (account_id, livemode, event_type, data, created_at) \
         VALUES ({}, {}, 'customer.created', '{{\"object\": \"customer\"}}', \
         '2026-01-01 00:00:00')",
        s.account_id.0,
        s.livemode()
    ));
    assert_eq!(actor_of(&db, s, "customer.created"), Actor::System);
    assert_eq!(
        serde_json::to_value(&events(&db, s, "customer.created")[0]).unwrap()["actor"],
        json!({"type": "system", "id": null})
    );
}

backend_tests!(
    every_actor_reads_back_with_its_event,
    public_pages_act_as_the_customer_and_sweeps_as_the_system,
    events_without_an_actor_read_as_the_system,
);
