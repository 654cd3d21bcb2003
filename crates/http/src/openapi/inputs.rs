//! Request schemas as the parsers read them: required fields, bounds, `null` only where it clears.

use serde_json::{json, Value};

use super::outputs::{nullable, reachable};

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
pub(super) fn inputs_as_parsed(doc: &mut Value) {
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
