//! Webhooks end to end: the built binary delivers to a receiver on loopback, signed as Standard
//! Webhooks; retries follow the schedule with the same `webhook-id`; endpoints take only their
//! event types and environment; redelivery, rotation, restarts, two processes on one PostgreSQL,
//! and the guard against private targets.

use crate::common;

use common::api::Api;
use common::receiver::{Received, Receiver};
use common::*;
use invoicing_domain::webhook_signature::WebhookSecret;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;

const FAST: &[(&str, &str)] = &[
    ("WEBHOOK_ALLOW_PRIVATE_TARGETS", "true"),
    ("WEBHOOK_RETRY_SCHEDULE", "1s,1s"),
    ("RATE_LIMIT_PER_MINUTE", "60000"),
    ("RATE_LIMIT_BURST", "1000"),
];

fn verify(secret: &str, r: &Received) -> bool {
    WebhookSecret::parse(secret).unwrap().verify(
        &r.id,
        r.timestamp,
        r.body.as_bytes(),
        &r.signature,
    )
}

fn event_type(r: &Received) -> String {
    serde_json::from_str::<Value>(&r.body).unwrap()["type"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn signed_delivery_filtering_retries_redelivery_and_rotation() {
    let dir = data_dir("webhooks");
    let server = start_with(&dir, FAST);
    let api = Api::new(&server, &dir, &server.printed_key().unwrap());
    let receiver = Receiver::start(204);

    let (status, endpoint) = api.call(
        "POST",
        "/webhooks",
        Some(json!({"url": receiver.url, "events": ["invoice.created", "invoice.sent", "invoice.paid"]})),
    );
    assert_eq!(status, 201, "{endpoint}");
    let secret = endpoint["secret"].as_str().unwrap().to_string();
    let wh = endpoint["id"].as_i64().unwrap();

    // Create, send and pay an invoice: three signed events arrive; customer.created does not.
    let id = api.invoice("ada@example.com");
    api.ok("POST", &format!("/invoices/{id}/send"), None);
    api.ok(
        "PATCH",
        &format!("/invoices/{id}"),
        Some(json!({"status": "paid"})),
    );
    let got = receiver.wait_for(3, 20);
    std::thread::sleep(Duration::from_millis(1500));
    let got_now = receiver.received();
    assert_eq!(got_now.len(), 3, "only the subscribed types: {got_now:?}");
    let mut types: Vec<String> = got.iter().map(event_type).collect();
    types.sort();
    assert_eq!(types, ["invoice.created", "invoice.paid", "invoice.sent"]);
    for r in &got {
        assert!(verify(&secret, r), "signature of {}", r.id);
        let event: Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(r.id, format!("evt_{}", event["id"]));
        assert!((chrono::Utc::now().timestamp() - r.timestamp).abs() < 60);
        assert_eq!(event["data"]["object"]["id"], id);
    }
    let paid = got
        .iter()
        .find(|r| event_type(r) == "invoice.paid")
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&paid.body).unwrap()["data"]["object"]["status"],
        "paid"
    );

    // A failing receiver is retried on the schedule (1s, 1s) with the same webhook-id, then the
    // delivery is failed after three attempts in all.
    receiver.set_status(500);
    api.invoice("bob@example.com");
    receiver.wait_for(6, 20);
    std::thread::sleep(Duration::from_millis(2500));
    let all = receiver.received();
    let retried = &all[3..];
    assert_eq!(retried.len(), 3, "three attempts, then failed");
    assert!(
        retried.iter().all(|r| r.id == retried[0].id),
        "same webhook-id on every attempt"
    );
    let gaps: Vec<i64> = retried
        .windows(2)
        .map(|w| w[1].timestamp - w[0].timestamp)
        .collect();
    assert!(
        gaps.iter().all(|g| (1..=3).contains(g)),
        "about a second apart: {gaps:?}"
    );
    // Each attempt's outcome is written after its answer arrived: wait for the last one, and
    // for all six (the three successes above included) to be in the log.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let log = loop {
        let log = api.ok(
            "GET",
            &format!("/webhooks/{wh}/deliveries?per_page=3"),
            None,
        );
        if log["data"][0]["state"] == "failed" && log["total"] == 6 {
            break log;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the third attempt was never recorded as failed, or not all six attempts were: {log}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let states: Vec<(&str, i64, i64)> = log["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["state"].as_str().unwrap(),
                a["attempt"].as_i64().unwrap(),
                a["status_code"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [("failed", 3, 500), ("pending", 2, 500), ("pending", 1, 500)]
    );
    assert_eq!(log["data"][0]["response_excerpt"], "receiver says 500");
    assert!(log["data"][1]["next_attempt_at"].is_string());
    assert_eq!(log["total"], 6);

    // Redelivery queues the event again, with its webhook-id.
    receiver.set_status(200);
    let event_id = retried[0].id.trim_start_matches("evt_").to_string();
    let (status, queued) = api.call("POST", &format!("/events/{event_id}/redeliver"), None);
    assert_eq!((status, queued["queued"].as_i64()), (202, Some(1)));
    let got = receiver.wait_for(7, 20);
    assert_eq!(got[6].id, retried[0].id);

    // After rotation, deliveries are signed with the new secret only.
    let rotated = api.ok("POST", &format!("/webhooks/{wh}/rotate_secret"), None);
    let new_secret = rotated["secret"].as_str().unwrap().to_string();
    assert_ne!(new_secret, secret);
    assert!(api
        .ok("GET", &format!("/webhooks/{wh}"), None)
        .get("secret")
        .is_none());
    api.invoice("cy@example.com");
    let got = receiver.wait_for(8, 20);
    assert!(verify(&new_secret, &got[7]) && !verify(&secret, &got[7]));

    // Test and live never mix: a live key's events reach only live endpoints.
    let live = cli(&dir, &["keys", "create", "--account", "1", "--env", "live"]);
    let live_api = Api::new(&server, &dir, live["key"].as_str().unwrap());
    let (status, err) = live_api.call(
        "POST",
        "/webhooks",
        Some(json!({"url": receiver.url, "events": ["*"]})),
    );
    assert_eq!(
        (status, err["error"]["param"].as_str()),
        (422, Some("url")),
        "http in live mode"
    );
    let live_wh = live_api.ok(
        "POST",
        "/webhooks",
        Some(
            json!({"url": format!("https://127.0.0.1:{}/live", receiver.port()), "events": ["*"]}),
        ),
    );
    live_api.invoice("live@example.com");
    api.invoice("test@example.com");
    receiver.wait_for(9, 20);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        receiver.received().len(),
        9,
        "the live invoice reached no test endpoint"
    );
    let test_events: Vec<Value> = receiver.received()[8..]
        .iter()
        .map(|r| serde_json::from_str(&r.body).unwrap())
        .collect();
    assert!(
        test_events.iter().all(|e| e["livemode"] == false),
        "{test_events:?}"
    );
    // Nothing above waited for the live attempt (refused: nothing speaks TLS there); it is
    // logged once it has ended.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let live_log = loop {
        let live_log = live_api.ok(
            "GET",
            &format!("/webhooks/{}/deliveries", live_wh["id"]),
            None,
        );
        if live_log["total"].as_i64() >= Some(1) {
            break live_log;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the live endpoint's attempt was never logged: {live_log}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(live_log["total"].as_i64().unwrap() >= 1, "{live_log}");
    for attempt in live_log["data"].as_array().unwrap() {
        let e = live_api.ok("GET", &format!("/events/{}", attempt["event_id"]), None);
        assert_eq!(e["livemode"], true);
    }
    assert!(server.stop().success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pending_deliveries_survive_a_restart() {
    let dir = data_dir("webhooks-restart");
    // After a failure the next attempt is due 5 s later: the server is stopped before that.
    let env = [
        ("WEBHOOK_ALLOW_PRIVATE_TARGETS", "true"),
        ("WEBHOOK_RETRY_SCHEDULE", "5s"),
        ("RATE_LIMIT_BURST", "1000"),
    ];
    let server = start_with(&dir, &env);
    let key = server.printed_key().unwrap();
    let api = Api::new(&server, &dir, &key);
    let receiver = Receiver::start(503);
    let endpoint = api.ok(
        "POST",
        "/webhooks",
        Some(json!({"url": receiver.url, "events": ["invoice.created"]})),
    );
    for n in 0..3 {
        api.invoice(&format!("r{n}@example.com"));
    }
    receiver.wait_for(3, 20);
    assert!(server.stop().success());
    // The receiver recovers while the server is down.
    let (port, before) = receiver.stop();
    assert_eq!(before.len(), 3);
    let receiver = Receiver::start_on(port, 200);
    let server = start_with(&dir, &env);
    let got = receiver.wait_for(3, 30);
    let mut ids: Vec<&str> = got.iter().map(|r| r.id.as_str()).collect();
    ids.sort();
    let mut first: Vec<&str> = before.iter().map(|r| r.id.as_str()).collect();
    first.sort();
    assert_eq!(
        ids, first,
        "the same three events, delivered after the restart"
    );
    let api = Api::new(&server, &dir, &key);
    // Each success is logged after the receiver answered it: wait until all three are.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let log = loop {
        let log = api.ok(
            "GET",
            &format!("/webhooks/{}/deliveries", endpoint["id"]),
            None,
        );
        let succeeded = log["data"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["state"] == "succeeded")
            .count();
        if succeeded >= 3 {
            break log;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the deliveries after the restart were never all logged as succeeded: {log}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let states: Vec<&str> = log["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["state"].as_str().unwrap())
        .collect();
    assert_eq!(
        states.iter().filter(|s| **s == "succeeded").count(),
        3,
        "{log}"
    );
    assert_eq!(
        states.iter().filter(|s| **s == "pending").count(),
        3,
        "{log}"
    );
    assert!(server.stop().success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_private_target_guard_refuses_loopback_when_not_allowed() {
    let dir = data_dir("webhooks-ssrf");
    let server = start(&dir);
    let api = Api::new(&server, &dir, &server.printed_key().unwrap());
    for url in [
        "http://127.0.0.1:9/hook",
        "http://localhost:9/hook",
        "http://[::1]:9/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://10.0.0.5/hook",
    ] {
        let (status, err) = api.call(
            "POST",
            "/webhooks",
            Some(json!({"url": url, "events": ["*"]})),
        );
        assert_eq!(status, 422, "{url}: {err}");
        assert_eq!(err["error"]["param"], "url", "{url}");
    }
    assert_eq!(api.ok("GET", "/webhooks", None)["total"], 0);
    assert!(server.stop().success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_processes_on_one_postgres_deliver_each_event_once() {
    let Some(db) = invoicing_storage::testing::TestDb::new(invoicing_storage::Backend::Postgres)
    else {
        return;
    };
    let url = db.url.clone();
    let (dir_a, dir_b) = (data_dir("webhooks-pg-a"), data_dir("webhooks-pg-b"));
    let mut env: Vec<(&str, &str)> = FAST.to_vec();
    env.push(("DATABASE_URL", &url));
    let a = start_with(&dir_a, &env);
    let key = a.printed_key().expect("the first process bootstraps");
    let b = start_with(&dir_b, &env);
    assert!(
        b.printed_key().is_none(),
        "one bootstrap for the shared database"
    );
    let receiver = Receiver::start(200);
    let api_a = Api::new(&a, &dir_a, &key);
    let api_b = Api::new(&b, &dir_b, &key);
    api_a.ok(
        "POST",
        "/webhooks",
        Some(json!({"url": receiver.url, "events": ["customer.created"]})),
    );
    for n in 0..100 {
        let api = if n % 2 == 0 { &api_a } else { &api_b };
        api.ok(
            "POST",
            "/customers",
            Some(json!({"name": format!("C{n}"), "email": format!("c{n}@example.com")})),
        );
    }
    receiver.wait_for(100, 60);
    std::thread::sleep(Duration::from_secs(2));
    let got = receiver.received();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for r in &got {
        *counts.entry(r.id.as_str()).or_default() += 1;
    }
    assert_eq!(counts.len(), 100, "every event delivered");
    let twice: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "delivered more than once: {twice:?}");
    assert!(a.stop().success());
    assert!(b.stop().success());
    drop(db);
    let _ = std::fs::remove_dir_all(&dir_a);
    let _ = std::fs::remove_dir_all(&dir_b);
}

/// PostgreSQL: idle job workers sleep until a job is queued or falls due instead of polling, so
/// a server with nothing to do sends no query for seconds on end; a new event is still
/// delivered without waiting for the longest sleep (30 s).
#[test]
fn an_idle_server_is_quiet_and_still_delivers_at_once() {
    use diesel::{Connection, PgConnection, RunQueryDsl};
    let Some(db) = invoicing_storage::testing::TestDb::new(invoicing_storage::Backend::Postgres)
    else {
        return;
    };
    let url = db.url.clone();
    let dir = data_dir("webhooks-idle");
    let mut env: Vec<(&str, &str)> = FAST.to_vec();
    env.push(("DATABASE_URL", &url));
    let server = start_with(&dir, &env);
    let key = server.printed_key().unwrap();
    let receiver = Receiver::start(200);
    let api = Api::new(&server, &dir, &key);
    api.ok(
        "POST",
        "/webhooks",
        Some(json!({"url": receiver.url, "events": ["customer.created"]})),
    );
    std::thread::sleep(Duration::from_secs(2));
    // The newest statement any of the server's connections started, by the database's clock.
    let mut watcher = PgConnection::establish(&url).unwrap();
    let newest = |watcher: &mut PgConnection| -> f64 {
        diesel::select(diesel::dsl::sql::<diesel::sql_types::Double>(
            "(SELECT COALESCE(EXTRACT(EPOCH FROM max(query_start)), 0)::float8 \
              FROM pg_stat_activity WHERE datname = current_database() \
              AND pid <> pg_backend_pid())",
        ))
        .get_result(watcher)
        .unwrap()
    };
    let now = |watcher: &mut PgConnection| -> f64 {
        diesel::select(diesel::dsl::sql::<diesel::sql_types::Double>(
            "EXTRACT(EPOCH FROM clock_timestamp())::float8",
        ))
        .get_result(watcher)
        .unwrap()
    };
    let quiet_from = now(&mut watcher);
    std::thread::sleep(Duration::from_secs(5));
    let last = newest(&mut watcher);
    assert!(
        last < quiet_from,
        "the idle server sent a statement {:.1} s into 5 quiet seconds",
        last - quiet_from
    );
    api.ok(
        "POST",
        "/customers",
        Some(json!({"name": "Ada", "email": "ada@example.com"})),
    );
    // Well inside the longest idle sleep: the commit woke the workers.
    assert_eq!(receiver.wait_for(1, 10).len(), 1);
    assert!(server.stop().success());
    drop(db);
    let _ = std::fs::remove_dir_all(&dir);
}
