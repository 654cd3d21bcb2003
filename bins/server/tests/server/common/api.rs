//! The API of a running server, as a client calls it with one key.

use super::{agent, call, Server};
use serde_json::{json, Value};

pub struct Api {
    pub agent: ureq::Agent,
    pub base: String,
    pub key: String,
}

impl Api {
    pub fn new(server: &Server, dir: &std::path::Path, key: &str) -> Api {
        Api {
            agent: agent(dir),
            base: format!("{}/api/v1", server.https),
            key: key.to_string(),
        }
    }

    pub fn call(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let (status, body, _) = call(
            &self.agent,
            method,
            &format!("{}{path}", self.base),
            Some(&self.key),
            body,
        );
        (status, body)
    }

    pub fn ok(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let (status, body) = self.call(method, path, body);
        assert!(
            (200..300).contains(&status),
            "{method} {path}: {status} {body}"
        );
        body
    }

    pub fn invoice(&self, email: &str) -> i64 {
        let inv = self.ok(
            "POST",
            "/invoices",
            Some(json!({
                "customer": {"name": "Ada", "email": email},
                "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 1000}]
            })),
        );
        inv["id"].as_i64().unwrap()
    }
}
