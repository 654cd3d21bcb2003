//! SPEC §3 and §4 from every source: transport, request bodies, routing, outages, panics, and
//! the OpenAPI document against the route table.

use crate::common::*;
use actix_web::http::Method;
use actix_web::middleware::from_fn;
use actix_web::test::{init_service, TestRequest};
use actix_web::{web, App, HttpResponse};
use invoicing_domain::tenant::Environment;
use invoicing_http::{build_app, envelope::envelope, route_table};
use invoicing_storage::Backend;
use serde_json::{json, Value};

async fn plain_http_is_refused_or_redirected(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    // Percent-encoding routes to the same place, and is guarded the same way.
    for path in [
        "/api/v1/customers",
        "/v1/payment-requests",
        "/api/v1/nope",
        "/%61pi/v1/customers",
    ] {
        let plain = TestRequest::get()
            .uri(path)
            .peer_addr("198.51.100.4:5000".parse().unwrap())
            .insert_header(("authorization", format!("Bearer {}", h.key)))
            .insert_header(("x-forwarded-proto", "https"));
        let r = send(&app, plain).await;
        assert_error(&r, 403, "https_required");
        assert!(r.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("clear"));
        assert!(r.header("strict-transport-security").is_empty());
        assert_api_headers(&r);
    }
    let encoded = send(&app, h.req(Method::GET, "/%61pi/v1/customers")).await;
    assert_eq!(encoded.status, 200, "{}", encoded.body);
    assert_api_headers(&encoded);
    let anonymous = send(&app, h.anonymous(Method::GET, "/%61pi/v1/customers")).await;
    assert_error(&anonymous, 401, "missing_api_key");
    assert_api_headers(&anonymous);
    let trusted_but_http = h
        .req(Method::GET, "/api/v1/customers")
        .insert_header(("x-forwarded-proto", "http"));
    assert_error(&send(&app, trusted_but_http).await, 403, "https_required");
    let page = TestRequest::get()
        .uri("/invoice/INV-2026-000001?token=abc")
        .peer_addr("198.51.100.4:5000".parse().unwrap());
    let r = send(&app, page).await;
    assert_eq!(r.status, 301);
    assert_eq!(
        r.header("location"),
        format!("{PUBLIC_URL}/invoice/INV-2026-000001?token=abc")
    );
    let https = send(&app, h.req(Method::GET, "/api/v1/customers")).await;
    assert!(https
        .header("strict-transport-security")
        .starts_with("max-age="));
}

async fn request_ids_are_kept_or_made(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let r = send(
        &app,
        h.req(Method::GET, "/api/v1/customers")
            .insert_header(("x-request-id", "client-abc.123")),
    )
    .await;
    assert_eq!(r.header("x-request-id"), "client-abc.123");
    let r = send(
        &app,
        h.req(Method::GET, "/api/v1/nope")
            .insert_header(("x-request-id", "bad id with spaces")),
    )
    .await;
    assert!(r.header("x-request-id").starts_with("req_"));
    assert_error(&r, 404, "route_not_found");
}

async fn bodies_are_checked_in_order(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let post = || h.req(Method::POST, "/api/v1/customers");
    let r = send(
        &app,
        post()
            .insert_header(("content-type", "text/plain"))
            .set_payload("{}"),
    )
    .await;
    assert_error(&r, 415, "unsupported_media_type");
    assert_api_headers(&r);
    assert_error(
        &send(&app, post().set_payload(r#"{"name":"a"}"#)).await,
        415,
        "unsupported_media_type",
    );
    let big = format!(
        r#"{{"name": "{}", "email": "a@example.com"}}"#,
        "a".repeat(1024 * 1024)
    );
    let r = send(
        &app,
        post()
            .insert_header(("content-type", "application/json"))
            .set_payload(big),
    )
    .await;
    assert_error(&r, 413, "payload_too_large");
    let raw = |body: &str| {
        post()
            .insert_header(("content-type", "application/json; charset=utf-8"))
            .set_payload(body.to_string())
    };
    assert_error(&send(&app, raw("{\"name\": ")).await, 400, "invalid_json");
    assert_error(&send(&app, raw("")).await, 400, "invalid_json");
    let deep = format!("{}{}", "[".repeat(33), "]".repeat(33));
    assert_error(&send(&app, raw(&deep)).await, 400, "invalid_json");
    // A key given twice is refused at any depth, not read as its last value.
    for twice in [
        r#"{"name": "Ada", "email": "a@example.com", "name": "Eve"}"#,
        r#"{"name": "Ada", "email": "a@example.com", "metadata": {"k": "1", "k": "2"}}"#,
    ] {
        let r = send(&app, raw(twice)).await;
        assert_error(&r, 400, "invalid_json");
        assert!(r.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("twice"));
    }
    let wrong_type = send(&app, raw(r#"{"name": ["Ada"], "email": "a@example.com"}"#)).await;
    assert_error(&wrong_type, 400, "invalid_parameter");
    assert_eq!(wrong_type.body["error"]["param"], "name");
    let unknown = send(
        &app,
        raw(r#"{"name": "Ada", "email": "a@example.com", "emial": "x"}"#),
    )
    .await;
    assert_error(&unknown, 400, "invalid_parameter");
    assert_eq!(unknown.body["error"]["param"], "emial");
    let list = send(&app, h.req(Method::GET, "/api/v1/customers")).await;
    assert_eq!(list.body["total"], 0, "no refused body created anything");
}

async fn unknown_routes_and_methods(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    assert_error(
        &send(&app, h.req(Method::GET, "/api/v1/widgets")).await,
        404,
        "route_not_found",
    );
    assert_error(
        &send(&app, h.req(Method::GET, "/nothing-here")).await,
        404,
        "route_not_found",
    );
    let r = send(&app, h.req(Method::PUT, "/api/v1/customers")).await;
    assert_error(&r, 405, "method_not_allowed");
    assert_eq!(r.header("allow"), "POST, GET");
    assert_api_headers(&r);
    let r = send(&app, h.req(Method::POST, "/api/v1/customers/1")).await;
    assert_eq!(r.header("allow"), "GET, PATCH, DELETE");
}

/// SPEC §27: outside the API a browser gets an HTML page in its language with a way on, an API
/// client the JSON of §4; `/`, a trailing slash and `/favicon.ico` lead on, never off the host.
async fn people_get_pages_and_clients_get_json(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let browser = |path: &str, language: &str| {
        h.anonymous(Method::GET, path)
            .insert_header(("accept", "text/html,application/xhtml+xml,*/*;q=0.8"))
            .insert_header(("accept-language", language))
    };
    let r = send_raw(&app, h.anonymous(Method::GET, "/")).await;
    assert_eq!((r.status, r.header("location")), (303, "/dashboard"));
    for (from, to) in [
        ("/dashboard/", "/dashboard"),
        (
            "/dashboard/invoices/?status=sent",
            "/dashboard/invoices?status=sent",
        ),
        ("/favicon.ico", "/dashboard/assets/favicon.svg"),
    ] {
        let r = send_raw(&app, browser(from, "en")).await;
        assert_eq!((r.status, r.header("location")), (301, to), "{from}");
    }
    let icon = send_raw(
        &app,
        h.anonymous(Method::GET, "/dashboard/assets/favicon.svg"),
    )
    .await;
    assert_eq!(icon.status, 200);
    assert_eq!(icon.header("content-type"), "image/svg+xml");
    // Never to another host, and never for the API.
    let r = send_raw(&app, browser("//evil.example/", "en")).await;
    assert_eq!(r.status, 404);
    assert!(r.headers.get("location").is_none());
    let r = send(&app, h.req(Method::GET, "/api/v1/customers/")).await;
    assert_error(&r, 404, "route_not_found");
    // An unknown page, in the browser's language, with a way on.
    let r = send_raw(&app, browser("/nothing-here", "de-DE,de;q=0.9,en;q=0.5")).await;
    assert_eq!(r.status, 404);
    assert!(
        r.header("content-type").starts_with("text/html"),
        "{}",
        r.header("content-type")
    );
    let page = r.text();
    assert!(
        page.contains("<html lang=\"de\">") && page.contains("Diese Seite gibt es nicht"),
        "{page}"
    );
    assert!(page.contains("href=\"/dashboard\""), "a way on: {page}");
    assert!(!r.header("x-request-id").is_empty());
    // A customer's link that lost a character: a page in their language, not "No such invoice".
    let inv = call!(
        &app,
        h.req(Method::POST, "/api/v1/invoices"),
        json!({"customer": {"name": "Ana", "email": "ana@example.com"},
            "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 1000}]})
    );
    let id = inv.body["id"].as_i64().unwrap();
    let sent = call!(
        &app,
        h.req(Method::POST, &format!("/api/v1/invoices/{id}/send"))
    );
    let link = sent.body["payment_link"].as_str().unwrap().to_string();
    let cut = link.strip_prefix(PUBLIC_URL).unwrap();
    let cut = &cut[..cut.len() - 1];
    let r = send_raw(&app, browser(cut, "fr")).await;
    assert_eq!(r.status, 404);
    let page = r.text();
    assert!(
        page.contains("<html lang=\"fr\">") && page.contains("Cette page n&#39;existe pas"),
        "{page}"
    );
    assert!(
        !page.contains("No such invoice") && !page.contains(&link),
        "{page}"
    );
    // API clients (no HTML asked for) and the API itself keep SPEC §4's JSON.
    let r = send(&app, h.anonymous(Method::GET, cut)).await;
    assert_error(&r, 404, "resource_missing");
    assert_error(
        &send(&app, h.anonymous(Method::GET, "/nothing-here")).await,
        404,
        "route_not_found",
    );
    let r = send(
        &app,
        h.req(Method::GET, "/api/v1/widgets")
            .insert_header(("accept", "text/html")),
    )
    .await;
    assert_error(&r, 404, "route_not_found");
}

async fn health_probes_and_outage(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    assert_eq!(
        send(&app, h.anonymous(Method::GET, "/healthz"))
            .await
            .status,
        200
    );
    assert_eq!(
        send(&app, h.anonymous(Method::GET, "/readyz")).await.status,
        200
    );
    if h.db.backend() != Backend::Postgres {
        return; // an open SQLite file cannot be taken away from its connections
    }
    h.db.destroy();
    assert_eq!(
        send(&app, h.anonymous(Method::GET, "/healthz"))
            .await
            .status,
        200
    );
    assert_error(
        &send(&app, h.anonymous(Method::GET, "/readyz")).await,
        503,
        "service_unavailable",
    );
    let r = send(&app, h.req(Method::GET, "/api/v1/customers")).await;
    assert_error(&r, 503, "service_unavailable");
    assert_eq!(r.body["error"]["type"], "api_error");
    assert_api_headers(&r);
}

http_tests!(
    plain_http_is_refused_or_redirected,
    request_ids_are_kept_or_made,
    bodies_are_checked_in_order,
    unknown_routes_and_methods,
    people_get_pages_and_clients_get_json,
    health_probes_and_outage,
);

#[actix_web::test]
async fn panics_become_a_bare_500() {
    let app = init_service(
        App::new()
            .route(
                "/api/boom",
                web::get().to(|| async {
                    if true {
                        panic!("secret detail /etc/passwd");
                    }
                    HttpResponse::Ok().finish()
                }),
            )
            .wrap(from_fn(envelope)),
    )
    .await;
    let r = send(
        &app,
        TestRequest::get()
            .uri("/api/boom")
            .insert_header(("x-request-id", "boom-2")),
    )
    .await;
    assert_eq!(r.status.as_u16(), 500);
    assert_eq!(r.code(), "internal_error");
    assert_eq!(r.body["error"]["request_id"], "boom-2");
    assert!(
        !r.body.to_string().contains("passwd"),
        "no internals in {}",
        r.body
    );
}

/// A path id that is not a positive integer names no resource: 404 naming the id's kind. It is
/// read where the handler needs it, so the key's scope and the body are answered first.
#[actix_web::test]
async fn bad_path_ids_are_missing_resources_of_their_kind() {
    let h = Harness::new(Backend::Sqlite).unwrap();
    let app = init_service(build_app(h.state.clone())).await;
    let kind = |path: &str| match path.split('/').nth(3).unwrap() {
        "customers" => "customer",
        "invoices" => "invoice",
        "credit_notes" => "credit note",
        "recurring_invoices" => "recurring invoice",
        "emails" => "email",
        "events" => "event",
        "webhooks" => "webhook endpoint",
        "quotations" => "quotation",
        "payments" => "payment",
        "products" => "product",
        other => panic!("no id kind for /{other}"),
    };
    let mut checked = 0;
    for e in route_table::endpoints() {
        // The dashboard's pages answer a bad id with a 404 page (tests/api/dashboard.rs).
        // The portal reads a document's id after its token (tests/api/portal.rs).
        if !e.path.contains("{id}") || !e.path.starts_with("/api") {
            continue;
        }
        for method in e.actix_methods() {
            // A body every handler reads past (the payment PATCH requires a status).
            let body = if method == Method::PATCH && e.path == "/api/v1/payments/{id}" {
                json!({"status": "verified"})
            } else {
                json!({})
            };
            for id in ["abc", "0", "-1", "1.5", "9223372036854775808", "%20"] {
                let path = e.path.replace("{id}", id);
                let r = send(&app, json(h.req(method.clone(), &path), &body)).await;
                assert_error(&r, 404, "resource_missing");
                assert_eq!(
                    r.body["error"]["message"],
                    format!("No such {}", kind(&e.path)).as_str(),
                    "{method} {path}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 200, "{checked}");
    // Percent-encoded, a good id is still good.
    let customer = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/customers"),
            &json!({"name": "Ada", "email": "ada@example.com"}),
        ),
    )
    .await;
    let id = customer.body["id"].as_i64().unwrap();
    let encoded: String = id
        .to_string()
        .bytes()
        .map(|b| format!("%{b:02X}"))
        .collect();
    let r = send(
        &app,
        h.req(Method::GET, &format!("/api/v1/customers/{encoded}")),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["id"], id);
    // The scope is checked first, and a body is read before the id.
    let weak = h.make_key(h.account, Environment::Test, "account:read", GENEROUS, None);
    let r = send(&app, h.req_as(&weak, Method::GET, "/api/v1/customers/abc")).await;
    assert_error(&r, 403, "insufficient_permissions");
    let r = send(
        &app,
        h.req(Method::PATCH, "/api/v1/customers/abc")
            .insert_header(("content-type", "application/json"))
            .set_payload("{"),
    )
    .await;
    assert_error(&r, 400, "invalid_json");
    let r = send(&app, h.anonymous(Method::GET, "/api/v1/customers/abc")).await;
    assert_error(&r, 401, "missing_api_key");
}

/// The route table is the one list of endpoints: the router serves it and the document is made
/// of it. So what is checked here is that the two uses agree with what the app does: the table
/// names each method and path once, the document has an operation for each and no other, and
/// the running app answers every documented operation (never `route_not_found` nor 405) and
/// refuses every other method on a documented path with 405 naming exactly the documented ones.
#[actix_web::test]
async fn openapi_lists_exactly_the_served_routes() {
    let h = Harness::new(Backend::Sqlite).unwrap();
    let app = init_service(build_app(h.state.clone())).await;
    let r = send(&app, h.anonymous(Method::GET, "/api/v1/openapi.json")).await;
    assert_eq!(r.status, 200);
    assert_api_headers(&r);
    let api_doc = r.body.clone();
    let doc = &both_documents(&app, &h).await;
    assert_eq!(doc["openapi"], "3.1.0");
    let paths = doc["paths"].as_object().unwrap();
    let mut documented: Vec<(String, String)> = paths
        .iter()
        .flat_map(|(p, item)| {
            item.as_object()
                .unwrap()
                .keys()
                .map(move |m| (m.to_uppercase(), p.clone()))
        })
        .collect();
    let table = route_table::endpoints();
    let mut served: Vec<(String, String)> = table
        .iter()
        .flat_map(|e| {
            e.actix_methods()
                .into_iter()
                .map(|m| (m.to_string(), e.path.clone()))
        })
        .collect();
    documented.sort();
    served.sort();
    let listed = served.len();
    served.dedup();
    assert_eq!(served.len(), listed, "a method and path listed twice");
    assert_eq!(documented, served);
    // The app routes each documented operation to a handler.
    let concrete = |path: &str| path.replace("{id}", "1").replace("{number}", "INV-0001");
    for (method, path) in &documented {
        let r = send(&app, h.req(method.parse().unwrap(), &concrete(path))).await;
        assert!(
            r.status != 405 && r.code() != "route_not_found",
            "{method} {path} is documented but not routed: {} {}",
            r.status,
            r.body
        );
    }
    // And only those: another method on the path is 405, `Allow` naming the documented ones.
    for (path, item) in paths {
        let mut allowed: Vec<String> = item
            .as_object()
            .unwrap()
            .keys()
            .map(|m| m.to_uppercase())
            .collect();
        allowed.sort();
        let other = ["PUT", "DELETE", "PATCH", "POST", "GET"]
            .into_iter()
            .find(|m| !allowed.iter().any(|a| a == m))
            .unwrap();
        let r = send(&app, h.req(other.parse().unwrap(), &concrete(path))).await;
        assert_error(&r, 405, "method_not_allowed");
        let mut allow: Vec<String> = r.header("allow").split(", ").map(str::to_string).collect();
        allow.sort();
        assert_eq!(allow, allowed, "Allow on {path}");
    }
    // Paging bounds as the parser enforces them; bodies the handlers do without are optional.
    // (The dashboard's links take any text: a screen refuses a bad page as a page.)
    for (method, path) in &served {
        let op = &paths[path][method.to_lowercase()];
        if path.starts_with("/dashboard") {
            continue;
        }
        for p in op["parameters"].as_array().into_iter().flatten() {
            match p["name"].as_str() {
                Some("page") => assert_eq!(p["schema"]["minimum"], 1, "{method} {path}"),
                Some("per_page") => {
                    assert_eq!(p["schema"]["minimum"], 1, "{method} {path}");
                    assert_eq!(p["schema"]["maximum"], 100, "{method} {path}");
                }
                _ => {}
            }
        }
    }
    for path in [
        "/api/v1/quotations/{id}/accept",
        "/api/v1/quotations/{id}/reject",
        "/api/v1/quotations/{id}/convert",
        "/api/v1/payments/{id}/reject",
    ] {
        let body = &paths[path]["post"]["requestBody"];
        assert!(body.is_object(), "{path}");
        assert_ne!(body["required"], true, "{path}: the body is optional");
    }
    assert_eq!(
        paths["/api/v1/invoices"]["post"]["requestBody"]["required"],
        true
    );
    for (method, path) in &served {
        let op = &paths[path][method.to_lowercase()];
        let codes: Vec<&str> = op["responses"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert!(codes.contains(&"500"), "{method} {path}: {codes:?}");
        if path.starts_with("/api/") && path != "/api/v1/openapi.json" {
            for code in ["401", "403", "429", "503"] {
                assert!(
                    codes.contains(&code),
                    "{method} {path} lacks {code}: {codes:?}"
                );
            }
        }
        if op.get("requestBody").is_some() {
            // A dashboard form only answers 422 where it shows itself again with its refusals;
            // a body with no fields to refuse (a capability token alone, a signed event) has
            // no 422 either.
            let no_fields = ["/invoice/{number}/card", "/webhooks/stripe/{endpoint}"];
            let fields = if path.starts_with("/dashboard") || no_fields.contains(&path.as_str()) {
                3
            } else {
                4
            };
            for code in &["400", "413", "415", "422"][..fields] {
                assert!(codes.contains(code), "{method} {path} lacks {code}");
            }
        }
        // Routes that take no body still refuse one that is not JSON or not empty.
        let writes = matches!(method.as_str(), "POST" | "PATCH" | "DELETE");
        if path.starts_with("/api/") && writes {
            for code in ["400", "408", "413", "415"] {
                assert!(codes.contains(&code), "{method} {path} lacks {code}");
            }
        }
    }
    let mut ids: Vec<&str> = served
        .iter()
        .map(|(m, p)| paths[p][m.to_lowercase()]["operationId"].as_str().unwrap())
        .collect();
    ids.sort();
    let before = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), before, "operationIds are unique");
    // Every reference resolves.
    let text = doc.to_string();
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    for piece in text.split("\"#/components/schemas/").skip(1) {
        let name = piece.split('"').next().unwrap();
        assert!(schemas.contains_key(name), "dangling $ref {name}");
    }
    // Kept for the external validators and client generators that scripts/test applies
    // (openapi-spec-validator, Redocly, the Python and TypeScript clients, the fuzzer).
    let dashboard_doc = send(&app, h.anonymous(Method::GET, "/dashboard/openapi.json"))
        .await
        .body;
    for (var, doc) in [
        ("OPENAPI_OUT", &api_doc),
        ("DASHBOARD_OPENAPI_OUT", &dashboard_doc),
    ] {
        if let Ok(out) = std::env::var(var) {
            if let Some(dir) = std::path::Path::new(&out).parent() {
                std::fs::create_dir_all(dir).unwrap();
            }
            std::fs::write(out, serde_json::to_vec_pretty::<Value>(doc).unwrap()).unwrap();
        }
    }
}

/// The two served documents as one (their paths and schemas together), after checking that
/// each holds its own paths only: the API's the API, the probes and the public pages, the
/// dashboard's the dashboard; and that no success mixes JSON with another body type (a list's
/// CSV is an operation of its own).
async fn both_documents<S, B>(app: &S, h: &Harness) -> Value
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let api = send(app, h.anonymous(Method::GET, "/api/v1/openapi.json")).await;
    let dashboard = send(app, h.anonymous(Method::GET, "/dashboard/openapi.json")).await;
    assert_eq!(dashboard.status, 200, "{}", dashboard.body);
    let (api, dashboard) = (api.body, dashboard.body);
    for (path, _) in api["paths"].as_object().unwrap() {
        assert!(
            !path.starts_with("/dashboard"),
            "{path} in the API's document"
        );
    }
    for (path, _) in dashboard["paths"].as_object().unwrap() {
        assert!(
            path.starts_with("/dashboard"),
            "{path} in the dashboard's document"
        );
    }
    for (path, item) in api["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            for (status, answer) in op["responses"].as_object().unwrap() {
                let media: Vec<&String> = answer["content"]
                    .as_object()
                    .map(|c| c.keys().collect())
                    .unwrap_or_default();
                // A success a client reads as JSON is JSON only (images may come as PNG or JPEG,
                // one binary body type).
                let json = media.iter().any(|m| *m == "application/json");
                assert!(
                    !status.starts_with('2') || !json || media.len() == 1,
                    "{method} {path} {status}: one body type, not {media:?}"
                );
                if path.ends_with(".csv") && status == "200" {
                    assert_eq!(media, ["text/csv"], "{path}");
                }
            }
        }
    }
    let mut both = api.clone();
    for (path, item) in dashboard["paths"].as_object().unwrap() {
        both["paths"][path] = item.clone();
    }
    for (name, schema) in dashboard["components"]["schemas"].as_object().unwrap() {
        both["components"]["schemas"][name] = schema.clone();
    }
    both
}

/// `{tag}_{handler}` in snake case, the tag naming the resource.
fn tag_prefix(op: &Value) -> String {
    op["tags"][0].as_str().unwrap().replace(' ', "_") + "_"
}

/// What a `$ref` to a component names, resolved in `doc`.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(r) => doc
            .pointer(r.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("dangling {r}")),
        None => schema,
    }
}

/// Walks every operation of the served document and checks what SPEC §1, §3, §4, §6 and §15
/// say every answer carries, so a route added later is held to the same rules.
#[actix_web::test]
async fn openapi_declares_headers_security_bodies_and_ids() {
    use invoicing_domain::{payment, payment_amount, quotation};
    let h = Harness::new(Backend::Sqlite).unwrap();
    let app = init_service(build_app(h.state.clone())).await;
    let doc = &both_documents(&app, &h).await;
    assert_eq!(doc["servers"], serde_json::json!([{"url": PUBLIC_URL}]));
    let headers = doc["components"]["headers"].as_object().unwrap();
    let rate_limit = [
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
        "RateLimit-Policy",
        "RateLimit",
    ];
    // Files (logos, PDFs) are bytes, wherever they are sent or answered.
    let mut files = 0;
    for item in doc["paths"].as_object().unwrap().values() {
        for op in item.as_object().unwrap().values() {
            let bodies = op["requestBody"]["content"].as_object().into_iter();
            let answers = op["responses"]
                .as_object()
                .into_iter()
                .flat_map(|r| r.values())
                .filter_map(|a| a["content"].as_object());
            for content in bodies.chain(answers) {
                for (media, entry) in content {
                    if media.starts_with("image/") || media == "application/pdf" {
                        files += 1;
                        assert_eq!(
                            entry["schema"],
                            serde_json::json!({"type": "string", "format": "binary"}),
                            "{media}"
                        );
                    }
                }
            }
        }
    }
    assert!(files >= 7, "the logo's and the PDFs' bodies: {files}");
    let mut ids = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        let api = path.starts_with("/api/") || path.starts_with("/v1/");
        for (method, op) in item.as_object().unwrap() {
            let at = format!("{method} {path}");
            // One naming rule for every operation id.
            let id = op["operationId"].as_str().unwrap();
            assert!(id.starts_with(&tag_prefix(op)), "{at}: {id}");
            assert!(
                id.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
                    && !id.contains("__")
                    && !id.ends_with('_'),
                "{at}: {id} is not snake case"
            );
            ids.push(id.to_string());
            // Public routes say so; every other one takes the key.
            let public = !api || path == "/api/v1/openapi.json";
            let expected = if public {
                serde_json::json!([])
            } else {
                serde_json::json!([{"api_key": []}])
            };
            assert_eq!(op["security"], expected, "{at}");
            let keyed_post = method == "post" && !public;
            for (status, response) in op["responses"].as_object().unwrap() {
                let at = format!("{at} {status}");
                let declared = |name: &str| {
                    response["headers"][name]["$ref"].as_str()
                        == Some(&format!("#/components/headers/{name}"))
                };
                assert!(declared("X-Request-Id"), "{at}");
                for name in rate_limit {
                    assert_eq!(declared(name), api, "{at}: {name}");
                }
                assert_eq!(
                    declared("Retry-After"),
                    status == "429" || status == "503",
                    "{at}"
                );
                let replayable = status.starts_with('2') || status == "404" || status == "409";
                assert_eq!(
                    declared("Idempotent-Replayed"),
                    keyed_post && replayable,
                    "{at}"
                );
                for name in response["headers"].as_object().unwrap().keys() {
                    assert!(
                        name == "Location" || headers.contains_key(name),
                        "{at}: {name}"
                    );
                }
                // Every body has a schema; HTML is a string, errors are the §4 body.
                for (media, content) in response["content"].as_object().into_iter().flatten() {
                    assert!(content["schema"].is_object(), "{at} {media}");
                    if media == "text/html" {
                        assert_eq!(content["schema"]["type"], "string", "{at}");
                    }
                }
                let page = path.starts_with("/dashboard") && status != "408" && status != "413";
                if page && (status.starts_with('4') || status.starts_with('5')) {
                    // The dashboard's refusals are pages (SPEC §21).
                    assert!(response["content"]["text/html"].is_object(), "{at}");
                } else if status.starts_with('4') || status.starts_with('5') {
                    // A customer's form answered again with what is wrong beside its field.
                    let form_page = path.starts_with("/invoice/") || path == "/portal/login";
                    let html = form_page && status == "422";
                    let media = if html {
                        "text/html"
                    } else {
                        "application/json"
                    };
                    assert!(response["content"][media].is_object(), "{at}");
                    if !html {
                        assert_eq!(
                            response["content"][media]["schema"]["$ref"],
                            "#/components/schemas/ErrorBody",
                            "{at}"
                        );
                    }
                }
            }
            if !api {
                assert!(op["responses"]["301"].is_object(), "{at}: plain HTTP");
            }
            if let Some(body) = op.get("requestBody") {
                assert!(body["required"].is_boolean(), "{at}: required stated");
                for (media, content) in body["content"].as_object().unwrap() {
                    if media.starts_with("image/") {
                        // A file upload: its bytes.
                        assert_eq!(
                            content["schema"],
                            serde_json::json!({"type": "string", "format": "binary"}),
                            "{at} {media}"
                        );
                        continue;
                    }
                    // A plain reference, never `oneOf` with null: generators read that as
                    // "the body may be null".
                    assert!(content["schema"]["$ref"].is_string(), "{at} {media}");
                    let schema = resolve(doc, &content["schema"]);
                    let form = media == "application/x-www-form-urlencoded"
                        || media == "multipart/form-data";
                    if form && path.starts_with("/dashboard") {
                        // The dashboard's forms (a file upload's too): the session's token and
                        // the page's fields.
                        assert_eq!(schema["properties"]["csrf"]["type"], "string", "{at}");
                        assert_eq!(body["required"], false, "{at}: no session, no body read");
                    } else if form {
                        let required: Vec<&str> = schema["required"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|v| v.as_str().unwrap())
                            .collect();
                        // Every public form carries its page's capability, but the one that
                        // asks for a capability by email (the portal's login, SPEC §26).
                        let asks = path == "/portal/login";
                        assert!(required.contains(&"token") != asks, "{at}");
                        for (name, field) in schema["properties"].as_object().unwrap() {
                            assert_eq!(field["type"], "string", "{at} {name}");
                            // Text is bounded; a file (multipart only) is bytes.
                            let file =
                                media == "multipart/form-data" && field["format"] == "binary";
                            assert!(field["maxLength"].is_u64() || file, "{at} {name}");
                        }
                        for name in required {
                            assert!(schema["properties"][name].is_object(), "{at} {name}");
                        }
                    } else {
                        assert_eq!(media, "application/json", "{at}");
                    }
                }
            }
        }
        // The canonical verb is the POST; the PATCH of the interface is its `_patch` twin.
        let last = path.rsplit('/').next().unwrap();
        if let (Some(post), Some(patch)) = (item.get("post"), item.get("patch")) {
            assert_eq!(post["operationId"], format!("{}{last}", tag_prefix(post)));
            assert_eq!(
                patch["operationId"],
                format!("{}{last}_patch", tag_prefix(patch))
            );
        }
    }
    assert!(ids.iter().any(|i| i == "invoices_send"));
    assert!(ids.iter().any(|i| i == "quotations_send"));
    assert!(ids.iter().any(|i| i == "quotations_send_patch"));

    // The probes and the document itself, with their JSON bodies; the headers they declare
    // required are the ones they send.
    let paths = &doc["paths"];
    for path in ["/healthz", "/readyz", "/api/v1/openapi.json"] {
        let reply = send(&app, h.anonymous(Method::GET, path)).await;
        assert_eq!(reply.status, 200, "{path}");
        let declared = paths[path]["get"]["responses"]["200"]["headers"]
            .as_object()
            .unwrap();
        for name in declared.keys() {
            let header = resolve(doc, &declared[name]);
            if header["required"] == true {
                assert!(!reply.header(name).is_empty(), "{path} lacks {name}");
            }
        }
    }
    let json_of = |path: &str, status: &str| {
        let c = &paths[path]["get"]["responses"][status]["content"]["application/json"];
        resolve(doc, &c["schema"]).clone()
    };
    assert_eq!(
        json_of("/healthz", "200")["properties"]["status"]["$ref"],
        "#/components/schemas/LiveStatus"
    );
    assert_eq!(
        json_of("/readyz", "200")["properties"]["status"]["$ref"],
        "#/components/schemas/ReadyStatus"
    );
    assert!(json_of("/readyz", "503")["properties"]["error"].is_object());
    assert_eq!(json_of("/api/v1/openapi.json", "200")["type"], "object");
    for (page, status) in [("/invoice/{number}", "200"), ("/quote/{number}", "200")] {
        let c = &paths[page]["get"]["responses"][status]["content"]["text/html"];
        assert_eq!(c["schema"]["type"], "string", "{page}");
    }

    // The forms' bounds are the ones the handlers enforce.
    let form = |path: &str| {
        let body = &paths[path]["post"]["requestBody"];
        assert_eq!(body["required"], true, "{path}");
        resolve(
            doc,
            &body["content"]["application/x-www-form-urlencoded"]["schema"],
        )
        .clone()
    };
    let report = form("/invoice/{number}/payments");
    assert_eq!(
        report["required"],
        serde_json::json!(["token", "amount", "reference"])
    );
    assert_eq!(
        report["properties"]["reference"]["maxLength"],
        payment::REFERENCE_MAX
    );
    assert_eq!(
        report["properties"]["amount"]["maxLength"],
        payment_amount::MAX_TEXT
    );
    let accept = form("/quote/{number}/accept");
    assert_eq!(accept["required"], serde_json::json!(["token"]));
    assert_eq!(
        accept["properties"]["name"]["maxLength"],
        quotation::SIGNER_MAX
    );
    let decline = form("/quote/{number}/decline");
    assert_eq!(
        decline["properties"]["reason"]["maxLength"],
        quotation::REASON_MAX
    );

    // Optional JSON bodies are plain references that may be left out.
    for path in [
        "/api/v1/quotations/{id}/accept",
        "/api/v1/quotations/{id}/reject",
        "/api/v1/quotations/{id}/convert",
        "/api/v1/payments/{id}/reject",
    ] {
        let body = &paths[path]["post"]["requestBody"];
        assert_eq!(body["required"], false, "{path}");
        let schema = &body["content"]["application/json"]["schema"];
        assert!(
            schema["$ref"].is_string() && schema.get("oneOf").is_none(),
            "{path}"
        );
    }
}

/// The names a schema lists under `required`.
fn required_of(schema: &Value) -> Vec<&str> {
    schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// Issue 16, item 2: the answers as typed clients read them. Every field a resource always
/// carries is `required` (nullable where it may be null), `object` is the resource's constant,
/// enums are named and shared, and an event's `data.object` is told apart by its `object`.
/// Then real answers are held to it: every required field is there, and nothing undeclared.
#[actix_web::test]
async fn openapi_outputs_are_required_typed_and_discriminated() {
    let h = Harness::new(Backend::Sqlite).unwrap();
    let app = init_service(build_app(h.state.clone())).await;
    let r = send(&app, h.anonymous(Method::GET, "/api/v1/openapi.json")).await;
    let doc = r.body.clone();
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    let resources = [
        ("Customer", "customer"),
        ("Invoice", "invoice"),
        ("Quotation", "quotation"),
        ("Payment", "payment"),
        ("PaymentRequest", "payment_request"),
        ("Product", "product"),
        ("Event", "event"),
        ("WebhookEndpoint", "webhook_endpoint"),
        ("DeliveryAttempt", "webhook_delivery_attempt"),
        ("ConversionResult", "quotation_conversion"),
        ("Redelivery", "event_redelivery"),
    ];
    // Left out when empty, so optional and never null; everything else is always sent.
    let omitted = [
        ("WebhookEndpoint", "secret"),
        ("ErrorObject", "param"),
        ("ErrorObject", "details"),
    ];
    let mut outputs: Vec<&str> = resources.iter().map(|(n, _)| *n).collect();
    outputs.extend([
        "Address",
        "LineItemView",
        "EventData",
        "Actor",
        "ErrorBody",
        "ErrorObject",
        "ErrorDetail",
    ]);
    for name in &outputs {
        let schema = &schemas[*name];
        let required = required_of(schema);
        for (field, property) in schema["properties"].as_object().unwrap() {
            let left_out = omitted.contains(&(*name, field.as_str()));
            assert_eq!(
                required.contains(&field.as_str()),
                !left_out,
                "{name}.{field}: required iff always sent"
            );
            if left_out {
                assert!(property["type"].is_string(), "{name}.{field} is never null");
            }
        }
    }
    for (name, object) in resources {
        assert_eq!(
            schemas[name]["properties"]["object"],
            serde_json::json!({"type": "string", "const": object}),
            "{name}"
        );
    }
    let invoice = &schemas["Invoice"]["properties"];
    assert_eq!(
        invoice["sent_at"]["type"],
        serde_json::json!(["string", "null"])
    );
    // Enums are named schemas, and every input, filter and output that takes one refers to it.
    let refers = |v: &Value, name: &str| {
        let r = format!("#/components/schemas/{name}");
        v["$ref"] == r.as_str()
            || v["oneOf"]
                .as_array()
                .is_some_and(|o| o.iter().any(|s| s["$ref"] == r.as_str()))
    };
    for (schema, field, enumeration) in [
        ("Invoice", "status", "InvoiceStatus"),
        ("InvoicePatchInput", "status", "InvoiceStatus"),
        ("Quotation", "status", "QuotationStatus"),
        ("Payment", "status", "PaymentStatus"),
        ("Payment", "method", "PaymentMethod"),
        ("PaymentInput", "method", "PaymentMethod"),
        ("PaymentPatchInput", "status", "PaymentStatus"),
        ("PaymentRequest", "status", "InvoiceStatus"),
        ("DeliveryAttempt", "state", "DeliveryState"),
        ("ErrorObject", "type", "ErrorType"),
        ("ErrorObject", "code", "ErrorCode"),
        ("Event", "type", "EventType"),
        ("Actor", "type", "ActorType"),
    ] {
        assert!(
            refers(&schemas[schema]["properties"][field], enumeration),
            "{schema}.{field} refers to {enumeration}: {}",
            schemas[schema]["properties"][field]
        );
        assert!(schemas[enumeration]["enum"].is_array(), "{enumeration}");
    }
    for (path, param, enumeration) in [
        ("/api/v1/invoices", "status", "InvoiceStatus"),
        ("/api/v1/quotations", "status", "QuotationStatus"),
        ("/api/v1/payments", "status", "PaymentStatus"),
        ("/api/v1/events", "type", "EventType"),
    ] {
        let p = doc["paths"][path]["get"]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == param)
            .unwrap();
        assert!(refers(&p["schema"], enumeration), "{path} {param}: {p}");
    }
    let codes = schemas["ErrorCode"]["enum"].as_array().unwrap();
    for code in invoicing_http::error::ERROR_CODES {
        assert!(codes.contains(&Value::from(*code)), "{code}");
    }
    // SPEC §21: who caused an event, a kind and the key's or user's id (null otherwise).
    assert_eq!(
        schemas["Event"]["properties"]["actor"]["$ref"],
        "#/components/schemas/Actor"
    );
    assert_eq!(
        schemas["ActorType"]["enum"],
        serde_json::json!(["api_key", "user", "system", "customer"])
    );
    assert_eq!(
        schemas["Actor"]["properties"]["id"]["type"],
        serde_json::json!(["integer", "null"])
    );
    let types = schemas["EventType"]["enum"].as_array().unwrap();
    assert_eq!(types.len(), invoicing_domain::event::EVENT_TYPES.len());
    // An event narrows to its resource by `object`.
    let data = &schemas["EventData"]["properties"]["object"];
    assert_eq!(data["discriminator"]["propertyName"], "object");
    for (object, name) in [
        ("customer", "Customer"),
        ("invoice", "Invoice"),
        ("quotation", "Quotation"),
        ("payment", "Payment"),
        ("product", "Product"),
    ] {
        let target = format!("#/components/schemas/{name}");
        assert_eq!(data["discriminator"]["mapping"][object], target.as_str());
        assert!(refers(data, name), "{name}");
    }
    for t in invoicing_domain::event::EVENT_TYPES {
        let object = t.split('.').next().unwrap();
        assert!(data["discriminator"]["mapping"][object].is_string(), "{t}");
    }

    // Real answers carry every required field and nothing undeclared.
    let check = |name: &str, body: &Value| {
        let schema = &schemas[name];
        for field in required_of(schema) {
            assert!(
                body.get(field).is_some(),
                "{name} answer lacks {field}: {body}"
            );
        }
        for field in body.as_object().unwrap().keys() {
            assert!(
                schema["properties"].get(field).is_some(),
                "{name}.{field} undeclared"
            );
        }
    };
    let customer = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/customers"),
            &serde_json::json!({"name": "Ada", "email": "ada@example.com"}),
        ),
    )
    .await;
    assert_eq!(customer.status, 201, "{}", customer.body);
    check("Customer", &customer.body);
    let invoice = send(
        &app,
        json(
            h.req(Method::POST, "/api/v1/invoices"),
            &serde_json::json!({"customer_id": customer.body["id"],
                "line_items": [{"description": "Work", "quantity": 2, "unit_price_cents": 1000}]}),
        ),
    )
    .await;
    assert_eq!(invoice.status, 201, "{}", invoice.body);
    check("Invoice", &invoice.body);
    check("LineItemView", &invoice.body["line_items"][0]);
    let events = send(&app, h.req(Method::GET, "/api/v1/events")).await;
    for event in events.body["data"].as_array().unwrap() {
        check("Event", event);
        check("Actor", &event["actor"]);
        let object = event["data"]["object"]["object"].as_str().unwrap();
        let target = data["discriminator"]["mapping"][object].as_str().unwrap();
        check(target.rsplit('/').next().unwrap(), &event["data"]["object"]);
    }
    let missing = send(&app, h.req(Method::GET, "/api/v1/invoices/999999")).await;
    check("ErrorObject", &missing.body["error"]);
}

/// Issue 16, item 1: the create bodies require what their parsers require (an empty body is 422
/// naming exactly those fields), `null` is offered only where it clears a PATCH field, and the
/// bounds are the validators' constants.
#[actix_web::test]
async fn openapi_inputs_require_and_bound_what_the_parsers_do() {
    use invoicing_domain::{customer, decimal, document, product, webhook};
    let h = Harness::new(Backend::Sqlite).unwrap();
    let app = init_service(build_app(h.state.clone())).await;
    let r = send(&app, h.anonymous(Method::GET, "/api/v1/openapi.json")).await;
    let doc = r.body.clone();
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    for (path, schema, required) in [
        ("/api/v1/customers", "CustomerInput", vec!["name", "email"]),
        ("/api/v1/invoices", "InvoiceInput", vec!["line_items"]),
        ("/api/v1/quotations", "QuotationInput", vec!["line_items"]),
        (
            "/api/v1/products",
            "ProductInput",
            vec!["name", "unit_price_cents", "currency"],
        ),
        (
            "/api/v1/payments",
            "PaymentInput",
            vec!["invoice_id", "amount_cents", "method"],
        ),
        ("/api/v1/webhooks", "WebhookInput", vec!["url", "events"]),
    ] {
        let body = &doc["paths"][path]["post"]["requestBody"];
        assert_eq!(body["required"], true, "{path}");
        assert_eq!(
            body["content"]["application/json"]["schema"]["$ref"],
            format!("#/components/schemas/{schema}").as_str()
        );
        assert_eq!(required_of(&schemas[schema]), required, "{schema}");
        // The server answers `{}` with exactly those fields (and the customer) missing.
        let r = send(
            &app,
            json(h.req(Method::POST, path), &serde_json::json!({})),
        )
        .await;
        assert_error(&r, 422, "validation_failed");
        let mut missing: Vec<&str> = r.body["error"]["details"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["param"].as_str().unwrap())
            .collect();
        missing.retain(|p| *p != "customer_id");
        assert_eq!(missing, required, "{path}");
        // Not a clearing PATCH: nothing is nullable.
        for (field, property) in schemas[schema]["properties"].as_object().unwrap() {
            let text = property.to_string();
            assert!(!text.contains("\"null\""), "{schema}.{field}: {text}");
        }
    }
    // Each generator gets a plain object it makes a model of (no oneOf/anyOf of required lists).
    for schema in ["InvoiceInput", "QuotationInput", "LineItemInput"] {
        assert!(schemas[schema].get("oneOf").is_none(), "{schema}");
        assert!(schemas[schema].get("anyOf").is_none(), "{schema}");
    }
    // PATCH: null where it clears, never on the fields it is 422 for.
    let nullable = |schema: &str, field: &str| {
        schemas[schema]["properties"][field]
            .to_string()
            .contains("\"null\"")
    };
    for (schema, field, clears) in [
        ("CustomerPatchInput", "name", false),
        ("CustomerPatchInput", "email", false),
        ("CustomerPatchInput", "phone", true),
        ("CustomerPatchInput", "address", true),
        ("InvoicePatchInput", "status", false),
        ("InvoicePatchInput", "due_date", false),
        ("InvoicePatchInput", "line_items", false),
        ("InvoicePatchInput", "customer_id", false),
        ("InvoicePatchInput", "notes", true),
        ("ProductPatchInput", "name", false),
        ("ProductPatchInput", "currency", false),
        ("ProductPatchInput", "description", true),
        ("WebhookPatchInput", "url", false),
        ("WebhookPatchInput", "description", true),
    ] {
        assert_eq!(nullable(schema, field), clears, "{schema}.{field}");
    }
    // Bounds from the validators' constants.
    let prop = |schema: &str, field: &str| schemas[schema]["properties"][field].clone();
    assert_eq!(
        prop("CustomerInput", "name")["maxLength"],
        customer::NAME_MAX
    );
    assert_eq!(prop("CustomerInput", "name")["minLength"], 1);
    assert_eq!(
        prop("CustomerInput", "email")["maxLength"],
        customer::EMAIL_MAX
    );
    assert_eq!(
        prop("ProductInput", "name")["maxLength"],
        product::PRODUCT_NAME_MAX
    );
    assert_eq!(
        prop("InvoiceInput", "notes")["maxLength"],
        document::NOTES_MAX
    );
    assert_eq!(
        prop("InvoiceInput", "line_items")["maxItems"],
        document::MAX_LINES
    );
    assert_eq!(prop("InvoiceInput", "due_date")["format"], "date");
    assert_eq!(prop("WebhookInput", "url")["maxLength"], webhook::URL_MAX);
    // `["*"]` alone, or event types.
    let events = prop("WebhookInput", "events");
    assert_eq!(events["oneOf"][0]["items"]["const"], "*");
    assert_eq!(events["oneOf"][0]["maxItems"], 1);
    assert_eq!(
        events["oneOf"][1]["items"]["$ref"],
        "#/components/schemas/EventType"
    );
    // The merchant's country: a code, outer white space allowed, or blank for none (the parser
    // reads "" as no country, so the schema must accept it too; schemathesis found it refused).
    let country = schemas["ProfileAddressInput"]["properties"]["country"]["pattern"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        country.starts_with("^[") && country.contains("|DE|") && country.ends_with("]*$"),
        "{country}"
    );
    assert!(country.contains(")?["), "the code is optional: {country}");
    // A payment is recorded pending or verified, never rejected.
    assert_eq!(
        prop("PaymentInput", "status")["enum"],
        json!(["pending", "verified"])
    );
    // The rules between fields, as validators read them.
    assert_eq!(
        schemas["InvoiceInput"]["dependentSchemas"]["customer"],
        json!({"not": {"required": ["customer_id"]}})
    );
    assert_eq!(
        schemas["LineItemInput"]["then"]["required"],
        json!(["description", "unit_price_cents"])
    );
    assert_eq!(prop("PaymentInput", "amount_cents")["minimum"], 1);
    // Quantity and tax rate: a number or a decimal string.
    for (schema, field) in [
        ("LineItemInput", "quantity"),
        ("LineItemInput", "tax_rate"),
        ("ProductInput", "tax_rate"),
    ] {
        let p = prop(schema, field);
        assert_eq!(p["oneOf"][0]["type"], "number", "{schema}.{field}");
        assert_eq!(p["oneOf"][1]["type"], "string", "{schema}.{field}");
        assert_eq!(p["oneOf"][1]["maxLength"], decimal::MAX_TEXT_LEN);
    }
    assert_eq!(
        prop("LineItemInput", "quantity")["oneOf"][0]["maximum"],
        decimal::MAX_QUANTITY / 1000
    );
    assert_eq!(required_of(&schemas["LineItemInput"]), vec!["quantity"]);
}
