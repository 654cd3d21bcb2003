//! Response schemas as serde writes them: required fields, `object` constants, event objects.

use crate::routes::events;
use invoicing_domain::credit_note::CreditNote;
use invoicing_domain::customer::Customer;
use invoicing_domain::email::OutgoingEmail;
use invoicing_domain::event::{Event, EVENT_TYPES};
use invoicing_domain::invoice::Invoice;
use invoicing_domain::payment::{Payment, PaymentRequest};
use invoicing_domain::product::Product;
use invoicing_domain::quotation::{ConversionResult, Quotation};
use invoicing_domain::recurring::RecurringInvoice;
use invoicing_domain::webhook::WebhookEndpoint;
use invoicing_domain::webhook_delivery::DeliveryAttempt;
use serde_json::{json, Value};

/// Each resource's `object`, from the constants its answers are built with, under the name
/// of its schema.
fn objects() -> [(&'static str, &'static str); 14] {
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
        ("OutgoingEmail", OutgoingEmail::OBJECT),
        ("CreditNote", CreditNote::OBJECT),
        ("RecurringInvoice", RecurringInvoice::OBJECT),
    ]
}

/// The names of the component schemas that `$ref`s under `roots` lead to, transitively.
pub(super) fn reachable<'a>(
    schemas: &'a Value,
    roots: impl Iterator<Item = &'a Value>,
) -> Vec<String> {
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
pub(super) fn nullable(property: &Value) -> bool {
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
pub(super) fn outputs_as_sent(doc: &mut Value) {
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
