//! SPEC §2 and §6 through the real app: every 401 and 403, tenant isolation of customers, and
//! the token buckets with their headers.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use chrono::{Duration, Utc};
use invoicing_domain::api_key::{hash_key, RateOverride};
use invoicing_domain::ports::ApiKeyRepository;
use invoicing_domain::tenant::Environment;
use invoicing_http::build_app;
use serde_json::json;

async fn every_401_has_its_code(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let r = send(&app, h.anonymous(Method::GET, "/api/v1/customers")).await;
    assert_error(&r, 401, "missing_api_key");
    assert_api_headers(&r);
    let basic = h
        .anonymous(Method::GET, "/api/v1/customers")
        .insert_header(("authorization", "Basic dXNlcjpwYXNz"));
    assert_error(&send(&app, basic).await, 401, "invalid_api_key");
    let unknown = format!("sk_test_{}", "A".repeat(32));
    assert_error(
        &send(&app, h.req_as(&unknown, Method::GET, "/api/v1/customers")).await,
        401,
        "invalid_api_key",
    );
    assert_error(
        &send(
            &app,
            h.req_as("sk_test_short", Method::GET, "/api/v1/customers"),
        )
        .await,
        401,
        "invalid_api_key",
    );

    let revoked = h.make_key(h.account, Environment::Test, "*", GENEROUS, None);
    let id =
        h.db.store
            .find_key_by_hash(&hash_key(&revoked))
            .unwrap()
            .unwrap()
            .id;
    assert_eq!(
        send(&app, h.req_as(&revoked, Method::GET, "/api/v1/customers"))
            .await
            .status,
        200
    );
    h.db.store.revoke_key(id, Utc::now()).unwrap();
    assert_error(
        &send(&app, h.req_as(&revoked, Method::GET, "/api/v1/customers")).await,
        401,
        "invalid_api_key",
    );

    let expired = h.make_key(
        h.account,
        Environment::Test,
        "*",
        GENEROUS,
        Some(Utc::now() - Duration::minutes(1)),
    );
    let r = send(&app, h.req_as(&expired, Method::GET, "/api/v1/customers")).await;
    assert_error(&r, 401, "api_key_expired");
    assert_api_headers(&r);
}

async fn scopes_limit_what_a_key_may_do(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let reader = h.make_key(
        h.account,
        Environment::Test,
        "customers:read",
        GENEROUS,
        None,
    );
    assert_eq!(
        send(&app, h.req_as(&reader, Method::GET, "/api/v1/customers"))
            .await
            .status,
        200
    );
    let body = json!({"name": "Ada", "email": "ada@example.com"});
    let r = send(
        &app,
        json(h.req_as(&reader, Method::POST, "/api/v1/customers"), &body),
    )
    .await;
    assert_error(&r, 403, "insufficient_permissions");
    assert!(r.body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("customers:write"));
    let writer = h.make_key(
        h.account,
        Environment::Test,
        "customers:write",
        GENEROUS,
        None,
    );
    assert_eq!(
        send(
            &app,
            json(h.req_as(&writer, Method::POST, "/api/v1/customers"), &body)
        )
        .await
        .status,
        201
    );
    let other = h.make_key(
        h.account,
        Environment::Test,
        "invoices:write",
        GENEROUS,
        None,
    );
    assert_error(
        &send(&app, h.req_as(&other, Method::GET, "/api/v1/customers")).await,
        403,
        "insufficient_permissions",
    );
    // A document with an inline customer may create one: that needs customers:write too.
    let line = json!([{"description": "x", "quantity": 1, "unit_price_cents": 100}]);
    let inline =
        json!({"customer": {"name": "New", "email": "new@example.com"}, "line_items": line});
    for path in ["/api/v1/invoices", "/api/v1/quotations"] {
        let scopes = if path.ends_with("invoices") {
            "invoices:write"
        } else {
            "quotations:write"
        };
        let key = h.make_key(h.account, Environment::Test, scopes, GENEROUS, None);
        let r = send(&app, json(h.req_as(&key, Method::POST, path), &inline)).await;
        assert_error(&r, 403, "insufficient_permissions");
        let both = h.make_key(
            h.account,
            Environment::Test,
            &format!("{scopes},customers:write"),
            GENEROUS,
            None,
        );
        let r = send(&app, json(h.req_as(&both, Method::POST, path), &inline)).await;
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let by_id = json!({"customer_id": 1, "line_items": line});
    let customer = send(
        &app,
        h.req(Method::GET, "/api/v1/customers?email=new@example.com"),
    )
    .await
    .body["data"][0]["id"]
        .clone();
    let by_id = json!({"customer_id": customer, "line_items": by_id["line_items"]});
    let r = send(
        &app,
        json(h.req_as(&other, Method::POST, "/api/v1/invoices"), &by_id),
    )
    .await;
    assert_eq!(
        r.status, 201,
        "an existing customer needs no customers scope: {}",
        r.body
    );
}

async fn other_tenants_get_403_and_missing_ids_404(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let created = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/customers"),
            &json!({"name": "Ada", "email": "ada@example.com"}),
        ),
    )
    .await;
    let path = format!("/api/v1/customers/{}", created.body["id"]);
    let foreign = h.stranger_key("Other");
    let live = h.live_key();
    for key in [&foreign, &live] {
        assert_error(
            &send(&app, h.req_as(key, Method::GET, &path)).await,
            403,
            "resource_forbidden",
        );
        let patch = json(
            h.req_as(key, Method::PATCH, &path),
            &json!({"name": "Mallory"}),
        );
        assert_error(&send(&app, patch).await, 403, "resource_forbidden");
        assert_error(
            &send(&app, h.req_as(key, Method::DELETE, &path)).await,
            403,
            "resource_forbidden",
        );
        let list = send(&app, h.req_as(key, Method::GET, "/api/v1/customers")).await;
        assert_eq!(list.body["total"], 0, "another tenant's list is empty");
    }
    let live_created = send(
        &app,
        json(
            h.req_as(&live, Method::POST, "/api/v1/customers"),
            &json!({"name": "Ada", "email": "ada@example.com"}),
        ),
    )
    .await;
    assert_eq!(
        live_created.status, 201,
        "the same email is a new customer in live mode"
    );
    assert_eq!(live_created.body["livemode"], true);
    assert_eq!(
        send(&app, h.req(Method::GET, &path)).await.body["name"],
        "Ada",
        "unchanged by the refused writes"
    );
    assert_error(
        &send(&app, h.req(Method::GET, "/api/v1/customers/999999")).await,
        404,
        "resource_missing",
    );
    assert_error(
        &send(&app, h.req(Method::GET, "/api/v1/customers/abc")).await,
        404,
        "resource_missing",
    );
}

async fn keys_are_limited_per_key_with_headers(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let limited = h.make_key(
        h.account,
        Environment::Test,
        "*",
        RateOverride {
            per_minute: Some(60),
            burst: Some(3),
        },
        None,
    );
    for remaining in [2, 1, 0] {
        let r = send(&app, h.req_as(&limited, Method::GET, "/api/v1/customers")).await;
        assert_eq!(r.status, 200);
        assert_api_headers(&r);
        assert_eq!(r.header("x-ratelimit-limit"), "60");
        assert_eq!(r.header("x-ratelimit-remaining"), remaining.to_string());
        assert_eq!(
            r.header("ratelimit-policy"),
            "\"burst\";q=3;w=3, \"minute\";q=60;w=60"
        );
    }
    let body = json!({"name": "Ada", "email": "limited@example.com"});
    let r = send(
        &app,
        json(h.req_as(&limited, Method::POST, "/api/v1/customers"), &body),
    )
    .await;
    assert_error(&r, 429, "rate_limited");
    assert_eq!(r.body["error"]["type"], "rate_limit_error");
    assert_api_headers(&r);
    let retry: u64 = r.header("retry-after").parse().unwrap();
    assert!(retry >= 1);
    // The refused request had no effect.
    let list = send(
        &app,
        h.req(Method::GET, "/api/v1/customers?email=limited@example.com"),
    )
    .await;
    assert_eq!(list.body["total"], 0);
    // Other keys have their own bucket; the default shape is 60/min with a burst of 10.
    let plain = h.make_key(
        h.account,
        Environment::Test,
        "*",
        RateOverride::default(),
        None,
    );
    let r = send(&app, h.req_as(&plain, Method::GET, "/api/v1/customers")).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("x-ratelimit-remaining"), "9");
    assert_eq!(
        r.header("ratelimit-policy"),
        "\"burst\";q=10;w=10, \"minute\";q=60;w=60"
    );
}

async fn key_guessing_is_limited_per_ip(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let guess = |ip: &str| {
        h.anonymous(Method::GET, "/api/v1/customers")
            .insert_header(("x-forwarded-for", ip.to_string()))
            .insert_header((
                "authorization",
                format!("Bearer sk_test_{}", "x".repeat(32)),
            ))
    };
    for _ in 0..10 {
        assert_error(
            &send(&app, guess("203.0.113.7")).await,
            401,
            "invalid_api_key",
        );
    }
    let r = send(&app, guess("203.0.113.7")).await;
    assert_error(&r, 429, "rate_limited");
    assert_api_headers(&r);
    assert_error(
        &send(&app, guess("203.0.113.8")).await,
        401,
        "invalid_api_key",
    );
    // A valid key from the throttled address is limited by its own bucket, not the address's.
    let ok = h
        .req(Method::GET, "/api/v1/customers")
        .insert_header(("x-forwarded-for", "203.0.113.7"));
    assert_eq!(send(&app, ok).await.status, 200);
}

http_tests!(
    every_401_has_its_code,
    scopes_limit_what_a_key_may_do,
    other_tenants_get_403_and_missing_ids_404,
    keys_are_limited_per_key_with_headers,
    key_guessing_is_limited_per_ip,
);
