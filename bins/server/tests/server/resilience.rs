//! The built binary against failures from outside: killed (as by `kill -9`) between a commit and
//! its answer, or before the commit, while serving a request with an `Idempotency-Key`; a
//! PostgreSQL that stops answering behind a frozen proxy and then comes back elsewhere; an SQLite
//! database locked by another process. SPEC §12 and §15.

mod backups;
mod card_payments;

use crate::common;

use common::proxy::Proxy;
use common::*;
use invoicing_storage::testing::TestDb;
use invoicing_storage::Backend;
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

struct Answer {
    status: u16,
    body: Value,
    replayed: bool,
    retry_after: bool,
}

/// A request; `Err` when the connection ended without an answer.
fn request(
    agent: &ureq::Agent,
    method: &str,
    url: &str,
    key: &str,
    idempotency_key: Option<&str>,
    body: Option<&Value>,
) -> Result<Answer, ureq::Error> {
    let mut req = ureq::http::Request::builder()
        .method(method)
        .uri(url)
        .header("authorization", format!("Bearer {key}"));
    if let Some(k) = idempotency_key {
        req = req.header("idempotency-key", k);
    }
    let mut res = match body {
        Some(b) => agent.run(
            req.header("content-type", "application/json")
                .body(b.to_string())
                .unwrap(),
        )?,
        None => agent.run(req.body(()).unwrap())?,
    };
    let replayed = res.headers().get("idempotent-replayed").is_some();
    let retry_after = res.headers().get("retry-after").is_some();
    let text = res.body_mut().read_to_string().unwrap_or_default();
    Ok(Answer {
        status: res.status().as_u16(),
        body: serde_json::from_str(&text).unwrap_or(Value::Null),
        replayed,
        retry_after,
    })
}

fn invoice_body() -> Value {
    json!({
        "customer": {"name": "Ada", "email": "ada@example.com"},
        "line_items": [{"description": "Work", "quantity": 2, "unit_price_cents": 1500}]
    })
}

fn invoice_count(agent: &ureq::Agent, server: &Server, key: &str) -> i64 {
    let url = format!("{}/api/v1/invoices", server.https);
    let list = request(agent, "GET", &url, key, None, None).unwrap();
    assert_eq!(list.status, 200, "{}", list.body);
    list.body["total"].as_i64().unwrap()
}

/// Starts the server, runs one keyed create that hits `failpoint` (the process aborts there),
/// and returns the key to use next time.
fn crash_at(dir: &Path, url: &str, failpoint: &str, api_key: Option<String>, idem: &str) -> String {
    let mut server = start_with(
        dir,
        &[("DATABASE_URL", url), ("INVOICING_FAILPOINT", failpoint)],
    );
    let key = api_key
        .or_else(|| server.printed_key())
        .expect("an API key");
    let agent = bounded_agent(dir);
    let url = format!("{}/api/v1/invoices", server.https);
    let answered = request(
        &agent,
        "POST",
        &url,
        &key,
        Some(idem),
        Some(&invoice_body()),
    );
    assert!(answered.is_err(), "the process died before answering");
    let status = server.child.wait().unwrap();
    assert!(!status.success(), "aborted at {failpoint}: {status}");
    key
}

fn kill_around_the_commit(backend: Backend) {
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    let dir = data_dir(&format!("crash-{backend:?}"));
    // SQLite: the server's own file; PostgreSQL: a fresh database.
    let url = match backend {
        Backend::Sqlite => db_url(&dir),
        Backend::Postgres => db.url.clone(),
    };

    // Killed after the commit, before the answer: the retry gets the stored answer.
    let key = crash_at(&dir, &url, "idempotency.after_commit", None, "K1");
    let agent = bounded_agent(&dir);
    let create = |server: &Server, key: &str, idem: &str| {
        let url = format!("{}/api/v1/invoices", server.https);
        let answer = request(&agent, "POST", &url, key, Some(idem), Some(&invoice_body()));
        let answer = answer.expect("an answer from the restarted server");
        assert_eq!(answer.status, 201, "{}", answer.body);
        answer
    };

    let server = start_with(&dir, &[("DATABASE_URL", &url)]);
    let retry = create(&server, &key, "K1");
    assert!(retry.replayed, "the stored answer, not a second invoice");
    assert_eq!(invoice_count(&agent, &server, &key), 1, "no second invoice");
    let list = format!("{}/api/v1/invoices", server.https);
    let first = request(&agent, "GET", &list, &key, None, None).unwrap();
    assert_eq!(first.body["data"][0]["id"], retry.body["id"]);
    drop(server);

    // Killed before the commit: nothing happened, and the retry runs, once, at once (no 409).
    let key = crash_at(&dir, &url, "idempotency.before_commit", Some(key), "K2");
    let server = start_with(&dir, &[("DATABASE_URL", &url)]);
    let retry = create(&server, &key, "K2");
    assert!(!retry.replayed, "nothing was stored: it runs now");
    let again = create(&server, &key, "K2");
    assert!(again.replayed);
    assert_eq!(again.body["id"], retry.body["id"]);
    assert_eq!(invoice_count(&agent, &server, &key), 2);
    assert!(server.stop().success());
    drop(db);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[cfg_attr(
    not(feature = "failpoints"),
    ignore = "needs the failpoints feature (scripts/test turns it on)"
)]
fn sqlite_kill_between_commit_and_answer_never_duplicates() {
    kill_around_the_commit(Backend::Sqlite);
}

#[test]
#[cfg_attr(
    not(feature = "failpoints"),
    ignore = "needs the failpoints feature (scripts/test turns it on)"
)]
fn postgres_kill_between_commit_and_answer_never_duplicates() {
    kill_around_the_commit(Backend::Postgres);
}

/// 503 with `Retry-After`, within SPEC §12's 10 s.
fn assert_unavailable_in_time(what: &str, call: impl FnOnce() -> Result<Answer, ureq::Error>) {
    let started = Instant::now();
    let answer = call().unwrap_or_else(|e| panic!("{what}: no answer ({e})"));
    let took = started.elapsed();
    assert_eq!(answer.status, 503, "{what}: {}", answer.body);
    assert_eq!(
        answer.body["error"]["code"], "service_unavailable",
        "{what}"
    );
    assert!(answer.retry_after, "{what}: Retry-After");
    assert!(took < Duration::from_secs(10), "{what} took {took:?}");
}

#[test]
fn a_frozen_postgres_is_503_in_time_and_the_server_recovers_by_itself() {
    let Some(db) = TestDb::new(Backend::Postgres) else {
        return;
    };
    let (host, _) = db.url.split_once("/invoicing_test").unwrap();
    let authority = host.rsplit('@').next().unwrap();
    let proxy = Proxy::start(authority);
    let url = db
        .url
        .replacen(authority, &format!("127.0.0.1:{}", proxy.port), 1);
    let dir = data_dir("frozen-pg");
    let server = start_with(&dir, &[("DATABASE_URL", &url)]);
    let key = server.printed_key().unwrap();
    let agent = bounded_agent(&dir);
    let customers = format!("{}/api/v1/customers", server.https);
    let ready = format!("{}/readyz", server.https);
    let ada = json!({"name": "Ada", "email": "ada@example.com"});
    let bob = json!({"name": "Bob", "email": "bob@example.com"});
    // Several connections in the pool, all of which the freeze will strand.
    let mut customer = Value::Null;
    for _ in 0..4 {
        let r = request(&agent, "POST", &customers, &key, None, Some(&ada)).unwrap();
        assert!(r.status == 200 || r.status == 201, "{}", r.body);
        customer = r.body["id"].clone();
    }
    let link = format!("{customers}/{customer}/portal_link");
    let r = request(&agent, "POST", &link, &key, None, None).unwrap();
    assert_eq!(r.status, 201, "{}", r.body);
    let portal = format!(
        "{}{}",
        server.https,
        r.body["url"]
            .as_str()
            .unwrap()
            .strip_prefix(PUBLIC_URL)
            .unwrap()
    );

    proxy.freeze();
    // A customer's link is not "gone" because the database is.
    assert_unavailable_in_time("the customer's portal", || {
        request(&agent, "GET", &portal, &key, None, None)
    });
    assert_unavailable_in_time("a list", || {
        request(&agent, "GET", &customers, &key, None, None)
    });
    assert_unavailable_in_time("a keyed create", || {
        request(&agent, "POST", &customers, &key, Some("during"), Some(&bob))
    });
    let started = Instant::now();
    let readyz = request(&agent, "GET", &ready, &key, None, None).unwrap();
    assert_eq!(readyz.status, 503);
    assert!(started.elapsed() < Duration::from_secs(10));

    // The old connections stay frozen for ever; new ones reach the database.
    proxy.let_new_through();
    let started = Instant::now();
    loop {
        let r = request(&agent, "GET", &customers, &key, None, None).unwrap();
        if r.status == 200 {
            break;
        }
        assert_eq!(r.status, 503, "{}", r.body);
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "not serving again 15 s after the database came back"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    assert_eq!(
        request(&agent, "GET", &ready, &key, None, None)
            .unwrap()
            .status,
        200
    );
    // The create answered 503 never committed: its key is free, and it runs once.
    let r = request(&agent, "POST", &customers, &key, Some("during"), Some(&bob)).unwrap();
    assert_eq!((r.status, r.replayed), (201, false), "{}", r.body);
    let r = request(&agent, "POST", &customers, &key, Some("during"), Some(&bob)).unwrap();
    assert_eq!((r.status, r.replayed), (201, true), "{}", r.body);
    drop(server);
    drop(proxy);
    drop(db);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_locked_sqlite_database_is_503_not_500() {
    let dir = data_dir("locked-sqlite");
    let server = start(&dir);
    let key = server.printed_key().unwrap();
    let agent = bounded_agent(&dir);
    let customers = format!("{}/api/v1/customers", server.https);
    let ada = json!({"name": "Ada", "email": "ada@example.com"});
    assert_eq!(
        request(&agent, "POST", &customers, &key, None, Some(&ada))
            .unwrap()
            .status,
        201
    );

    // Another process takes the database for itself.
    let url = invoicing_storage::DatabaseUrl::parse(&db_url(&dir)).unwrap();
    let mut other = invoicing_storage::connection::establish(&url).unwrap();
    use diesel::connection::SimpleConnection;
    other.batch_execute("BEGIN EXCLUSIVE").unwrap();
    let bob = json!({"name": "Bob", "email": "bob@example.com"});
    assert_unavailable_in_time("a create", || {
        request(&agent, "POST", &customers, &key, None, Some(&bob))
    });
    assert_unavailable_in_time("a keyed create", || {
        request(&agent, "POST", &customers, &key, Some("locked"), Some(&bob))
    });
    other.batch_execute("ROLLBACK").unwrap();

    let r = request(&agent, "POST", &customers, &key, Some("locked"), Some(&bob)).unwrap();
    assert_eq!((r.status, r.replayed), (201, false), "{}", r.body);
    assert!(server.stop().success());
    let _ = std::fs::remove_dir_all(&dir);
}
