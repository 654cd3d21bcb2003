//! The answers and headers every operation shares, added from the rules the middleware applies.

use crate::paths::is_api_path;
use serde_json::{json, Value};
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{HttpMethod, Operation, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaFormat, SchemaType, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::Required;
use utoipa::openapi::{ContentBuilder, OpenApi as Document, Ref, RefOr, ResponseBuilder};
use utoipa::Modify;

/// Adds what the middleware answers for every operation, so each lists all its status codes.
pub(super) struct CommonAnswers;

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

/// What reading a body can answer (`body.rs`, the pages' forms): unreadable, too large,
/// stalled, or of another media type.
fn body_answers(op: &mut Operation, unreadable: &str, limit: &str, media_type: &str) {
    add(op, "400", unreadable);
    add(
        op,
        "413",
        &format!("Body larger than {limit} (`payload_too_large`)"),
    );
    add(
        op,
        "408",
        "The body stopped arriving for 10 s, or took over 60 s in all (`request_timeout`)",
    );
    add(
        op,
        "415",
        &format!("Not sent as {media_type} (`unsupported_media_type`)"),
    );
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
                .max_length(Some(255))
                // HTTP trims a header value's outer spaces, so a key cannot begin or end with one.
                .pattern(Some(r"^[!-~]([ -~]*[!-~])?$")),
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

/// The dashboard answers its refusals as pages (SPEC §21), whatever the status. The JSON body
/// stays declared beside the page where the layers before the handler answer too (the body
/// reader, a path no route serves, a panic); too large and too slow bodies are only JSON.
fn dashboard_pages(op: &mut Operation, path: &str, method: &HttpMethod) {
    // Every screen but the ones before signing in sends a visitor without a session there.
    // Posts too (a post's own 303, where it has one, says where it goes when signed in).
    let open = [
        "/dashboard/login",
        "/dashboard/set-password",
        "/dashboard/forgot-password",
        "/dashboard/assets/",
        "/dashboard/openapi.json",
    ];
    if !open.iter().any(|p| path.starts_with(p)) {
        let description = match method {
            HttpMethod::Get => "Not signed in: to the sign-in page, which returns here after",
            _ => "Not signed in: to the sign-in page",
        };
        op.responses
            .responses
            .entry("303".to_string())
            .or_insert_with(|| {
                ResponseBuilder::new()
                    .description(description)
                    .header(
                        "Location",
                        HeaderBuilder::new()
                            .schema(ObjectBuilder::new().schema_type(Type::String))
                            .build(),
                    )
                    .build()
                    .into()
            });
    }
    if matches!(method, HttpMethod::Post) {
        // Every form post passes the same-origin check; a signed-in one also the session's
        // CSRF token and the user's role (`dashboard::Posted`).
        let description = if FORMS_WITHOUT_SESSION.contains(&path) {
            "Not posted from the dashboard's own page"
        } else {
            "Not posted from the dashboard's own page, no valid `csrf`, or a role that may not do this"
        };
        add(op, "403", description);
    }
    for (status, response) in op.responses.responses.iter_mut() {
        if !(status.starts_with('4') || status.starts_with('5'))
            || status == "408"
            || status == "413"
        {
            continue;
        }
        if let RefOr::T(r) = response {
            r.content.entry("text/html".to_string()).or_insert_with(|| {
                ContentBuilder::new()
                    .schema(Some(ObjectBuilder::new().schema_type(Type::String)))
                    .build()
            });
        }
    }
}

/// The dashboard's forms posted before signing in: no session, so no CSRF token.
const FORMS_WITHOUT_SESSION: &[&str] = &[
    "/dashboard/login",
    "/dashboard/set-password",
    "/dashboard/forgot-password",
    "/dashboard/confirm-email",
];

fn is_form(op: &Operation) -> bool {
    op.request_body
        .as_ref()
        .is_some_and(|b| b.content.contains_key(FORM))
}

const FORM: &str = "application/x-www-form-urlencoded";

/// The only operations that never touch the database, so never answer 503 for it.
const WITHOUT_STORAGE: &[&str] = &[
    "/healthz",
    "/api/v1/openapi.json",
    "/dashboard/openapi.json",
];

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
                unwrap_optional_body(op);
                if path.starts_with("/dashboard") {
                    // A browser's forms and links: any text goes (a screen refuses what its
                    // operation refuses, as a page), and a visitor without a session is sent to
                    // sign in before anything is read, so no value is the document's to refuse.
                    if let Some(body) = op.request_body.as_mut() {
                        body.required = Some(Required::False);
                    }
                } else {
                    bound_paging(op);
                }
                if keyed && matches!(method, HttpMethod::Post) {
                    idempotent(op);
                }
                if is_form(op) {
                    let limit = format!("{} KiB", crate::form_body::MAX_FORM_BYTES / 1024);
                    let not_a_form = "A body that is no HTML form (`invalid_parameter`)";
                    body_answers(op, not_a_form, &limit, FORM);
                } else if op.request_body.is_some() {
                    let malformed = "Malformed JSON (`invalid_json`) or a field of the wrong type or unknown (`invalid_parameter`)";
                    body_answers(op, malformed, "1 MiB", "application/json");
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
                    let unwanted = "A body where none is taken that is not empty or `{}` (`invalid_parameter`)";
                    body_answers(op, unwanted, "1 MiB", "application/json");
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
                if path.starts_with("/dashboard") {
                    dashboard_pages(op, path, &method);
                }
            }
        }
    }
}

/// Response headers, declared once under `components.headers` and referred to from every
/// response that carries them, as the middleware sets them: `X-Request-Id` on every answer
/// (SPEC §3), the rate-limit headers on every API answer (§6), `Retry-After` with 429 and 503,
/// `Idempotent-Replayed` on the answers a keyed `POST` may replay (§15: 2xx, 404, 409). Done on
/// the JSON because utoipa's `Header` has neither `$ref` nor `required`.
pub(super) fn declare_headers(doc: &mut Value) {
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
