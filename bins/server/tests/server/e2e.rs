//! End to end: the built binary on free ports with the embedded default, spoken to over real
//! HTTPS (verifying its generated certificate), driven through its CLI, and stopped by SIGTERM.

use crate::common;
// The server's own reader of certificate dates, so that this test judges by the same rules.
#[path = "../../src/tls/validity.rs"]
mod validity;

use common::*;
use serde_json::json;
use std::path::Path;
use std::process::Command;
use time::{Duration, OffsetDateTime};

/// The generated certificate's lifetime and what is left of it, read back from DATA_DIR.
fn generated_certificate(dir: &Path) -> (Duration, Duration) {
    let pem = std::fs::read_to_string(dir.join("tls/localhost.crt")).unwrap();
    let der = rustls_pemfile::certs(&mut pem.as_bytes())
        .next()
        .unwrap()
        .unwrap();
    let v = validity::read(&der).unwrap();
    (
        v.not_after - v.not_before,
        v.not_after - OffsetDateTime::now_utc(),
    )
}

#[test]
fn serves_https_and_drains_on_sigterm() {
    let dir = data_dir("serve");
    let server = start(&dir);
    let key = server.printed_key().expect("first start prints a test key");
    let (lifetime, _) = generated_certificate(&dir);
    assert!((364..=366).contains(&lifetime.whole_days()), "{lifetime}");
    assert!(server
        .printed
        .iter()
        .any(|l| l.contains("will not be shown again")));
    let a = agent(&dir);
    let base = format!("{}/api/v1", server.https);

    let (status, customer, headers) = call(
        &a,
        "POST",
        &format!("{base}/customers"),
        Some(&key),
        Some(json!({"name": "Ada", "email": "ada@example.com"})),
    );
    assert_eq!(status, 201, "{customer}");
    assert!(headers.contains_key("strict-transport-security"));
    assert!(headers.contains_key("x-ratelimit-remaining"));
    let (status, list, _) = call(&a, "GET", &format!("{base}/customers"), Some(&key), None);
    assert_eq!((status, list["total"].as_i64()), (200, Some(1)));
    let (status, err, _) = call(&a, "GET", &format!("{base}/customers"), None, None);
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (401, Some("missing_api_key"))
    );
    assert_eq!(
        call(&a, "GET", &format!("{}/healthz", server.https), None, None).0,
        200
    );
    assert_eq!(
        call(&a, "GET", &format!("{}/readyz", server.https), None, None).0,
        200
    );

    let (status, err, _) = call(
        &a,
        "GET",
        &format!("{}/api/v1/customers", server.http),
        Some(&key),
        None,
    );
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (403, Some("https_required"))
    );
    let (status, _, headers) = call(
        &a,
        "GET",
        &format!("{}/quote/QUO-2026-000001?token=t", server.http),
        None,
        None,
    );
    assert_eq!(status, 301);
    assert_eq!(
        headers["location"],
        format!("{PUBLIC_URL}/quote/QUO-2026-000001?token=t").as_str()
    );

    // Keys made through the CLI work at once; revoked and rotated ones behave as documented.
    let account = cli(
        &dir,
        &[
            "accounts",
            "create",
            "--name",
            "Globex",
            "--currency",
            "jpy",
        ],
    );
    assert_eq!(account["default_currency"], "JPY");
    let account_id = account["id"].to_string();
    let live = cli(
        &dir,
        &[
            "keys",
            "create",
            "--account",
            &account_id,
            "--env",
            "live",
            "--scopes",
            "customers:read",
        ],
    );
    let live_key = live["key"].as_str().unwrap().to_string();
    assert!(live_key.starts_with("sk_live_") && live_key.len() == 40);
    let (status, list, _) = call(
        &a,
        "GET",
        &format!("{base}/customers"),
        Some(&live_key),
        None,
    );
    assert_eq!(
        (status, list["total"].as_i64()),
        (200, Some(0)),
        "another tenant sees nothing"
    );
    let (status, err, _) = call(
        &a,
        "POST",
        &format!("{base}/customers"),
        Some(&live_key),
        Some(json!({"name": "B", "email": "b@example.com"})),
    );
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (403, Some("insufficient_permissions"))
    );
    let listed = cli(&dir, &["keys", "list", "--account", &account_id]);
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);
    assert!(
        listed["data"][0].get("key").is_none(),
        "a listed key never shows the secret"
    );
    // Revoked by another process (the CLI): the server stops trusting the key it verified
    // within 5 s (it keeps verified keys for 4 s).
    cli(&dir, &["keys", "revoke", &live["id"].to_string()]);
    let revoked_at = std::time::Instant::now();
    loop {
        let (status, err, _) = call(
            &a,
            "GET",
            &format!("{base}/customers"),
            Some(&live_key),
            None,
        );
        if status == 401 {
            assert_eq!(err["error"]["code"], "invalid_api_key");
            break;
        }
        // Still trusted (perhaps over its small rate limit), not yet refused.
        assert!(status == 200 || status == 429, "{status}");
        assert!(
            revoked_at.elapsed() < std::time::Duration::from_secs(5),
            "a revoked key still works after 5 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(500));
    }

    let bootstrap_id = cli(&dir, &["keys", "list", "--account", "1"])["data"][0]["id"].to_string();
    let rotated = cli(
        &dir,
        &["keys", "rotate", &bootstrap_id, "--grace-hours", "1"],
    );
    let new_key = rotated["key"].as_str().unwrap().to_string();
    assert!(rotated["replaces"]["expires_at"].is_string());
    assert_eq!(
        call(
            &a,
            "GET",
            &format!("{base}/customers"),
            Some(&new_key),
            None
        )
        .0,
        200
    );
    assert_eq!(
        call(&a, "GET", &format!("{base}/customers"), Some(&key), None).0,
        200,
        "old key lives through the grace period"
    );

    let status = server.stop();
    assert!(status.success(), "SIGTERM exits 0, got {status:?}");

    // A second start reuses the database and the certificate and shows no new key.
    let cert_before = std::fs::read(dir.join("tls/localhost.crt")).unwrap();
    let again = start(&dir);
    assert!(again.printed_key().is_none());
    assert_eq!(
        std::fs::read(dir.join("tls/localhost.crt")).unwrap(),
        cert_before
    );
    let (status, list, _) = call(
        &agent(&dir),
        "GET",
        &format!("{}/api/v1/customers", again.https),
        Some(&new_key),
        None,
    );
    assert_eq!((status, list["total"].as_i64()), (200, Some(1)));
    assert!(again.stop().success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// SPEC §1: a generated certificate with under 30 days left, or one made for centuries by an
/// older version (which TLS scanners refuse), is replaced at start by one valid for a year,
/// which the server then uses.
#[test]
fn renews_a_generated_certificate_close_to_expiry_or_too_long() {
    let now = OffsetDateTime::now_utc();
    let cases = [
        ("renew", now - Duration::days(355), now + Duration::days(10)),
        (
            "century",
            now - Duration::days(1),
            now + Duration::days(365 * 2121),
        ),
    ];
    for (name, not_before, not_after) in cases {
        let dir = data_dir(name);
        let mut params = rcgen::CertificateParams::new(vec!["localhost".to_string()]).unwrap();
        params.not_before = not_before;
        params.not_after = not_after;
        let key = rcgen::KeyPair::generate().unwrap();
        let old = params.self_signed(&key).unwrap().pem();
        std::fs::create_dir_all(dir.join("tls")).unwrap();
        std::fs::write(dir.join("tls/localhost.key"), key.serialize_pem()).unwrap();
        std::fs::write(dir.join("tls/localhost.crt"), &old).unwrap();

        let server = start(&dir);
        let (lifetime, left) = generated_certificate(&dir);
        assert!(
            (364..=366).contains(&lifetime.whole_days()),
            "{name}: {lifetime}"
        );
        assert!(left > Duration::days(364), "{name}: {left}");
        assert_eq!(
            call(
                &agent(&dir),
                "GET",
                &format!("{}/healthz", server.https),
                None,
                None
            )
            .0,
            200,
            "{name}: served with the new certificate"
        );
        assert!(server.stop().success());
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn migrate_and_bad_configuration_fail_clearly() {
    let dir = data_dir("cli");
    let out = Command::new(BIN)
        .arg("migrate")
        .env("DATABASE_URL", db_url(&dir))
        .output()
        .unwrap();
    assert!(out.status.success());
    let out = Command::new(BIN)
        .arg("migrate")
        .env("DATABASE_URL", "mysql://x")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("DATABASE_URL"));
    let out = Command::new(BIN)
        .args([
            "keys",
            "create",
            "--account",
            "1",
            "--env",
            "test",
            "--scopes",
            "customers:delete",
        ])
        .env("DATABASE_URL", db_url(&dir))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("scope"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn scheduler_sweeps_overdue_invoices_and_expired_quotations() {
    let dir = data_dir("scheduler");
    let server = start_with(
        &dir,
        &[
            ("SCHEDULER_INTERVAL_SECS", "1"),
            ("RATE_LIMIT_PER_MINUTE", "6000"),
            ("RATE_LIMIT_BURST", "100"),
        ],
    );
    let key = server.printed_key().unwrap();
    let a = agent(&dir);
    let base = format!("{}/api/v1", server.https);
    let lines = json!([{"description": "Work", "quantity": 1, "unit_price_cents": 1000}]);
    let customer = json!({"name": "Ada", "email": "ada@example.com"});
    let (status, quote, _) = call(
        &a,
        "POST",
        &format!("{base}/quotations"),
        Some(&key),
        Some(
            json!({"customer": customer, "issue_date": "2020-01-01", "valid_until": "2020-01-31", "line_items": lines}),
        ),
    );
    assert_eq!(status, 201, "{quote}");
    let (status, invoice, _) = call(
        &a,
        "POST",
        &format!("{base}/invoices"),
        Some(&key),
        Some(
            json!({"customer": customer, "issue_date": "2020-01-01", "due_date": "2020-01-31", "line_items": lines}),
        ),
    );
    assert_eq!(status, 201, "{invoice}");
    let (qid, iid) = (
        quote["id"].as_i64().unwrap(),
        invoice["id"].as_i64().unwrap(),
    );
    call(
        &a,
        "PATCH",
        &format!("{base}/quotations/{qid}/send"),
        Some(&key),
        None,
    );
    call(
        &a,
        "POST",
        &format!("{base}/invoices/{iid}/send"),
        Some(&key),
        None,
    );

    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let q = call(
            &a,
            "GET",
            &format!("{base}/quotations/{qid}"),
            Some(&key),
            None,
        )
        .1;
        let i = call(
            &a,
            "GET",
            &format!("{base}/invoices/{iid}"),
            Some(&key),
            None,
        )
        .1;
        if q["status"] == "expired" && i["status"] == "overdue" {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the scheduler did not sweep: quotation {}, invoice {}",
            q["status"],
            i["status"]
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    let (_, events, _) = call(
        &a,
        "GET",
        &format!("{base}/events?type=quotation.expired"),
        Some(&key),
        None,
    );
    assert_eq!(events["total"], 1);
    assert!(server.stop().success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// SPEC §3: a client that stops sending, in its head or its body (by length or chunked), is
/// answered 408 or dropped within 10 s of its last byte, and its connection is closed: it never
/// holds it.
#[test]
fn stalled_clients_are_answered_408_or_dropped() {
    use common::raw::{connect, send_and_stall, Outcome};
    use std::time::Duration;

    let dir = data_dir("stall");
    let server = start(&dir);
    let key = server.printed_key().unwrap();
    let json_head = |extra: &str| {
        format!(
            "POST /api/v1/customers HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {key}\r\n\
             Content-Type: application/json\r\nContent-Length: 100\r\n{extra}\r\n{{\"name\": \""
        )
    };
    let cases = [
        ("a JSON body", json_head("")),
        (
            "an idempotent JSON body",
            json_head("Idempotency-Key: stall-1\r\n"),
        ),
        (
            "a form body",
            "POST /quote/QUO-2026-000001/accept HTTP/1.1\r\nHost: localhost\r\n\
             Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n\
             token=abcd"
                .to_string(),
        ),
        (
            "a chunked JSON body",
            format!(
                "POST /api/v1/customers HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {key}\r\n\
                 Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n\
                 5\r\n{{\"nam\r\n"
            ),
        ),
        (
            "a head",
            "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ".to_string(),
        ),
    ];
    // Each case waits ~10 s, so they wait side by side; each bounds its own wait.
    let waits: Vec<_> = cases
        .into_iter()
        .map(|(what, request)| {
            let stream = connect(&dir, &server.https);
            let handle = std::thread::spawn(move || {
                send_and_stall(stream, request.as_bytes(), Duration::from_secs(20))
            });
            (what, handle)
        })
        .collect();
    for (what, handle) in waits {
        let (outcome, after) = handle.join().unwrap();
        assert!(
            after < Duration::from_secs(13),
            "{what}: still waiting after {after:?}: {outcome:?}"
        );
        let text = match &outcome {
            Outcome::Closed(t) => t,
            Outcome::Answered(_) | Outcome::Hung(_) => {
                panic!("{what}: the server held the connection: {outcome:?}")
            }
        };
        // A stalled head may be dropped without a word; a stalled body is answered.
        assert!(
            (what == "a head" && text.is_empty()) || text.starts_with("HTTP/1.1 408"),
            "{what}: {outcome:?}"
        );
        if what != "a head" {
            assert!(text.contains("\"request_timeout\""), "{what}: {outcome:?}");
        }
    }
    assert!(server.stop().success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The one-time link a start printed (SPEC §21): its token, if the start made the first owner.
fn printed_link(printed: &[String]) -> Option<String> {
    let made = printed
        .iter()
        .any(|l| l.starts_with("Created dashboard user admin@localhost (owner of account 1)"));
    let token = printed.iter().find_map(|l| {
        l.trim()
            .strip_prefix(&format!("{PUBLIC_URL}/dashboard/set-password?token="))
            .map(str::to_string)
    });
    assert_eq!(made, token.is_some(), "{printed:?}");
    token
}

/// Stops a server once it has answered.
fn stop_when_up(dir: &Path, server: Server) {
    let agent = bounded_agent(dir);
    let health = format!("{}/healthz", server.https);
    assert_eq!(call(&agent, "GET", &health, None, None).0, 200);
    assert!(server.stop().success());
}

/// The signal handlers are in place before "listening" is printed: a TERM sent the moment the
/// lines appear (as a supervisor stopping a fresh start would) still drains and exits 0.
#[test]
fn sigterm_right_after_listening_exits_cleanly() {
    let dir = data_dir("early-sigterm");
    for round in 0..5 {
        let status = start(&dir).stop();
        assert!(status.success(), "round {round}: {status:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The CLI's failure: what it said on stderr.
fn cli_fails(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .env("DATABASE_URL", db_url(dir))
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert!(!out.status.success(), "{args:?} succeeded");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The token of a printed set-password link, and how long it has left.
fn link_token(out: &serde_json::Value) -> (String, chrono::Duration) {
    let url = out["set_password_url"].as_str().expect("a link");
    let token = url
        .strip_prefix(&format!("{PUBLIC_URL}/dashboard/set-password?token="))
        .unwrap_or_else(|| panic!("{url}"));
    let expires = out["set_password_url_expires_at"].as_str().unwrap();
    let left = chrono::DateTime::parse_from_rfc3339(expires)
        .unwrap()
        .with_timezone(&chrono::Utc)
        - chrono::Utc::now();
    (token.to_string(), left)
}

#[test]
fn first_start_link_and_the_users_commands() {
    use chrono::Utc;
    use invoicing_domain::ports::UserRepository;
    use invoicing_domain::user::{hash_token, LinkPurpose, PasswordHash};

    let dir = data_dir("users");
    let server = start(&dir);
    let first = printed_link(&server.printed).expect("the first start prints a link");
    assert_eq!(first.len(), 43);
    stop_when_up(&dir, server);
    let server = start(&dir);
    assert_eq!(printed_link(&server.printed), None, "only the first start");
    stop_when_up(&dir, server);

    let store = invoicing_storage::Store::connect(&db_url(&dir), 1).unwrap();
    let link = store
        .find_link(&hash_token(&first), Utc::now())
        .unwrap()
        .expect("the printed link works");
    assert_eq!(link.purpose, LinkPurpose::Invitation);
    let members = cli(&dir, &["users", "list", "--account", "1"]);
    assert_eq!(members["data"][0]["user"]["email"], "admin@localhost");
    assert_eq!(members["data"][0]["role"], "owner");
    assert_eq!(members["data"][0]["user"]["id"], link.user_id.0);
    assert_eq!(members["data"][0]["user"]["has_password"], false);

    let url = ["--public-url", PUBLIC_URL];
    let create = |email: &str, role: &str, account: &str| {
        let mut args = vec!["users", "create", "--account", account, "--email", email];
        args.extend(["--role", role]);
        args.extend(url);
        cli(&dir, &args)
    };
    let ada = create(" Ada@Example.COM ", "staff", "1");
    assert_eq!(
        (ada["role"].as_str(), ada["account_id"].as_i64()),
        (Some("staff"), Some(1))
    );
    assert_eq!(ada["user"]["email"], "Ada@example.com");
    let (token, left) = link_token(&ada);
    assert!(left > chrono::Duration::hours(23), "valid 24 h: {left}");
    assert!(left <= chrono::Duration::hours(24), "valid 24 h: {left}");
    let ada_id = invoicing_domain::user::UserId(ada["user"]["id"].as_i64().unwrap());
    assert_eq!(
        store
            .find_link(&hash_token(&token), Utc::now())
            .unwrap()
            .map(|l| l.user_id),
        Some(ada_id)
    );
    let mut reset = vec!["users", "reset-password", "--email", "ada@example.com"];
    reset.extend(url);
    let reset = cli(&dir, &reset);
    let (reset_token, _) = link_token(&reset);
    assert_eq!(
        store
            .consume_link(&hash_token(&reset_token), Utc::now())
            .unwrap()
            .map(|l| (l.user_id, l.purpose)),
        Some((ada_id, LinkPurpose::PasswordReset))
    );

    let listed = cli(&dir, &["users", "list", "--account", "1"]);
    let listed: Vec<(&str, &str)> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["user"]["email"].as_str().unwrap(),
                m["role"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [("Ada@example.com", "staff"), ("admin@localhost", "owner")]
    );

    // The same person in a second account; a user who signs in already gets no link.
    cli(&dir, &["accounts", "create", "--name", "Second"]);
    store
        .set_password(
            ada_id,
            &PasswordHash::from_stored("$argon2id$x".into()),
            Utc::now(),
            None,
        )
        .unwrap();
    let again = create("ada@example.com", "owner", "2");
    assert_eq!(again["user"]["id"].as_i64(), Some(ada_id.0));
    assert_eq!(again["set_password_url"], serde_json::Value::Null);
    let second = cli(&dir, &["users", "list", "--account", "2"]);
    assert_eq!(second["data"].as_array().unwrap().len(), 1);

    // Refusals say why.
    for (args, says) in [
        (
            &[
                "users",
                "create",
                "--account",
                "1",
                "--email",
                "ada@example.com",
                "--role",
                "viewer",
            ][..],
            "already a member",
        ),
        (
            &[
                "users",
                "create",
                "--account",
                "1",
                "--email",
                "x@example.com",
                "--role",
                "admin",
            ][..],
            "admin",
        ),
        (
            &[
                "users",
                "create",
                "--account",
                "1",
                "--email",
                "not an email",
                "--role",
                "staff",
            ][..],
            "--email must be a valid email address",
        ),
        (
            &[
                "users",
                "create",
                "--account",
                "9",
                "--email",
                "x@example.com",
                "--role",
                "staff",
            ][..],
            "no account 9",
        ),
        (&["users", "list", "--account", "9"][..], "no account 9"),
        (
            &["users", "reset-password", "--email", "nobody@example.com"][..],
            "no user with email nobody@example.com",
        ),
        (
            &[
                "users",
                "remove",
                "--account",
                "1",
                "--email",
                "admin@localhost",
            ][..],
            "at least one owner",
        ),
        (
            &[
                "users",
                "remove",
                "--account",
                "2",
                "--email",
                "admin@localhost",
            ][..],
            "not a member of account 2",
        ),
    ] {
        let said = cli_fails(&dir, args);
        assert!(said.contains(says), "{args:?}: {said}");
    }
    let removed = cli(
        &dir,
        &[
            "users",
            "remove",
            "--account",
            "1",
            "--email",
            "ADA@example.com",
        ],
    );
    assert_eq!(removed["removed"], true);
    let listed = cli(&dir, &["users", "list", "--account", "1"]);
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);

    // SPEC §27: the operator changes an email; the user keeps their accounts and roles.
    let changed = cli(
        &dir,
        &[
            "users",
            "change-email",
            "--from",
            "ADMIN@localhost",
            "--to",
            "owner@shop.example",
        ],
    );
    assert_eq!(changed["email"], "owner@shop.example");
    let listed = cli(&dir, &["users", "list", "--account", "1"]);
    assert_eq!(listed["data"][0]["user"]["email"], "owner@shop.example");
    assert_eq!(listed["data"][0]["role"], "owner");
    for (args, says) in [
        (
            &[
                "users",
                "change-email",
                "--from",
                "owner@shop.example",
                "--to",
                "ada@example.com",
            ][..],
            "ada@example.com is already another user's email",
        ),
        (
            &[
                "users",
                "change-email",
                "--from",
                "nobody@example.com",
                "--to",
                "x@example.com",
            ][..],
            "no user with email nobody@example.com",
        ),
        (
            &[
                "users",
                "change-email",
                "--from",
                "owner@shop.example",
                "--to",
                "not an email",
            ][..],
            "--to",
        ),
    ] {
        let said = cli_fails(&dir, args);
        assert!(said.contains(says), "{args:?}: {said}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// SPEC §27: the first start makes `OWNER_EMAIL` the first owner, so the printed link is for
/// the real person.
#[test]
fn the_first_owner_is_the_owner_email() {
    let dir = data_dir("owner-email");
    let server = start_with(&dir, &[("OWNER_EMAIL", "Owner@Shop.example")]);
    assert!(
        server.printed.iter().any(
            |l| l.starts_with("Created dashboard user Owner@shop.example (owner of account 1)")
        ),
        "{:?}",
        server.printed
    );
    stop_when_up(&dir, server);
    let listed = cli(&dir, &["users", "list", "--account", "1"]);
    assert_eq!(listed["data"][0]["user"]["email"], "Owner@shop.example");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn processes_starting_together_print_the_first_link_once() {
    use invoicing_domain::ports::UserRepository;
    use invoicing_domain::user::hash_token;
    use std::sync::{Arc, Barrier};

    let Some(db) = invoicing_storage::testing::TestDb::new(invoicing_storage::Backend::Postgres)
    else {
        return;
    };
    let barrier = Arc::new(Barrier::new(3));
    let started: Vec<(std::path::PathBuf, Server)> = (0..3)
        .map(|i| {
            let (url, barrier) = (db.url.clone(), barrier.clone());
            std::thread::spawn(move || {
                let dir = data_dir(&format!("users-fleet-{i}"));
                barrier.wait();
                let server = start_with(&dir, &[("DATABASE_URL", url.as_str())]);
                (dir, server)
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .collect();
    let (dirs, servers): (Vec<_>, Vec<_>) = started.into_iter().unzip();
    let links: Vec<String> = servers
        .iter()
        .filter_map(|s| printed_link(&s.printed))
        .collect();
    assert_eq!(
        links.len(),
        1,
        "one process makes the owner and prints the link"
    );
    assert_eq!(
        servers.iter().filter(|s| s.printed_key().is_some()).count(),
        1
    );
    let link = db
        .store
        .find_link(&hash_token(&links[0]), chrono::Utc::now())
        .unwrap()
        .expect("the printed link works");
    let members = db
        .store
        .list_members(invoicing_domain::tenant::AccountId(1))
        .unwrap();
    assert_eq!(members.len(), 1);
    assert_eq!(members[0].user.id, link.user_id);
    for (d, s) in dirs.iter().zip(servers) {
        stop_when_up(d, s);
    }
    for d in dirs {
        let _ = std::fs::remove_dir_all(d);
    }
}
