//! `GET /api/v1/openapi.json`: the OpenAPI 3.1 document, generated from the handlers'
//! annotations, with the error answers every operation shares added from the same rules the
//! middleware applies, so the document cannot drift from the code.

use crate::envelope::is_api_path;
use crate::error::{ErrorCode, ErrorType};
use crate::routes::{
    customers, events, health, invoices, pages, payment_requests, payments, products, quotations,
    webhooks,
};
use crate::AppState;
use actix_web::{web, HttpResponse};
use invoicing_domain::customer::{
    Address, AddressInput, Customer, CustomerInput, CustomerPatchInput,
};
use invoicing_domain::document::{LineItemInput, LineItemView};
use invoicing_domain::event::{Event, EventData, EVENT_TYPES};
use invoicing_domain::invoice::{Invoice, InvoiceInput, InvoicePatchInput};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::payment::{
    Payment, PaymentInput, PaymentMethod, PaymentPatchInput, PaymentRequest, RejectPaymentInput,
};
use invoicing_domain::payment_status::PaymentStatus;
use invoicing_domain::product::{Product, ProductInput, ProductPatchInput};
use invoicing_domain::quotation::{
    AcceptInput, ConversionResult, ConvertInput, Quotation, QuotationInput, QuotationPatchInput,
    RejectInput,
};
use invoicing_domain::quotation_status::QuotationStatus;
use invoicing_domain::validation::Metadata;
use invoicing_domain::webhook::{WebhookEndpoint, WebhookInput, WebhookPatchInput};
use invoicing_domain::webhook_delivery::{DeliveryAttempt, DeliveryState};
use serde::Serialize;
use serde_json::{json, Value};
use std::sync::OnceLock;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{HttpMethod, Operation, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaFormat, SchemaType, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::Required;
use utoipa::openapi::{ContentBuilder, OpenApi as Document, Ref, RefOr, ResponseBuilder};
use utoipa::{Modify, OpenApi, ToSchema};

/// The SPEC §4 error body.
#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    pub error: ErrorObject,
}

/// Documents what `error::render` writes: `param` and `details` are left out when empty (never
/// `null`), so they are the only optional fields.
#[derive(Serialize, ToSchema)]
pub struct ErrorObject {
    #[serde(rename = "type")]
    #[schema(value_type = ErrorType)]
    pub kind: String,
    #[schema(value_type = ErrorCode)]
    pub code: String,
    pub message: String,
    #[schema(nullable = false)]
    pub param: Option<String>,
    #[schema(nullable = false)]
    pub details: Option<Vec<ErrorDetail>>,
    pub request_id: String,
}

#[derive(Serialize, ToSchema)]
pub struct ErrorDetail {
    pub param: String,
    pub message: String,
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Invoicing API", version = "1", description = "Customers, invoices, quotations, payments, products, events and webhooks. Authenticate with `Authorization: Bearer sk_test_…` or `sk_live_…`."),
    paths(
        health::healthz, health::readyz, serve,
        customers::create, customers::list, customers::get, customers::update, customers::delete,
        invoices::create, invoices::list, invoices::get, invoices::update, invoices::send, invoices::send_patch,
        quotations::create, quotations::list, quotations::get, quotations::update, quotations::delete,
        quotations::send, quotations::send_patch, quotations::accept, quotations::reject, quotations::convert,
        events::list, events::get, events::redeliver,
        payments::create, payments::list, payments::get, payments::update, payments::verify, payments::reject,
        payment_requests::check, payment_requests::list, pages::invoice::report,
        products::create, products::list, products::get, products::update, products::delete,
        webhooks::create, webhooks::list, webhooks::get, webhooks::update, webhooks::delete, webhooks::rotate_secret, webhooks::deliveries,
        pages::invoice::page, pages::quote::page, pages::quote::accept, pages::quote::decline,
    ),
    components(schemas(ErrorBody, ErrorObject, ErrorDetail, ErrorType, ErrorCode, events::EventTypeName, Customer, CustomerInput, CustomerPatchInput, Address, AddressInput, Metadata, customers::CustomerList,
        Invoice, InvoiceInput, InvoicePatchInput, InvoiceStatus, LineItemInput, LineItemView, invoices::InvoiceList, Event, EventData, events::EventList,
        Quotation, QuotationInput, QuotationPatchInput, QuotationStatus, AcceptInput, RejectInput, ConvertInput, ConversionResult, quotations::QuotationList,
        Payment, PaymentInput, PaymentMethod, PaymentPatchInput, PaymentRequest, PaymentStatus, RejectPaymentInput, payments::PaymentList, payment_requests::PaymentRequestList,
        Product, ProductInput, ProductPatchInput, products::ProductList,
        WebhookEndpoint, WebhookInput, WebhookPatchInput, DeliveryAttempt, DeliveryState, webhooks::WebhookList, webhooks::DeliveryAttemptList, events::Redelivery)),
    modifiers(&CommonAnswers),
)]
struct ApiDoc;

/// Adds what the middleware answers for every operation, so each lists all its status codes.
struct CommonAnswers;

fn error_response(description: &str) -> utoipa::openapi::Response {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("ErrorBody")))
                .build(),
        )
        .build()
}

fn add(op: &mut Operation, status: &str, description: &str) {
    op.responses
        .responses
        .entry(status.to_string())
        .or_insert_with(|| error_response(description).into());
}

/// `page` ≥ 1 and `1 ≤ per_page ≤ 100` (SPEC §5), as the query parser enforces them.
fn bound_paging(op: &mut Operation) {
    for param in op.parameters.iter_mut().flatten() {
        let max = match param.name.as_str() {
            "page" => Some(i64::from(invoicing_domain::paging::MAX_PAGE)),
            "per_page" => Some(i64::from(invoicing_domain::paging::MAX_PER_PAGE)),
            _ => continue,
        };
        let mut schema = ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(1));
        if let Some(max) = max {
            schema = schema.maximum(Some(max));
        }
        param.schema = Some(schema.into());
    }
}

/// Every keyed `POST` takes an `Idempotency-Key` (SPEC §15), with the answers that come with it.
fn idempotent(op: &mut Operation) {
    let key = ParameterBuilder::new()
        .name("Idempotency-Key")
        .parameter_in(ParameterIn::Header)
        .required(Required::False)
        .description(Some(
            "1 to 255 printable ASCII characters; a retry with the same key and request replays \
             the first answer with `Idempotent-Replayed: true`",
        ))
        .schema(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .min_length(Some(1))
                .max_length(Some(255)),
        ))
        .build();
    op.parameters.get_or_insert_with(Vec::new).push(key);
    add(
        op,
        "409",
        "The first request with this Idempotency-Key is still running (`idempotency_key_in_use`)",
    );
    add(
        op,
        "422",
        "This Idempotency-Key was used with another request (`idempotency_key_reused`)",
    );
    add(
        op,
        "400",
        "An Idempotency-Key that is not 1 to 255 printable ASCII characters (`invalid_parameter`)",
    );
}

/// An `Option<T>` request body means "may be left out", which utoipa writes as
/// `oneOf: [{type: null}, {$ref: T}]`: a body that may be JSON `null`. Generators take that
/// literally (openapi-python-client then serializes its "unset" marker and crashes), so the body
/// is declared as the plain `$ref` it is, with `required: false`.
fn unwrap_optional_body(op: &mut Operation) {
    let Some(body) = op.request_body.as_mut() else {
        return;
    };
    let mut optional = false;
    for content in body.content.values_mut() {
        let Some(RefOr::T(Schema::OneOf(one))) = content.schema.as_ref() else {
            continue;
        };
        let is_null = |s: &RefOr<Schema>| matches!(s, RefOr::T(Schema::Object(o)) if o.schema_type == SchemaType::Type(Type::Null));
        let mut others = one.items.iter().filter(|s| !is_null(s));
        if let (Some(RefOr::Ref(r)), None) = (others.next(), others.next()) {
            if one.items.iter().any(is_null) {
                content.schema = Some(RefOr::Ref(r.clone()));
                optional = true;
            }
        }
    }
    if optional || body.required.is_none() {
        body.required = Some(Required::False);
    }
}

fn is_form(op: &Operation) -> bool {
    op.request_body
        .as_ref()
        .is_some_and(|b| b.content.contains_key(FORM))
}

const FORM: &str = "application/x-www-form-urlencoded";

/// The only operations that never touch the database, so never answer 503 for it.
const WITHOUT_STORAGE: &[&str] = &["/healthz", "/api/v1/openapi.json"];

impl Modify for CommonAnswers {
    fn modify(&self, doc: &mut Document) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
        for (path, item) in doc.paths.paths.iter_mut() {
            let api = is_api_path(path);
            let ops = [
                (HttpMethod::Get, item.get.as_mut()),
                (HttpMethod::Post, item.post.as_mut()),
                (HttpMethod::Patch, item.patch.as_mut()),
                (HttpMethod::Delete, item.delete.as_mut()),
                (HttpMethod::Put, item.put.as_mut()),
            ];
            for (method, op) in ops {
                let Some(op) = op else { continue };
                // One rule, `{tag}_{handler}`: handlers share names across modules (`list`,
                // `get`), and the tag names the resource.
                if let (Some(id), Some(tag)) = (
                    op.operation_id.as_mut(),
                    op.tags.as_ref().and_then(|t| t.first()),
                ) {
                    *id = format!("{}_{id}", tag.replace(' ', "_"));
                }
                let keyed = op.security.as_ref().is_some_and(|s| !s.is_empty());
                if !keyed {
                    // Stated, not left out: `security: []` tells linters and generators that
                    // this route takes no key, rather than that its security was forgotten.
                    op.security = Some(Vec::new());
                }
                bound_paging(op);
                unwrap_optional_body(op);
                if keyed && matches!(method, HttpMethod::Post) {
                    idempotent(op);
                }
                if is_form(op) {
                    add(
                        op,
                        "400",
                        "A body that is no HTML form (`invalid_parameter`)",
                    );
                    let limit = pages::MAX_FORM_BYTES / 1024;
                    add(
                        op,
                        "413",
                        &format!("Form larger than {limit} KiB (`payload_too_large`)"),
                    );
                    add(
                        op,
                        "408",
                        "The body stopped arriving for 10 s (`request_timeout`)",
                    );
                    add(
                        op,
                        "415",
                        "Not sent as application/x-www-form-urlencoded (`unsupported_media_type`)",
                    );
                } else if op.request_body.is_some() {
                    add(op, "400", "Malformed JSON (`invalid_json`) or a field of the wrong type or unknown (`invalid_parameter`)");
                    add(op, "413", "Body larger than 1 MiB (`payload_too_large`)");
                    add(
                        op,
                        "408",
                        "The body stopped arriving for 10 s (`request_timeout`)",
                    );
                    add(
                        op,
                        "415",
                        "Body not sent as application/json (`unsupported_media_type`)",
                    );
                    add(
                        op,
                        "422",
                        "Invalid values; `details` lists every failing field (`validation_failed`)",
                    );
                } else if api
                    && matches!(
                        method,
                        HttpMethod::Post | HttpMethod::Patch | HttpMethod::Delete
                    )
                {
                    // Routes that take no body still read one if sent: it must be empty or `{}`.
                    add(op, "400", "A body where none is taken that is not empty or `{}` (`invalid_parameter`)");
                    add(op, "413", "Body larger than 1 MiB (`payload_too_large`)");
                    add(
                        op,
                        "408",
                        "The body stopped arriving for 10 s (`request_timeout`)",
                    );
                    add(
                        op,
                        "415",
                        "A body not sent as application/json (`unsupported_media_type`)",
                    );
                }
                if api {
                    add(op, "403", "Plain HTTP (`https_required`), missing scope (`insufficient_permissions`) or another tenant's resource (`resource_forbidden`)");
                    add(
                        op,
                        "429",
                        "Rate limit exceeded (`rate_limited`); see `Retry-After`",
                    );
                } else {
                    // The plain listener redirects everything outside the API (SPEC §3).
                    op.responses
                        .responses
                        .entry("301".to_string())
                        .or_insert_with(|| {
                            ResponseBuilder::new()
                                .description(
                                    "Asked over plain HTTP: the same path and query under PUBLIC_URL",
                                )
                                .header(
                                    "Location",
                                    HeaderBuilder::new()
                                        .schema(
                                            ObjectBuilder::new()
                                                .schema_type(Type::String)
                                                .format(Some(SchemaFormat::Custom("uri".into()))),
                                        )
                                        .build(),
                                )
                                .build()
                                .into()
                        });
                }
                if keyed {
                    add(op, "401", "Missing, invalid, revoked or expired API key");
                    add(op, "400", "A bad query or path value (`invalid_parameter`)");
                }
                if path.contains('{') {
                    add(
                        op,
                        "404",
                        "No such resource, or an id that is not a positive 64-bit integer (`resource_missing`)",
                    );
                }
                if !WITHOUT_STORAGE.contains(&path.as_str()) {
                    add(
                        op,
                        "503",
                        "The database is unavailable (`service_unavailable`); see `Retry-After`",
                    );
                }
                add(
                    op,
                    "500",
                    "Internal error (`internal_error`); nothing internal is disclosed",
                );
            }
        }
    }
}

/// Response headers, declared once under `components.headers` and referred to from every
/// response that carries them, as the middleware sets them: `X-Request-Id` on every answer
/// (SPEC §3), the rate-limit headers on every API answer (§6), `Retry-After` with 429 and 503,
/// `Idempotent-Replayed` on the answers a keyed `POST` may replay (§15: 2xx, 404, 409). Done on
/// the JSON because utoipa's `Header` has neither `$ref` nor `required`.
fn declare_headers(doc: &mut Value) {
    let int = |description: &str| {
        json!({"description": description, "required": true,
        "schema": {"type": "integer", "minimum": 0}})
    };
    let text = |description: &str| {
        json!({"description": description, "required": true,
        "schema": {"type": "string"}})
    };
    doc["components"]["headers"] = json!({
        "X-Request-Id": text("The client's own id if it sent a sane one, else a new `req_…`; also in error bodies and the log"),
        "X-RateLimit-Limit": int("Requests allowed per minute"),
        "X-RateLimit-Remaining": int("Whole requests available now"),
        "X-RateLimit-Reset": int("Unix seconds when the bucket is full again"),
        "RateLimit-Policy": text("IETF draft, e.g. `\"burst\";q=10;w=10, \"minute\";q=60;w=60` with the default limits"),
        "RateLimit": text("IETF draft: `\"burst\";r=REMAINING;t=SECONDS`"),
        "Retry-After": {"description": "Whole seconds to wait before retrying", "required": true,
            "schema": {"type": "integer", "minimum": 1}},
        "Idempotent-Replayed": {"description": "`true` when this is the stored answer of an earlier request with the same Idempotency-Key",
            "required": false, "schema": {"type": "string", "enum": ["true"]}},
    });
    let reference = |name: &str| json!({"$ref": format!("#/components/headers/{name}")});
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        let api = is_api_path(path);
        for (method, op) in item.as_object_mut().into_iter().flatten() {
            let keyed_post =
                method == "post" && op["security"].as_array().is_some_and(|s| !s.is_empty());
            for (status, response) in op["responses"].as_object_mut().into_iter().flatten() {
                let mut names = vec!["X-Request-Id"];
                if api {
                    names.extend(RATE_LIMIT_HEADERS);
                }
                if status == "429" || status == "503" {
                    names.push("Retry-After");
                }
                if keyed_post
                    && status
                        .parse()
                        .is_ok_and(invoicing_domain::idempotency::StoredResponse::is_kept)
                {
                    names.push("Idempotent-Replayed");
                }
                let headers = response
                    .as_object_mut()
                    .map(|r| r.entry("headers").or_insert_with(|| json!({})));
                if let Some(headers) = headers.and_then(Value::as_object_mut) {
                    for name in names {
                        headers.insert(name.to_string(), reference(name));
                    }
                }
            }
        }
    }
}

const RATE_LIMIT_HEADERS: [&str; 5] = [
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
    "RateLimit-Policy",
    "RateLimit",
];

/// Each resource's `object`, from the constants its answers are built with, under the name
/// of its schema.
fn objects() -> [(&'static str, &'static str); 11] {
    [
        ("Customer", Customer::OBJECT),
        ("Invoice", Invoice::OBJECT),
        ("Quotation", Quotation::OBJECT),
        ("ConversionResult", ConversionResult::OBJECT),
        ("Payment", Payment::OBJECT),
        ("PaymentRequest", PaymentRequest::OBJECT),
        ("Product", Product::OBJECT),
        ("Event", Event::OBJECT),
        ("Redelivery", events::Redelivery::OBJECT),
        ("WebhookEndpoint", WebhookEndpoint::OBJECT),
        ("DeliveryAttempt", DeliveryAttempt::OBJECT),
    ]
}

/// The names of the component schemas that `$ref`s under `roots` lead to, transitively.
fn reachable<'a>(schemas: &'a Value, roots: impl Iterator<Item = &'a Value>) -> Vec<String> {
    fn refs(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                if let Some(name) = map
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.strip_prefix("#/components/schemas/"))
                {
                    out.push(name.to_string());
                }
                map.values().for_each(|v| refs(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }
    let mut pending = Vec::new();
    roots.for_each(|r| refs(r, &mut pending));
    let mut seen: Vec<String> = Vec::new();
    while let Some(name) = pending.pop() {
        if !seen.contains(&name) {
            refs(&schemas[&name], &mut pending);
            seen.push(name);
        }
    }
    seen
}

/// Whether a property's schema admits `null` (how utoipa writes an `Option`).
fn nullable(property: &Value) -> bool {
    let is_null = |t: &Value| t == "null" || t["type"] == "null";
    property["type"]
        .as_array()
        .is_some_and(|types| types.iter().any(is_null))
        || property["oneOf"]
            .as_array()
            .is_some_and(|items| items.iter().any(is_null))
}

/// The answers as serde writes them: every field of a response schema is sent, `None` as
/// `null`, so each one is `required` (nullable where it is an `Option`). The only fields left
/// out are the `skip_serializing_if` ones, which say `nullable = false` next to it: not required,
/// never null. `object` is the resource's constant; `Event.type` one of the event types and
/// `Event.data.object` one of the resources, told apart by their `object`.
fn outputs_as_sent(doc: &mut Value) {
    let ops = || {
        doc["paths"]
            .as_object()
            .into_iter()
            .flat_map(|p| p.values())
            .flat_map(|item| item.as_object().into_iter().flat_map(|o| o.values()))
    };
    let schemas = &doc["components"]["schemas"];
    let inputs = reachable(schemas, ops().map(|op| &op["requestBody"]));
    let mut outputs = reachable(schemas, ops().map(|op| &op["responses"]));
    outputs.retain(|name| !inputs.contains(name));
    // Resources are sent inside events too.
    let resources: Vec<(&str, &str)> = objects()
        .into_iter()
        .filter(|(_, object)| {
            EVENT_TYPES
                .iter()
                .any(|t| t.split('.').next() == Some(*object))
        })
        .collect();
    outputs.extend(reachable(
        schemas,
        [json!(resources
            .iter()
            .map(|(name, _)| json!({"$ref": format!("#/components/schemas/{name}")}))
            .collect::<Vec<_>>())]
        .iter(),
    ));
    let Some(schemas) = doc["components"]["schemas"].as_object_mut() else {
        return;
    };
    for name in &outputs {
        let Some(schema) = schemas.get_mut(name).and_then(Value::as_object_mut) else {
            continue;
        };
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            continue;
        };
        let sent: Vec<Value> = properties
            .iter()
            .filter(|(_, p)| nullable(p))
            .map(|(k, _)| json!(k))
            .collect();
        let required = schema.entry("required").or_insert_with(|| json!([]));
        if let Some(required) = required.as_array_mut() {
            for key in sent {
                if !required.contains(&key) {
                    required.push(key);
                }
            }
        }
    }
    for (name, object) in objects() {
        if let Some(property) = schemas
            .get_mut(name)
            .and_then(|s| s.get_mut("properties"))
            .and_then(|p| p.get_mut("object"))
        {
            *property = json!({"type": "string", "const": object});
        }
    }
    if let Some(event) = schemas.get_mut("Event") {
        event["properties"]["type"] = json!({"$ref": "#/components/schemas/EventType"});
    }
    if let Some(data) = schemas.get_mut("EventData") {
        let refs: Vec<(String, String)> = resources
            .iter()
            .map(|(name, object)| (object.to_string(), format!("#/components/schemas/{name}")))
            .collect();
        data["properties"]["object"] = json!({
            "description": "The resource as the API returned it after the change; its `object` tells which",
            "oneOf": refs.iter().map(|(_, r)| json!({"$ref": r})).collect::<Vec<_>>(),
            "discriminator": {
                "propertyName": "object",
                "mapping": refs
                    .into_iter()
                    .map(|(object, r)| (object, json!(r)))
                    .collect::<serde_json::Map<String, Value>>(),
            },
        });
    }
}

/// The bodies whose `PATCH` fields are read with `double_option`: there a nullable field is
/// one that `null` clears, and the others are 422 on `null` (`validation::not_null`).
const CLEARABLE: &[&str] = &[
    "CustomerPatchInput",
    "InvoicePatchInput",
    "QuotationPatchInput",
    "ProductPatchInput",
    "WebhookPatchInput",
];

/// Drops `null` from a property's schema: `type: [T, "null"]` becomes `T`, and
/// `oneOf: [{type: null}, S]` becomes `S`.
fn not_nullable(property: &mut Value) {
    if let Some(types) = property["type"].as_array() {
        let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        property["type"] = match <[Value; 1]>::try_from(kept) {
            Ok([only]) => only,
            Err(kept) => Value::Array(kept),
        };
    }
    let one_of = property.get("oneOf").and_then(Value::as_array).cloned();
    if let Some(items) = one_of {
        let kept: Vec<Value> = items.into_iter().filter(|s| s["type"] != "null").collect();
        if let Ok([only]) = <[Value; 1]>::try_from(kept) {
            if let Some(p) = property.as_object_mut() {
                p.remove("oneOf");
                if let Some(only) = only.as_object() {
                    for (k, v) in only {
                        p.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
            }
        }
    }
}

/// A JSON number or a decimal string of at most three decimals, as `decimal.rs` reads a
/// quantity or a tax rate; the range holds for both (the string's only by the server).
fn decimal(minimum: Value, maximum: i64, description: &Value) -> Value {
    use invoicing_domain::decimal::{MAX_TEXT_LEN, SCALE};
    let mut number = json!({"type": "number", "maximum": maximum / SCALE as i64});
    if let (Some(n), Some(m)) = (number.as_object_mut(), minimum.as_object()) {
        n.extend(m.clone());
    }
    let mut schema = json!({
        "oneOf": [
            number,
            {"type": "string", "maxLength": MAX_TEXT_LEN,
                "pattern": r"^([0-9]+(\.[0-9]{1,3}0*)?|\.[0-9]{1,3}0*)$"},
        ],
    });
    if description.is_string() {
        schema["description"] = description.clone();
    }
    schema
}

/// The request bodies as the parsers read them (issue 16, item 1): the fields they require,
/// the bounds they enforce (the same constants), `null` only where it clears a `PATCH` field.
fn inputs_as_parsed(doc: &mut Value) {
    use invoicing_domain::decimal::{MAX_QUANTITY, MAX_TAX_RATE};
    use invoicing_domain::validation::{METADATA_MAX_KEY, METADATA_MAX_PAIRS, METADATA_MAX_VALUE};
    use invoicing_domain::webhook as w;
    use invoicing_domain::{customer as c, document as d, payment as p, product, quotation as q};
    let ops = doc["paths"]
        .as_object()
        .into_iter()
        .flat_map(|p| p.values())
        .flat_map(|item| item.as_object().into_iter().flat_map(|o| o.values()));
    let schemas = &doc["components"]["schemas"];
    let inputs = reachable(schemas, ops.map(|op| &op["requestBody"]));
    let Some(schemas) = doc["components"]["schemas"].as_object_mut() else {
        return;
    };
    // In a body that is not a clearing PATCH, `null` is the same as leaving the field out:
    // not offered.
    for name in inputs.iter().filter(|n| !CLEARABLE.contains(&n.as_str())) {
        let properties = schemas
            .get_mut(name)
            .and_then(|s| s.get_mut("properties"))
            .and_then(Value::as_object_mut);
        for property in properties.into_iter().flat_map(|p| p.values_mut()) {
            not_nullable(property);
        }
    }
    let text = |min: usize, max: usize| json!({"minLength": min, "maxLength": max});
    // Required text is not blank; optional text may be empty (read as "no value").
    let required_text = |max: usize| json!({"minLength": 1, "maxLength": max, "pattern": r"\S"});
    let id = json!({"minimum": 1});
    let date = json!({"format": "date", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"});
    for schema in ["CustomerInput", "CustomerPatchInput"] {
        set(schemas, schema, "name", required_text(c::NAME_MAX));
        set(schemas, schema, "email", text(1, c::EMAIL_MAX));
        set(schemas, schema, "email", json!({"format": "email"}));
        set(schemas, schema, "phone", text(0, c::PHONE_MAX));
        set(schemas, schema, "company", text(0, c::COMPANY_MAX));
    }
    for field in ["line1", "line2", "city", "state", "postal_code", "country"] {
        set(
            schemas,
            "AddressInput",
            field,
            text(0, c::ADDRESS_FIELD_MAX),
        );
    }
    // The codes the server knows (it also takes them in lower case).
    let currencies: Vec<&str> = invoicing_domain::currency::Currency::all()
        .map(|c| c.code())
        .collect();
    for schema in [
        "InvoiceInput",
        "InvoicePatchInput",
        "QuotationInput",
        "QuotationPatchInput",
        "ProductInput",
        "ProductPatchInput",
    ] {
        set(schemas, schema, "currency", json!({"enum": currencies}));
    }
    for schema in [
        "InvoiceInput",
        "InvoicePatchInput",
        "QuotationInput",
        "QuotationPatchInput",
    ] {
        set(schemas, schema, "customer_id", id.clone());
        set(
            schemas,
            schema,
            "line_items",
            json!({"minItems": 1, "maxItems": d::MAX_LINES}),
        );
        set(schemas, schema, "notes", text(0, d::NOTES_MAX));
        for field in ["issue_date", "due_date", "valid_until"] {
            set(schemas, schema, field, date.clone());
        }
    }
    set(schemas, "ConvertInput", "due_date", date.clone());
    set(
        schemas,
        "LineItemInput",
        "description",
        required_text(d::DESCRIPTION_MAX),
    );
    set(schemas, "LineItemInput", "product_id", id.clone());
    let quantity = decimal(
        json!({"exclusiveMinimum": 0}),
        MAX_QUANTITY,
        &schemas["LineItemInput"]["properties"]["quantity"]["description"].clone(),
    );
    put(schemas, "LineItemInput", "quantity", quantity);
    for schema in ["LineItemInput", "ProductInput", "ProductPatchInput"] {
        let mut rate = decimal(
            json!({"minimum": 0}),
            MAX_TAX_RATE,
            &schemas[schema]["properties"]["tax_rate"]["description"].clone(),
        );
        // `null` only where it clears the rate (where the field's own schema is nullable).
        if nullable(&schemas[schema]["properties"]["tax_rate"]) {
            if let Some(one_of) = rate["oneOf"].as_array_mut() {
                one_of.push(json!({"type": "null"}));
            }
        }
        put(schemas, schema, "tax_rate", rate);
    }
    for schema in ["ProductInput", "ProductPatchInput"] {
        set(
            schemas,
            schema,
            "name",
            required_text(product::PRODUCT_NAME_MAX),
        );
        set(schemas, schema, "description", text(0, d::DESCRIPTION_MAX));
    }
    set(schemas, "PaymentInput", "invoice_id", id.clone());
    set(
        schemas,
        "PaymentInput",
        "amount_cents",
        json!({"minimum": 1}),
    );
    set(
        schemas,
        "PaymentInput",
        "reference",
        text(0, p::REFERENCE_MAX),
    );
    set(
        schemas,
        "PaymentPatchInput",
        "reason",
        text(0, p::REJECTION_REASON_MAX),
    );
    set(
        schemas,
        "RejectPaymentInput",
        "reason",
        text(0, p::REJECTION_REASON_MAX),
    );
    set(schemas, "AcceptInput", "name", text(0, q::SIGNER_MAX));
    set(schemas, "RejectInput", "reason", text(0, q::REASON_MAX));
    let event_or_all = json!({"oneOf": [
        {"$ref": "#/components/schemas/EventType"},
        {"type": "string", "const": "*"},
    ]});
    for schema in ["WebhookInput", "WebhookPatchInput"] {
        set(
            schemas,
            schema,
            "url",
            json!({"minLength": 1, "maxLength": w::URL_MAX, "format": "uri"}),
        );
        set(schemas, schema, "description", text(0, w::DESCRIPTION_MAX));
        set(
            schemas,
            schema,
            "events",
            json!({"minItems": 1, "maxItems": w::MAX_EVENT_TYPES, "items": event_or_all}),
        );
    }
    set(
        schemas,
        "WebhookEndpoint",
        "events",
        json!({"items": event_or_all}),
    );
    for name in &inputs {
        set(
            schemas,
            name,
            "metadata",
            json!({"maxProperties": METADATA_MAX_PAIRS,
                "propertyNames": {"type": "string", "maxLength": METADATA_MAX_KEY},
                "additionalProperties": {"type": "string", "maxLength": METADATA_MAX_VALUE}}),
        );
    }
    // What each create body requires, as its parser answers "is required".
    let mut require = |schema: &str, fields: &[&str], extra: Value| {
        if let Some(s) = schemas.get_mut(schema).and_then(Value::as_object_mut) {
            s.insert("required".into(), json!(fields));
            if let Some(extra) = extra.as_object() {
                s.extend(extra.clone());
            }
        }
    };
    // "customer_id or customer" and "product_id or description and price" are left to the
    // descriptions (and the 422): written as `oneOf`/`anyOf` of required lists they cost the
    // Python client its InvoiceInput, QuotationInput and LineItemInput models, and TypeScript
    // ignores them anyway.
    require("CustomerInput", &["name", "email"], json!(null));
    require("InvoiceInput", &["line_items"], json!(null));
    require("QuotationInput", &["line_items"], json!(null));
    require("LineItemInput", &["quantity"], json!(null));
    require(
        "ProductInput",
        &["name", "unit_price_cents", "currency"],
        json!(null),
    );
    require(
        "PaymentInput",
        &["invoice_id", "amount_cents", "method"],
        json!(null),
    );
    require("PaymentPatchInput", &["status"], json!(null));
    require("WebhookInput", &["url", "events"], json!(null));
}

/// Adds `keywords` to the schema of `schema.field`, if there is one.
fn set(schemas: &mut serde_json::Map<String, Value>, schema: &str, field: &str, keywords: Value) {
    let property = schemas
        .get_mut(schema)
        .and_then(|s| s.get_mut("properties"))
        .and_then(|p| p.get_mut(field));
    if let (Some(property), Some(keywords)) = (property, keywords.as_object()) {
        for (k, v) in keywords {
            property[k] = v.clone();
        }
    }
}

/// Replaces the schema of `schema.field`, if there is one.
fn put(schemas: &mut serde_json::Map<String, Value>, schema: &str, field: &str, value: Value) {
    if let Some(p) = schemas
        .get_mut(schema)
        .and_then(|s| s.get_mut("properties"))
        .and_then(Value::as_object_mut)
    {
        if p.contains_key(field) {
            p.insert(field.to_string(), value);
        }
    }
}

/// The generated document (built once), without `servers`: that comes from the configuration
/// when it is served.
pub fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| {
        let mut doc = serde_json::to_value(ApiDoc::openapi()).unwrap_or_default();
        declare_headers(&mut doc);
        outputs_as_sent(&mut doc);
        inputs_as_parsed(&mut doc);
        doc
    })
}

/// The document as this server serves it: its `servers` entry is the configured `PUBLIC_URL`,
/// under which both the API and the public pages answer.
pub fn served_document(public_url: &str) -> Value {
    let mut doc = document().clone();
    doc["servers"] = json!([{"url": public_url}]);
    doc
}

/// The OpenAPI 3.1 document of this API.
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "openapi", operation_id = "document",
    responses((status = 200, description = "The OpenAPI 3.1 document", body = Object)))]
pub async fn serve(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(served_document(&state.config.public_url))
}
