//! Accounts, bootstrap, API keys and migrations, on both backends.

use chrono::{Duration, Utc};
use invoicing_domain::api_key::{GeneratedKey, KeyScopes, NewApiKey, RateOverride};
use invoicing_domain::currency::Currency;
use invoicing_domain::ports::{AccountRepository, ApiKeyRepository, RepoError};
use invoicing_domain::tenant::{AccountId, Environment};
use invoicing_storage::testing::TestDb;
use invoicing_storage::{backend_tests, Store};
use rand::rngs::OsRng;
use std::sync::{Arc, Barrier};

fn eur() -> Currency {
    Currency::parse("EUR").unwrap()
}

fn new_key(env: Environment) -> (GeneratedKey, NewApiKey) {
    let g = GeneratedKey::generate(env, &mut OsRng);
    let n = NewApiKey::from_generated(&g, KeyScopes::All, RateOverride::default(), None);
    (g, n)
}

fn accounts_round_trip(db: TestDb) {
    let a = db.store.create_account("Acme", eur()).unwrap();
    assert_eq!(a.name, "Acme");
    assert_eq!(db.store.get_account(a.id).unwrap(), a);
    assert!(matches!(
        db.store.get_account(AccountId(a.id.0 + 1000)),
        Err(RepoError::NotFound)
    ));
}

fn bootstrap_happens_once_even_concurrently(db: TestDb) {
    let barrier = Arc::new(Barrier::new(4));
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let store = db.store.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                store
                    .bootstrap_if_empty("Default", eur(), new_key(Environment::Test).1)
                    .unwrap()
            })
        })
        .collect();
    let created: Vec<_> = handles
        .into_iter()
        .filter_map(|h| h.join().unwrap())
        .collect();
    assert_eq!(created.len(), 1, "exactly one process bootstraps");
    let (account, key) = &created[0];
    assert_eq!(account.name, "Default");
    assert_eq!(key.environment, Environment::Test);
    assert_eq!(db.store.list_keys(account.id).unwrap(), vec![key.clone()]);
    assert!(db
        .store
        .bootstrap_if_empty("Default", eur(), new_key(Environment::Test).1)
        .unwrap()
        .is_none());
}

fn keys_are_found_by_hash_only(db: TestDb) {
    let account = db.store.create_account("Acme", eur()).unwrap();
    let (plain, new) = new_key(Environment::Live);
    let stored = db.store.insert_key(account.id, new).unwrap();
    assert_eq!(stored.environment, Environment::Live);
    assert_eq!(stored.prefix, "sk_live_");
    assert_eq!(stored.last4, &plain.plain()[plain.plain().len() - 4..]);
    let found = db.store.find_key_by_hash(&plain.hash()).unwrap().unwrap();
    assert_eq!(found, stored);
    assert!(db
        .store
        .find_key_by_hash(&"0".repeat(64))
        .unwrap()
        .is_none());
    // The lookup noted the key's use (at most once a minute).
    let used = db.store.get_key(stored.id).unwrap();
    assert!(used.last_used_at.is_some(), "{used:?}");
    assert_eq!(
        invoicing_domain::api_key::ApiKey {
            last_used_at: None,
            ..used.clone()
        },
        stored
    );
    assert_eq!(db.store.list_keys(account.id).unwrap(), vec![used]);
}

fn scopes_and_rate_overrides_persist(db: TestDb) {
    let account = db.store.create_account("Acme", eur()).unwrap();
    let g = GeneratedKey::generate(Environment::Test, &mut OsRng);
    let scopes = KeyScopes::parse("customers:read,invoices:write").unwrap();
    let rate = RateOverride {
        per_minute: Some(5),
        burst: Some(2),
    };
    let expires = invoicing_domain::time::whole_seconds(Utc::now() + Duration::days(3));
    let key = db
        .store
        .insert_key(
            account.id,
            NewApiKey::from_generated(&g, scopes.clone(), rate, Some(expires)),
        )
        .unwrap();
    assert_eq!(key.scopes, scopes);
    assert_eq!(key.rate, rate);
    assert_eq!(key.expires_at, Some(expires));
}

fn revoke_and_rotate(db: TestDb) {
    let account = db.store.create_account("Acme", eur()).unwrap();
    let (_, new) = new_key(Environment::Test);
    let key = db.store.insert_key(account.id, new).unwrap();
    let grace = Utc::now() + Duration::hours(24);
    let (replacement_plain, replacement) = new_key(Environment::Test);
    let (old, fresh) = db.store.rotate_key(key.id, replacement, grace).unwrap();
    assert_eq!(
        old.expires_at,
        Some(invoicing_domain::time::whole_seconds(grace))
    );
    assert!(old.check_usable(Utc::now()).is_ok());
    assert!(old.check_usable(grace + Duration::seconds(1)).is_err());
    assert_eq!(fresh.account_id, account.id);
    assert!(db
        .store
        .find_key_by_hash(&replacement_plain.hash())
        .unwrap()
        .is_some());

    let revoked = db.store.revoke_key(fresh.id, Utc::now()).unwrap();
    assert!(revoked.revoked_at.is_some());
    assert!(revoked
        .check_usable(Utc::now() + Duration::seconds(1))
        .is_err());
    assert!(matches!(
        db.store
            .rotate_key(fresh.id, new_key(Environment::Test).1, grace),
        Err(RepoError::InUse(_))
    ));
    assert!(matches!(
        db.store
            .rotate_key(old.id, new_key(Environment::Live).1, grace),
        Err(RepoError::Internal(_))
    ));
    assert!(matches!(
        db.store
            .get_key(invoicing_domain::api_key::ApiKeyId(999_999)),
        Err(RepoError::NotFound)
    ));
}

fn migrations_are_idempotent_and_safe_in_parallel(db: TestDb) {
    db.store.migrate().unwrap();
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let url = db.url.clone();
            std::thread::spawn(move || Store::connect(&url, 1).unwrap().migrate())
        })
        .collect();
    for h in handles {
        h.join().unwrap().unwrap();
    }
}

/// A process keeps a verified key for a few seconds: the process that revokes it refuses it at
/// once, another process (a second pool on the same database) within 5 s.
fn revocation_reaches_every_process_within_five_seconds(db: TestDb) {
    let account = db.store.create_account("Acme", eur()).unwrap();
    let (generated, new) = new_key(Environment::Test);
    let hash = new.key_hash.clone();
    let key = db.store.insert_key(account.id, new).unwrap();
    let other = Store::connect(&db.url, 2).unwrap();
    assert!(other.find_key_by_hash(&hash).unwrap().is_some());
    assert!(db.store.find_key_by_hash(&hash).unwrap().is_some());
    let revoked_at = Utc::now();
    db.store.revoke_key(key.id, revoked_at).unwrap();
    let here = db.store.find_key_by_hash(&hash).unwrap().unwrap();
    assert!(
        here.revoked_at.is_some(),
        "the revoking process knows at once"
    );
    let started = std::time::Instant::now();
    loop {
        let there = other.find_key_by_hash(&hash).unwrap().unwrap();
        if there.revoked_at.is_some() {
            break;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "another process still trusts {} after 5 s",
            generated.prefix()
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Looking a key up again within the cache's lifetime costs no statement.
fn a_verified_key_is_not_read_again_at_once(db: TestDb) {
    let account = db.store.create_account("Acme", eur()).unwrap();
    let (_, new) = new_key(Environment::Test);
    let hash = new.key_hash.clone();
    db.store.insert_key(account.id, new).unwrap();
    db.store.find_key_by_hash(&hash).unwrap().unwrap();
    let before = db.store.statements_sent();
    db.store.find_key_by_hash(&hash).unwrap().unwrap();
    assert_eq!(db.store.statements_sent(), before);
    // Unknown hashes are asked every time (never cached, so guessing cannot fill the cache).
    assert!(db
        .store
        .find_key_by_hash("0".repeat(64).as_str())
        .unwrap()
        .is_none());
    assert!(db
        .store
        .find_key_by_hash("0".repeat(64).as_str())
        .unwrap()
        .is_none());
    assert_eq!(db.store.statements_sent(), before + 2);
}

/// PostgreSQL only: pooled connections the server has closed (a restart, a failover, an
/// administrator) are noticed when they are checked out, without a round trip, and replaced;
/// no request fails for them.
#[test]
fn postgres_connections_the_server_closed_are_replaced_unseen() {
    let Some(db) = TestDb::postgres() else {
        return;
    };
    let store = Store::connect(&db.url, 2).unwrap();
    let account = store.create_account("Acme", eur()).unwrap();
    let name = db.url.rsplit('/').next().unwrap().to_string();
    db.execute(&format!(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = '{name}' AND pid <> pg_backend_pid()"
    ));
    // The server's goodbye reaches the sockets a moment after it answered.
    std::thread::sleep(std::time::Duration::from_millis(200));
    for _ in 0..4 {
        assert_eq!(store.get_account(account.id).unwrap().id, account.id);
    }
}

/// PostgreSQL only: one bucket for every process. Forty requests at once from four pools (four
/// "servers") on a bucket of ten: exactly ten pass, however they interleave; a second later one
/// more passes, and the refusal says how long to wait.
#[test]
fn postgres_a_shared_bucket_holds_across_processes() {
    use invoicing_domain::ports::{BucketTake, RateLimits};
    use std::time::Duration as StdDuration;
    let Some(db) = TestDb::postgres() else {
        return;
    };
    assert!(db.store.shares_rate_limits());
    let ask = |requests, spare| BucketTake {
        requests,
        spare,
        interval: StdDuration::from_secs(1),
        tolerance: StdDuration::from_secs(9),
    };
    let stores: Vec<Store> = (0..4)
        .map(|_| Store::connect(&db.url, 4).unwrap())
        .collect();
    let barrier = Arc::new(Barrier::new(40));
    let handles: Vec<_> = (0..40)
        .map(|i| {
            let store = stores[i % 4].clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                store.take("key:1", ask(1, 0)).unwrap()
            })
        })
        .collect();
    let taken: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(taken.iter().filter(|t| t.granted == 1).count(), 10);
    let refused = taken.iter().find(|t| t.granted == 0).unwrap();
    assert!(
        (9.0..=10.5).contains(&refused.ahead_secs),
        "a refused request sees the bucket 10 s from full: {refused:?}"
    );
    // Other buckets are untouched.
    let take = |bucket: &str, n: u32| db.store.take(bucket, ask(n, 0)).unwrap();
    assert_eq!(take("key:2", 1).granted, 1);
    std::thread::sleep(StdDuration::from_millis(1100));
    assert_eq!(take("key:1", 1).granted, 1);
    assert_eq!(take("key:1", 1).granted, 0);
    // Full buckets are forgotten (key:2 refilled during the second), busy ones kept (key:1).
    assert_eq!(db.store.purge_rate_limits().unwrap(), 1);
    assert_eq!(take("key:1", 1).granted, 0);
    // Several at once: as many as fit, in one statement; a refusal takes nothing.
    assert_eq!(take("key:3", 4).granted, 4);
    let partly = take("key:3", 8);
    assert_eq!(partly.granted, 6);
    assert!((9.0..=10.5).contains(&partly.ahead_secs), "{partly:?}");
    assert_eq!(take("key:3", 3).granted, 0);
    std::thread::sleep(StdDuration::from_millis(2100));
    assert_eq!(take("key:3", 5).granted, 2, "two refilled in two seconds");
    assert_eq!(
        take("key:4", 40).granted,
        10,
        "a new bucket grants its burst"
    );
    // Spares only while half the bucket (5 of 10) stays: 1 + 3, then 1 + 0 twice.
    let spare = |n: u32, spare: u32| db.store.take("key:5", ask(n, spare)).unwrap().granted;
    assert_eq!(spare(1, 3), 4);
    assert_eq!(spare(1, 3), 1);
    assert_eq!(spare(1, 3), 1);
    assert_eq!(spare(5, 9), 4, "the waiting ones still get the rest");
}

/// SQLite serves one process: its buckets stay in that process (the HTTP layer's limiter).
#[test]
fn sqlite_keeps_no_shared_buckets() {
    use invoicing_domain::ports::RateLimits;
    let db = TestDb::sqlite();
    assert!(!db.store.shares_rate_limits());
    assert_eq!(db.store.purge_rate_limits().unwrap(), 0);
}

backend_tests!(
    revocation_reaches_every_process_within_five_seconds,
    a_verified_key_is_not_read_again_at_once,
    accounts_round_trip,
    bootstrap_happens_once_even_concurrently,
    keys_are_found_by_hash_only,
    scopes_and_rate_overrides_persist,
    revoke_and_rotate,
    migrations_are_idempotent_and_safe_in_parallel,
);
