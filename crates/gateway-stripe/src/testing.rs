//! The repository's Stripe stand-in (`scripts/stripe_standin/standin.py`) for the tests of this
//! and other crates: started on a free loopback port, driven through Stripe's own API and the
//! stand-in's control API, stopped when dropped. Built with the `testing` feature only.
// Test support, built only with the `testing` feature: a failure here is the test failing.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running stand-in.
pub struct StandIn {
    child: Child,
    /// `http://127.0.0.1:<port>`: `STRIPE_API_BASE` and the origin of its hosted pages.
    pub base: String,
    dir: PathBuf,
    agent: ureq::Agent,
}

impl Drop for StandIn {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A Stripe account of the stand-in: its test and live keys.
pub struct Account {
    pub id: String,
    pub test_secret: String,
    pub test_publishable: String,
    pub live_secret: String,
    pub live_publishable: String,
}

fn unique() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{}-{nanos}", std::process::id())
}

impl StandIn {
    /// Starts one. Panics (the test fails) when `python3` cannot run it.
    pub fn start() -> StandIn {
        StandIn::start_with(&[])
    }

    /// Starts one with more of the stand-in's options (`--public-base URL`, `--verbose`).
    pub fn start_with(args: &[&str]) -> StandIn {
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/stripe_standin/standin.py");
        let dir = std::env::temp_dir().join(format!("stripe-standin-{}", unique()));
        std::fs::create_dir_all(&dir).unwrap();
        let port_file = dir.join("port");
        let mut child = Command::new("python3")
            .arg(&script)
            .args(["--port", "0", "--port-file"])
            .arg(&port_file)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .expect("python3 runs the Stripe stand-in");
        let deadline = Instant::now() + Duration::from_secs(20);
        let port = loop {
            if let Some(port) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|t| t.trim().parse::<u16>().ok())
            {
                break port;
            }
            if let Some(status) = child.try_wait().unwrap() {
                panic!("the stand-in exited before listening: {status}");
            }
            assert!(
                Instant::now() < deadline,
                "the stand-in did not listen within 20 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let agent = ureq::Agent::config_builder()
            .proxy(None)
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .into();
        StandIn {
            child,
            base: format!("http://127.0.0.1:{port}"),
            dir,
            agent,
        }
    }

    /// A control-API call (it must succeed); the JSON it answers.
    pub fn control(&self, path: &str, body: Value) -> Value {
        let mut res = self
            .agent
            .post(format!("{}{path}", self.base))
            .send_json(&body)
            .unwrap();
        let status = res.status().as_u16();
        let value: Value = res.body_mut().read_json().unwrap();
        assert_eq!(status, 200, "{path}: {value}");
        value
    }

    pub fn get(&self, path: &str) -> Value {
        self.agent
            .get(format!("{}{path}", self.base))
            .call()
            .unwrap()
            .body_mut()
            .read_json()
            .unwrap()
    }

    /// Stripe's own API, as the merchant's secret key (form-encoded as Stripe takes it).
    pub fn api(&self, secret: &str, method: &str, path: &str, form: &[(&str, &str)]) -> Value {
        let url = format!("{}{path}", self.base);
        let auth = format!("Bearer {secret}");
        let mut res = match method {
            "GET" => self.agent.get(&url).header("Authorization", &auth).call(),
            _ => self
                .agent
                .post(&url)
                .header("Authorization", &auth)
                .send_form(form.to_vec()),
        }
        .unwrap();
        res.body_mut().read_json().unwrap()
    }

    /// A new Stripe account.
    pub fn account(&self) -> Account {
        let a = self.control("/_standin/accounts", json!({}));
        let s = |mode: &str, key: &str| a[mode][key].as_str().unwrap().to_string();
        Account {
            id: a["account"].as_str().unwrap().to_string(),
            test_secret: s("test", "secret_key"),
            test_publishable: s("test", "publishable_key"),
            live_secret: s("live", "secret_key"),
            live_publishable: s("live", "publishable_key"),
        }
    }

    /// A webhook endpoint for every event, made in Stripe for `url`; its signing secret.
    pub fn endpoint(&self, secret: &str, url: &str) -> String {
        let e = self.api(
            secret,
            "POST",
            "/v1/webhook_endpoints",
            &[("url", url), ("enabled_events[]", "*")],
        );
        e["secret"].as_str().expect("a signing secret").to_string()
    }

    /// `deliver`, `fail` (as if the endpoint were unreachable: the webhook is lost) or `hold`.
    pub fn webhooks(&self, mode: &str) {
        self.control("/_standin/webhooks", json!({ "mode": mode }));
    }

    /// The events of `kind` Stripe sent, oldest first, as `GET /v1/events/{id}` shows them.
    pub fn events(&self, secret: &str, kind: &str) -> Vec<Value> {
        let listed = self.get(&format!("/_standin/events?type={kind}"));
        listed["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| {
                let id = e["id"].as_str()?;
                let event = self.api(secret, "GET", &format!("/v1/events/{id}"), &[]);
                event["id"].is_string().then_some(event)
            })
            .collect()
    }

    /// Every request the stand-in was sent (of one account, when given), oldest first.
    pub fn requests(&self, account: Option<&str>) -> Vec<Value> {
        let query = account.map(|a| format!("?account={a}")).unwrap_or_default();
        self.get(&format!("/_standin/requests{query}"))["requests"]
            .as_array()
            .unwrap()
            .clone()
    }

    /// The session a checkout URL opens.
    pub fn session_of(url: &str) -> String {
        url.rsplit('/').next().unwrap_or_default().to_string()
    }
}
