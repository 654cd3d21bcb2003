//! The server refuses what the OpenAPI document refuses (SPEC §3, §4, issue 16 item 4), found lax
//! by black-box tests: `null` on a field a PATCH cannot clear, a body sent without
//! `application/json` (also where the body is optional or not taken at all), a resource without
//! `object`, and list filters whose declared schema allowed values the server refuses.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::{init_service, TestRequest};
use invoicing_domain::event::EVENT_TYPES;
use invoicing_http::build_app;
use serde_json::{json, Value};

fn lines() -> Value {
    json!([{"description": "Work", "quantity": 1, "unit_price_cents": 1000}])
}

fn params_of(r: &Reply) -> Vec<String> {
    r.body["error"]["details"]
        .as_array()
        .map(|d| {
            d.iter()
                .map(|e| e["param"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// A body with no `Content-Type` at all, as `curl --data` without `-H` would not even do.
fn raw(req: TestRequest, body: &str) -> TestRequest {
    req.set_payload(body.to_string())
}

async fn null_on_a_required_patch_field_is_422(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let customer = call!(
        &app,
        h.req(Method::POST, "/api/v1/customers"),
        json!({"name": "Ada", "email": "ada@example.com", "phone": "+44 20 7946 0958"})
    );
    assert_eq!(customer.status, 201, "{}", customer.body);
    let invoice = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        json!({"customer_id": customer.body["id"], "line_items": lines(), "notes": "n", "metadata": {"k": "v"}})
    );
    assert_eq!(invoice.status, 201, "{}", invoice.body);
    let quotation = call!(
        &app,
        h.req(Method::POST, "/api/v1/quotations"),
        json!({"customer_id": customer.body["id"], "line_items": lines(), "notes": "n", "metadata": {"k": "v"}})
    );
    assert_eq!(quotation.status, 201, "{}", quotation.body);
    let product = call!(
        &app,
        h.req(Method::POST, "/api/v1/products"),
        json!({"name": "Hour", "unit_price_cents": 1000, "currency": "EUR", "tax_rate": 19, "description": "d", "metadata": {"k": "v"}})
    );
    assert_eq!(product.status, 201, "{}", product.body);
    let webhook = call!(
        &app,
        h.req(Method::POST, "/api/v1/webhooks"),
        json!({"url": "https://93.184.216.34/hook", "events": ["*"], "description": "d"})
    );
    assert_eq!(webhook.status, 201, "{}", webhook.body);
    // A payment needs an open invoice.
    let open = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        json!({"customer_id": customer.body["id"], "line_items": lines()})
    );
    let open_id = open.body["id"].as_i64().unwrap();
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{open_id}/send"))
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let payment = call!(
        &app,
        h.req(Method::POST, "/api/v1/payments"),
        json!({"invoice_id": open_id, "amount_cents": 100, "method": "cash"})
    );
    assert_eq!(payment.status, 201, "{}", payment.body);

    let path = |kind: &str, r: &Reply| format!("/api/v1/{kind}/{}", r.body["id"]);
    let cases: [(String, &[&str]); 6] = [
        (path("customers", &customer), &["name", "email"]),
        (
            path("invoices", &invoice),
            &[
                "status",
                "due_date",
                "line_items",
                "currency",
                "customer_id",
            ],
        ),
        (
            path("quotations", &quotation),
            &["valid_until", "line_items", "currency", "customer_id"],
        ),
        (path("payments", &payment), &["status"]),
        (
            path("products", &product),
            &["name", "unit_price_cents", "currency", "tax_rate", "active"],
        ),
        (path("webhooks", &webhook), &["url", "events", "enabled"]),
    ];
    for (path, required) in cases {
        let before = call!(&app, h.req(Method::GET, &path));
        assert_eq!(before.status, 200, "{path}: {}", before.body);
        // Each field alone, then all of them at once: every one is named.
        for field in required {
            let mut one = serde_json::Map::new();
            one.insert(field.to_string(), Value::Null);
            let r = call!(&app, h.req(Method::PATCH, &path), Value::Object(one));
            assert_error(&r, 422, "validation_failed");
            assert_eq!(params_of(&r), [*field], "{path} {field}: {}", r.body);
        }
        let all: serde_json::Map<String, Value> = required
            .iter()
            .map(|f| (f.to_string(), Value::Null))
            .collect();
        let r = call!(&app, h.req(Method::PATCH, &path), Value::Object(all));
        assert_error(&r, 422, "validation_failed");
        assert_eq!(params_of(&r), required, "{path}: {}", r.body);
        let after = call!(&app, h.req(Method::GET, &path));
        assert_eq!(after.body, before.body, "{path} changed by a refused PATCH");
    }

    // `null` still clears what may be cleared: the optional texts, and metadata back to `{}`.
    let clears: [(String, Value, &[&str]); 5] = [
        (
            path("customers", &customer),
            json!({"phone": null, "metadata": null}),
            &["phone"],
        ),
        (
            path("invoices", &invoice),
            json!({"notes": null, "metadata": null}),
            &["notes"],
        ),
        (
            path("quotations", &quotation),
            json!({"notes": null, "metadata": null}),
            &["notes"],
        ),
        (
            path("products", &product),
            json!({"description": null, "metadata": null}),
            &["description"],
        ),
        (
            path("webhooks", &webhook),
            json!({"description": null}),
            &["description"],
        ),
    ];
    for (path, body, cleared) in clears {
        let r = call!(&app, h.req(Method::PATCH, &path), body);
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        for field in cleared {
            assert_eq!(r.body[*field], Value::Null, "{path}: {}", r.body);
        }
        if r.body.get("metadata").is_some() {
            assert_eq!(r.body["metadata"], json!({}), "{path}: {}", r.body);
        }
    }
}

async fn a_body_without_json_content_type_is_415(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let invoice = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        json!({"customer": {"name": "Ada", "email": "ada@example.com"}, "line_items": lines()})
    );
    assert_eq!(invoice.status, 201, "{}", invoice.body);
    let id = invoice.body["id"].as_i64().unwrap();
    let send_path = format!("/api/v1/invoices/{id}/send");

    // A body sent without a JSON type is refused, and nothing happens.
    for method in [Method::POST, Method::PATCH] {
        let r = call!(
            &app,
            raw(h.req(method.clone(), &send_path), r#"{"email": {}}"#)
        );
        assert_error(&r, 415, "unsupported_media_type");
        let r = call!(
            &app,
            raw(h.req(method.clone(), &send_path), r#"{"email": {}}"#)
                .insert_header(("content-type", "text/plain"))
        );
        assert_error(&r, 415, "unsupported_media_type");
        // Sent as JSON, a field the route does not take is refused instead of dropped.
        let r = call!(&app, h.req(method, &send_path), json!({"e_mail": {}}));
        assert_error(&r, 400, "invalid_parameter");
        assert_eq!(r.body["error"]["param"], "e_mail", "{}", r.body);
    }
    let r = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{id}")));
    assert_eq!(r.body["status"], "draft", "a refused send sent the invoice");
    // Without a body no Content-Type is needed; an empty JSON object is no body either.
    let r = call!(&app, h.req(Method::POST, &send_path));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["status"], "sent");

    // A route whose body is optional.
    let q = call!(
        &app,
        h.req(Method::POST, "/api/v1/quotations"),
        json!({"customer_id": invoice.body["customer_id"], "line_items": lines()})
    );
    let qid = q.body["id"].as_i64().unwrap();
    let r = call!(
        &app,
        raw(
            h.req(Method::POST, &format!("/api/v1/quotations/{qid}/send")),
            "{}"
        )
    );
    assert_error(&r, 415, "unsupported_media_type");
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{qid}/send")),
        json!({})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = call!(
        &app,
        raw(
            h.req(Method::POST, &format!("/api/v1/quotations/{qid}/accept")),
            r#"{"name": "Ada"}"#
        )
    );
    assert_error(&r, 415, "unsupported_media_type");
    let r = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/quotations/{qid}"))
    );
    assert_eq!(r.body["status"], "sent");

    // Routes whose body is required.
    let r = call!(
        &app,
        raw(
            h.req(Method::POST, "/api/v1/customers"),
            r#"{"name": "Bob", "email": "bob@example.com"}"#
        )
    );
    assert_error(&r, 415, "unsupported_media_type");
    let r = call!(
        &app,
        raw(
            h.req(Method::PATCH, &format!("/api/v1/invoices/{id}")),
            r#"{"notes": "x"}"#
        )
    );
    assert_error(&r, 415, "unsupported_media_type");

    // DELETE takes no body either.
    let c = call!(
        &app,
        h.req(Method::POST, "/api/v1/customers"),
        json!({"name": "Cy", "email": "cy@example.com"})
    );
    let path = format!("/api/v1/customers/{}", c.body["id"]);
    let r = call!(&app, raw(h.req(Method::DELETE, &path), "{}"));
    assert_error(&r, 415, "unsupported_media_type");
    let r = call!(&app, h.req(Method::GET, &path));
    assert_eq!(r.status, 200, "a refused delete deleted");
    let r = call!(&app, h.req(Method::DELETE, &path));
    assert_eq!(r.status, 204, "{}", r.body);
}

fn assert_object(what: &str, value: &Value, object: &str) {
    assert_eq!(value["object"], object, "{what}: {value}");
}

async fn every_resource_carries_its_object(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let mut seen = Vec::new();
    let mut check = |what: &str, value: &Value, object: &str| {
        assert_object(what, value, object);
        seen.push(object.to_string());
    };

    let c = call!(
        &app,
        h.req(Method::POST, "/api/v1/customers"),
        json!({"name": "Ada", "email": "ada@example.com"})
    );
    check("customer create", &c.body, "customer");
    let cid = c.body["id"].as_i64().unwrap();
    let r = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/customers/{cid}"))
    );
    check("customer get", &r.body, "customer");

    let p = call!(
        &app,
        h.req(Method::POST, "/api/v1/products"),
        json!({"name": "Hour", "unit_price_cents": 1000, "currency": "EUR"})
    );
    check("product create", &p.body, "product");
    let r = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/products/{}", p.body["id"]))
    );
    check("product get", &r.body, "product");

    let i = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        json!({"customer_id": cid, "line_items": lines()})
    );
    check("invoice create", &i.body, "invoice");
    let iid = i.body["id"].as_i64().unwrap();
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{iid}/send"))
    );
    check("invoice send", &r.body, "invoice");
    let r = call!(&app, h.req(Method::GET, &format!("/api/v1/invoices/{iid}")));
    check("invoice get", &r.body, "invoice");

    let r = call!(&app, h.req(Method::GET, "/api/v1/payment-requests"));
    assert_eq!(r.status, 200, "{}", r.body);
    check("payment request", &r.body["data"][0], "payment_request");

    let pay = call!(
        &app,
        h.req(Method::POST, "/api/v1/payments"),
        json!({"invoice_id": iid, "amount_cents": 100, "method": "cash"})
    );
    check("payment create", &pay.body, "payment");
    let r = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/payments/{}", pay.body["id"]))
    );
    check("payment get", &r.body, "payment");

    let q = call!(
        &app,
        h.req(Method::POST, "/api/v1/quotations"),
        json!({"customer_id": cid, "line_items": lines()})
    );
    check("quotation create", &q.body, "quotation");
    let qid = q.body["id"].as_i64().unwrap();
    for action in ["send", "accept"] {
        let r = call!(
            &app,
            h.req(Method::POST, &format!("/api/v1/quotations/{qid}/{action}"))
        );
        check(&format!("quotation {action}"), &r.body, "quotation");
    }
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/quotations/{qid}/convert"))
    );
    assert_eq!(r.status, 201, "{}", r.body);
    check("conversion", &r.body, "quotation_conversion");
    let r = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/quotations/{qid}"))
    );
    check("quotation get", &r.body, "quotation");

    let w = call!(
        &app,
        h.req(Method::POST, "/api/v1/webhooks"),
        json!({"url": "https://93.184.216.34/hook", "events": ["*"]})
    );
    check("webhook create", &w.body, "webhook_endpoint");
    let r = call!(
        &app,
        h.req(Method::GET, &format!("/api/v1/webhooks/{}", w.body["id"]))
    );
    check("webhook get", &r.body, "webhook_endpoint");

    let r = call!(&app, h.req(Method::GET, "/api/v1/events?per_page=100"));
    assert_eq!(r.status, 200, "{}", r.body);
    let events = r.body["data"].as_array().cloned().unwrap_or_default();
    assert!(!events.is_empty());
    for e in &events {
        check("event in a list", e, "event");
        // The resource an event carries is the resource as the API returns it.
        assert!(e["data"]["object"]["object"].is_string(), "{e}");
    }
    let eid = events[0]["id"].as_i64().unwrap();
    let r = call!(&app, h.req(Method::GET, &format!("/api/v1/events/{eid}")));
    check("event get", &r.body, "event");
    let r = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/events/{eid}/redeliver"))
    );
    assert_eq!(r.status, 202, "{}", r.body);
    check("redelivery", &r.body, "event_redelivery");

    // Every list item is one of the resources above, with its object too.
    for (list, object) in [
        ("customers", "customer"),
        ("invoices", "invoice"),
        ("quotations", "quotation"),
        ("payments", "payment"),
        ("products", "product"),
        ("webhooks", "webhook_endpoint"),
    ] {
        let r = call!(&app, h.req(Method::GET, &format!("/api/v1/{list}")));
        let data = r.body["data"].as_array().cloned().unwrap_or_default();
        assert!(!data.is_empty(), "{list}");
        for item in &data {
            check(list, item, object);
        }
    }
    for object in [
        "customer",
        "invoice",
        "quotation",
        "quotation_conversion",
        "payment",
        "payment_request",
        "product",
        "event",
        "event_redelivery",
        "webhook_endpoint",
    ] {
        assert!(seen.iter().any(|s| s == object), "{object} never checked");
    }
}

/// The schema of a query parameter, `$ref`s resolved.
fn query_schema(doc: &Value, path: &str, name: &str) -> Value {
    let params = doc["paths"][path]["get"]["parameters"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let param = params
        .iter()
        .find(|p| p["name"] == name && p["in"] == "query")
        .unwrap_or_else(|| panic!("{path} declares no {name}"));
    let mut schema = param["schema"].clone();
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.trim_start_matches("#/components/schemas/");
        schema = doc["components"]["schemas"][name].clone();
    }
    schema
}

async fn list_filters_are_declared_as_enforced(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let doc = invoicing_http::route_table::document();

    // `email`: an empty or blank value is refused, and the document says so.
    let email = query_schema(doc, "/api/v1/customers", "email");
    assert_eq!(email["minLength"], 1, "{email}");
    let pattern = email["pattern"].as_str().unwrap_or("");
    for value in ["", "%20%20"] {
        let r = call!(
            &app,
            h.req(Method::GET, &format!("/api/v1/customers?email={value}"))
        );
        assert_error(&r, 400, "invalid_parameter");
    }
    assert!(
        pattern.contains("\\s"),
        "the pattern refuses blank values: {pattern}"
    );
    let r = call!(
        &app,
        h.req(Method::GET, "/api/v1/customers?email=ada%40example.com")
    );
    assert_eq!(r.status, 200, "{}", r.body);

    // Choice filters: exactly the values the server takes, so an empty one is outside the enum.
    let choices = [
        ("/api/v1/events", "type"),
        ("/api/v1/invoices", "status"),
        ("/api/v1/quotations", "status"),
        ("/api/v1/payments", "status"),
    ];
    for (path, name) in choices {
        let schema = query_schema(doc, path, name);
        let values: Vec<String> = schema["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("{path} {name} declares no enum: {schema}"))
            .iter()
            .map(|v| v.as_str().unwrap_or("").to_string())
            .collect();
        assert!(!values.iter().any(String::is_empty), "{path} {name}");
        for value in &values {
            let r = call!(&app, h.req(Method::GET, &format!("{path}?{name}={value}")));
            assert_eq!(r.status, 200, "{path}?{name}={value}: {}", r.body);
        }
        for value in ["", "nope"] {
            let r = call!(&app, h.req(Method::GET, &format!("{path}?{name}={value}")));
            assert_error(&r, 400, "invalid_parameter");
        }
    }
    let types = query_schema(doc, "/api/v1/events", "type");
    assert_eq!(types["enum"], json!(EVENT_TYPES));

    // Ids are positive, dates are dates.
    for (path, name) in [
        ("/api/v1/invoices", "customer_id"),
        ("/api/v1/quotations", "customer_id"),
        ("/api/v1/payments", "customer_id"),
        ("/api/v1/payments", "invoice_id"),
    ] {
        assert_eq!(query_schema(doc, path, name)["minimum"], 1, "{path} {name}");
        let r = call!(&app, h.req(Method::GET, &format!("{path}?{name}=0")));
        assert_error(&r, 400, "invalid_parameter");
    }
    for name in ["created_after", "created_before"] {
        assert_eq!(
            query_schema(doc, "/api/v1/invoices", name)["format"],
            "date",
            "{name}"
        );
    }
}

http_tests!(
    null_on_a_required_patch_field_is_422,
    a_body_without_json_content_type_is_415,
    every_resource_carries_its_object,
    list_filters_are_declared_as_enforced,
);
