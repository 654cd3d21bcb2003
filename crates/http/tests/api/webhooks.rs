//! SPEC §11 webhooks through the real app: every `/api/v1/webhooks` route and
//! `POST /api/v1/events/{id}/redeliver` with their status codes, secrets shown only on create and
//! rotation, the URL rules (private, unresolvable and unsafe targets refused unless allowed),
//! the delivery log as attempts are recorded, scopes, 405s, 403 for another tenant or the other
//! environment on every route, and events of one environment never queued for the other's
//! endpoints.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use chrono::{DateTime, Duration, Timelike, Utc};
use invoicing_domain::ports::DeliveryQueue;
use invoicing_domain::tenant::Environment;
use invoicing_domain::webhook_delivery::{AttemptOutcome, DeliveryJob, RetrySchedule};
use invoicing_domain::webhook_signature::WebhookSecret;
use invoicing_http::build_app;
use serde_json::{json, Value};

const LEASE: std::time::Duration = std::time::Duration::from_secs(60);

/// The harness's app, but with `WEBHOOK_ALLOW_PRIVATE_TARGETS=true`: registrations need no DNS
/// (this sandbox has none) and loopback targets are accepted.
/// A `whsec_` secret of 32 random bytes.
fn assert_secret(secret: &Value) -> String {
    let s = secret
        .as_str()
        .unwrap_or_else(|| panic!("no secret: {secret}"));
    let encoded = s.strip_prefix("whsec_").unwrap_or_else(|| panic!("{s}"));
    assert_eq!(STANDARD.decode(encoded).unwrap().len(), 32, "{s}");
    s.to_string()
}

fn whole_now() -> DateTime<Utc> {
    Utc::now().with_nanosecond(0).unwrap()
}

fn stamp(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn claim(h: &Harness, now: DateTime<Utc>) -> Vec<DeliveryJob> {
    h.db.store.claim_deliveries(now, LEASE, 100).unwrap()
}

/// `(endpoint, event)` of every due delivery, sorted; the claims are given back again.
fn due(h: &Harness) -> Vec<(i64, i64)> {
    let jobs = claim(h, whole_now());
    for job in &jobs {
        h.db.store.release_delivery(job).unwrap();
    }
    let mut pairs: Vec<_> = jobs
        .iter()
        .map(|j| (j.endpoint_id.0, j.event_id.0))
        .collect();
    pairs.sort();
    pairs
}

async fn register<S, B>(app: &S, h: &Harness, key: &str, body: Value) -> Value
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let r = send(
        app,
        json(h.req_as(key, Method::POST, "/api/v1/webhooks"), &body),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.body
}

/// Creates a customer (so a `customer.created` event) and returns the event's id.
async fn customer_event<S, B>(app: &S, h: &Harness, key: &str, email: &str) -> i64
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let r = send(
        app,
        json(
            h.req_as(key, Method::POST, "/api/v1/customers"),
            &json!({"name": "Ada", "email": email}),
        ),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let customer_id = r.body["id"].clone();
    let events = send(
        app,
        h.req_as(key, Method::GET, "/api/v1/events?type=customer.created"),
    )
    .await
    .body;
    events["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["data"]["object"]["id"] == customer_id)
        .unwrap_or_else(|| panic!("no customer.created for {customer_id}: {events}"))["id"]
        .as_i64()
        .unwrap()
}

async fn create_read_and_list_never_show_the_secret_again(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    let r = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/webhooks"),
            &json!({"url": "https://hooks.example.com/in", "events": ["customer.updated", "customer.created"], "description": "CRM"}),
        ),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    assert_api_headers(&r);
    let created = r.body;
    let secret = assert_secret(&created["secret"]);
    assert_eq!(created["object"], "webhook_endpoint");
    assert_eq!(created["url"], "https://hooks.example.com/in");
    assert_eq!(
        created["events"],
        json!(["customer.created", "customer.updated"])
    );
    assert_eq!(created["description"], "CRM");
    assert_eq!(created["enabled"], true);
    assert_eq!(created["livemode"], false);
    for field in ["created_at", "updated_at"] {
        let t = created[field].as_str().unwrap();
        assert!(t.ends_with('Z') && t.len() == 20, "{field}: {t}");
    }
    let id = created["id"].as_i64().unwrap();

    let r = send(&app, h.req(Method::GET, &format!("/api/v1/webhooks/{id}"))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.get("secret").is_none(), "{}", r.body);
    let mut without = created.clone();
    without.as_object_mut().unwrap().remove("secret");
    assert_eq!(r.body, without);

    let second = register(
        &app,
        &h,
        &h.key,
        json!({"url": "http://127.0.0.1:9/hook", "events": ["*"]}),
    )
    .await;
    assert_secret(&second["secret"]);
    assert_ne!(second["secret"], created["secret"]);
    assert_eq!(second["events"], json!(["*"]));
    assert_eq!(second["description"], Value::Null);

    let r = send(&app, h.req(Method::GET, "/api/v1/webhooks")).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        (
            r.body["page"].as_i64(),
            r.body["per_page"].as_i64(),
            r.body["total"].as_i64(),
            r.body["has_more"].as_bool()
        ),
        (Some(1), Some(20), Some(2), Some(false))
    );
    let ids: Vec<_> = r.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].clone())
        .collect();
    assert_eq!(ids, [second["id"].clone(), json!(id)], "newest first");
    assert!(
        !r.body.to_string().contains(&secret),
        "no secret in the list"
    );
    assert!(r.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e.get("secret").is_none()));
    let r = send(
        &app,
        h.req(Method::GET, "/api/v1/webhooks?per_page=1&page=2"),
    )
    .await;
    assert_eq!(r.body["data"][0]["id"], id);
    assert_eq!(r.body["has_more"], false);
    assert_error(
        &send(&app, h.req(Method::GET, "/api/v1/webhooks?per_page=0")).await,
        400,
        "invalid_parameter",
    );
    assert_error(
        &send(&app, h.req(Method::GET, "/api/v1/webhooks?status=on")).await,
        400,
        "invalid_parameter",
    );

    // Validation: every failing field at once, with its param.
    let r = send(
        &app,
        json(h.req(Method::POST, "/api/v1/webhooks"), &json!({})),
    )
    .await;
    assert_error(&r, 422, "validation_failed");
    let params: Vec<_> = r.body["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["param"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(params, ["url", "events"]);
    let r = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/webhooks"),
            &json!({"url": "https://hooks.example.com/in", "events": ["customer.created", "customer.exploded"]}),
        ),
    )
    .await;
    assert_error(&r, 422, "validation_failed");
    assert_eq!(r.body["error"]["param"], "events[1]");
    for events in [json!([]), json!(["*", "customer.created"])] {
        let r = send(
            &app,
            json(
                h.req(Method::POST, "/api/v1/webhooks"),
                &json!({"url": "https://hooks.example.com/in", "events": events}),
            ),
        )
        .await;
        assert_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["param"], "events", "{events}");
    }
    let r = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/webhooks"),
            &json!({"url": "https://hooks.example.com/in", "events": ["*"], "secret": "whsec_mine"}),
        ),
    )
    .await;
    assert_error(&r, 400, "invalid_parameter");
    assert_eq!(r.body["error"]["param"], "secret");
    let r = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/webhooks"),
            &json!({"url": "https://hooks.example.com/in", "events": "*"}),
        ),
    )
    .await;
    assert_error(&r, 400, "invalid_parameter");
    let r = send(
        &app,
        h.req(Method::POST, "/api/v1/webhooks")
            .insert_header(("content-type", "text/plain"))
            .set_payload("url=x"),
    )
    .await;
    assert_error(&r, 415, "unsupported_media_type");
    assert_eq!(
        send(&app, h.req(Method::GET, "/api/v1/webhooks"))
            .await
            .body["total"],
        2,
        "refused creates stored nothing"
    );
}

async fn unsafe_targets_are_refused_unless_allowed(h: Harness) {
    // The harness's own app: WEBHOOK_ALLOW_PRIVATE_TARGETS is off.
    assert!(!h.state.config.webhook_allow_private);
    let app = init_service(build_app(h.state.clone())).await;
    let live = h.live_key();
    let refused = [
        (&h.key, "https://127.0.0.1/hook"),
        (&h.key, "http://127.0.0.1:8080/hook"),
        (&h.key, "https://localhost/hook"),
        (&h.key, "https://10.1.2.3/hook"),
        (&h.key, "https://192.168.0.10/hook"),
        (&h.key, "https://169.254.169.254/latest/meta-data"),
        (&h.key, "https://[::1]/hook"),
        (&h.key, "https://[::ffff:127.0.0.1]/hook"),
        (&h.key, "https://no-such-host.invalid/hook"),
        (&h.key, "ftp://hooks.example.com/in"),
        (&h.key, "https://user:pw@93.184.216.34/hook"),
        (&h.key, "hooks.example.com/in"),
        (&live, "http://93.184.216.34/hook"),
    ];
    for (key, url) in refused {
        let r = send(
            &app,
            json(
                h.req_as(key, Method::POST, "/api/v1/webhooks"),
                &json!({"url": url, "events": ["*"]}),
            ),
        )
        .await;
        assert_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["param"], "url", "{url}: {}", r.body);
    }
    for key in [&h.key, &live] {
        assert_eq!(
            send(&app, h.req_as(key, Method::GET, "/api/v1/webhooks"))
                .await
                .body["total"],
            0,
            "nothing refused was stored"
        );
    }

    // A public address needs no DNS and is accepted: https in live, http too in test.
    let public = register(
        &app,
        &h,
        &live,
        json!({"url": "https://93.184.216.34/hook", "events": ["*"]}),
    )
    .await;
    assert_eq!(public["livemode"], true);
    let test_http = register(
        &app,
        &h,
        &h.key,
        json!({"url": "http://93.184.216.34/hook", "events": ["*"]}),
    )
    .await;
    assert_eq!(test_http["livemode"], false);

    // A change of URL passes the same checks and leaves the endpoint as it was when refused.
    let id = test_http["id"].as_i64().unwrap();
    for url in [
        "https://localhost/x",
        "https://10.0.0.1/x",
        "https://no-such-host.invalid/x",
    ] {
        let r = send(
            &app,
            json(
                h.req(Method::PATCH, &format!("/api/v1/webhooks/{id}")),
                &json!({"url": url}),
            ),
        )
        .await;
        assert_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["param"], "url");
    }
    assert_eq!(
        send(&app, h.req(Method::GET, &format!("/api/v1/webhooks/{id}")))
            .await
            .body["url"],
        "http://93.184.216.34/hook"
    );

    // With private targets allowed, loopback is fine; live still needs https.
    let allowing = init_service(build_app(h.permissive())).await;
    register(
        &allowing,
        &h,
        &h.key,
        json!({"url": "http://localhost:9/hook", "events": ["*"]}),
    )
    .await;
    let r = send(
        &allowing,
        json(
            h.req_as(&live, Method::POST, "/api/v1/webhooks"),
            &json!({"url": "http://127.0.0.1:9/hook", "events": ["*"]}),
        ),
    )
    .await;
    assert_error(&r, 422, "validation_failed");
    assert_eq!(r.body["error"]["param"], "url");
    let r = send(
        &allowing,
        json(
            h.req(Method::PATCH, &format!("/api/v1/webhooks/{id}")),
            &json!({"url": "http://10.0.0.1/x"}),
        ),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["url"], "http://10.0.0.1/x");
}

async fn patch_changes_url_events_enabled_and_description(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    let created = register(
        &app,
        &h,
        &h.key,
        json!({"url": "https://hooks.example.com/old", "events": ["*"], "description": "first"}),
    )
    .await;
    let id = created["id"].as_i64().unwrap();
    let path = format!("/api/v1/webhooks/{id}");

    let r = send(&app, json(h.req(Method::PATCH, &path), &json!({}))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["url"], created["url"]);
    assert!(r.body.get("secret").is_none());

    let r = send(
        &app,
        json(
            h.req(Method::PATCH, &path),
            &json!({"url": "https://hooks.example.com/new", "events": ["customer.deleted", "customer.created"]}),
        ),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["url"], "https://hooks.example.com/new");
    assert_eq!(
        r.body["events"],
        json!(["customer.created", "customer.deleted"])
    );
    assert_eq!(r.body["description"], "first", "untouched");
    assert_eq!(r.body["created_at"], created["created_at"]);
    assert!(r.body.get("secret").is_none(), "{}", r.body);

    let r = send(
        &app,
        json(
            h.req(Method::PATCH, &path),
            &json!({"enabled": false, "description": null}),
        ),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["enabled"], false);
    assert_eq!(r.body["description"], Value::Null, "null clears it");
    // Disabled: an event queues nothing for it.
    customer_event(&app, &h, &h.key, "ada@example.com").await;
    assert!(due(&h).is_empty());

    let r = send(
        &app,
        json(
            h.req(Method::PATCH, &path),
            &json!({"enabled": true, "description": "back"}),
        ),
    )
    .await;
    assert_eq!(
        (r.body["enabled"].clone(), r.body["description"].clone()),
        (json!(true), json!("back"))
    );
    let ev = customer_event(&app, &h, &h.key, "bob@example.com").await;
    assert_eq!(due(&h), [(id, ev)]);
    assert_eq!(
        send(&app, h.req(Method::GET, &path)).await.body["enabled"],
        true
    );

    // Refusals: unknown type (with its index), wrong types, unknown fields.
    let r = send(
        &app,
        json(
            h.req(Method::PATCH, &path),
            &json!({"events": ["customer.created", "invoice.paid", "nope"]}),
        ),
    )
    .await;
    assert_error(&r, 422, "validation_failed");
    assert_eq!(r.body["error"]["param"], "events[2]");
    let r = send(
        &app,
        json(h.req(Method::PATCH, &path), &json!({"events": []})),
    )
    .await;
    assert_error(&r, 422, "validation_failed");
    assert_eq!(r.body["error"]["param"], "events");
    let r = send(
        &app,
        json(h.req(Method::PATCH, &path), &json!({"secret": "x"})),
    )
    .await;
    assert_error(&r, 400, "invalid_parameter");
    assert_eq!(r.body["error"]["param"], "secret");
    let r = send(
        &app,
        json(h.req(Method::PATCH, &path), &json!({"enabled": "yes"})),
    )
    .await;
    assert_error(&r, 400, "invalid_parameter");
    let r = send(
        &app,
        json(
            h.req(Method::PATCH, &path),
            &json!({"url": "ftp://x.example/"}),
        ),
    )
    .await;
    assert_error(&r, 422, "validation_failed");
    let r = send(&app, h.req(Method::GET, &path)).await;
    assert_eq!(
        (r.body["events"].clone(), r.body["url"].clone()),
        (
            json!(["customer.created", "customer.deleted"]),
            json!("https://hooks.example.com/new")
        ),
        "refused patches changed nothing"
    );
    assert_error(
        &send(
            &app,
            json(
                h.req(Method::PATCH, "/api/v1/webhooks/999999"),
                &json!({"enabled": false}),
            ),
        )
        .await,
        404,
        "resource_missing",
    );
}

async fn delete_answers_204_then_404_everywhere(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    let gone = register(
        &app,
        &h,
        &h.key,
        json!({"url": "https://hooks.example.com/a", "events": ["*"]}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let kept = register(
        &app,
        &h,
        &h.key,
        json!({"url": "https://hooks.example.com/b", "events": ["*"]}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let ev = customer_event(&app, &h, &h.key, "ada@example.com").await;
    assert_eq!(due(&h), [(gone, ev), (kept, ev)]);

    let r = send(
        &app,
        h.req(Method::DELETE, &format!("/api/v1/webhooks/{gone}")),
    )
    .await;
    assert_eq!(r.status, 204, "{}", r.body);
    assert_eq!(r.body, Value::Null, "no body");
    assert_eq!(due(&h), [(kept, ev)], "its pending delivery went with it");

    let base = format!("/api/v1/webhooks/{gone}");
    let routes = [
        (Method::GET, base.clone(), None),
        (Method::PATCH, base.clone(), Some(json!({"enabled": false}))),
        (Method::DELETE, base.clone(), None),
        (Method::POST, format!("{base}/rotate_secret"), None),
        (Method::GET, format!("{base}/deliveries"), None),
    ];
    for (method, path, body) in routes {
        let req = h.req(method.clone(), &path);
        let req = match &body {
            Some(b) => json(req, b),
            None => req,
        };
        let r = send(&app, req).await;
        assert_error(&r, 404, "resource_missing");
        assert!(
            r.body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("webhook endpoint"),
            "{method} {path}: {}",
            r.body
        );
    }
    for path in [
        "/api/v1/webhooks/abc",
        "/api/v1/webhooks/0",
        "/api/v1/webhooks/-1",
    ] {
        assert_error(
            &send(&app, h.req(Method::GET, path)).await,
            404,
            "resource_missing",
        );
    }
    let list = send(&app, h.req(Method::GET, "/api/v1/webhooks"))
        .await
        .body;
    assert_eq!(list["total"], 1);
    assert_eq!(list["data"][0]["id"], kept);
}

async fn rotate_secret_answers_a_new_secret_used_from_then_on(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    let created = register(
        &app,
        &h,
        &h.key,
        json!({"url": "https://hooks.example.com/in", "events": ["*"]}),
    )
    .await;
    let old = assert_secret(&created["secret"]);
    let id = created["id"].as_i64().unwrap();
    customer_event(&app, &h, &h.key, "ada@example.com").await;
    let job = claim(&h, whole_now()).remove(0);
    assert_eq!(job.secret.as_str(), old);
    h.db.store.release_delivery(&job).unwrap();

    let r = send(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/webhooks/{id}/rotate_secret"),
        ),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_api_headers(&r);
    let new = assert_secret(&r.body["secret"]);
    assert_ne!(new, old);
    assert_eq!(r.body["id"], id);
    assert_eq!(r.body["url"], created["url"]);
    let got = send(&app, h.req(Method::GET, &format!("/api/v1/webhooks/{id}")))
        .await
        .body;
    assert!(got.get("secret").is_none(), "{got}");

    let job = claim(&h, whole_now()).remove(0);
    assert_eq!(
        job.secret.as_str(),
        new,
        "the next attempt is signed with it"
    );
    let signature = job
        .secret
        .sign(&job.message_id(), 1, job.payload.as_bytes());
    let receiver_new = WebhookSecret::parse(&new).unwrap();
    let receiver_old = WebhookSecret::parse(&old).unwrap();
    assert!(receiver_new.verify(&job.message_id(), 1, job.payload.as_bytes(), &signature));
    assert!(!receiver_old.verify(&job.message_id(), 1, job.payload.as_bytes(), &signature));

    let again = send(
        &app,
        h.req(
            Method::POST,
            &format!("/api/v1/webhooks/{id}/rotate_secret"),
        ),
    )
    .await;
    assert_ne!(assert_secret(&again.body["secret"]), new);
}

async fn deliveries_list_recorded_attempts_newest_first(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    let id = register(
        &app,
        &h,
        &h.key,
        json!({"url": "https://hooks.example.com/in", "events": ["customer.created"]}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let path = format!("/api/v1/webhooks/{id}/deliveries");
    let r = send(&app, h.req(Method::GET, &path)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_api_headers(&r);
    assert_eq!(
        r.body,
        json!({"data": [], "page": 1, "per_page": 20, "total": 0, "has_more": false})
    );

    let ev = customer_event(&app, &h, &h.key, "ada@example.com").await;
    // A customer's creation queues a delivery, but only an attempt shows in the log.
    assert_eq!(send(&app, h.req(Method::GET, &path)).await.body["total"], 0);

    // What a worker does: claim, attempt, record.
    let schedule = RetrySchedule::parse("1m").unwrap();
    let t0 = whole_now();
    let job = claim(&h, t0).remove(0);
    let failed = AttemptOutcome {
        status_code: Some(503),
        duration_ms: 42,
        error: None,
        response_excerpt: Some("try later".into()),
    };
    assert!(h
        .db
        .store
        .record_attempt(&job, &failed, &schedule, t0)
        .unwrap());
    let r = send(&app, h.req(Method::GET, &path)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["total"], 1);
    let first = r.body["data"][0].clone();
    assert!(first["id"].as_i64().unwrap() > 0);
    assert!(first["created_at"].as_str().unwrap().ends_with('Z'));
    let mut without_id = first.clone();
    let obj = without_id.as_object_mut().unwrap();
    obj.remove("id");
    obj.remove("created_at");
    assert_eq!(
        without_id,
        json!({
            "object": "webhook_delivery_attempt", "event_id": ev, "event_type": "customer.created",
            "attempt": 1, "status_code": 503, "duration_ms": 42, "error": null,
            "response_excerpt": "try later", "state": "pending",
            "next_attempt_at": stamp(t0 + Duration::minutes(1)),
        })
    );

    let t1 = t0 + Duration::minutes(1);
    let retry = claim(&h, t1).remove(0);
    assert_eq!(retry.attempt, 2);
    let timed_out = AttemptOutcome {
        status_code: None,
        duration_ms: 10_000,
        error: Some("timed out after 10 s".into()),
        response_excerpt: None,
    };
    assert!(h
        .db
        .store
        .record_attempt(&retry, &timed_out, &schedule, t1)
        .unwrap());
    let r = send(&app, h.req(Method::GET, &path)).await;
    assert_eq!(r.body["total"], 2);
    let newest = &r.body["data"][0];
    assert_eq!(newest["attempt"], 2, "newest first");
    assert_eq!(newest["status_code"], Value::Null, "no response");
    assert_eq!(newest["error"], "timed out after 10 s");
    assert_eq!(newest["response_excerpt"], Value::Null);
    assert_eq!(newest["state"], "failed", "no delays left");
    assert_eq!(newest["next_attempt_at"], Value::Null);
    assert_eq!(r.body["data"][1], first);

    let r = send(
        &app,
        h.req(Method::GET, &format!("{path}?per_page=1&page=2")),
    )
    .await;
    assert_eq!(
        (
            r.body["data"][0]["attempt"].clone(),
            r.body["has_more"].clone(),
            r.body["total"].clone()
        ),
        (json!(1), json!(false), json!(2))
    );
    let r = send(&app, h.req(Method::GET, &format!("{path}?per_page=1"))).await;
    assert_eq!(r.body["has_more"], true);
    assert_error(
        &send(&app, h.req(Method::GET, &format!("{path}?per_page=101"))).await,
        400,
        "invalid_parameter",
    );
    assert_error(
        &send(&app, h.req(Method::GET, &format!("{path}?state=failed"))).await,
        400,
        "invalid_parameter",
    );
    assert_error(
        &send(
            &app,
            h.req(Method::GET, "/api/v1/webhooks/999999/deliveries"),
        )
        .await,
        404,
        "resource_missing",
    );
}

async fn redeliver_queues_the_event_for_every_matching_endpoint(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    let mut ids = Vec::new();
    for events in [json!(["*"]), json!(["customer.created"])] {
        ids.push(
            register(
                &app,
                &h,
                &h.key,
                json!({"url": "https://hooks.example.com/in", "events": events}),
            )
            .await["id"]
                .as_i64()
                .unwrap(),
        );
    }
    register(
        &app,
        &h,
        &h.key,
        json!({"url": "https://hooks.example.com/in", "events": ["invoice.paid"]}),
    )
    .await;
    let ev = customer_event(&app, &h, &h.key, "ada@example.com").await;
    let t0 = whole_now();
    let firsts = claim(&h, t0);
    assert_eq!(firsts.len(), 2);

    let r = send(
        &app,
        h.req(Method::POST, &format!("/api/v1/events/{ev}/redeliver")),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.body);
    assert_api_headers(&r);
    assert_eq!(
        r.body,
        json!({"object": "event_redelivery", "event_id": ev, "queued": 2})
    );
    // The redelivery is stamped with the clock at that moment, which may be a second past `t0`;
    // the first claims stay leased until `t0 + LEASE`, so they cannot come back here.
    let again = claim(&h, whole_now());
    let mut pairs: Vec<_> = again
        .iter()
        .map(|j| (j.endpoint_id.0, j.event_id.0, j.attempt))
        .collect();
    pairs.sort();
    assert_eq!(pairs, [(ids[0], ev, 1), (ids[1], ev, 1)]);
    assert!(again
        .iter()
        .all(|j| firsts.iter().all(|f| f.delivery_id != j.delivery_id)));
    assert!(again.iter().all(|j| j.message_id() == format!("evt_{ev}")));

    // Disabled endpoints are skipped.
    let r = send(
        &app,
        json(
            h.req(Method::PATCH, &format!("/api/v1/webhooks/{}", ids[1])),
            &json!({"enabled": false}),
        ),
    )
    .await;
    assert_eq!(r.status, 200);
    let r = send(
        &app,
        h.req(Method::POST, &format!("/api/v1/events/{ev}/redeliver")),
    )
    .await;
    assert_eq!(
        r.body,
        json!({"object": "event_redelivery", "event_id": ev, "queued": 1})
    );

    for path in [
        "/api/v1/events/999999/redeliver",
        "/api/v1/events/abc/redeliver",
    ] {
        let r = send(&app, h.req(Method::POST, path)).await;
        assert_error(&r, 404, "resource_missing");
        assert!(
            r.body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("event"),
            "{}",
            r.body
        );
    }
}

async fn wrong_methods_and_missing_scopes_are_refused(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    let id = register(
        &app,
        &h,
        &h.key,
        json!({"url": "https://hooks.example.com/in", "events": ["*"]}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let ev = customer_event(&app, &h, &h.key, "ada@example.com").await;
    for (method, path, allow) in [
        (
            Method::PUT,
            format!("/api/v1/webhooks/{id}"),
            "GET, PATCH, DELETE",
        ),
        (
            Method::POST,
            format!("/api/v1/webhooks/{id}"),
            "GET, PATCH, DELETE",
        ),
        (Method::DELETE, "/api/v1/webhooks".to_string(), "POST, GET"),
        (
            Method::GET,
            format!("/api/v1/webhooks/{id}/rotate_secret"),
            "POST",
        ),
        (
            Method::POST,
            format!("/api/v1/webhooks/{id}/deliveries"),
            "GET",
        ),
        (
            Method::GET,
            format!("/api/v1/events/{ev}/redeliver"),
            "POST",
        ),
    ] {
        let r = send(&app, h.req(method.clone(), &path)).await;
        assert_error(&r, 405, "method_not_allowed");
        assert_eq!(r.header("allow"), allow, "{method} {path}");
    }

    let reader = h.make_key(
        h.account,
        Environment::Test,
        "webhooks:read",
        GENEROUS,
        None,
    );
    for path in [
        "/api/v1/webhooks".to_string(),
        format!("/api/v1/webhooks/{id}"),
        format!("/api/v1/webhooks/{id}/deliveries"),
    ] {
        let r = send(&app, h.req_as(&reader, Method::GET, &path)).await;
        assert_eq!(r.status, 200, "{path}: {}", r.body);
    }
    let writes = [
        (
            Method::POST,
            "/api/v1/webhooks".to_string(),
            Some(json!({"url": "https://hooks.example.com/x", "events": ["*"]})),
        ),
        (
            Method::PATCH,
            format!("/api/v1/webhooks/{id}"),
            Some(json!({"enabled": false})),
        ),
        (Method::DELETE, format!("/api/v1/webhooks/{id}"), None),
        (
            Method::POST,
            format!("/api/v1/webhooks/{id}/rotate_secret"),
            None,
        ),
        (Method::POST, format!("/api/v1/events/{ev}/redeliver"), None),
    ];
    for (method, path, body) in &writes {
        let req = h.req_as(&reader, method.clone(), path);
        let req = match body {
            Some(b) => json(req, b),
            None => req,
        };
        assert_error(&send(&app, req).await, 403, "insufficient_permissions");
    }
    let events_reader = h.make_key(h.account, Environment::Test, "events:read", GENEROUS, None);
    assert_eq!(
        send(
            &app,
            h.req_as(&events_reader, Method::GET, &format!("/api/v1/events/{ev}"))
        )
        .await
        .status,
        200
    );
    assert_error(
        &send(
            &app,
            h.req_as(
                &events_reader,
                Method::POST,
                &format!("/api/v1/events/{ev}/redeliver"),
            ),
        )
        .await,
        403,
        "insufficient_permissions",
    );
    assert_error(
        &send(
            &app,
            h.req_as(&events_reader, Method::GET, "/api/v1/webhooks"),
        )
        .await,
        403,
        "insufficient_permissions",
    );
    // None of it happened: still enabled, nothing queued again, one endpoint.
    let got = send(&app, h.req(Method::GET, &format!("/api/v1/webhooks/{id}")))
        .await
        .body;
    assert_eq!(got["enabled"], true);
    assert_eq!(due(&h), [(id, ev)]);
    assert_eq!(
        send(&app, h.req(Method::GET, "/api/v1/webhooks"))
            .await
            .body["total"],
        1
    );

    // webhooks:write is what redelivery needs.
    let writer = h.make_key(
        h.account,
        Environment::Test,
        "webhooks:write",
        GENEROUS,
        None,
    );
    let r = send(
        &app,
        h.req_as(
            &writer,
            Method::POST,
            &format!("/api/v1/events/{ev}/redeliver"),
        ),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.body);
    assert_eq!(
        send(
            &app,
            h.req_as(&writer, Method::GET, &format!("/api/v1/webhooks/{id}"))
        )
        .await
        .status,
        200,
        "write implies read"
    );
}

async fn other_tenants_and_the_other_environment_get_403_on_every_route(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    let created = register(
        &app,
        &h,
        &h.key,
        json!({"url": "https://hooks.example.com/in", "events": ["*"]}),
    )
    .await;
    let secret = assert_secret(&created["secret"]);
    let id = created["id"].as_i64().unwrap();
    let ev = customer_event(&app, &h, &h.key, "ada@example.com").await;
    let foreign = h.stranger_key("Other");
    let live = h.live_key();
    for key in [&foreign, &live] {
        let patch = json!({"enabled": false, "description": "mine now"});
        // Each route on the existing endpoint (or event), then on an id nobody has.
        let routes = |id: i64, ev: i64| {
            [
                (Method::GET, format!("/api/v1/webhooks/{id}"), None),
                (
                    Method::PATCH,
                    format!("/api/v1/webhooks/{id}"),
                    Some(patch.clone()),
                ),
                (Method::DELETE, format!("/api/v1/webhooks/{id}"), None),
                (
                    Method::POST,
                    format!("/api/v1/webhooks/{id}/rotate_secret"),
                    None,
                ),
                (
                    Method::GET,
                    format!("/api/v1/webhooks/{id}/deliveries"),
                    None,
                ),
                (Method::POST, format!("/api/v1/events/{ev}/redeliver"), None),
            ]
        };
        for ((method, path, body), (_, missing, _)) in
            routes(id, ev).into_iter().zip(routes(999_999, 999_999))
        {
            let req = h.req_as(key, method.clone(), &path);
            let req = match &body {
                Some(b) => json(req, b),
                None => req,
            };
            let r = send(&app, req).await;
            assert_error(&r, 403, "resource_forbidden");
            assert_eq!(r.body["error"]["type"], "permission_error");
            assert!(
                !r.body.to_string().contains("hooks.example.com"),
                "{method} {path} leaks the endpoint: {}",
                r.body
            );
            let req = h.req_as(key, method.clone(), &missing);
            let req = match &body {
                Some(b) => json(req, b),
                None => req,
            };
            assert_error(&send(&app, req).await, 404, "resource_missing");
        }
        let list = send(&app, h.req_as(key, Method::GET, "/api/v1/webhooks"))
            .await
            .body;
        assert_eq!(
            (list["total"].clone(), list["data"].clone()),
            (json!(0), json!([]))
        );
    }

    // Nothing the others tried took effect.
    let got = send(&app, h.req(Method::GET, &format!("/api/v1/webhooks/{id}")))
        .await
        .body;
    assert_eq!(got["enabled"], true);
    assert_eq!(got["description"], Value::Null);
    assert_eq!(got["updated_at"], created["updated_at"]);
    let jobs = claim(&h, whole_now());
    assert_eq!(jobs.len(), 1, "no redelivery was queued");
    assert_eq!(
        jobs[0].secret.as_str(),
        secret,
        "the secret was not rotated"
    );
    assert_eq!(
        send(&app, h.req(Method::GET, "/api/v1/webhooks"))
            .await
            .body["total"],
        1
    );
}

async fn events_reach_only_endpoints_of_their_environment(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    let live = h.live_key();
    let test_endpoint = register(
        &app,
        &h,
        &h.key,
        json!({"url": "https://hooks.example.com/test", "events": ["*"]}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let live_endpoint = register(
        &app,
        &h,
        &live,
        json!({"url": "https://hooks.example.com/live", "events": ["*"]}),
    )
    .await;
    assert_eq!(live_endpoint["livemode"], true);
    let live_endpoint = live_endpoint["id"].as_i64().unwrap();

    let live_ev = customer_event(&app, &h, &live, "ada@example.com").await;
    assert_eq!(
        due(&h),
        [(live_endpoint, live_ev)],
        "a live event queues nothing for the test endpoint"
    );
    let test_ev = customer_event(&app, &h, &h.key, "ada@example.com").await;
    let mut expected = vec![(test_endpoint, test_ev), (live_endpoint, live_ev)];
    expected.sort();
    assert_eq!(due(&h), expected);

    // Redelivering the live event still reaches only the live endpoint.
    let r = send(
        &app,
        h.req_as(
            &live,
            Method::POST,
            &format!("/api/v1/events/{live_ev}/redeliver"),
        ),
    )
    .await;
    assert_eq!(
        r.body,
        json!({"object": "event_redelivery", "event_id": live_ev, "queued": 1})
    );
    let jobs = claim(&h, whole_now());
    let live_jobs: Vec<_> = jobs
        .iter()
        .filter(|j| j.event_id.0 == live_ev)
        .map(|j| (j.endpoint_id.0, j.scope.environment))
        .collect();
    assert_eq!(
        live_jobs,
        [
            (live_endpoint, Environment::Live),
            (live_endpoint, Environment::Live)
        ]
    );
    let payload: Value = serde_json::from_str(
        &jobs
            .iter()
            .find(|j| j.event_id.0 == live_ev)
            .unwrap()
            .payload,
    )
    .unwrap();
    assert_eq!(payload["livemode"], true);
    // Each endpoint's log is its own environment's.
    assert_eq!(
        send(
            &app,
            h.req_as(
                &live,
                Method::GET,
                &format!("/api/v1/webhooks/{live_endpoint}/deliveries")
            )
        )
        .await
        .status,
        200
    );
    assert_error(
        &send(
            &app,
            h.req_as(
                &live,
                Method::GET,
                &format!("/api/v1/webhooks/{test_endpoint}/deliveries"),
            ),
        )
        .await,
        403,
        "resource_forbidden",
    );
}

/// SPEC §11: every address that is not globally reachable is refused, however it is written:
/// the special-purpose ranges that are neither loopback nor RFC 1918, and loopback or private
/// IPv4 hidden in the IPv6 forms that embed it. Literal addresses need no DNS here.
async fn non_global_targets_are_refused_in_every_form(h: Harness) {
    assert!(!h.state.config.webhook_allow_private);
    let app = init_service(build_app(h.state.clone())).await;
    for url in [
        "http://[::127.0.0.1]/",
        "http://[2002:7f00:1::1]/",
        "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
        "http://198.18.0.2/",
        "http://[100::1]/",
        "http://[64:ff9b::7f00:1]/",
        "http://[64:ff9b:1::808:808]/",
        "http://[2001:db8::1]/",
        "http://192.0.0.8/",
        "http://240.0.0.1/",
    ] {
        let r = send(
            &app,
            json(
                h.req(Method::POST, "/api/v1/webhooks"),
                &json!({"url": url, "events": ["*"]}),
            ),
        )
        .await;
        assert_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["param"], "url", "{url}: {}", r.body);
    }
    // The same forms around a public IPv4 address stay usable.
    for url in [
        "http://[2002:808:808::1]/",
        "http://[64:ff9b::808:808]/",
        "http://[2606:4700:4700::1111]/",
    ] {
        register(&app, &h, &h.key, json!({"url": url, "events": ["*"]})).await;
    }
}

http_tests!(
    create_read_and_list_never_show_the_secret_again,
    unsafe_targets_are_refused_unless_allowed,
    non_global_targets_are_refused_in_every_form,
    patch_changes_url_events_enabled_and_description,
    delete_answers_204_then_404_everywhere,
    rotate_secret_answers_a_new_secret_used_from_then_on,
    deliveries_list_recorded_attempts_newest_first,
    redeliver_queues_the_event_for_every_matching_endpoint,
    wrong_methods_and_missing_scopes_are_refused,
    other_tenants_and_the_other_environment_get_403_on_every_route,
    events_reach_only_endpoints_of_their_environment,
);
