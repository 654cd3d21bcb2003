//! SPEC §15 through the real app: a retry with the same key and request replays the first
//! answer and changes nothing; the same key with another request is 422; a key whose request is
//! still running is 409; rejected requests keep nothing; keys belong to one tenant.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use actix_web::web;
use invoicing_domain::idempotency::{IdempotencyClaim, IdempotencyKey, RequestFingerprint};
use invoicing_domain::ports::IdempotencyRepository;
use invoicing_domain::tenant::{Environment, Scope};
use invoicing_http::build_app;
use invoicing_http::config::{parse_trusted_proxies, HttpConfig};
use invoicing_storage::Store;
use serde_json::{json, Value};

fn invoice(email: &str) -> Value {
    json!({
        "customer": {"name": "Ada", "email": email},
        "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 1000}]
    })
}

fn keyed(req: actix_web::test::TestRequest, key: &str) -> actix_web::test::TestRequest {
    req.insert_header(("idempotency-key", key))
}

async fn a_retry_replays_the_first_answer(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let post = || {
        keyed(
            json(
                h.req(Method::POST, "/api/v1/invoices"),
                &invoice("a@example.com"),
            ),
            "order-1",
        )
    };
    let first = send(&app, post()).await;
    assert_eq!(first.status, 201, "{}", first.body);
    assert_eq!(first.header("idempotent-replayed"), "");
    let again = send(&app, post()).await;
    assert_eq!(again.status, 201);
    assert_eq!(again.header("idempotent-replayed"), "true");
    assert_eq!(again.body, first.body, "the same answer");
    assert_api_headers(&again);
    let list = send(&app, h.req(Method::GET, "/api/v1/invoices")).await;
    assert_eq!(list.body["total"], 1, "one invoice, not two");
    assert_eq!(
        send(
            &app,
            h.req(Method::GET, "/api/v1/events?type=invoice.created")
        )
        .await
        .body["total"],
        1
    );

    // Without a key the same body creates a second invoice: the key is what made it safe.
    let other = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/invoices"),
            &invoice("a@example.com"),
        ),
    )
    .await;
    assert_eq!(other.status, 201);
    assert_ne!(other.body["id"], first.body["id"]);

    // A refused change is replayed too, with this request's id in the error body.
    let id = first.body["id"].as_i64().unwrap();
    let send_it = || {
        keyed(
            h.req(Method::POST, &format!("/api/v1/invoices/{id}/send")),
            "send-1",
        )
    };
    assert_eq!(send(&app, send_it()).await.status, 200);
    let replay = send(&app, send_it()).await;
    assert_eq!(
        (replay.status.as_u16(), replay.header("idempotent-replayed")),
        (200, "true")
    );
    assert_eq!(replay.body["status"], "sent");
    let fresh = keyed(
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/send")),
        "send-2",
    );
    let refused = send(&app, fresh).await;
    assert_error(&refused, 409, "invalid_state_transition");
    let fresh = keyed(
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/send")),
        "send-2",
    );
    let replayed = send(&app, fresh).await;
    assert_error(&replayed, 409, "invalid_state_transition");
    assert_eq!(replayed.header("idempotent-replayed"), "true");
    assert_ne!(
        replayed.body["error"]["request_id"],
        refused.body["error"]["request_id"]
    );
}

async fn the_same_key_with_another_request_is_refused(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let first = keyed(
        json(
            h.req(Method::POST, "/api/v1/invoices"),
            &invoice("b@example.com"),
        ),
        "k",
    );
    assert_eq!(send(&app, first).await.status, 201);
    let other_body = keyed(
        json(
            h.req(Method::POST, "/api/v1/invoices"),
            &invoice("c@example.com"),
        ),
        "k",
    );
    let r = send(&app, other_body).await;
    assert_error(&r, 422, "idempotency_key_reused");
    assert_eq!(r.body["error"]["param"], "Idempotency-Key");
    let other_path = keyed(
        json(
            h.req(Method::POST, "/api/v1/customers"),
            &json!({"name": "B", "email": "b2@example.com"}),
        ),
        "k",
    );
    assert_error(&send(&app, other_path).await, 422, "idempotency_key_reused");
    assert_eq!(
        send(&app, h.req(Method::GET, "/api/v1/invoices"))
            .await
            .body["total"],
        1
    );
    assert_eq!(
        send(
            &app,
            h.req(Method::GET, "/api/v1/customers?email=b2@example.com")
        )
        .await
        .body["total"],
        0
    );

    for bad in ["", &"k".repeat(256)] {
        let r = send(
            &app,
            keyed(
                json(
                    h.req(Method::POST, "/api/v1/invoices"),
                    &invoice("d@example.com"),
                ),
                bad,
            ),
        )
        .await;
        assert_error(&r, 400, "invalid_parameter");
        assert_eq!(r.body["error"]["param"], "Idempotency-Key");
    }
    assert_eq!(
        send(&app, h.req(Method::GET, "/api/v1/invoices"))
            .await
            .body["total"],
        1,
        "a bad key changed nothing"
    );
}

async fn rejected_requests_keep_nothing(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let bad = keyed(
        json(
            h.req(Method::POST, "/api/v1/invoices"),
            &json!({"line_items": []}),
        ),
        "retry-me",
    );
    assert_error(&send(&app, bad).await, 422, "validation_failed");
    let syntax = keyed(
        h.req(Method::POST, "/api/v1/invoices")
            .insert_header(("content-type", "application/json"))
            .set_payload("{"),
        "retry-me",
    );
    assert_error(&send(&app, syntax).await, 400, "invalid_json");
    let reader = h.make_key(
        h.account,
        Environment::Test,
        "invoices:read",
        GENEROUS,
        None,
    );
    let forbidden = keyed(
        json(
            h.req_as(&reader, Method::POST, "/api/v1/invoices"),
            &invoice("e@example.com"),
        ),
        "retry-me",
    );
    assert_error(
        &send(&app, forbidden).await,
        403,
        "insufficient_permissions",
    );
    // The key is still free: the corrected request runs.
    let fixed = keyed(
        json(
            h.req(Method::POST, "/api/v1/invoices"),
            &invoice("e@example.com"),
        ),
        "retry-me",
    );
    let r = send(&app, fixed).await;
    assert_eq!(
        (r.status.as_u16(), r.header("idempotent-replayed")),
        (201, "")
    );
}

async fn a_running_request_holds_its_key(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let body = invoice("f@example.com");
    // Another process (or worker) has begun that request and is still running it.
    let scope = Scope::new(h.account, Environment::Test);
    let request = RequestFingerprint::new("POST", "/api/v1/invoices", body.to_string().as_bytes());
    let key = IdempotencyKey::parse(b"busy").unwrap();
    let running = h.db.store.begin_idempotent(scope, &key, &request).unwrap();
    assert!(matches!(running, IdempotencyClaim::Run(_)));
    let retry = || keyed(json(h.req(Method::POST, "/api/v1/invoices"), &body), "busy");
    let r = send(&app, retry()).await;
    assert_error(&r, 409, "idempotency_key_in_use");
    assert_eq!(
        send(&app, h.req(Method::GET, "/api/v1/invoices"))
            .await
            .body["total"],
        0
    );
    // The first one dies without an answer: its transaction goes, and the retry runs at once.
    drop(running);
    let r = send(&app, retry()).await;
    assert_eq!(r.status.as_u16(), 201, "{}", r.body);
    let r = send(&app, retry()).await;
    assert_eq!(
        (r.status.as_u16(), r.header("idempotent-replayed")),
        (201, "true")
    );
}

async fn keys_belong_to_one_tenant(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let other = h.stranger_key("Other");
    let live = h.live_key();
    let mine = send(
        &app,
        keyed(
            json(
                h.req(Method::POST, "/api/v1/invoices"),
                &invoice("g@example.com"),
            ),
            "shared",
        ),
    )
    .await;
    assert_eq!(mine.status, 201);
    for key in [&other, &live] {
        let theirs = send(
            &app,
            keyed(
                json(
                    h.req_as(key, Method::POST, "/api/v1/invoices"),
                    &invoice("g@example.com"),
                ),
                "shared",
            ),
        )
        .await;
        assert_eq!(theirs.status, 201, "{}", theirs.body);
        assert_eq!(
            theirs.header("idempotent-replayed"),
            "",
            "never another tenant's answer"
        );
        assert_ne!(theirs.body["id"], mine.body["id"]);
    }
}

/// A keyed create runs in a savepoint of its request's transaction: refused after its number
/// was taken (an existing customer's read takes it on PostgreSQL), it leaves no gap.
async fn a_keyed_create_refused_after_its_number_leaves_no_gap(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let first = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/invoices"),
            &invoice("g@example.com"),
        ),
    )
    .await;
    assert_eq!(first.status, 201);
    let number = |n: u32| {
        let year = first.body["invoice_number"].as_str().unwrap()[4..8].to_string();
        format!("INV-{year}-{n:06}")
    };
    assert_eq!(first.body["invoice_number"], number(1));
    let customer = first.body["customer_id"].clone();
    let line = json!({"description": "Work", "quantity": 1, "unit_price_cents": 1000});
    let unknown_product = json!({"customer_id": customer, "line_items": [{"product_id": 999_999}]});
    let r = send(
        &app,
        keyed(
            json(h.req(Method::POST, "/api/v1/invoices"), &unknown_product),
            "gap-1",
        ),
    )
    .await;
    assert!(r.status.is_client_error(), "{:?}", r.body);
    let unknown_customer = json!({"customer_id": 999_999, "line_items": [line]});
    let r = send(
        &app,
        keyed(
            json(h.req(Method::POST, "/api/v1/invoices"), &unknown_customer),
            "gap-2",
        ),
    )
    .await;
    assert_eq!(r.status, 422, "{:?}", r.body);
    let next = send(
        &app,
        keyed(
            json(
                h.req(Method::POST, "/api/v1/invoices"),
                &json!({"customer_id": customer, "line_items": [line]}),
            ),
            "gap-3",
        ),
    )
    .await;
    assert_eq!(next.status, 201);
    assert_eq!(next.body["invoice_number"], number(2));
}

/// A keyed request holds its connection from its claim to its commit. Its calls in between
/// must not queue behind calls that are themselves waiting for a connection: on PostgreSQL the
/// storage threads are as many as the pool's connections, and such a queue would hold until
/// the pool gave up (503 after seconds). Keyed creates and plain reads at once, on a pool of
/// two connections, all answered.
async fn keyed_requests_are_answered_beside_a_full_pool(h: Harness) {
    let store = Store::connect(&h.db.url, 2)
        .unwrap()
        .with_public_url(PUBLIC_URL);
    let mut config = HttpConfig::new(PUBLIC_URL);
    config.trusted_proxies = parse_trusted_proxies("127.0.0.1/32").unwrap();
    let app = init_service(build_app(web::Data::new(app_state(store, config, 2)))).await;
    for round in 0..4 {
        let creates = (0..4).map(|i| {
            let body = invoice(&format!("r{round}-{i}@example.com"));
            let key = format!("load-{round}-{i}");
            send(
                &app,
                keyed(json(h.req(Method::POST, "/api/v1/invoices"), &body), &key),
            )
        });
        let reads = (0..8).map(|_| send(&app, h.req(Method::GET, "/api/v1/invoices?per_page=5")));
        let (created, read) = futures_util::future::join(
            futures_util::future::join_all(creates),
            futures_util::future::join_all(reads),
        )
        .await;
        for r in created {
            assert_eq!(r.status, 201, "round {round}: {}", r.body);
        }
        for r in read {
            assert_eq!(r.status, 200, "round {round}: {}", r.body);
        }
    }
    let list = send(&app, h.req(Method::GET, "/api/v1/invoices")).await;
    assert_eq!(list.body["total"], 16);
}

http_tests!(
    keyed_requests_are_answered_beside_a_full_pool,
    a_keyed_create_refused_after_its_number_leaves_no_gap,
    a_retry_replays_the_first_answer,
    the_same_key_with_another_request_is_refused,
    rejected_requests_keep_nothing,
    a_running_request_holds_its_key,
    keys_belong_to_one_tenant,
);
