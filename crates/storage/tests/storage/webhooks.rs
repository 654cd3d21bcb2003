//! Webhooks on both backends (SPEC §11, §12): endpoints whose secret is shown only on create and
//! rotation, the fan-out that queues one delivery per matching enabled endpoint of the event's
//! scope inside the event's transaction, the delivery queue (claims, leases, retries on the
//! schedule, stale claims, release), the delivery log, redelivery, tenant isolation, and
//! concurrent claimers that never take the same delivery twice.

use chrono::{DateTime, Duration, Timelike, Utc};
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::{CustomerInput, CustomerPatchInput};
use invoicing_domain::event::{EventFilter, EventId};
use invoicing_domain::paging::PageRequest;
use invoicing_domain::ports::{
    AccountRepository, CustomerRepository, DeliveryQueue, EventRepository, RepoError,
    WebhookRepository,
};
use invoicing_domain::tenant::{Environment, Scope};
use invoicing_domain::webhook::{
    NewWebhookEndpoint, WebhookEndpoint, WebhookEndpointId, WebhookInput, WebhookPatch,
    WebhookPatchInput,
};
use invoicing_domain::webhook_delivery::{
    AttemptOutcome, DeliveryAttempt, DeliveryJob, DeliveryState, RetrySchedule,
};
use invoicing_domain::webhook_signature::WebhookSecret;
use invoicing_storage::testing::TestDb;
use invoicing_storage::{backend_tests, Backend};
use serde_json::{json, Value};
use std::collections::HashSet;
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

const LEASE: std::time::Duration = std::time::Duration::from_secs(60);
const MISSING: i64 = 999_999_999;

/// Account A in test, account A in live, account B in test.
fn scopes(db: &TestDb) -> (Scope, Scope, Scope) {
    let eur = Currency::parse("EUR").unwrap();
    let a = db.store.create_account("A", eur).unwrap().id;
    let b = db.store.create_account("B", eur).unwrap().id;
    (
        Scope::new(a, Environment::Test),
        Scope::new(a, Environment::Live),
        Scope::new(b, Environment::Test),
    )
}

fn secret() -> WebhookSecret {
    WebhookSecret::generate(&mut rand::rngs::OsRng)
}

fn new_endpoint(url: &str, events: &[&str], description: Option<&str>) -> NewWebhookEndpoint {
    WebhookInput {
        url: Some(url.into()),
        events: Some(events.iter().map(|e| e.to_string()).collect()),
        description: description.map(String::from),
    }
    .parse(Environment::Test, false, secret())
    .unwrap()
}

fn register(db: &TestDb, scope: Scope, events: &[&str]) -> WebhookEndpoint {
    db.store
        .create_webhook(
            scope,
            new_endpoint("https://hooks.example.com/in", events, None),
        )
        .unwrap()
}

fn patch(body: Value) -> WebhookPatch {
    serde_json::from_value::<WebhookPatchInput>(body)
        .unwrap()
        .parse(Environment::Test, false)
        .unwrap()
}

fn disable(db: &TestDb, scope: Scope, id: WebhookEndpointId) {
    let e = db
        .store
        .update_webhook(scope, id, patch(json!({"enabled": false})))
        .unwrap();
    assert!(!e.enabled);
}

/// Creates a customer (which writes `customer.created`) and returns that event's id.
fn add_customer(db: &TestDb, scope: Scope, email: &str) -> EventId {
    let new = CustomerInput {
        name: Some("Ada".into()),
        email: Some(email.into()),
        ..Default::default()
    }
    .parse()
    .unwrap();
    let created = db.store.create_customer(scope, new).unwrap();
    assert!(created.is_new(), "{email} must be a new customer");
    let customer = created.into_inner();
    newest_event_about(db, scope, "customer.created", customer.id.0)
}

fn newest_event_about(db: &TestDb, scope: Scope, event_type: &str, object_id: i64) -> EventId {
    let filter = EventFilter {
        event_type: Some(event_type.into()),
    };
    db.store
        .list_events(scope, &filter, PageRequest::new(1, 100).unwrap())
        .unwrap()
        .data
        .into_iter()
        .find(|e| e.data.object["id"] == json!(object_id))
        .unwrap_or_else(|| panic!("no {event_type} event about {object_id}"))
        .id
}

/// Now, in whole seconds: what the database stores, so that `now + 1s` is exactly the retry time.
fn whole_now() -> DateTime<Utc> {
    Utc::now().with_nanosecond(0).unwrap()
}

fn claim(db: &TestDb, now: DateTime<Utc>) -> Vec<DeliveryJob> {
    db.store.claim_deliveries(now, LEASE, 100).unwrap()
}

/// `(endpoint, event)` of every due delivery, sorted; the claims are given back again.
fn due(db: &TestDb, now: DateTime<Utc>) -> Vec<(i64, i64)> {
    let jobs = claim(db, now);
    for job in &jobs {
        db.store.release_delivery(job).unwrap();
    }
    let mut pairs: Vec<(i64, i64)> = jobs
        .iter()
        .map(|j| (j.endpoint_id.0, j.event_id.0))
        .collect();
    pairs.sort();
    pairs
}

fn schedule() -> RetrySchedule {
    RetrySchedule::parse("1s,2s").unwrap()
}

fn answered(status: u16, body: &str) -> AttemptOutcome {
    AttemptOutcome {
        status_code: Some(status),
        duration_ms: 17,
        error: None,
        response_excerpt: Some(body.into()),
    }
}

fn unanswered(error: &str) -> AttemptOutcome {
    AttemptOutcome {
        status_code: None,
        duration_ms: 10_000,
        error: Some(error.into()),
        response_excerpt: None,
    }
}

fn attempts(db: &TestDb, scope: Scope, id: WebhookEndpointId) -> Vec<DeliveryAttempt> {
    db.store
        .list_delivery_attempts(scope, id, PageRequest::new(1, 100).unwrap())
        .unwrap()
        .data
}

fn create_returns_the_secret_and_reads_never_do(db: TestDb) {
    let (a, live, _) = scopes(&db);
    let new = new_endpoint(
        "https://hooks.example.com/in",
        &["customer.updated", "customer.created"],
        Some("CRM sync"),
    );
    let secret = new.secret.clone();
    let created = db.store.create_webhook(a, new).unwrap();
    assert_eq!(created.secret.as_deref(), Some(secret.as_str()));
    assert!(secret.as_str().starts_with("whsec_"));
    assert_eq!(created.object, "webhook_endpoint");
    assert_eq!(created.url, "https://hooks.example.com/in");
    assert_eq!(
        created.events,
        ["customer.created", "customer.updated"],
        "kept as a sorted set"
    );
    assert_eq!(created.description.as_deref(), Some("CRM sync"));
    assert!(created.enabled && !created.livemode);
    assert_eq!(
        serde_json::to_value(&created).unwrap()["secret"],
        secret.as_str()
    );

    let got = db.store.get_webhook(a, created.id).unwrap();
    assert_eq!(got.secret, None);
    assert_eq!(
        got,
        WebhookEndpoint {
            secret: None,
            ..created.clone()
        }
    );
    let shown = serde_json::to_value(&got).unwrap();
    assert!(
        shown.get("secret").is_none(),
        "no secret key at all: {shown}"
    );
    assert!(!shown.to_string().contains(secret.as_str()));

    let all = register(&db, a, &["*"]);
    assert_eq!(all.events, ["*"]);
    let third = register(&db, a, &["invoice.paid"]);
    let page = db.store.list_webhooks(a, PageRequest::default()).unwrap();
    assert_eq!(page.total, 3);
    assert!(page.data.iter().all(|e| e.secret.is_none()));
    let ids: Vec<_> = page.data.iter().map(|e| e.id).collect();
    assert_eq!(ids, [third.id, all.id, created.id], "newest first");
    let first = db
        .store
        .list_webhooks(a, PageRequest::new(1, 2).unwrap())
        .unwrap();
    assert_eq!(
        (first.data.len(), first.total, first.has_more),
        (2, 3, true)
    );
    let second = db
        .store
        .list_webhooks(a, PageRequest::new(2, 2).unwrap())
        .unwrap();
    assert_eq!(second.data.len(), 1);
    assert_eq!(second.data[0].id, created.id);
    assert!(!second.has_more);

    let in_live = register(&db, live, &["*"]);
    assert!(in_live.livemode);
    assert_eq!(
        db.store
            .list_webhooks(live, PageRequest::default())
            .unwrap()
            .data
            .into_iter()
            .map(|e| e.id)
            .collect::<Vec<_>>(),
        [in_live.id]
    );
    assert_eq!(
        db.store
            .list_webhooks(a, PageRequest::default())
            .unwrap()
            .total,
        3
    );
}

fn events_fan_out_to_matching_enabled_endpoints_of_their_scope(db: TestDb) {
    let (a, live, b) = scopes(&db);
    let all = register(&db, a, &["*"]).id.0;
    let created_only = register(&db, a, &["customer.created"]).id.0;
    let created_or_updated = register(&db, a, &["customer.created", "customer.updated"])
        .id
        .0;
    register(&db, a, &["invoice.created", "invoice.paid"]);
    let disabled = register(&db, a, &["*"]).id;
    disable(&db, a, disabled);
    let live_all = register(&db, live, &["*"]).id.0;
    let b_all = register(&db, b, &["*"]).id.0;

    let ev = add_customer(&db, a, "ada@example.com").0;
    let now = whole_now();
    assert_eq!(
        due(&db, now),
        [(all, ev), (created_only, ev), (created_or_updated, ev)],
        "one delivery per enabled endpoint of A/test taking customer.created, none for the \
         disabled one, the invoice-only one, live or B"
    );

    // A change of type reaches only the endpoints taking that type; earlier deliveries stay.
    let customer_id = db.store.get_event(a, EventId(ev)).unwrap().data.object["id"]
        .as_i64()
        .unwrap();
    let update = serde_json::from_value::<CustomerPatchInput>(json!({"name": "Ada L."}))
        .unwrap()
        .parse()
        .unwrap();
    db.store
        .update_customer(
            a,
            invoicing_domain::customer::CustomerId(customer_id),
            update,
        )
        .unwrap();
    let updated = newest_event_about(&db, a, "customer.updated", customer_id).0;
    let mut expected = vec![
        (all, ev),
        (all, updated),
        (created_only, ev),
        (created_or_updated, ev),
        (created_or_updated, updated),
    ];
    expected.sort();
    assert_eq!(due(&db, whole_now()), expected);

    // Live and the other account queue only for their own endpoints.
    let live_ev = add_customer(&db, live, "ada@example.com").0;
    let b_ev = add_customer(&db, b, "ada@example.com").0;
    expected.extend([(live_all, live_ev), (b_all, b_ev)]);
    expected.sort();
    assert_eq!(due(&db, whole_now()), expected);

    // Finding an existing customer writes no event and so queues nothing.
    let again = db
        .store
        .create_customer(
            a,
            CustomerInput {
                name: Some("Ada".into()),
                email: Some("ADA@example.com".into()),
                ..Default::default()
            }
            .parse()
            .unwrap(),
        )
        .unwrap();
    assert!(!again.is_new());
    assert_eq!(due(&db, whole_now()), expected);
}

/// Makes every insert into `webhook_deliveries` fail, to show the event and its change fail too.
fn inject_delivery_failures(db: &TestDb) {
    match db.backend() {
        Backend::Sqlite => db.execute(
            "CREATE TRIGGER fail_deliveries BEFORE INSERT ON webhook_deliveries \
             BEGIN SELECT RAISE(ABORT, 'injected failure'); END;",
        ),
        Backend::Postgres => db.execute(
            "CREATE FUNCTION fail_deliveries() RETURNS trigger AS $$ BEGIN \
               RAISE EXCEPTION 'injected failure'; END $$ LANGUAGE plpgsql; \
             CREATE TRIGGER fail_deliveries BEFORE INSERT ON webhook_deliveries \
               FOR EACH ROW EXECUTE FUNCTION fail_deliveries();",
        ),
    }
}

fn deliveries_commit_or_roll_back_with_their_event(db: TestDb) {
    let (a, _, b) = scopes(&db);
    register(&db, a, &["customer.created"]);
    inject_delivery_failures(&db);
    let new = CustomerInput {
        name: Some("Ghost".into()),
        email: Some("ghost@example.com".into()),
        ..Default::default()
    }
    .parse()
    .unwrap();
    assert!(db.store.create_customer(a, new).is_err());
    assert_eq!(
        db.store
            .list_customers(a, &Default::default(), PageRequest::default())
            .unwrap()
            .total,
        0,
        "the customer rolled back with its failed delivery"
    );
    assert_eq!(
        db.store
            .list_events(a, &EventFilter::default(), PageRequest::default())
            .unwrap()
            .total,
        0,
        "and so did its event"
    );
    // Without a matching endpoint there is no delivery to fail.
    add_customer(&db, b, "ghost@example.com");
}

fn a_job_carries_the_event_as_the_api_shows_it(db: TestDb) {
    let (a, _, _) = scopes(&db);
    let new = new_endpoint("https://hooks.example.com/a?x=1", &["*"], None);
    let secret = new.secret.clone();
    let endpoint = db.store.create_webhook(a, new).unwrap();
    let ev = add_customer(&db, a, "ada@example.com");
    let jobs = claim(&db, whole_now());
    assert_eq!(jobs.len(), 1);
    let job = &jobs[0];
    let event = db.store.get_event(a, ev).unwrap();
    assert_eq!(job.payload, serde_json::to_string(&event).unwrap());
    let payload: Value = serde_json::from_str(&job.payload).unwrap();
    assert_eq!(payload["id"], ev.0);
    assert_eq!(payload["type"], "customer.created");
    assert_eq!(payload["livemode"], false);
    assert_eq!(payload["data"]["object"]["email"], "ada@example.com");
    assert_eq!(job.message_id(), format!("evt_{}", ev.0));
    assert_eq!(job.event_id, ev);
    assert_eq!(job.event_type, "customer.created");
    assert_eq!(job.attempt, 1);
    assert_eq!(job.scope, a);
    assert_eq!(job.endpoint_id, endpoint.id);
    assert_eq!(job.url, "https://hooks.example.com/a?x=1");
    assert_eq!(job.secret, secret);
    assert!(!job.claim.is_empty());
    // What a receiver verifies with the secret it was given.
    let signature = job
        .secret
        .sign(&job.message_id(), 1_700_000_000, job.payload.as_bytes());
    assert!(WebhookSecret::parse(endpoint.secret.as_deref().unwrap())
        .unwrap()
        .verify(
            &job.message_id(),
            1_700_000_000,
            job.payload.as_bytes(),
            &signature
        ));
}

fn a_claim_is_exclusive_until_recorded_released_or_expired(db: TestDb) {
    let (a, _, _) = scopes(&db);
    register(&db, a, &["*"]);
    add_customer(&db, a, "ada@example.com");
    let t0 = whole_now();
    let first = claim(&db, t0);
    assert_eq!(first.len(), 1);
    assert!(claim(&db, t0).is_empty(), "claimed: not claimable again");
    assert!(
        claim(&db, t0 + Duration::seconds(59)).is_empty(),
        "still within the 60 s lease"
    );
    let second = claim(&db, t0 + Duration::seconds(65));
    assert_eq!(second.len(), 1, "the lease ran out: claimable again");
    assert_eq!(second[0].delivery_id, first[0].delivery_id);
    assert_eq!(
        second[0].attempt, 1,
        "nothing was recorded, still attempt 1"
    );
    assert_ne!(second[0].claim, first[0].claim, "a new claim");

    // A tiny lease runs out almost at once.
    db.store.release_delivery(&second[0]).unwrap();
    let short = db
        .store
        .claim_deliveries(whole_now(), std::time::Duration::from_millis(1), 10)
        .unwrap();
    assert_eq!(short.len(), 1);
    assert_eq!(claim(&db, whole_now() + Duration::seconds(3)).len(), 1);

    // `limit` caps a claim; at t1 the first delivery's lease has run out too, so three are due.
    add_customer(&db, a, "bob@example.com");
    add_customer(&db, a, "cy@example.com");
    let t1 = whole_now() + Duration::seconds(200);
    let two = db.store.claim_deliveries(t1, LEASE, 2).unwrap();
    assert_eq!(two.len(), 2);
    let rest = db.store.claim_deliveries(t1, LEASE, 2).unwrap();
    assert_eq!(rest.len(), 1);
    let mut ids: Vec<_> = two.iter().chain(&rest).map(|j| j.delivery_id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 3);
}

fn release_makes_a_delivery_due_at_once(db: TestDb) {
    let (a, _, _) = scopes(&db);
    let endpoint = register(&db, a, &["*"]);
    add_customer(&db, a, "ada@example.com");
    let t0 = whole_now();
    let job = claim(&db, t0).remove(0);
    assert!(claim(&db, t0).is_empty());
    db.store.release_delivery(&job).unwrap();
    let again = claim(&db, t0);
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].delivery_id, job.delivery_id);
    assert_eq!(again[0].attempt, 1, "a release is not an attempt");
    assert!(attempts(&db, a, endpoint.id).is_empty());
    // The old claim cannot release the new one.
    db.store.release_delivery(&job).unwrap();
    assert!(claim(&db, t0).is_empty());
}

fn failures_are_retried_on_schedule_then_marked_failed(db: TestDb) {
    let (a, _, _) = scopes(&db);
    let endpoint = register(&db, a, &["customer.created"]);
    let ev = add_customer(&db, a, "ada@example.com");
    let schedule = schedule();
    let t0 = whole_now();

    let first = claim(&db, t0).remove(0);
    assert_eq!(first.attempt, 1);
    assert!(db
        .store
        .record_attempt(&first, &answered(500, "boom"), &schedule, t0)
        .unwrap());
    assert!(claim(&db, t0).is_empty(), "not due before now + 1 s");
    assert!(claim(&db, t0 + Duration::milliseconds(999)).is_empty());
    let second = claim(&db, t0 + Duration::seconds(1));
    assert_eq!(second.len(), 1, "due at now + 1 s");
    let second = second.into_iter().next().unwrap();
    assert_eq!(second.attempt, 2);
    assert_eq!(second.delivery_id, first.delivery_id);
    assert_eq!(second.message_id(), first.message_id(), "same webhook-id");
    assert_eq!(second.payload, first.payload, "same body");

    let t1 = t0 + Duration::seconds(1);
    assert!(db
        .store
        .record_attempt(&second, &unanswered("timed out"), &schedule, t1)
        .unwrap());
    assert!(claim(&db, t1 + Duration::milliseconds(1999)).is_empty());
    let third = claim(&db, t1 + Duration::seconds(2)).remove(0);
    assert_eq!(third.attempt, 3);

    let t2 = t1 + Duration::seconds(2);
    assert!(db
        .store
        .record_attempt(&third, &answered(404, "gone"), &schedule, t2)
        .unwrap());
    assert!(
        claim(&db, t2 + Duration::days(30)).is_empty(),
        "failed after 3 attempts: never due again"
    );

    let log = attempts(&db, a, endpoint.id);
    assert_eq!(log.len(), 3);
    let numbers: Vec<i32> = log.iter().map(|x| x.attempt).collect();
    assert_eq!(numbers, [3, 2, 1], "newest first");
    assert!(log[0].id > log[1].id && log[1].id > log[2].id);
    for x in &log {
        assert_eq!(x.object, "webhook_delivery_attempt");
        assert_eq!(x.event_id, ev.0);
        assert_eq!(x.event_type, "customer.created");
    }
    assert_eq!(
        (
            log[2].status_code,
            log[2].duration_ms,
            log[2].error.as_deref(),
            log[2].response_excerpt.as_deref(),
            log[2].state,
            log[2].next_attempt_at,
        ),
        (
            Some(500),
            17,
            None,
            Some("boom"),
            DeliveryState::Pending,
            Some(t0 + Duration::seconds(1))
        )
    );
    assert_eq!(
        (
            log[1].status_code,
            log[1].duration_ms,
            log[1].error.as_deref(),
            log[1].response_excerpt.as_deref(),
            log[1].state,
            log[1].next_attempt_at,
        ),
        (
            None,
            10_000,
            Some("timed out"),
            None,
            DeliveryState::Pending,
            Some(t1 + Duration::seconds(2))
        )
    );
    assert_eq!(
        (
            log[0].status_code,
            log[0].response_excerpt.as_deref(),
            log[0].state,
            log[0].next_attempt_at,
        ),
        (Some(404), Some("gone"), DeliveryState::Failed, None)
    );
}

fn success_ends_the_delivery(db: TestDb) {
    let (a, _, _) = scopes(&db);
    let endpoint = register(&db, a, &["*"]);
    add_customer(&db, a, "ada@example.com");
    let t0 = whole_now();
    let job = claim(&db, t0).remove(0);
    assert!(db
        .store
        .record_attempt(&job, &answered(204, ""), &schedule(), t0)
        .unwrap());
    assert!(claim(&db, t0 + Duration::days(1)).is_empty());
    let log = attempts(&db, a, endpoint.id);
    assert_eq!(log.len(), 1);
    assert_eq!(
        (
            log[0].attempt,
            log[0].status_code,
            log[0].state,
            log[0].next_attempt_at
        ),
        (1, Some(204), DeliveryState::Succeeded, None)
    );
    // Recording again with the spent claim does nothing.
    assert!(!db
        .store
        .record_attempt(&job, &answered(204, ""), &schedule(), t0)
        .unwrap());
    assert_eq!(attempts(&db, a, endpoint.id).len(), 1);

    // An error with a 2xx is still a failure, and with no delays left it is final.
    add_customer(&db, a, "bob@example.com");
    let job = claim(&db, whole_now()).remove(0);
    let broken = AttemptOutcome {
        status_code: Some(200),
        duration_ms: 5,
        error: Some("body read failed".into()),
        response_excerpt: None,
    };
    assert!(db
        .store
        .record_attempt(&job, &broken, &RetrySchedule::parse("").unwrap(), t0)
        .unwrap());
    assert_eq!(
        attempts(&db, a, endpoint.id)[0].state,
        DeliveryState::Failed
    );
    assert!(claim(&db, t0 + Duration::days(1)).is_empty());
}

fn a_stale_claim_records_nothing(db: TestDb) {
    let (a, _, _) = scopes(&db);
    let endpoint = register(&db, a, &["*"]);
    add_customer(&db, a, "ada@example.com");
    let t0 = whole_now();
    let stale = claim(&db, t0).remove(0);
    let fresh = claim(&db, t0 + Duration::seconds(65)).remove(0);
    assert_eq!(fresh.delivery_id, stale.delivery_id);
    assert!(!db
        .store
        .record_attempt(&stale, &answered(200, "ok"), &schedule(), t0)
        .unwrap());
    assert!(
        attempts(&db, a, endpoint.id).is_empty(),
        "the lost claim recorded nothing"
    );
    db.store.release_delivery(&stale).unwrap();
    assert!(
        claim(&db, whole_now()).is_empty(),
        "the lost claim cannot release the new one"
    );
    assert!(db
        .store
        .record_attempt(&fresh, &answered(500, "no"), &schedule(), t0)
        .unwrap());
    let log = attempts(&db, a, endpoint.id);
    assert_eq!(log.len(), 1);
    assert_eq!(
        (log[0].attempt, log[0].status_code, log[0].state),
        (1, Some(500), DeliveryState::Pending)
    );
}

fn the_delivery_log_pages_newest_first_per_endpoint(db: TestDb) {
    let (a, _, _) = scopes(&db);
    let mine = register(&db, a, &["*"]);
    let other = register(&db, a, &["*"]);
    let mut events = Vec::new();
    for i in 0..5 {
        events.push(add_customer(&db, a, &format!("c{i}@example.com")).0);
    }
    let t0 = whole_now();
    // Attempt them one at a time, in event order.
    for _ in 0..10 {
        let job = db.store.claim_deliveries(t0, LEASE, 1).unwrap().remove(0);
        assert!(db
            .store
            .record_attempt(&job, &answered(200, "ok"), &schedule(), t0)
            .unwrap());
    }
    assert!(claim(&db, t0).is_empty());
    let page = |n, per| {
        db.store
            .list_delivery_attempts(a, mine.id, PageRequest::new(n, per).unwrap())
            .unwrap()
    };
    let first = page(1, 2);
    assert_eq!(
        (first.total, first.has_more, first.page, first.per_page),
        (5, true, 1, 2)
    );
    let mut seen: Vec<i64> = Vec::new();
    for n in 1..=3 {
        let p = page(n, 2);
        assert_eq!(p.has_more, n < 3);
        seen.extend(p.data.iter().map(|x| x.event_id));
    }
    let mut newest_first = events.clone();
    newest_first.reverse();
    assert_eq!(
        seen, newest_first,
        "each endpoint sees its own attempts, newest first"
    );
    assert!(page(4, 2).data.is_empty());
    assert_eq!(attempts(&db, a, other.id).len(), 5);
    assert!(attempts(&db, a, other.id)
        .iter()
        .all(|x| x.state == DeliveryState::Succeeded));
    let fresh = register(&db, a, &["*"]);
    let empty = db
        .store
        .list_delivery_attempts(a, fresh.id, PageRequest::default())
        .unwrap();
    assert_eq!((empty.total, empty.data.len()), (0, 0));
}

fn redeliver_queues_the_event_again_for_matching_endpoints(db: TestDb) {
    let (a, live, b) = scopes(&db);
    let all = register(&db, a, &["*"]).id.0;
    let created = register(&db, a, &["customer.created"]).id.0;
    register(&db, a, &["invoice.created"]);
    let disabled = register(&db, a, &["*"]).id;
    disable(&db, a, disabled);
    let ev = add_customer(&db, a, "ada@example.com");
    let t0 = whole_now();
    let firsts = claim(&db, t0);
    assert_eq!(firsts.len(), 2);
    for job in &firsts {
        assert!(db
            .store
            .record_attempt(job, &answered(200, "ok"), &schedule(), t0)
            .unwrap());
    }
    assert!(claim(&db, t0).is_empty());

    assert_eq!(db.store.redeliver_event(a, ev).unwrap(), 2);
    let again = claim(&db, whole_now());
    let mut pairs: Vec<_> = again
        .iter()
        .map(|j| (j.endpoint_id.0, j.event_id.0))
        .collect();
    pairs.sort();
    assert_eq!(pairs, [(all, ev.0), (created, ev.0)]);
    for job in &again {
        assert_eq!(job.attempt, 1, "a new delivery");
        assert!(firsts.iter().all(|f| f.delivery_id != job.delivery_id));
        assert_eq!(job.message_id(), format!("evt_{}", ev.0));
        assert_eq!(
            job.payload,
            serde_json::to_string(&db.store.get_event(a, ev).unwrap()).unwrap()
        );
    }

    assert_err!(
        db.store.redeliver_event(a, EventId(MISSING)),
        RepoError::NotFound
    );
    assert_err!(db.store.redeliver_event(b, ev), RepoError::Forbidden);
    assert_err!(db.store.redeliver_event(live, ev), RepoError::Forbidden);
    let b_ev = add_customer(&db, b, "ada@example.com");
    assert_eq!(
        db.store.redeliver_event(b, b_ev).unwrap(),
        0,
        "no endpoint in B"
    );
    assert_eq!(
        claim(&db, whole_now() + Duration::seconds(120)).len(),
        2,
        "only the two redelivered (their leases ran out): the refused and empty redeliveries \
         queued nothing"
    );
}

fn updates_change_url_events_enabled_and_description(db: TestDb) {
    let (a, _, _) = scopes(&db);
    let created = db
        .store
        .create_webhook(
            a,
            new_endpoint("https://hooks.example.com/old", &["*"], Some("first")),
        )
        .unwrap();
    let unchanged = db
        .store
        .update_webhook(a, created.id, WebhookPatch::default())
        .unwrap();
    assert_eq!(
        unchanged,
        WebhookEndpoint {
            secret: None,
            ..created.clone()
        }
    );

    let e = db
        .store
        .update_webhook(
            a,
            created.id,
            patch(json!({"url": "https://hooks.example.com/new", "events": ["customer.updated"]})),
        )
        .unwrap();
    assert_eq!(e.url, "https://hooks.example.com/new");
    assert_eq!(e.events, ["customer.updated"]);
    assert_eq!(e.description.as_deref(), Some("first"), "untouched");
    assert!(e.enabled);
    assert_eq!(e.secret, None);
    assert!(e.updated_at >= created.updated_at);
    assert_eq!(e.created_at, created.created_at);
    assert_eq!(db.store.get_webhook(a, created.id).unwrap(), e);

    add_customer(&db, a, "ada@example.com");
    assert!(
        claim(&db, whole_now()).is_empty(),
        "no longer takes customer.created"
    );

    let e = db
        .store
        .update_webhook(
            a,
            created.id,
            patch(json!({"events": ["*"], "description": null})),
        )
        .unwrap();
    assert_eq!(e.events, ["*"]);
    assert_eq!(e.description, None, "null clears it");
    let ev = add_customer(&db, a, "bob@example.com");
    let job = claim(&db, whole_now()).remove(0);
    assert_eq!(job.event_id, ev);
    assert_eq!(
        job.url, "https://hooks.example.com/new",
        "the new URL is used"
    );
    db.store.release_delivery(&job).unwrap();

    let e = db
        .store
        .update_webhook(
            a,
            created.id,
            patch(json!({"enabled": false, "description": "paused"})),
        )
        .unwrap();
    assert!(!e.enabled);
    assert_eq!(e.description.as_deref(), Some("paused"));
    add_customer(&db, a, "cy@example.com");
    assert!(
        claim(&db, whole_now()).is_empty(),
        "disabled: nothing queued for new events, and the pending one waits"
    );
    let e = db
        .store
        .update_webhook(a, created.id, patch(json!({"enabled": true})))
        .unwrap();
    assert!(e.enabled);
    let jobs = claim(&db, whole_now());
    assert_eq!(
        jobs.iter().map(|j| j.event_id).collect::<Vec<_>>(),
        [ev],
        "enabled again: the kept delivery is due, none was queued while disabled"
    );
}

fn rotation_returns_a_new_secret_used_from_then_on(db: TestDb) {
    let (a, _, _) = scopes(&db);
    let created = register(&db, a, &["*"]);
    let old = WebhookSecret::parse(created.secret.as_deref().unwrap()).unwrap();
    add_customer(&db, a, "ada@example.com");
    let job = claim(&db, whole_now()).remove(0);
    assert_eq!(job.secret, old);
    db.store.release_delivery(&job).unwrap();

    let new = secret();
    let rotated = db
        .store
        .rotate_webhook_secret(a, created.id, new.clone())
        .unwrap();
    assert_eq!(rotated.secret.as_deref(), Some(new.as_str()));
    assert_ne!(rotated.secret, created.secret);
    assert_eq!(rotated.id, created.id);
    assert_eq!(rotated.url, created.url);
    assert_eq!(db.store.get_webhook(a, created.id).unwrap().secret, None);

    let job = claim(&db, whole_now()).remove(0);
    assert_eq!(
        job.secret, new,
        "the pending delivery is signed with the new secret"
    );
    let body = job.payload.as_bytes();
    let signature = job.secret.sign(&job.message_id(), 1, body);
    assert!(new.verify(&job.message_id(), 1, body, &signature));
    assert!(!old.verify(&job.message_id(), 1, body, &signature));
}

fn delete_removes_the_endpoint_its_deliveries_and_its_log(db: TestDb) {
    let (a, _, _) = scopes(&db);
    let gone = register(&db, a, &["*"]);
    let kept = register(&db, a, &["*"]);
    let schedule = RetrySchedule::parse("1h").unwrap();
    add_customer(&db, a, "ada@example.com");
    let t0 = whole_now();
    let jobs = claim(&db, t0);
    assert_eq!(jobs.len(), 2);
    for job in &jobs {
        assert!(db
            .store
            .record_attempt(job, &answered(500, "no"), &schedule, t0)
            .unwrap());
    }
    add_customer(&db, a, "bob@example.com");
    let held: Vec<DeliveryJob> = claim(&db, whole_now());
    assert_eq!(held.len(), 2);
    assert_eq!(attempts(&db, a, gone.id).len(), 1);

    db.store.delete_webhook(a, gone.id).unwrap();
    assert_err!(db.store.get_webhook(a, gone.id), RepoError::NotFound);
    assert_err!(
        db.store
            .list_delivery_attempts(a, gone.id, PageRequest::default()),
        RepoError::NotFound
    );
    assert_err!(db.store.delete_webhook(a, gone.id), RepoError::NotFound);
    let ids: Vec<_> = db
        .store
        .list_webhooks(a, PageRequest::default())
        .unwrap()
        .data
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(ids, [kept.id]);

    // A worker holding a delivery of the deleted endpoint records nothing.
    for job in &held {
        let recorded = db
            .store
            .record_attempt(job, &answered(200, "ok"), &schedule, t0)
            .unwrap();
        assert_eq!(recorded, job.endpoint_id == kept.id, "{job:?}");
    }
    // Only the kept endpoint's retry is left.
    let left: Vec<_> = claim(&db, t0 + Duration::days(1))
        .into_iter()
        .map(|j| j.endpoint_id)
        .collect();
    assert_eq!(left, [kept.id]);
    assert_eq!(attempts(&db, a, kept.id).len(), 2);
    // Deleting the other one leaves nothing at all.
    db.store.delete_webhook(a, kept.id).unwrap();
    assert!(claim(&db, t0 + Duration::days(2)).is_empty());
    assert_eq!(
        db.store
            .list_webhooks(a, PageRequest::default())
            .unwrap()
            .total,
        0
    );
}

fn tenants_and_environments_are_isolated(db: TestDb) {
    let (a, live, b) = scopes(&db);
    let created = register(&db, a, &["*"]);
    let original = WebhookSecret::parse(created.secret.as_deref().unwrap()).unwrap();
    let id = created.id;
    let missing = WebhookEndpointId(MISSING);
    let ev = add_customer(&db, a, "ada@example.com");
    let page = PageRequest::default;

    for other in [b, live] {
        assert_err!(db.store.get_webhook(other, id), RepoError::Forbidden);
        assert_err!(db.store.get_webhook(other, missing), RepoError::NotFound);
        assert_err!(
            db.store
                .update_webhook(other, id, patch(json!({"enabled": false}))),
            RepoError::Forbidden
        );
        assert_err!(
            db.store
                .update_webhook(other, missing, patch(json!({"enabled": false}))),
            RepoError::NotFound
        );
        assert_err!(
            db.store.rotate_webhook_secret(other, id, secret()),
            RepoError::Forbidden
        );
        assert_err!(
            db.store.rotate_webhook_secret(other, missing, secret()),
            RepoError::NotFound
        );
        assert_err!(
            db.store.list_delivery_attempts(other, id, page()),
            RepoError::Forbidden
        );
        assert_err!(
            db.store.list_delivery_attempts(other, missing, page()),
            RepoError::NotFound
        );
        assert_err!(db.store.redeliver_event(other, ev), RepoError::Forbidden);
        assert_err!(
            db.store.redeliver_event(other, EventId(MISSING)),
            RepoError::NotFound
        );
        assert_err!(db.store.delete_webhook(other, id), RepoError::Forbidden);
        assert_err!(db.store.delete_webhook(other, missing), RepoError::NotFound);
        let list = db.store.list_webhooks(other, page()).unwrap();
        assert_eq!((list.total, list.data.len()), (0, 0));
    }
    for result in [
        db.store.get_webhook(a, missing).map(|_| ()),
        db.store
            .update_webhook(a, missing, WebhookPatch::default())
            .map(|_| ()),
        db.store
            .rotate_webhook_secret(a, missing, secret())
            .map(|_| ()),
        db.store
            .list_delivery_attempts(a, missing, page())
            .map(|_| ()),
        db.store.delete_webhook(a, missing),
        db.store.redeliver_event(a, EventId(MISSING)).map(|_| ()),
    ] {
        assert_err!(result, RepoError::NotFound);
    }

    // The refused calls changed nothing: still enabled, same secret, one delivery.
    let still = db.store.get_webhook(a, id).unwrap();
    assert!(still.enabled);
    assert_eq!(still.updated_at, created.updated_at);
    let jobs = claim(&db, whole_now());
    assert_eq!(jobs.len(), 1, "the refused redeliveries queued nothing");
    assert_eq!(jobs[0].secret, original);
    assert_eq!(db.store.list_webhooks(a, page()).unwrap().total, 1);
}

fn concurrent_claimers_take_each_delivery_once(db: TestDb) {
    let (a, _, b) = scopes(&db);
    register(&db, a, &["*"]);
    register(&db, b, &["customer.created"]);
    for i in 0..20 {
        add_customer(&db, a, &format!("a{i}@example.com"));
        add_customer(&db, b, &format!("b{i}@example.com"));
    }
    let threads = 8;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let store = db.store.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                let mut mine = Vec::new();
                loop {
                    let jobs = store.claim_deliveries(Utc::now(), LEASE, 5).expect("claim");
                    if jobs.is_empty() {
                        break;
                    }
                    mine.extend(jobs.into_iter().map(|j| j.delivery_id));
                }
                mine
            })
        })
        .collect();
    let per_thread: Vec<Vec<i64>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let all: Vec<i64> = per_thread.iter().flatten().copied().collect();
    let distinct: HashSet<i64> = all.iter().copied().collect();
    assert_eq!(distinct.len(), 40, "every delivery claimed");
    assert_eq!(all.len(), 40, "and none twice: {per_thread:?}");
    assert!(claim(&db, whole_now()).is_empty());
}

/// PostgreSQL only (SQLite's write transactions are exclusive, so the race cannot happen there):
/// a worker whose lease runs out and is re-claimed by another while it records its result must
/// record nothing, even when the new claim commits between its claim check and its update.
#[test]
fn postgres_a_claim_lost_while_recording_records_nothing() {
    use diesel::connection::SimpleConnection;
    use diesel::sql_types::BigInt;
    use diesel::{Connection, PgConnection, RunQueryDsl};

    let Some(db) = TestDb::postgres() else {
        return;
    };
    let (a, _, _) = scopes(&db);
    let endpoint = register(&db, a, &["*"]);
    add_customer(&db, a, "ada@example.com");
    let t0 = whole_now();
    let job = claim(&db, t0).remove(0);

    // Another worker's claim, not yet committed, holding the row lock.
    let mut thief = PgConnection::establish(&db.url).unwrap();
    thief
        .batch_execute(&format!(
            "BEGIN; UPDATE webhook_deliveries SET claim = 'thief', \
             locked_until = locked_until + interval '1 hour' WHERE id = {}",
            job.delivery_id
        ))
        .unwrap();
    let store = db.store.clone();
    let held = job.clone();
    let recorder = std::thread::spawn(move || {
        store.record_attempt(&held, &answered(200, "ok"), &schedule(), t0)
    });
    // Wait until the recorder is blocked on the row lock, past its claim check.
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
            "the recorder never waited for the row lock"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    thief.batch_execute("COMMIT").unwrap();

    assert!(
        !recorder.join().unwrap().unwrap(),
        "the claim was lost before the update: nothing recorded"
    );
    assert!(attempts(&db, a, endpoint.id).is_empty());
    assert!(
        claim(&db, t0 + Duration::seconds(65)).is_empty(),
        "the thief's claim (an hour longer) is intact"
    );
}

backend_tests!(
    create_returns_the_secret_and_reads_never_do,
    events_fan_out_to_matching_enabled_endpoints_of_their_scope,
    deliveries_commit_or_roll_back_with_their_event,
    a_job_carries_the_event_as_the_api_shows_it,
    a_claim_is_exclusive_until_recorded_released_or_expired,
    release_makes_a_delivery_due_at_once,
    failures_are_retried_on_schedule_then_marked_failed,
    success_ends_the_delivery,
    a_stale_claim_records_nothing,
    the_delivery_log_pages_newest_first_per_endpoint,
    redeliver_queues_the_event_again_for_matching_endpoints,
    updates_change_url_events_enabled_and_description,
    rotation_returns_a_new_secret_used_from_then_on,
    delete_removes_the_endpoint_its_deliveries_and_its_log,
    tenants_and_environments_are_isolated,
    concurrent_claimers_take_each_delivery_once,
    next_due_follows_attempts_and_leases,
);

/// When the next delivery falls due: none pending, due now, then (claimed) when its lease ends.
fn next_due_follows_attempts_and_leases(db: TestDb) {
    let (a, _, _) = scopes(&db);
    assert_eq!(db.store.next_delivery_due().unwrap(), None);
    register(&db, a, &["*"]);
    add_customer(&db, a, "ada@example.com");
    let due = db.store.next_delivery_due().unwrap().expect("one pending");
    assert!(due <= Utc::now());
    let t0 = whole_now();
    let job = db
        .store
        .claim_deliveries(t0, std::time::Duration::from_secs(60), 1)
        .unwrap()
        .remove(0);
    assert_eq!(
        db.store.next_delivery_due().unwrap(),
        Some(t0 + Duration::seconds(60)),
        "a claimed delivery is due again when its lease ends"
    );
    db.store
        .record_attempt(&job, &answered(200, "ok"), &schedule(), t0)
        .unwrap();
    assert_eq!(db.store.next_delivery_due().unwrap(), None);
}

/// PostgreSQL only: a delivery committed by any process (here written by another connection,
/// outside this process's storage code) rings the listener's bell at commit, and a rolled-back
/// one does not.
#[test]
fn postgres_a_committed_job_wakes_the_workers_of_every_process() {
    use invoicing_storage::wakeup::{bell, listen, notifications_received};
    let Some(db) = TestDb::postgres() else {
        return;
    };
    let (a, _, _) = scopes(&db);
    let endpoint = register(&db, a, &["*"]);
    let event = add_customer(&db, a, "ada@example.com");
    listen(&db.url);
    // The listener is up once its connection has run LISTEN: a notification before that is
    // lost, so wait for it rather than for a time.
    {
        use diesel::{Connection, PgConnection, RunQueryDsl};
        let mut watcher = PgConnection::establish(&db.url).unwrap();
        let listening = || {
            diesel::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(
                "(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() \
                  AND query = 'LISTEN invoicing_jobs')",
            ))
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while listening().get_result::<i64>(&mut watcher).unwrap() == 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "the job listener never ran LISTEN"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    let insert = format!(
        "INSERT INTO webhook_deliveries (account_id, livemode, endpoint_id, event_id, state, \
         attempts, next_attempt_at, created_at, updated_at) VALUES ({}, false, {}, {}, \
         'pending', 0, now(), now(), now())",
        a.account_id.0, endpoint.id.0, event.0
    );
    let notified_after = |seen: u64, within: u64| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(within);
        while notifications_received() == seen && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        notifications_received() != seen
    };
    let seen = notifications_received();
    db.execute(&format!("BEGIN; {insert}; ROLLBACK;"));
    assert!(!notified_after(seen, 1), "a rolled-back job notified");
    let rung = bell().generation();
    db.execute(&insert);
    assert!(notified_after(seen, 5), "the committed job notified nobody");
    assert_ne!(
        bell().generation(),
        rung,
        "and the notification rang the bell"
    );
}
