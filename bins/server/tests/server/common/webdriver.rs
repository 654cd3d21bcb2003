//! Just enough of the W3C WebDriver protocol to drive Debian's chromedriver from a test.

use serde_json::{json, Value};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

pub struct Browser {
    driver: Child,
    base: String,
    session: String,
    http: ureq::Agent,
    profile: std::path::PathBuf,
}

/// Whether this machine can run browser tests; under CI it must.
pub fn available() -> bool {
    let found = std::path::Path::new("/usr/bin/chromium").exists()
        && std::path::Path::new("/usr/bin/chromedriver").exists();
    if !found {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "Chromium and chromedriver are required under CI (scripts/test installs them)"
        );
        eprintln!("skipping a browser test: chromium/chromedriver not installed");
    }
    found
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Browser {
    pub fn start() -> Browser {
        Browser::start_sized(1000, 1200)
    }

    /// A browser whose window is `width`×`height` CSS pixels (390 wide: a phone).
    pub fn start_sized(width: u32, height: u32) -> Browser {
        let port = free_port();
        let driver = Command::new("/usr/bin/chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let base = format!("http://127.0.0.1:{port}");
        let http: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        let deadline = Instant::now() + Duration::from_secs(20);
        while http.get(format!("{base}/status")).call().is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile = std::env::temp_dir().join(format!("chromium-profile-{port}"));
        let mut caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            // The server's certificate is self-signed; the end-to-end test verifies it properly.
            "acceptInsecureCerts": true,
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--disable-quic", "--no-first-run", "--disable-background-networking",
                         "--disable-component-update", "--disable-sync", format!("--window-size={width},{height}"),
                         format!("--user-data-dir={}", profile.display())]
            }
        }}});
        // A desktop window is at least 500 px wide; a phone's viewport is emulated instead.
        if width < 500 {
            caps["capabilities"]["alwaysMatch"]["goog:chromeOptions"]["mobileEmulation"] =
                json!({"deviceMetrics": {"width": width, "height": height, "pixelRatio": 1}});
        }
        let mut browser = Browser {
            driver,
            base,
            session: String::new(),
            http,
            profile,
        };
        let created = browser.send("POST", "/session", Some(caps));
        browser.session = created["sessionId"]
            .as_str()
            .expect("a session")
            .to_string();
        browser
    }

    fn send(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.base);
        let mut res = match (method, body) {
            ("GET", _) => self.http.get(&url).call(),
            ("DELETE", _) => self.http.delete(&url).call(),
            (_, body) => self
                .http
                .post(&url)
                .send_json(body.unwrap_or_else(|| json!({}))),
        }
        .expect("webdriver request");
        let value: Value = res.body_mut().read_json().expect("webdriver JSON");
        let value = value["value"].clone();
        assert!(
            value.get("error").is_none(),
            "webdriver {method} {path}: {value}"
        );
        value
    }

    fn session_path(&self, rest: &str) -> String {
        format!("/session/{}{rest}", self.session)
    }

    pub fn goto(&self, url: &str) {
        self.send(
            "POST",
            &self.session_path("/url"),
            Some(json!({ "url": url })),
        );
    }

    pub fn title(&self) -> String {
        self.send("GET", &self.session_path("/title"), None)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    fn find_all(&self, css: &str) -> Vec<String> {
        let found = self.send(
            "POST",
            &self.session_path("/elements"),
            Some(json!({"using": "css selector", "value": css})),
        );
        found
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e[ELEMENT].as_str().unwrap().to_string())
            .collect()
    }

    /// The visible text of every element matching `css`.
    pub fn texts(&self, css: &str) -> Vec<String> {
        self.find_all(css)
            .iter()
            .map(|id| {
                self.send(
                    "GET",
                    &self.session_path(&format!("/element/{id}/text")),
                    None,
                )
                .as_str()
                .unwrap_or_default()
                .to_string()
            })
            .collect()
    }

    pub fn text(&self, css: &str) -> String {
        self.texts(css)
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("no element {css}"))
    }

    pub fn click(&self, css: &str) {
        let id = self
            .find_all(css)
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("no element {css}"));
        self.send(
            "POST",
            &self.session_path(&format!("/element/{id}/click")),
            Some(json!({})),
        );
    }

    /// Waits (up to 10 s) until an element matches `css`: a click that submits a form can
    /// return before the next page is there.
    pub fn wait_for(&self, css: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.find_all(css).is_empty() {
            assert!(Instant::now() < deadline, "no element {css} after 10 s");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Empties the first input matching `css` (typing appends to what is there).
    pub fn clear(&self, css: &str) {
        let id = self
            .find_all(css)
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("no element {css}"));
        self.send(
            "POST",
            &self.session_path(&format!("/element/{id}/clear")),
            Some(json!({})),
        );
    }

    /// Types `text` into the first element matching `css`.
    pub fn fill(&self, css: &str, text: &str) {
        let id = self
            .find_all(css)
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("no element {css}"));
        self.send(
            "POST",
            &self.session_path(&format!("/element/{id}/value")),
            Some(json!({ "text": text })),
        );
    }

    /// Runs `script` (a function body; `return` gives the value) in the page.
    pub fn execute(&self, script: &str) -> Value {
        self.send(
            "POST",
            &self.session_path("/execute/sync"),
            Some(json!({"script": script, "args": []})),
        )
    }

    /// Runs `script` asynchronously: it calls `arguments[0]` (the callback) with its value.
    pub fn execute_async(&self, script: &str) -> Value {
        self.send(
            "POST",
            &self.session_path("/execute/async"),
            Some(json!({"script": script, "args": []})),
        )
    }

    /// Types `keys` into whatever has the focus (WebDriver key codes: `\u{E004}` is Tab,
    /// `\u{E007}` Enter), as a person at the keyboard would.
    pub fn press(&self, keys: &str) {
        let active = self.send("GET", &self.session_path("/element/active"), None);
        let id = active[ELEMENT]
            .as_str()
            .expect("a focused element")
            .to_string();
        self.send(
            "POST",
            &self.session_path(&format!("/element/{id}/value")),
            Some(json!({ "text": keys })),
        );
    }

    /// The current page's address.
    pub fn url(&self) -> String {
        self.send("GET", &self.session_path("/url"), None)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    pub fn screenshot(&self, path: &std::path::Path) {
        use base64::Engine;
        let png = self.send("GET", &self.session_path("/screenshot"), None);
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(png.as_str().unwrap())
            .unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self
                .http
                .delete(format!("{}/session/{}", self.base, self.session))
                .call();
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}
