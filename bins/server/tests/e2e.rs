//! End to end: the built binary on free ports with the embedded default, spoken to over real
//! HTTPS (verifying its generated certificate), driven through its CLI, and stopped by SIGTERM.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_invoicing-server");
const PUBLIC_URL: &str = "https://billing.example.test";

struct Server {
    child: Child,
    https: String,
    http: String,
    printed: Vec<String>,
}

fn data_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("invoicing-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn db_url(dir: &Path) -> String {
    format!("sqlite://{}/invoicing.db", dir.display())
}

fn start(dir: &Path) -> Server {
    let mut child = Command::new(BIN)
        .env("DATABASE_URL", db_url(dir))
        .env("DATA_DIR", dir)
        .env("HTTPS_BIND", "127.0.0.1:0")
        .env("HTTP_BIND", "127.0.0.1:0")
        .env("PUBLIC_URL", PUBLIC_URL)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut printed = Vec::new();
    let (mut https, mut http) = (String::new(), String::new());
    while https.is_empty() || http.is_empty() {
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("server start");
        if let Some(addr) = line.strip_prefix("listening on https://") {
            https = format!("https://localhost:{}", addr.rsplit(':').next().unwrap());
        } else if let Some(addr) = line.strip_prefix("listening on http://") {
            http = format!("http://{addr}");
        }
        printed.push(line);
    }
    Server {
        child,
        https,
        http,
        printed,
    }
}

impl Server {
    fn printed_key(&self) -> Option<String> {
        self.printed.iter().find_map(|l| {
            l.trim()
                .strip_prefix("sk_test_")
                .map(|k| format!("sk_test_{k}"))
        })
    }

    fn stop(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success());
        self.child.wait().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

fn agent(dir: &Path) -> ureq::Agent {
    let pem = std::fs::read(dir.join("tls/localhost.crt")).unwrap();
    let cert = ureq::tls::Certificate::from_pem(&pem).unwrap().to_owned();
    let tls = ureq::tls::TlsConfig::builder()
        .root_certs(ureq::tls::RootCerts::new_with_certs(&[cert]))
        .build();
    ureq::Agent::config_builder()
        .tls_config(tls)
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .into()
}

fn call(
    agent: &ureq::Agent,
    method: &str,
    url: &str,
    key: Option<&str>,
    body: Option<Value>,
) -> (u16, Value, ureq::http::HeaderMap) {
    let mut req = ureq::http::Request::builder().method(method).uri(url);
    if let Some(key) = key {
        req = req.header("authorization", format!("Bearer {key}"));
    }
    let mut res = match body {
        Some(b) => agent
            .run(
                req.header("content-type", "application/json")
                    .body(b.to_string())
                    .unwrap(),
            )
            .unwrap(),
        None => agent.run(req.body(()).unwrap()).unwrap(),
    };
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let text = res.body_mut().read_to_string().unwrap_or_default();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::Null),
        headers,
    )
}

fn cli(dir: &Path, args: &[&str]) -> Value {
    let out = Command::new(BIN)
        .args(args)
        .env("DATABASE_URL", db_url(dir))
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?} printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

#[test]
fn serves_https_and_drains_on_sigterm() {
    let dir = data_dir("serve");
    let server = start(&dir);
    let key = server.printed_key().expect("first start prints a test key");
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
    cli(&dir, &["keys", "revoke", &live["id"].to_string()]);
    let (status, err, _) = call(
        &a,
        "GET",
        &format!("{base}/customers"),
        Some(&live_key),
        None,
    );
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (401, Some("invalid_api_key"))
    );

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
