//! Starting the built binary and talking HTTPS to it, shared by the end-to-end and browser tests.
#![allow(dead_code)]

pub mod api;
pub mod proxy;
pub mod raw;
pub mod receiver;
pub mod smtp;
pub mod webdriver;

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

pub const BIN: &str = env!("CARGO_BIN_EXE_invoicing-server");
pub const PUBLIC_URL: &str = "https://billing.example.test";

pub struct Server {
    pub child: Child,
    pub https: String,
    pub http: String,
    pub printed: Vec<String>,
}

pub fn data_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("invoicing-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn db_url(dir: &Path) -> String {
    format!("sqlite://{}/invoicing.db", dir.display())
}

pub fn start(dir: &Path) -> Server {
    start_with(dir, &[])
}

pub fn start_with(dir: &Path, env: &[(&str, &str)]) -> Server {
    start_inner(dir, env, Stdio::inherit())
}

/// As [`start_with`], its log (stderr) written to `log` (appended) for the test to read.
pub fn start_logging(dir: &Path, env: &[(&str, &str)], log: &Path) -> Server {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    start_inner(dir, env, Stdio::from(file))
}

fn start_inner(dir: &Path, env: &[(&str, &str)], stderr: Stdio) -> Server {
    let mut child = Command::new(BIN)
        .env("DATABASE_URL", db_url(dir))
        .env("DATA_DIR", dir)
        .env("HTTPS_BIND", "127.0.0.1:0")
        .env("HTTP_BIND", "127.0.0.1:0")
        .env("PUBLIC_URL", PUBLIC_URL)
        .env("RUST_LOG", "warn")
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(stderr)
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
    pub fn printed_key(&self) -> Option<String> {
        self.printed.iter().find_map(|l| {
            l.trim()
                .strip_prefix("sk_test_")
                .map(|k| format!("sk_test_{k}"))
        })
    }

    /// The one-time set-password link printed at the first start, at this server's address.
    pub fn printed_link(&self) -> Option<String> {
        self.printed_link_under(PUBLIC_URL)
    }

    /// The same for a server started with `PUBLIC_URL` set to `public`.
    pub fn printed_link_under(&self, public: &str) -> Option<String> {
        self.printed.iter().find_map(|l| {
            let link = l.trim().strip_prefix(public)?;
            link.starts_with("/dashboard/set-password?token=")
                .then(|| format!("{}{link}", self.https))
        })
    }

    pub fn stop(mut self) -> std::process::ExitStatus {
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

pub fn agent(dir: &Path) -> ureq::Agent {
    agent_with(dir, None)
}

/// An agent whose every call is bounded: a server that hangs fails the test instead of hanging it.
pub fn bounded_agent(dir: &Path) -> ureq::Agent {
    agent_with(dir, Some(Duration::from_secs(30)))
}

fn agent_with(dir: &Path, timeout: Option<Duration>) -> ureq::Agent {
    let pem = std::fs::read(dir.join("tls/localhost.crt")).unwrap();
    let cert = ureq::tls::Certificate::from_pem(&pem).unwrap().to_owned();
    let tls = ureq::tls::TlsConfig::builder()
        .root_certs(ureq::tls::RootCerts::new_with_certs(&[cert]))
        .build();
    ureq::Agent::config_builder()
        .tls_config(tls)
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(timeout)
        .build()
        .into()
}

pub fn call(
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

pub fn cli(dir: &Path, args: &[&str]) -> Value {
    cli_on(&db_url(dir), args)
}

/// The CLI on the database at `url`.
pub fn cli_on(url: &str, args: &[&str]) -> Value {
    let out = Command::new(BIN)
        .args(args)
        .env("DATABASE_URL", url)
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
