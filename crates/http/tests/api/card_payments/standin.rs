//! The repository's Stripe stand-in (`scripts/stripe_standin`), one per test: started on a free
//! loopback port, driven through Stripe's own API and its control API, stopped on drop.

use serde_json::{json, Value};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

pub struct StandIn {
    child: Child,
    pub base: String,
    _dir: TempDir,
}

/// A directory for the port file, removed with the stand-in.
struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A Stripe account of the stand-in: its test and live keys.
pub struct Account {
    pub test_secret: String,
    pub test_publishable: String,
    pub live_secret: String,
    pub live_publishable: String,
}

impl StandIn {
    pub fn start() -> StandIn {
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scripts/stripe_standin/standin.py"
        );
        let dir = std::env::temp_dir().join(format!("standin-{}", rand::random::<u64>()));
        std::fs::create_dir_all(&dir).unwrap();
        let port_file = dir.join("port");
        let child = Command::new("python3")
            .arg(script)
            .args(["--port", "0", "--port-file"])
            .arg(&port_file)
            .spawn()
            .expect("python3 runs the Stripe stand-in");
        let started = Instant::now();
        let port = loop {
            if let Some(port) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|p| p.trim().parse::<u16>().ok())
            {
                break port;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "the stand-in did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        StandIn {
            child,
            base: format!("http://127.0.0.1:{port}"),
            _dir: TempDir(dir),
        }
    }

    pub fn control(&self, path: &str, body: Value) -> Value {
        ureq::post(&format!("{}{path}", self.base))
            .send_json(body)
            .unwrap()
            .body_mut()
            .read_json()
            .unwrap()
    }

    pub fn get(&self, path: &str) -> Value {
        ureq::get(&format!("{}{path}", self.base))
            .call()
            .unwrap()
            .body_mut()
            .read_json()
            .unwrap()
    }

    /// Stripe's own API, as the merchant's secret key.
    pub fn api(&self, secret: &str, method: &str, path: &str, form: &[(&str, &str)]) -> Value {
        let url = format!("{}{path}", self.base);
        let auth = format!("Bearer {secret}");
        let mut res = match method {
            "GET" => ureq::get(&url).header("Authorization", &auth).call(),
            _ => ureq::post(&url)
                .header("Authorization", &auth)
                .send_form(form.to_vec()),
        }
        .unwrap();
        res.body_mut().read_json().unwrap()
    }

    pub fn account(&self) -> Account {
        let a = self.control("/_standin/accounts", json!({}));
        let s = |mode: &str, key: &str| a[mode][key].as_str().unwrap().to_string();
        Account {
            test_secret: s("test", "secret_key"),
            test_publishable: s("test", "publishable_key"),
            live_secret: s("live", "secret_key"),
            live_publishable: s("live", "publishable_key"),
        }
    }

    /// A webhook endpoint in Stripe for `url`; its signing secret.
    pub fn endpoint(&self, secret: &str, url: &str) -> String {
        let e = self.api(
            secret,
            "POST",
            "/v1/webhook_endpoints",
            &[("url", url), ("enabled_events[]", "*")],
        );
        e["secret"].as_str().unwrap().to_string()
    }

    pub fn webhooks(&self, mode: &str) {
        self.control("/_standin/webhooks", json!({ "mode": mode }));
    }

    /// The events of `type` Stripe sent the account, oldest first, as Stripe shows them.
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

    pub fn requests(&self) -> Vec<Value> {
        self.get("/_standin/requests")["requests"]
            .as_array()
            .unwrap()
            .clone()
    }

    /// The session a checkout URL opens.
    pub fn session_of(url: &str) -> String {
        url.rsplit('/').next().unwrap().to_string()
    }
}
