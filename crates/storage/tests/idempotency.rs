//! Idempotency keys on both backends: claim, replay, reuse, release, abandonment, concurrent
//! claims (one runs), tenancy and the purge.

use chrono::{Duration, Utc};
use invoicing_domain::currency::Currency;
use invoicing_domain::idempotency::{
    IdempotencyClaim, IdempotencyKey, RequestFingerprint, StoredResponse,
};
use invoicing_domain::ports::{AccountRepository, IdempotencyRepository};
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
    RequestFingerprint::new("POST", "/api/v1/invoices", body.as_bytes())
}

fn claims_replays_and_refusals(db: TestDb) {
    let s = scope(&db);
    let now = Utc::now();
    let claim = |k: &str, body: &str| {
        db.store
            .claim_idempotency_key(s, &key(k), &request(body), now)
            .unwrap()
    };
    assert_eq!(claim("a", "{}"), IdempotencyClaim::Run);
    assert_eq!(claim("a", "{}"), IdempotencyClaim::InUse);
    assert_eq!(claim("a", "{\"x\":1}"), IdempotencyClaim::Reused);
    let answer = StoredResponse {
        status: 201,
        body: "{\"id\":7}".into(),
    };
    db.store
        .complete_idempotency_key(s, &key("a"), &answer)
        .unwrap();
    assert_eq!(claim("a", "{}"), IdempotencyClaim::Replay(answer.clone()));
    assert_eq!(claim("a", "{\"x\":1}"), IdempotencyClaim::Reused);
    // A completed key is never released by a late release.
    db.store.release_idempotency_key(s, &key("a")).unwrap();
    assert_eq!(claim("a", "{}"), IdempotencyClaim::Replay(answer));
    // A released claim runs again.
    assert_eq!(claim("b", "{}"), IdempotencyClaim::Run);
    db.store.release_idempotency_key(s, &key("b")).unwrap();
    assert_eq!(claim("b", "{}"), IdempotencyClaim::Run);
    // An abandoned claim (its process died) can be taken over, once.
    let later = now + Duration::minutes(6);
    let take = db
        .store
        .claim_idempotency_key(s, &key("b"), &request("{}"), later)
        .unwrap();
    assert_eq!(take, IdempotencyClaim::Run);
    let again = db
        .store
        .claim_idempotency_key(s, &key("b"), &request("{}"), later)
        .unwrap();
    assert_eq!(again, IdempotencyClaim::InUse);
}

fn keys_are_per_tenant_and_purged(db: TestDb) {
    let s = scope(&db);
    let other = scope(&db);
    let live = Scope::new(s.account_id, Environment::Live);
    let now = Utc::now();
    for sc in [s, other, live] {
        let c = db
            .store
            .claim_idempotency_key(sc, &key("shared"), &request("{}"), now)
            .unwrap();
        assert_eq!(c, IdempotencyClaim::Run, "{sc:?}");
    }
    assert_eq!(
        db.store
            .purge_idempotency_keys(now - Duration::hours(1))
            .unwrap(),
        0
    );
    assert_eq!(
        db.store
            .purge_idempotency_keys(now + Duration::seconds(2))
            .unwrap(),
        3
    );
    let c = db
        .store
        .claim_idempotency_key(s, &key("shared"), &request("{\"new\":1}"), now)
        .unwrap();
    assert_eq!(c, IdempotencyClaim::Run, "a forgotten key is new again");
}

fn concurrent_claims_let_one_run(db: TestDb) {
    let s = scope(&db);
    let threads = 8;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let (store, barrier) = (db.store.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                store
                    .claim_idempotency_key(s, &key("race"), &request("{}"), Utc::now())
                    .unwrap()
            })
        })
        .collect();
    let claims: Vec<IdempotencyClaim> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let runs = claims
        .iter()
        .filter(|c| **c == IdempotencyClaim::Run)
        .count();
    assert_eq!(runs, 1, "{claims:?}");
    assert!(claims
        .iter()
        .all(|c| matches!(c, IdempotencyClaim::Run | IdempotencyClaim::InUse)));
}

backend_tests!(
    claims_replays_and_refusals,
    keys_are_per_tenant_and_purged,
    concurrent_claims_let_one_run,
);
