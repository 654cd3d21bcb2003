//! The real app on a real throwaway database, with keys to call it with.
#![allow(dead_code)]

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::http::header::HeaderMap;
use actix_web::http::{Method, StatusCode};
use actix_web::test::{self, TestRequest};
use actix_web::web;
use chrono::{DateTime, Utc};
use invoicing_domain::api_key::{GeneratedKey, KeyScopes, NewApiKey, RateOverride};
use invoicing_domain::currency::Currency;
use invoicing_domain::ports::{AccountRepository, ApiKeyRepository};
use invoicing_domain::tenant::{AccountId, Environment};
use invoicing_http::config::{parse_trusted_proxies, HttpConfig};
use invoicing_http::{AppState, StorageThreads};
use invoicing_storage::testing::TestDb;
use invoicing_storage::{Backend, Store};
use serde_json::Value;
use std::sync::Arc;

/// The app under test as `init_service` gives it: what a helper that calls it takes.
pub trait TestApp<B>:
    Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>
{
}

impl<S, B> TestApp<B> for S where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>
{
}

pub const PUBLIC_URL: &str = "https://billing.example.test";
/// The peer the tests connect from; trusted, so `X-Forwarded-Proto: https` makes a request HTTPS.
pub const PROXY: &str = "127.0.0.1:40000";

pub struct Harness {
    pub db: TestDb,
    pub state: web::Data<AppState>,
    pub account: AccountId,
    /// A test key of `account` with every scope and a generous limit.
    pub key: String,
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Reply {
    pub fn code(&self) -> &str {
        self.body["error"]["code"].as_str().unwrap_or("")
    }

    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }
}

/// The connections of a test database's pool (`TestDb`).
pub const POOL_CONNECTIONS: usize = 8;

/// The app's state over `store`, wired as the server wires it: on PostgreSQL the requests'
/// storage calls run on as many storage threads as the pool has `connections`.
pub fn app_state(store: Store, config: HttpConfig, connections: usize) -> AppState {
    let postgres = store.backend() == Backend::Postgres;
    let state = AppState::new(Arc::new(store), config);
    match postgres {
        true => state.with_storage_threads(StorageThreads::start(connections).unwrap()),
        false => state,
    }
}

pub const GENEROUS: RateOverride = RateOverride {
    per_minute: Some(60_000),
    burst: Some(10_000),
};

impl Harness {
    pub fn new(backend: Backend) -> Option<Harness> {
        Harness::build(backend, false)
    }

    /// As if `SMTP_URL` were set: requests may ask for mail, receipts and reminders are queued.
    pub fn mailing(backend: Backend) -> Option<Harness> {
        Harness::build(backend, true)
    }

    fn build(backend: Backend, mail: bool) -> Option<Harness> {
        let db = TestDb::new(backend)?;
        let mut config = HttpConfig::new(PUBLIC_URL);
        config.trusted_proxies = parse_trusted_proxies("127.0.0.1/32").unwrap();
        config.mail_enabled = mail;
        let store = db.store.clone().with_public_url(PUBLIC_URL).with_mail(mail);
        let state = web::Data::new(app_state(store, config, POOL_CONNECTIONS));
        let account = db
            .store
            .create_account("Acme Ltd", Currency::parse("EUR").unwrap())
            .unwrap()
            .id;
        let mut h = Harness {
            db,
            state,
            account,
            key: String::new(),
        };
        h.key = h.make_key(account, Environment::Test, "*", GENEROUS, None);
        Some(h)
    }

    /// The app's state with webhooks allowed to private and unresolvable hosts (test receivers).
    pub fn permissive(&self) -> web::Data<AppState> {
        let mut config = HttpConfig::new(PUBLIC_URL);
        config.trusted_proxies = parse_trusted_proxies("127.0.0.1/32").unwrap();
        config.webhook_allow_private = true;
        let store = self.db.store.clone().with_public_url(PUBLIC_URL);
        web::Data::new(app_state(store, config, POOL_CONNECTIONS))
    }

    /// The app's state with card payments through the Stripe at `api_base` (a stand-in) and
    /// mail on (receipts are queued).
    pub fn with_stripe(&self, api_base: &str) -> web::Data<AppState> {
        let mut config = HttpConfig::new(PUBLIC_URL);
        config.trusted_proxies = parse_trusted_proxies("127.0.0.1/32").unwrap();
        config.mail_enabled = true;
        let stripe = invoicing_gateway_stripe::StripeGateway::new(
            api_base,
            std::time::Duration::from_secs(5),
        )
        .unwrap();
        config.gateway = Some(Arc::new(stripe));
        let store = self
            .db
            .store
            .clone()
            .with_public_url(PUBLIC_URL)
            .with_mail(true);
        web::Data::new(app_state(store, config, POOL_CONNECTIONS))
    }

    /// The app's state with a clock the test sets (SPEC §27's "today").
    pub fn clocked(&self, clock: invoicing_domain::time_zone::SetClock) -> web::Data<AppState> {
        let mut config = HttpConfig::new(PUBLIC_URL);
        config.trusted_proxies = parse_trusted_proxies("127.0.0.1/32").unwrap();
        config.clock = Arc::new(clock);
        let store = self.db.store.clone().with_public_url(PUBLIC_URL);
        web::Data::new(app_state(store, config, POOL_CONNECTIONS))
    }

    pub fn new_account(&self, name: &str) -> AccountId {
        self.db
            .store
            .create_account(name, Currency::parse("EUR").unwrap())
            .unwrap()
            .id
    }

    pub fn make_key(
        &self,
        account: AccountId,
        env: Environment,
        scopes: &str,
        rate: RateOverride,
        expires_at: Option<DateTime<Utc>>,
    ) -> String {
        let g = GeneratedKey::generate(env, &mut rand::rngs::OsRng);
        let scopes = KeyScopes::parse(scopes).unwrap();
        self.db
            .store
            .insert_key(
                account,
                NewApiKey::from_generated(&g, scopes, rate, expires_at),
            )
            .unwrap();
        g.plain().to_string()
    }

    /// A full-access test key of a new account named `name`: the other tenant in cross-tenant
    /// checks.
    pub fn stranger_key(&self, name: &str) -> String {
        let account = self.new_account(name);
        self.make_key(account, Environment::Test, "*", GENEROUS, None)
    }

    /// A full-access live key of the harness's own account: the other environment's view.
    pub fn live_key(&self) -> String {
        self.make_key(self.account, Environment::Live, "*", GENEROUS, None)
    }

    /// An HTTPS request (via the trusted proxy) with the default key.
    pub fn req(&self, method: Method, path: &str) -> TestRequest {
        self.req_as(&self.key, method, path)
    }

    pub fn req_as(&self, key: &str, method: Method, path: &str) -> TestRequest {
        TestRequest::default()
            .method(method)
            .uri(path)
            .peer_addr(PROXY.parse().unwrap())
            .insert_header(("x-forwarded-proto", "https"))
            .insert_header(("authorization", format!("Bearer {key}")))
    }

    /// A request with no key at all.
    pub fn anonymous(&self, method: Method, path: &str) -> TestRequest {
        TestRequest::default()
            .method(method)
            .uri(path)
            .peer_addr(PROXY.parse().unwrap())
            .insert_header(("x-forwarded-proto", "https"))
    }
}

pub fn json(req: TestRequest, body: &Value) -> TestRequest {
    req.insert_header(("content-type", "application/json"))
        .set_payload(body.to_string())
}

pub async fn send<S, B>(app: &S, req: TestRequest) -> Reply
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let res = match app.call(req.to_request()).await {
        Ok(res) => res,
        Err(err) => {
            let res = err.error_response();
            let status = res.status();
            let headers = res.headers().clone();
            let bytes = actix_web::body::to_bytes(res.into_body())
                .await
                .unwrap_or_default();
            return Reply {
                status,
                headers,
                body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
            };
        }
    };
    let status = res.status();
    let headers = res.headers().clone();
    let bytes = test::read_body(res).await;
    Reply {
        status,
        headers,
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    }
}

/// An answer read as bytes (pages, PDFs, logos), not as JSON.
pub struct Raw {
    pub status: u16,
    pub headers: HeaderMap,
    pub bytes: Vec<u8>,
}

impl Raw {
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).to_string()
    }
}

pub async fn send_raw<S, B>(app: &S, req: TestRequest) -> Raw
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let res = test::call_service(app, req.to_request()).await;
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let bytes = test::read_body(res).await.to_vec();
    Raw {
        status,
        headers,
        bytes,
    }
}

/// Calls the app: `call!(&app, req)` or with a JSON body `call!(&app, req, body)`. The helpers
/// `send` and `json` must be in scope (`use crate::common::*`).
macro_rules! call {
    ($app:expr, $req:expr) => {
        send($app, $req).await
    };
    ($app:expr, $req:expr, $body:expr) => {
        send($app, json($req, &$body)).await
    };
}

/// Declares each async test body (`async fn(Harness)`) once per backend.
#[macro_export]
macro_rules! http_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $( #[actix_web::test] async fn $name() {
                super::$name($crate::common::Harness::new(invoicing_storage::Backend::Sqlite).unwrap()).await
            } )*
        }
        mod postgres {
            $( #[actix_web::test] async fn $name() {
                if let Some(h) = $crate::common::Harness::new(invoicing_storage::Backend::Postgres) {
                    super::$name(h).await
                }
            } )*
        }
    };
}

/// Every API response carries the SPEC §6 headers and, on errors, the SPEC §4 body.
pub fn assert_api_headers(r: &Reply) {
    for h in [
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
        "ratelimit-policy",
        "ratelimit",
        "x-request-id",
    ] {
        assert!(
            r.headers.contains_key(h),
            "missing {h} on a {} answer",
            r.status
        );
    }
}

pub fn assert_error(r: &Reply, status: u16, code: &str) {
    assert_eq!(r.status.as_u16(), status, "body: {}", r.body);
    assert_eq!(r.code(), code, "body: {}", r.body);
    let e = &r.body["error"];
    assert!(
        e["type"].is_string() && e["message"].is_string(),
        "body: {}",
        r.body
    );
    assert_eq!(
        e["request_id"].as_str(),
        Some(r.header("x-request-id")),
        "request id in body and header"
    );
    assert_eq!(r.header("content-type"), "application/json");
}

/// The PDF's text as `pdftotext` reads it, no-break spaces as plain ones.
pub fn pdf_words(pdf: &[u8]) -> String {
    let mut child = std::process::Command::new("pdftotext")
        .args(["-layout", "-", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("pdftotext (poppler-utils; scripts/test installs it)");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), pdf).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).replace(['\u{a0}', '\u{202f}'], " ")
}

pub mod pages;
pub use pages::*;
