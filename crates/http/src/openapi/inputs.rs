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
    "ProfilePatchInput",
];

/// White space as Rust's `trim` (the parsers' blank check) sees it, as a regex class body: the
/// Unicode White_Space set, spelled out because `\s` differs between regex engines (U+0085,
/// U+FEFF).
const WHITE_SPACE: &str =
    r"\t\n\u000b\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";

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
/// quantity (`positive`: above 0) or a tax rate (0 or more), up to `maximum` thousandths, which
/// must be a power of ten: the string's pattern spells the same range as the number's bounds.
fn decimal(positive: bool, maximum: i64, description: &Value) -> Value {
    use invoicing_domain::decimal::{MAX_TEXT_LEN, SCALE};
    let whole_max = maximum / SCALE as i64;
    let digits = whole_max.to_string().len() - 1;
    debug_assert_eq!(whole_max, 10i64.pow(digits as u32), "a power of ten");
    let lower = if positive {
        json!({"exclusiveMinimum": 0})
    } else {
        json!({"minimum": 0})
    };
    let mut number = json!({"type": "number", "maximum": whole_max, "multipleOf": 0.001});
    if let (Some(n), Some(m)) = (number.as_object_mut(), lower.as_object()) {
        n.extend(m.clone());
    }
    // Below the maximum: up to `digits` integer digits; a fraction of at most three significant
    // decimals, any trailing zeros; the maximum itself only with a zero fraction.
    let fraction = r"\.[0-9]{1,3}0*";
    let below = if positive {
        format!(
            r"0*[1-9][0-9]{{0,{}}}({fraction})?|0*\.[0-9]{{0,2}}[1-9]0*",
            digits - 1
        )
    } else {
        format!(r"0*[0-9]{{1,{digits}}}({fraction})?|0*\.[0-9]{{1,3}}0*")
    };
    let pattern = format!(r"^({below}|0*{whole_max}(\.0+)?)$");
    let mut schema = json!({
        "oneOf": [
            number,
            {"type": "string", "maxLength": MAX_TEXT_LEN, "pattern": pattern},
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
    use invoicing_domain::money::MAX_AMOUNT;
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
    let not_blank = format!("[^{WHITE_SPACE}]");
    let required_text =
        |max: usize| json!({"minLength": 1, "maxLength": max, "pattern": not_blank});
    let id = json!({"minimum": 1, "maximum": i64::MAX});
    let amount = json!({"minimum": -MAX_AMOUNT, "maximum": MAX_AMOUNT});
    let date = json!({"format": "date", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"});
    let phone = json!({"pattern": format!(
        "^[{WHITE_SPACE}]*$|^[{WHITE_SPACE}]*[ +().-]*([0-9][ +().-]*){{5,20}}[{WHITE_SPACE}]*$"
    )});
    set(
        schemas,
        "PaymentRequestInput",
        "customer_phone",
        text(0, c::PHONE_MAX),
    );
    set(schemas, "PaymentRequestInput", "customer_phone", phone);
    for schema in ["CustomerInput", "CustomerPatchInput", "ProfilePatchInput"] {
        set(schemas, schema, "name", required_text(c::NAME_MAX));
        set(schemas, schema, "email", text(1, c::EMAIL_MAX));
        set(schemas, schema, "email", json!({"format": "email"}));
        set(schemas, schema, "phone", text(0, c::PHONE_MAX));
        // As `parse_phone` reads it: blank (no phone), or 5 to 20 digits among + ( ) - . and
        // spaces, outer whitespace trimmed.
        set(
            schemas,
            schema,
            "phone",
            json!({"pattern": format!(
                "^[{WHITE_SPACE}]*$|^[{WHITE_SPACE}]*[ +().-]*([0-9][ +().-]*){{5,20}}[{WHITE_SPACE}]*$"
            )}),
        );
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
    profile_input(schemas, &text, &required_text);
    einvoice_input(schemas, &text, &required_text);
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
        "RecurringInput",
    ] {
        set(schemas, schema, "currency", json!({"enum": currencies}));
    }
    set(
        schemas,
        "ProfilePatchInput",
        "default_currency",
        json!({"enum": currencies}),
    );
    // A payment request (SPEC §26): what the customer pays, for what, and who they are.
    let request = "PaymentRequestInput";
    set(schemas, request, "currency", json!({"enum": currencies}));
    set(
        schemas,
        request,
        "amount_cents",
        json!({"minimum": 1, "maximum": MAX_AMOUNT}),
    );
    set(
        schemas,
        request,
        "description",
        required_text(d::DESCRIPTION_MAX),
    );
    set(
        schemas,
        request,
        "customer_name",
        required_text(c::NAME_MAX),
    );
    set(schemas, request, "customer_email", text(1, c::EMAIL_MAX));
    set(
        schemas,
        request,
        "customer_email",
        json!({"format": "email"}),
    );
    for url in ["success_url", "cancel_url"] {
        set(schemas, request, url, text(1, 2048));
        set(
            schemas,
            request,
            url,
            json!({"format": "uri", "pattern": "^https?://"}),
        );
    }
    set(
        schemas,
        request,
        "expires_at",
        json!({"format": "date-time"}),
    );
    for schema in [
        "InvoiceInput",
        "InvoicePatchInput",
        "QuotationInput",
        "QuotationPatchInput",
        "RecurringInput",
        "RecurringPatchInput",
    ] {
        set(schemas, schema, "customer_id", id.clone());
        set(
            schemas,
            schema,
            "line_items",
            json!({"minItems": 1, "maxItems": d::MAX_LINES}),
        );
        set(schemas, schema, "notes", text(0, d::NOTES_MAX));
        for field in [
            "issue_date",
            "due_date",
            "valid_until",
            "start_date",
            "end_date",
        ] {
            set(schemas, schema, field, date.clone());
        }
    }
    set(schemas, "ConvertInput", "due_date", date.clone());
    // When the supply was made (SPEC §27).
    for schema in ["InvoiceInput", "InvoicePatchInput", "CreditNoteInput"] {
        set(schemas, schema, "delivery_date", date.clone());
    }
    for field in ["start", "end"] {
        set(schemas, "ServicePeriodInput", field, date.clone());
    }
    if let Some(period) = schemas.get_mut("ServicePeriodInput") {
        period["required"] = json!(["start", "end"]);
    }
    // An IANA name: the zone database decides which exist (a list no pattern states).
    set(
        schemas,
        "ProfilePatchInput",
        "time_zone",
        json!({"pattern": "^[A-Za-z][A-Za-z0-9_+/-]{0,63}$", "example": "America/Port_of_Spain"}),
    );
    // As `PaymentTerms::parse` reads them: N from 0 to 365, at most three digits.
    let terms =
        json!({"pattern": "^(due_on_receipt|net_([0-9]{1,2}|[0-2][0-9]{2}|3[0-5][0-9]|36[0-5]))$"});
    for schema in [
        "InvoiceInput",
        "InvoicePatchInput",
        "ConvertInput",
        "RecurringInput",
        "RecurringPatchInput",
    ] {
        set(schemas, schema, "payment_terms", terms.clone());
    }
    set(
        schemas,
        "RecurringInput",
        "interval_count",
        json!({"minimum": 1, "maximum": invoicing_domain::recurring::MAX_INTERVAL_COUNT}),
    );
    for schema in ["RecurringInput", "RecurringPatchInput"] {
        set(
            schemas,
            schema,
            "occurrences",
            json!({"minimum": 1, "maximum": invoicing_domain::recurring::MAX_OCCURRENCES}),
        );
    }
    set(
        schemas,
        "LineItemInput",
        "description",
        required_text(d::DESCRIPTION_MAX),
    );
    set(schemas, "LineItemInput", "product_id", id.clone());
    set(schemas, "LineItemInput", "unit_price_cents", amount.clone());
    let quantity = decimal(
        true,
        MAX_QUANTITY,
        &schemas["LineItemInput"]["properties"]["quantity"]["description"].clone(),
    );
    put(schemas, "LineItemInput", "quantity", quantity);
    for schema in [
        "LineItemInput",
        "ProductInput",
        "ProductPatchInput",
        "PaymentRequestInput",
    ] {
        let mut rate = decimal(
            false,
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
        set(schemas, schema, "unit_price_cents", amount.clone());
    }
    set(schemas, "PaymentInput", "invoice_id", id.clone());
    // A payment is recorded pending or verified; `rejected` is a later decision.
    put(
        schemas,
        "PaymentInput",
        "status",
        json!({"type": "string", "enum": ["pending", "verified"],
            "description": "`pending` (default: verify it later) or `verified` (the money has arrived)."}),
    );
    set(
        schemas,
        "PaymentInput",
        "amount_cents",
        json!({"minimum": 1, "maximum": MAX_AMOUNT}),
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
        // `["*"]` alone, or event types (repeats are one): the parser's two forms.
        if let Some(events) = schemas
            .get_mut(schema)
            .and_then(|s| s.get_mut("properties"))
            .and_then(|p| p.get_mut("events"))
        {
            let description = events["description"].clone();
            *events = json!({"oneOf": [
                {"type": "array", "items": {"type": "string", "const": "*"},
                    "minItems": 1, "maxItems": 1},
                {"type": "array", "items": {"$ref": "#/components/schemas/EventType"},
                    "minItems": 1, "maxItems": w::MAX_EVENT_TYPES},
            ]});
            if description.is_string() {
                events["description"] = description;
            }
        }
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
                "propertyNames": {"type": "string", "minLength": 1, "maxLength": METADATA_MAX_KEY},
                "additionalProperties": {"type": "string", "maxLength": METADATA_MAX_VALUE}}),
        );
    }
    // What each create body requires, as its parser answers "is required".
    // Card payments (SPEC §25): Stripe's key shapes; which environment a key belongs to, and
    // whether Stripe knows it, are the server's to say (fuzz_hooks names both refusals).
    let key = |pattern: &str, description: &str| json!({"type": "string", "pattern": pattern, "maxLength": 255, "description": description});
    put(
        schemas,
        "GatewayKeysInput",
        "secret_key",
        key(
            "^(sk|rk)_(test|live)_[A-Za-z0-9_]+$",
            "`sk_test_…` (or a restricted `rk_test_…`) with a test API key, `sk_live_…` with a live one",
        ),
    );
    put(
        schemas,
        "GatewayKeysInput",
        "publishable_key",
        key(
            "^pk_(test|live)_[A-Za-z0-9_]+$",
            "`pk_test_…` or `pk_live_…`, as the environment",
        ),
    );
    put(
        schemas,
        "GatewayKeysInput",
        "webhook_secret",
        key(
            "^whsec_[A-Za-z0-9_]+$",
            "The signing secret of the webhook endpoint made in Stripe; omitted, the saved one is kept",
        ),
    );
    set(
        schemas,
        "RefundInput",
        "amount_cents",
        json!({"minimum": 1, "maximum": MAX_AMOUNT}),
    );
    set(
        schemas,
        "RefundInput",
        "reason",
        text(0, invoicing_domain::gateway::REFUND_REASON_MAX),
    );
    let mut require = |schema: &str, fields: &[&str], extra: Value| {
        if let Some(s) = schemas.get_mut(schema).and_then(Value::as_object_mut) {
            if !fields.is_empty() {
                s.insert("required".into(), json!(fields));
            }
            if let Some(extra) = extra.as_object() {
                s.extend(extra.clone());
            }
        }
    };
    // The rules between fields, as the parsers apply them. Written with `if`/`then` and
    // `dependentSchemas`, which validators and fuzzers read and client generators skip: as
    // `oneOf`/`anyOf` of required lists they cost the Python client its models.
    let customer = json!({
        "if": {"not": {"required": ["customer"]}},
        "then": {"required": ["customer_id"]},
        "dependentSchemas": {"customer": {"not": {"required": ["customer_id"]}}},
    });
    require("CustomerInput", &["name", "email"], json!(null));
    require("ElectronicAddressInput", &["scheme", "id"], json!(null));
    require("BankAccountInput", &["iban"], json!(null));
    let due_or_terms = json!({"not": {"required": ["due_date"]}});
    let mut invoice = customer.clone();
    invoice["dependentSchemas"]["payment_terms"] = due_or_terms.clone();
    let convert = json!({"dependentSchemas": {"payment_terms": due_or_terms}});
    require("InvoiceInput", &["line_items"], invoice);
    require("QuotationInput", &["line_items"], customer.clone());
    // A schedule: its customer as for documents; an end date or a count, not both; email only
    // with auto_send.
    let mut recurring = customer;
    recurring["dependentSchemas"]["occurrences"] = json!({"not": {"required": ["end_date"]}});
    recurring["allOf"] = json!([{
        "if": {"properties": {"email": {"const": true}}, "required": ["email"]},
        "then": {"properties": {"auto_send": {"const": true}}, "required": ["auto_send"]},
    }]);
    require(
        "RecurringInput",
        &["line_items", "interval", "start_date"],
        recurring,
    );
    require(
        "RecurringPatchInput",
        &[],
        json!({"dependentSchemas": {"occurrences": {"not": {"required": ["end_date"]}}}}),
    );
    require("ConvertInput", &[], convert);
    require(
        "LineItemInput",
        &["quantity"],
        json!({
            "if": {"not": {"required": ["product_id"]}},
            "then": {"required": ["description", "unit_price_cents"]},
        }),
    );
    require(
        "ProductInput",
        &["name", "unit_price_cents", "currency"],
        json!(null),
    );
    require(
        "PaymentRequestInput",
        &[
            "amount_cents",
            "currency",
            "description",
            "customer_name",
            "customer_email",
        ],
        json!(null),
    );
    require(
        "PaymentInput",
        &["invoice_id", "amount_cents", "method"],
        json!(null),
    );
    require(
        "PaymentPatchInput",
        &["status"],
        json!({"dependentSchemas": {"reason": {"properties": {"status": {"const": "rejected"}}}}}),
    );
    require("WebhookInput", &["url", "events"], json!(null));
    require(
        "GatewayKeysInput",
        &["secret_key", "publishable_key"],
        json!(null),
    );
    // A credit note is by lines or by amount, not both; neither credits what is left.
    require(
        "CreditNoteInput",
        &["reason"],
        json!({"dependentSchemas": {"amount_cents": {"not": {"required": ["line_items"]}}}}),
    );
    set(
        schemas,
        "CreditNoteInput",
        "amount_cents",
        json!({"minimum": 1, "maximum": MAX_AMOUNT}),
    );
    set(
        schemas,
        "CreditNoteInput",
        "line_items",
        json!({"minItems": 1, "maxItems": invoicing_domain::document::MAX_LINES}),
    );
    set(
        schemas,
        "CreditNoteInput",
        "memo",
        text(0, invoicing_domain::credit_note::MEMO_MAX),
    );
    email_input(schemas);
    // A statement's currency is one the server knows, as a document's is: on its JSON, its PDF
    // and its email alike.
    for (path, method) in [
        ("/api/v1/customers/{id}/statement", "get"),
        ("/api/v1/customers/{id}/statement/pdf", "get"),
        ("/api/v1/customers/{id}/statement/email", "post"),
    ] {
        // (Read, never made: the dashboard's document has no such path.)
        let params = doc["paths"]
            .get_mut(path)
            .and_then(|item| item.get_mut(method))
            .and_then(|op| op.get_mut("parameters"))
            .and_then(Value::as_array_mut);
        for param in params.into_iter().flatten() {
            if param["name"] == "currency" {
                param["schema"] = json!({"type": "string", "enum": currencies});
            }
        }
    }
    // Every string a body carries refuses control and bidirectional characters (`body.rs`
    // checks all of them, whatever the field).
    refuse_controls(doc);
}

/// The `email` object of the send and resend routes (SPEC §18), as `EmailInput::parse` reads
/// it; that `to` and `cc` hold at most ten addresses together is a rule between two fields the
/// schema cannot state. Invoices' own reminder offsets have the profile's bounds.
fn email_input(schemas: &mut serde_json::Map<String, Value>) {
    use invoicing_domain::customer::EMAIL_MAX;
    use invoicing_domain::email as e;
    use invoicing_domain::profile as p;
    let address =
        json!({"type": "string", "format": "email", "minLength": 1, "maxLength": EMAIL_MAX});
    let most = e::MAX_RECIPIENTS;
    set(
        schemas,
        "EmailInput",
        "to",
        json!({"minItems": 1, "maxItems": most, "items": address}),
    );
    set(
        schemas,
        "EmailInput",
        "cc",
        json!({"maxItems": most, "items": address}),
    );
    // `char::is_control`: the C0 and C1 controls. A message may break lines and indent.
    set(
        schemas,
        "EmailInput",
        "subject",
        json!({"maxLength": e::SUBJECT_MAX, "pattern": "^[^\\u0000-\\u001F\\u007F-\\u009F]*$"}),
    );
    set(
        schemas,
        "EmailInput",
        "message",
        json!({"maxLength": e::MESSAGE_MAX,
            "pattern": "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F]*$"}),
    );
    let days = i64::from(p::REMINDER_DAYS_MAX);
    for schema in ["InvoiceInput", "InvoicePatchInput"] {
        set(
            schemas,
            schema,
            "reminders",
            json!({"maxItems": p::MAX_REMINDERS,
                "items": {"type": "integer", "minimum": -days, "maximum": days}}),
        );
    }
}

/// `PATCH /api/v1/account` as `ProfilePatchInput::parse` reads it; its address is the customer
/// address with `country` an ISO 3166-1 alpha-2 code, so it gets a schema of its own.
fn profile_input(
    schemas: &mut serde_json::Map<String, Value>,
    text: &dyn Fn(usize, usize) -> Value,
    required_text: &dyn Fn(usize) -> Value,
) {
    use invoicing_domain::customer as c;
    use invoicing_domain::profile as p;
    const NAME: &str = "ProfilePatchInput";
    let mut address = schemas.get("AddressInput").cloned().unwrap_or(Value::Null);
    let countries: Vec<&str> = isocountry::CountryCode::as_array()
        .iter()
        .map(|c| c.alpha2())
        .collect();
    // As the parser reads it: a code (outer white space trimmed), or blank for none.
    address["properties"]["country"] = json!({"type": "string",
        "pattern": format!("^[{WHITE_SPACE}]*(?:{})?[{WHITE_SPACE}]*$", countries.join("|")),
        "description": "ISO 3166-1 alpha-2, upper case, such as DE; blank for none"});
    schemas.insert("ProfileAddressInput".into(), address);
    put(
        schemas,
        NAME,
        "address",
        json!({"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/ProfileAddressInput"}]}),
    );
    set(schemas, NAME, "name", required_text(c::NAME_MAX));
    set(schemas, NAME, "legal_name", text(0, c::NAME_MAX));
    set(
        schemas,
        NAME,
        "website",
        json!({"minLength": 1, "maxLength": p::WEBSITE_MAX,
        "format": "uri", "pattern": "^[hH][tT][tT][pP][sS]?://[^/?#]+"}),
    );
    set(schemas, NAME, "tax_id", text(0, p::TAX_ID_MAX));
    set(
        schemas,
        NAME,
        "payment_instructions",
        text(0, p::PAYMENT_INSTRUCTIONS_MAX),
    );
    set(schemas, NAME, "invoice_footer", text(0, p::FOOTER_MAX));
    set(
        schemas,
        NAME,
        "brand_color",
        json!({"pattern": "^#[0-9A-Fa-f]{6}$"}),
    );
    let days = i64::from(p::REMINDER_DAYS_MAX);
    set(
        schemas,
        NAME,
        "reminders",
        json!({"maxItems": p::MAX_REMINDERS,
        "items": {"type": "integer", "minimum": -days, "maximum": days}}),
    );
}

/// What e-invoices take (SPEC §23), as the domain's parsers read it. What no pattern can say (an
/// IBAN's check digits, a unit or VATEX code outside the lists, a category against the rate) is
/// listed in the fuzzer's rules.
fn einvoice_input(
    schemas: &mut serde_json::Map<String, Value>,
    text: &dyn Fn(usize, usize) -> Value,
    required_text: &dyn Fn(usize) -> Value,
) {
    use invoicing_domain::customer as c;
    use invoicing_domain::einvoice as e;
    let countries: Vec<&str> = isocountry::CountryCode::as_array()
        .iter()
        .map(|c| c.alpha2())
        .chain(["EL", "XI"])
        .collect();
    let vat_id = json!({"maxLength": 64, "pattern": format!(
        "^(?:(?:{})[0-9A-Za-z]{{2,13}})?$",
        countries.join("|")
    ), "description": "With its country prefix, such as DE123456789; blank for none"});
    for schema in ["CustomerInput", "CustomerPatchInput", "ProfilePatchInput"] {
        set(schemas, schema, "vat_id", vat_id.clone());
    }
    let schemes: Vec<&str> = e::eas_schemes().collect();
    set(
        schemas,
        "ElectronicAddressInput",
        "scheme",
        json!({"enum": schemes}),
    );
    set(
        schemas,
        "ElectronicAddressInput",
        "id",
        required_text(e::IDENTIFIER_MAX),
    );
    set(
        schemas,
        "BankAccountInput",
        "iban",
        json!({"pattern": "^[A-Z]{2}[0-9]{2}[0-9A-Z]{11,30}$"}),
    );
    set(
        schemas,
        "BankAccountInput",
        "bic",
        json!({"pattern": "^(?:[A-Z]{4}[A-Z0-9]{4}(?:[A-Z0-9]{3})?)?$"}),
    );
    set(schemas, "BankAccountInput", "name", text(0, c::NAME_MAX));
    set(schemas, "ContactInput", "name", text(0, c::NAME_MAX));
    for field in ["phone", "email"] {
        let customer = schemas
            .get("CustomerInput")
            .and_then(|s| s.get("properties"))
            .and_then(|p| p.get(field))
            .cloned();
        if let Some(customer) = customer {
            put(schemas, "ContactInput", field, customer);
        }
    }
    for schema in ["InvoiceInput", "InvoicePatchInput"] {
        set(
            schemas,
            schema,
            "buyer_reference",
            text(0, e::REFERENCE_MAX),
        );
        set(schemas, schema, "purchase_order", text(0, e::REFERENCE_MAX));
    }
    set(
        schemas,
        "LineItemInput",
        "unit",
        json!({"pattern": "^[0-9A-Z]{1,3}$"}),
    );
    set(
        schemas,
        "LineItemInput",
        "tax_exemption_reason",
        text(0, e::EXEMPTION_REASON_MAX),
    );
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

/// The class of [`REFUSED_CHARACTERS`] as a regex class body.
fn refused_class() -> String {
    use invoicing_domain::validation::REFUSED_CHARACTERS;
    REFUSED_CHARACTERS
        .iter()
        .map(|&(low, high)| format!("\\u{:04x}-\\u{:04x}", u32::from(low), u32::from(high)))
        .collect()
}

/// Adds "none of the refused characters" to every string schema of the request bodies: as
/// the pattern of a string that has none, or beside a pattern that could match one.
fn refuse_controls(doc: &mut Value) {
    let free = format!("^[^{}]*$", refused_class());
    // Reached again: the schemas above added some (the profile's address).
    let ops = doc["paths"]
        .as_object()
        .into_iter()
        .flat_map(|p| p.values())
        .flat_map(|item| item.as_object().into_iter().flat_map(|o| o.values()));
    let inputs = reachable(
        &doc["components"]["schemas"],
        ops.map(|op| &op["requestBody"]),
    );
    for name in &inputs {
        // The dashboard's forms take any text: a screen shows its operation's refusal, and a
        // visitor without a session is sent to sign in before the form is read.
        if name == "DashboardForm" {
            continue;
        }
        if let Some(schema) = doc["components"]["schemas"].get_mut(name) {
            guard_strings(schema, &free);
        }
    }
    let operations = doc["paths"]
        .as_object_mut()
        .into_iter()
        .flat_map(|paths| paths.values_mut())
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.values_mut());
    for operation in operations {
        if let Some(body) = operation.get_mut("requestBody") {
            guard_strings(body, &free);
        }
    }
}

fn guard_strings(node: &mut Value, free: &str) {
    let Some(map) = node.as_object_mut() else {
        return;
    };
    // A `$ref` is guarded where it points; keywords beside it (a metadata's key and value
    // schemas) are walked like any others.
    let is_string = match map.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
        _ => false,
    };
    if is_string && !map.contains_key("enum") && !map.contains_key("const") {
        match map.get("pattern").and_then(Value::as_str) {
            None => {
                map.insert("pattern".into(), Value::from(free));
            }
            Some(pattern) if may_match_a_control(pattern) => {
                let guard = json!({"pattern": free});
                match map.get_mut("allOf").and_then(Value::as_array_mut) {
                    Some(all) => all.push(guard),
                    None => {
                        map.insert("allOf".into(), json!([guard]));
                    }
                }
            }
            Some(_) => {}
        }
    }
    for key in ["properties", "content"] {
        for child in map
            .get_mut(key)
            .and_then(Value::as_object_mut)
            .into_iter()
            .flat_map(|m| m.values_mut())
        {
            guard_strings(child, free);
        }
    }
    for key in ["allOf", "oneOf", "anyOf", "prefixItems"] {
        for child in map
            .get_mut(key)
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            guard_strings(child, free);
        }
    }
    for key in ["items", "additionalProperties", "propertyNames", "schema"] {
        if let Some(child) = map.get_mut(key) {
            guard_strings(child, free);
        }
    }
}

/// Whether a string pattern could let a refused character through: not anchored at both
/// ends, or with a negated class or an escape that names one.
fn may_match_a_control(pattern: &str) -> bool {
    let anchored = pattern.starts_with('^') && pattern.ends_with('$');
    !anchored
        || ["[^", "\\u", "\\t", "\\f", "\\s", "\\S"]
            .iter()
            .any(|m| pattern.contains(m))
}
