//! Statement budgets of the hot endpoints (issue: performance): every statement the request
//! sends, authentication included, counted on the pool's connections. A change that adds a
//! round trip to a create, a get or a list fails here rather than only in the benchmark.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use actix_web::web;
use invoicing_http::build_app;
use invoicing_http::AppState;
use serde_json::json;
use std::sync::Arc;

/// BEGIN, the customer with the account's defaults and the number, the invoice with its lines
/// (one statement however many), the event with its webhook deliveries, COMMIT. PostgreSQL adds
/// the shared rate limit's take; SQLite, which has no data-modifying `WITH`, takes the number,
/// writes the lines and queues the deliveries each apart. Before them, the account's time zone:
/// the day a new invoice is dated is the merchant's (SPEC §27).
const CREATE_BUDGET: u64 = 6;
/// The invoice with its lines: one statement (the shared rate limit adds one on PostgreSQL).
const GET_BUDGET: u64 = 1;
/// The page with its lines and its total: one statement, its own snapshot, no transaction (the
/// shared rate limit adds one on PostgreSQL).
const LIST_BUDGET: u64 = 1;

async fn hot_endpoints_stay_within_their_statement_budgets(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    let customer = call!(
        &app,
        h.req(Method::POST, "/api/v1/customers"),
        json!({"name": "Ada", "email": "ada@example.com"})
    );
    assert_eq!(customer.status, 201);
    // An endpoint that takes every event, so the create's webhook fan-out has work to do.
    let hook = call!(
        &app,
        h.req(Method::POST, "/api/v1/webhooks"),
        json!({"url": "https://hooks.example.com/in", "events": ["*"]})
    );
    assert_eq!(hook.status, 201);
    let body = json!({
        "customer_id": customer.body["id"],
        "line_items": [
            {"description": "Consulting", "quantity": "1.5", "unit_price_cents": 3300, "tax_rate": "19"},
            {"description": "Hosting", "quantity": 2, "unit_price_cents": 1000},
            {"description": "Support", "quantity": 1, "unit_price_cents": 3000, "tax_rate": "19"}
        ]
    });
    // The first create of the year makes the counter row; the budget is for every one after.
    assert_eq!(
        call!(&app, h.req(Method::POST, "/api/v1/invoices"), body).status,
        201
    );

    let sent = || h.db.store.statements_sent();
    let backend_extra = match h.db.backend() {
        invoicing_storage::Backend::Postgres => 1,
        invoicing_storage::Backend::Sqlite => 3,
    };
    let before = sent();
    let created = call!(&app, h.req(Method::POST, "/api/v1/invoices"), body);
    let create_cost = sent() - before;
    assert_eq!(created.status, 201);
    assert_eq!(created.body["line_items"].as_array().unwrap().len(), 3);
    assert_eq!(created.body["total_cents"], 11_461);
    assert!(
        create_cost <= CREATE_BUDGET + backend_extra,
        "create sent {create_cost} statements"
    );

    let id = created.body["id"].as_i64().unwrap();
    let before = sent();
    let got = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")));
    let get_cost = sent() - before;
    assert_eq!(got.status, 200);
    assert_eq!(
        got.body, created.body,
        "the create answered what a read shows"
    );
    let limiter = match h.db.backend() {
        invoicing_storage::Backend::Postgres => 1,
        invoicing_storage::Backend::Sqlite => 0,
    };
    assert!(
        get_cost <= GET_BUDGET + limiter,
        "get sent {get_cost} statements"
    );

    for path in ["/api/v1/invoices", "/api/v1/invoices?status=draft"] {
        let before = sent();
        let listed = call!(&app, h.req(Method::GET, path));
        let list_cost = sent() - before;
        assert_eq!(listed.status, 200);
        assert_eq!(listed.body["total"], 2);
        assert_eq!(listed.body["data"][0], created.body);
        assert!(
            list_cost <= LIST_BUDGET + limiter,
            "{path} sent {list_cost} statements"
        );
    }
    // The fan-out reached the endpoint: one delivery per event.
    let deliveries = call!(
        &app,
        h.req(
            Method::GET,
            &format!("/api/v1/webhooks/{}/deliveries", hook.body["id"])
        )
    );
    assert_eq!(deliveries.status, 200);
}

/// On PostgreSQL the shared rate limit costs each API request one statement, and
/// `RATE_LIMITS=process` (one server) saves it; SQLite never spends one.
async fn the_shared_limit_costs_one_statement_and_process_limits_none(h: Harness) {
    let shared = h.state.clone();
    let mut config = h.state.config.clone();
    config.process_rate_limits = true;
    let store = h.db.store.clone().with_public_url(PUBLIC_URL);
    let local = web::Data::new(AppState::new(Arc::new(store), config));
    let mut costs = Vec::new();
    for state in [shared, local] {
        let app = init_service(build_app(state)).await;
        let before = h.db.store.statements_sent();
        assert_eq!(
            call!(&app, h.req(Method::GET, "/api/v1/customers")).status,
            200
        );
        // The key is cached now; what a request costs from here on:
        let warm = h.db.store.statements_sent();
        assert_eq!(
            call!(&app, h.req(Method::GET, "/api/v1/customers")).status,
            200
        );
        costs.push(h.db.store.statements_sent() - warm);
        assert!(warm > before);
    }
    let limiter = match h.db.backend() {
        invoicing_storage::Backend::Postgres => 1,
        invoicing_storage::Backend::Sqlite => 0,
    };
    assert_eq!(costs[0], costs[1] + limiter, "{costs:?}");
}

http_tests!(
    hot_endpoints_stay_within_their_statement_budgets,
    the_shared_limit_costs_one_statement_and_process_limits_none,
);
