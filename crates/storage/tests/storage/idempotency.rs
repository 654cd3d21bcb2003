//! Idempotency keys on both backends: a keyed request's transaction holds the key while open,
//! its effect and answer commit together, a rollback or a dropped transaction leaves nothing
//! and frees the key at once; replay, reuse, concurrent begins (one runs), tenancy, purge.

use chrono::{Duration, Utc};
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::{CustomerFilter, CustomerInput, NewCustomer};
use invoicing_domain::idempotency::{
    IdempotencyClaim, IdempotencyKey, RequestFingerprint, StoredResponse,
};
use invoicing_domain::paging::PageRequest;
use invoicing_domain::ports::{
    AccountRepository, CustomerRepository, IdempotencyRepository, IdempotentRequest, RepoError,
};
use invoicing_domain::tenant::{Environment, Scope};
use invoicing_storage::backend_tests;
use invoicing_storage::testing::TestDb;
use std::sync::{Arc, Barrier};

fn scope(db: &TestDb) -> Scope {
    let account = db
        .store
        .create_account("Acme", Currency::parse("EUR").unwrap())
        .unwrap();
    Scope::new(account.id, Environment::Test)
}

fn key(k: &str) -> IdempotencyKey {
    IdempotencyKey::parse(k.as_bytes()).unwrap()
}

fn request(body: &str) -> RequestFingerprint {
    RequestFingerprint::new("POST", "/api/v1/customers", body.as_bytes())
}

fn customer(email: &str) -> NewCustomer {
    CustomerInput {
        name: Some("Ada".into()),
        email: Some(email.into()),
        ..Default::default()
    }
    .parse()
    .unwrap()
}

fn answer() -> StoredResponse {
    StoredResponse {
        status: 201,
        body: "{\"id\":7}".into(),
    }
}

type Claim = IdempotencyClaim<Box<dyn IdempotentRequest>>;

fn begin(db: &TestDb, s: Scope, k: &str, body: &str) -> Claim {
    db.store
        .begin_idempotent(s, &key(k), &request(body))
        .unwrap()
}

fn run(claim: Claim) -> Box<dyn IdempotentRequest> {
    match claim {
        IdempotencyClaim::Run(tx) => tx,
        IdempotencyClaim::Replay(a) => panic!("expected to run, got a replay of {a:?}"),
        IdempotencyClaim::InUse => panic!("expected to run, got in use"),
        IdempotencyClaim::Reused => panic!("expected to run, got reused"),
    }
}

fn kind(claim: &Claim) -> &'static str {
    match claim {
        IdempotencyClaim::Run(_) => "run",
        IdempotencyClaim::Replay(_) => "replay",
        IdempotencyClaim::InUse => "in use",
        IdempotencyClaim::Reused => "reused",
    }
}

fn customers(db: &TestDb, s: Scope) -> i64 {
    db.store
        .list_customers(
            s,
            &CustomerFilter::default(),
            PageRequest::new(1, 10).unwrap(),
        )
        .unwrap()
        .total
}

fn the_answer_commits_with_the_effect(db: TestDb) {
    let s = scope(&db);
    let tx = run(begin(&db, s, "a", "{}"));
    tx.repos()
        .create_customer(s, customer("a@example.com"))
        .unwrap();
    assert_eq!(kind(&begin(&db, s, "a", "{}")), "in use", "held while open");
    assert_eq!(customers(&db, s), 0, "nothing visible before the commit");
    let repos = tx.repos();
    tx.commit(&answer()).unwrap();
    assert_eq!(customers(&db, s), 1);
    match begin(&db, s, "a", "{}") {
        IdempotencyClaim::Replay(a) => assert_eq!(a, answer()),
        other => panic!("expected a replay, got {}", kind(&other)),
    }
    assert_eq!(kind(&begin(&db, s, "a", "{\"x\":1}")), "reused");
    // The request's handle is spent: nothing can slip in after its commit.
    assert!(matches!(
        repos.create_customer(s, customer("late@example.com")),
        Err(RepoError::Internal(_))
    ));
    assert_eq!(customers(&db, s), 1);
}

fn a_rollback_leaves_nothing_and_frees_the_key(db: TestDb) {
    let s = scope(&db);
    let tx = run(begin(&db, s, "b", "{}"));
    tx.repos()
        .create_customer(s, customer("b@example.com"))
        .unwrap();
    tx.rollback().unwrap();
    assert_eq!(customers(&db, s), 0);
    let again = run(begin(&db, s, "b", "{}"));
    again.commit(&answer()).unwrap();
}

/// What a crash does to a request: its transaction goes with its connection.
fn a_dropped_transaction_frees_the_key_at_once(db: TestDb) {
    let s = scope(&db);
    let tx = run(begin(&db, s, "c", "{}"));
    tx.repos()
        .create_customer(s, customer("c@example.com"))
        .unwrap();
    drop(tx);
    assert_eq!(customers(&db, s), 0);
    run(begin(&db, s, "c", "{}")).commit(&answer()).unwrap();
    assert_eq!(kind(&begin(&db, s, "c", "{}")), "replay");
}

fn work_inside_the_request_can_fail_and_go_on(db: TestDb) {
    let s = scope(&db);
    let tx = run(begin(&db, s, "d", "{}"));
    let repos = tx.repos();
    repos.create_customer(s, customer("d@example.com")).unwrap();
    // A failing step rolls back to its savepoint only.
    let missing = repos.get_customer(s, invoicing_domain::customer::CustomerId(i64::MAX));
    assert!(matches!(missing, Err(RepoError::NotFound)));
    repos.create_customer(s, customer("e@example.com")).unwrap();
    tx.commit(&answer()).unwrap();
    assert_eq!(customers(&db, s), 2);
}

fn keys_are_per_tenant_and_purged(db: TestDb) {
    let s = scope(&db);
    let other = scope(&db);
    let live = Scope::new(s.account_id, Environment::Live);
    let now = Utc::now();
    for sc in [s, other, live] {
        run(begin(&db, sc, "shared", "{}"))
            .commit(&answer())
            .unwrap();
    }
    let purged = |before| db.store.purge_idempotency_keys(before).unwrap();
    assert_eq!(purged(now - Duration::hours(1)), 0);
    assert_eq!(purged(now + Duration::seconds(2)), 3);
    let c = begin(&db, s, "shared", "{\"new\":1}");
    assert_eq!(kind(&c), "run", "a forgotten key is new again");
}

fn concurrent_begins_let_one_run(db: TestDb) {
    let s = scope(&db);
    let threads = 8;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let (store, barrier) = (db.store.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let claim = store
                    .begin_idempotent(s, &key("race"), &request("{}"))
                    .unwrap();
                let k = kind(&claim);
                if let IdempotencyClaim::Run(tx) = claim {
                    std::thread::sleep(std::time::Duration::from_millis(200));
                    tx.commit(&answer()).unwrap();
                }
                k
            })
        })
        .collect();
    let kinds: Vec<&str> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == "run").count(),
        1,
        "{kinds:?}"
    );
    assert!(
        kinds
            .iter()
            .all(|k| ["run", "in use", "replay"].contains(k)),
        "{kinds:?}"
    );
}

backend_tests!(
    the_answer_commits_with_the_effect,
    a_rollback_leaves_nothing_and_frees_the_key,
    a_dropped_transaction_frees_the_key_at_once,
    work_inside_the_request_can_fail_and_go_on,
    keys_are_per_tenant_and_purged,
    concurrent_begins_let_one_run,
);
