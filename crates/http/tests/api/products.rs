//! SPEC §14 through the real app: every product route with its status codes, line items that
//! name a product on invoices and quotations, deletion refused while in use, and 403 for another
//! tenant on every route.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use invoicing_domain::tenant::Environment;
use invoicing_http::build_app;
use serde_json::json;

fn hosting() -> serde_json::Value {
    json!({"name": "Hosting", "description": "Managed hosting, monthly", "unit_price_cents": 2500,
           "currency": "eur", "tax_rate": 19, "metadata": {"sku": "H-1"}})
}

async fn catalog_routes_answer_every_status(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let r = call!(&app, h.req(Method::POST, "/api/v1/products"), hosting());
    assert_eq!(r.status, 201, "{}", r.body);
    assert_api_headers(&r);
    let p = r.body;
    assert_eq!(
        (p["object"].as_str(), p["currency"].as_str()),
        (Some("product"), Some("EUR"))
    );
    assert_eq!(
        (p["tax_rate"].as_str(), p["active"].as_bool()),
        (Some("19"), Some(true))
    );
    assert_eq!(p["livemode"], false);
    let path = format!("/api/v1/products/{}", p["id"]);
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/products"),
        json!({"name": "", "unit_price_cents": 1.5})
    );
    assert_error(&r, 400, "invalid_parameter");
    let r = call!(
        &app,
        h.req(Method::POST, "/api/v1/products"),
        json!({"name": "", "tax_rate": "200"})
    );
    assert_error(&r, 422, "validation_failed");
    let params: Vec<&str> = r.body["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["param"].as_str().unwrap())
        .collect();
    assert_eq!(params, ["name", "unit_price_cents", "currency", "tax_rate"]);
    assert_error(
        &call!(
            &app,
            h.req(Method::POST, "/api/v1/products").set_payload("{}")
        ),
        415,
        "unsupported_media_type",
    );

    assert_eq!(call!(&app, h.req(Method::GET, &path)).body, p);
    for bad in ["/api/v1/products/999999", "/api/v1/products/0"] {
        assert_error(
            &call!(&app, h.req(Method::GET, bad)),
            404,
            "resource_missing",
        );
    }
    let r = call!(
        &app,
        h.req(Method::PATCH, &path),
        json!({"unit_price_cents": 3000, "description": null})
    );
    assert_eq!(r.status, 200);
    assert_eq!(
        (
            r.body["unit_price_cents"].as_i64(),
            r.body["description"].is_null()
        ),
        (Some(3000), true)
    );
    assert_error(
        &call!(
            &app,
            h.req(Method::PATCH, &path),
            json!({"currency": "EURO"})
        ),
        422,
        "validation_failed",
    );
    assert_error(
        &call!(&app, h.req(Method::PATCH, &path), json!({"price": 1})),
        400,
        "invalid_parameter",
    );
    assert_error(
        &call!(
            &app,
            h.req(Method::PATCH, "/api/v1/products/999999"),
            json!({"name": "x"})
        ),
        404,
        "resource_missing",
    );
    let archived = call!(&app, h.req(Method::PATCH, &path), json!({"active": false})).body;
    assert_eq!(archived["active"], false);

    let other = call!(
        &app,
        h.req(Method::POST, "/api/v1/products"),
        json!({"name": "Support", "unit_price_cents": 9000, "currency": "EUR"})
    )
    .body;
    let list = |q: &str| h.req(Method::GET, &format!("/api/v1/products{q}"));
    let r = call!(&app, list(""));
    assert_eq!(
        (r.body["total"].as_i64(), r.body["data"][0]["id"].clone()),
        (Some(2), other["id"].clone())
    );
    assert_eq!(
        call!(&app, list("?active=true")).body["data"][0]["id"],
        other["id"]
    );
    assert_eq!(
        call!(&app, list("?active=false")).body["data"][0]["id"],
        p["id"]
    );
    for bad in ["?active=yes", "?active=", "?page=0", "?name=x"] {
        assert_error(&call!(&app, list(bad)), 400, "invalid_parameter");
    }

    let r = call!(
        &app,
        h.req(Method::DELETE, &format!("/api/v1/products/{}", other["id"]))
    );
    assert_eq!(r.status, 204);
    assert_error(
        &call!(
            &app,
            h.req(Method::DELETE, &format!("/api/v1/products/{}", other["id"]))
        ),
        404,
        "resource_missing",
    );
    let types: Vec<String> = call!(&app, h.req(Method::GET, "/api/v1/events")).body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        types,
        [
            "product.deleted",
            "product.created",
            "product.updated",
            "product.updated",
            "product.created"
        ]
    );
    let r = call!(&app, h.req(Method::PUT, &path));
    assert_error(&r, 405, "method_not_allowed");
    assert_eq!(r.header("allow"), "GET, PATCH, DELETE");

    let reader = h.make_key(
        h.account,
        Environment::Test,
        "products:read",
        GENEROUS,
        None,
    );
    assert_eq!(
        call!(&app, h.req_as(&reader, Method::GET, &path)).status,
        200
    );
    for (method, path) in [
        (Method::POST, "/api/v1/products".to_string()),
        (Method::PATCH, path.clone()),
    ] {
        let r = call!(&app, h.req_as(&reader, method, &path), json!({"name": "x"}));
        assert_error(&r, 403, "insufficient_permissions");
    }
    // DELETE takes no body: a body it does not take is refused (400) before the scope is checked.
    let r = call!(&app, h.req_as(&reader, Method::DELETE, &path));
    assert_error(&r, 403, "insufficient_permissions");
    assert_error(
        &call!(&app, h.anonymous(Method::GET, "/api/v1/products")),
        401,
        "missing_api_key",
    );
}

async fn line_items_name_products(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let p = call!(&app, h.req(Method::POST, "/api/v1/products"), hosting()).body;
    let usd = call!(
        &app,
        h.req(Method::POST, "/api/v1/products"),
        json!({"name": "US", "unit_price_cents": 100, "currency": "USD"})
    )
    .body;
    let old = call!(
        &app,
        h.req(Method::POST, "/api/v1/products"),
        json!({"name": "Old", "unit_price_cents": 100, "currency": "EUR", "active": false})
    )
    .body;
    let body = json!({"customer": {"name": "Ada", "email": "ada@example.com"}, "line_items": [
        {"product_id": p["id"], "quantity": 2},
        {"product_id": p["id"], "quantity": 1, "unit_price_cents": 1000, "description": "Setup"}
    ]});
    let r = call!(&app, h.req(Method::POST, "/api/v1/invoices"), body);
    assert_eq!(r.status, 201, "{}", r.body);
    let line = &r.body["line_items"][0];
    assert_eq!(line["product_id"], p["id"]);
    assert_eq!(line["description"], "Managed hosting, monthly");
    assert_eq!(
        (line["unit_price_cents"].as_i64(), line["tax_rate"].as_str()),
        (Some(2500), Some("19"))
    );
    assert_eq!(
        r.body["line_items"][1]["tax_rate"], "19",
        "tax rate from the product"
    );
    assert_eq!(r.body["total_cents"], 5950 + 1190);

    let bad = json!({"customer": {"name": "Ada", "email": "ada@example.com"}, "line_items": [
        {"product_id": usd["id"], "quantity": 1},
        {"product_id": old["id"], "quantity": 1},
        {"product_id": 999999, "quantity": 1}
    ]});
    let r = call!(&app, h.req(Method::POST, "/api/v1/invoices"), bad);
    assert_error(&r, 422, "validation_failed");
    let params: Vec<&str> = r.body["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["param"].as_str().unwrap())
        .collect();
    assert_eq!(
        params,
        [
            "line_items[0].product_id",
            "line_items[1].product_id",
            "line_items[2].product_id"
        ]
    );
    let q = json!({"customer": {"name": "Ada", "email": "ada@example.com"}, "currency": "USD",
        "line_items": [{"product_id": usd["id"], "quantity": 3}]});
    let r = call!(&app, h.req(Method::POST, "/api/v1/quotations"), q);
    assert_eq!(
        (r.status.as_u16(), r.body["total_cents"].as_i64()),
        (201, Some(300)),
        "{}",
        r.body
    );
    assert_eq!(r.body["line_items"][0]["product_id"], usd["id"]);

    // In use (by an invoice or a quotation): 409 resource_in_use; archiving is the way.
    for used in [&p, &usd] {
        let path = format!("/api/v1/products/{}", used["id"]);
        let r = call!(&app, h.req(Method::DELETE, &path));
        assert_error(&r, 409, "resource_in_use");
        assert_eq!(
            call!(&app, h.req(Method::GET, &path)).status,
            200,
            "still there"
        );
        assert_eq!(
            call!(&app, h.req(Method::PATCH, &path), json!({"active": false})).body["active"],
            false
        );
    }
    assert_eq!(
        call!(
            &app,
            h.req(Method::GET, "/api/v1/events?type=product.deleted")
        )
        .body["total"],
        0
    );
}

async fn other_tenants_get_403_on_every_route(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let p = call!(&app, h.req(Method::POST, "/api/v1/products"), hosting()).body;
    let id = p["id"].clone();
    let foreign = h.stranger_key("Other");
    let live = h.live_key();
    for key in [&foreign, &live] {
        let routes = [
            (Method::GET, None),
            (Method::PATCH, Some(json!({"name": "Stolen"}))),
            (Method::DELETE, None),
        ];
        for (method, body) in routes {
            let req = h.req_as(key, method, &format!("/api/v1/products/{id}"));
            let req = match &body {
                Some(b) => json(req, b),
                None => req,
            };
            assert_error(&send(&app, req).await, 403, "resource_forbidden");
        }
        assert_eq!(
            call!(&app, h.req_as(key, Method::GET, "/api/v1/products")).body["total"],
            0
        );
        // Their documents cannot use it either: to them it does not exist.
        let body = json!({"customer": {"name": "Ada", "email": "ada@example.com"}, "currency": "EUR",
            "line_items": [{"product_id": id, "quantity": 1}]});
        let r = call!(&app, h.req_as(key, Method::POST, "/api/v1/invoices"), body);
        assert_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["param"], "line_items[0].product_id");
    }
    assert_eq!(
        call!(&app, h.req(Method::GET, &format!("/api/v1/products/{id}"))).body,
        p,
        "unchanged"
    );
}

http_tests!(
    catalog_routes_answer_every_status,
    line_items_name_products,
    other_tenants_get_403_on_every_route,
);
