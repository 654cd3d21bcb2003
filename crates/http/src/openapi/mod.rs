//! `GET /api/v1/openapi.json` and `GET /dashboard/openapi.json`: the OpenAPI 3.1 documents of the
//! API (with the public pages) and of the dashboard, generated from the handlers' annotations, with the error answers every operation shares added from the same rules the
//! middleware applies, so the document cannot drift from the code.

mod answers;
pub mod error_body;
mod inputs;
mod outputs;

use crate::error::{ErrorCode, ErrorType};
use crate::route_table::endpoint::Endpoint;
use crate::routes::{
    credit_notes, customers, emails, events, invoices, payment_requests, payments, products,
    quotations, recurring, reports, webhooks,
};
use invoicing_domain::credit_note::{CreditNote, CreditNoteInput, CreditReason};
use invoicing_domain::customer::{
    Address, AddressInput, Customer, CustomerInput, CustomerPatchInput,
};
use invoicing_domain::document::{LineItemInput, LineItemView};
use invoicing_domain::email::{
    EmailInput, EmailKind, EmailStatus, OutgoingEmail, RefusedRecipient, SendInput,
};
use invoicing_domain::event::{Event, EventData};
use invoicing_domain::invoice::{Invoice, InvoiceInput, InvoicePatchInput};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::locale::Locale;
use invoicing_domain::payment::{
    Payment, PaymentInput, PaymentMethod, PaymentPatchInput, PaymentRequest, RejectPaymentInput,
};
use invoicing_domain::payment_request::{CreatedPaymentRequest, PaymentRequestInput};
use invoicing_domain::payment_status::PaymentStatus;
use invoicing_domain::portal::{PortalLink, PortalLinkInput, PortalRevocation};
use invoicing_domain::product::{Product, ProductInput, ProductPatchInput};
use invoicing_domain::profile::{Profile, ProfilePatchInput};
use invoicing_domain::quotation::{
    AcceptInput, ConversionResult, ConvertInput, Quotation, QuotationInput, QuotationPatchInput,
    RejectInput,
};
use invoicing_domain::quotation_status::QuotationStatus;
use invoicing_domain::recurring::{
    Interval, RecurringInput, RecurringInvoice, RecurringPatchInput, RecurringStatus,
};
use invoicing_domain::report::{
    AgingAmounts, AgingByCurrency, AgingByCustomer, CustomerStatement, ReportInterval,
    RevenuePeriod, StatementEntry, StatementEntryKind, TaxLine,
};
use invoicing_domain::validation::Metadata;
use invoicing_domain::webhook::{WebhookEndpoint, WebhookInput, WebhookPatchInput};
use invoicing_domain::webhook_delivery::{DeliveryAttempt, DeliveryState};
use serde_json::{json, Value};
use utoipa::openapi::Components;
use utoipa::{Modify, OpenApi};

use answers::{declare_headers, CommonAnswers};
pub use error_body::{ErrorBody, ErrorDetail, ErrorObject};
use inputs::inputs_as_parsed;
use outputs::outputs_as_sent;

// Grouped by resource, one line each: rustfmt would put every name on a line of its own.
#[rustfmt::skip]
#[derive(OpenApi)]
#[openapi(
    info(title = "Invoicing API", version = "1", description = "Customers, invoices, quotations, payments, products, events and webhooks. Authenticate with `Authorization: Bearer sk_test_…` or `sk_live_…`. No text may contain the NUL character (U+0000): a body or parameter with one is refused (422 or 400), in every field. Nor may text in a body contain other control characters (U+0001–U+0008, U+000B, U+000C, U+000E–U+001F, U+007F–U+009F) or bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), keys included (422); tab, line feed and carriage return are text. Each string schema of a body states this with a pattern."),
    components(schemas(Profile, ProfilePatchInput, Locale, ErrorBody, ErrorObject, ErrorDetail, ErrorType, ErrorCode, events::EventTypeName, Customer, CustomerInput, CustomerPatchInput, Address, AddressInput, Metadata, customers::CustomerList,
        Invoice, InvoiceInput, InvoicePatchInput, InvoiceStatus, LineItemInput, LineItemView, invoices::InvoiceList, Event, EventData, events::EventList,
        Quotation, QuotationInput, QuotationPatchInput, QuotationStatus, AcceptInput, RejectInput, ConvertInput, ConversionResult, quotations::QuotationList,
        Payment, PaymentInput, PaymentMethod, PaymentPatchInput, PaymentRequest, PaymentStatus, RejectPaymentInput, payments::PaymentList, payment_requests::PaymentRequestList, PaymentRequestInput, CreatedPaymentRequest, PortalLink, PortalLinkInput, PortalRevocation,
        Product, ProductInput, ProductPatchInput, products::ProductList,
        WebhookEndpoint, WebhookInput, WebhookPatchInput, DeliveryAttempt, DeliveryState, webhooks::WebhookList, webhooks::DeliveryAttemptList, events::Redelivery,
        OutgoingEmail, RefusedRecipient, EmailKind, EmailStatus, EmailInput, SendInput, emails::EmailList,
        CreditNote, CreditNoteInput, CreditReason, credit_notes::CreditNoteList,
        RecurringInvoice, RecurringInput, RecurringPatchInput, RecurringStatus, Interval, recurring::RecurringList,
        crate::ops::AgingReport, crate::ops::RevenueReport, crate::ops::TaxReport, CustomerStatement, StatementEntry, StatementEntryKind, AgingByCurrency, AgingByCustomer, AgingAmounts, ReportInterval, RevenuePeriod, TaxLine, reports::AgingCustomerList)),
)]
struct ApiDoc;

/// The API's document for `endpoints` (its part of the route table), without `servers`: that
/// comes from the configuration when it is served.
pub fn api_document(endpoints: Vec<Endpoint>) -> Value {
    finished(generated(ApiDoc::openapi(), endpoints))
}

/// The dashboard's document (SPEC §1, §21) for `endpoints`: its HTML screens and forms, apart
/// from the API's so generated clients carry none of them.
pub fn dashboard_document(endpoints: Vec<Endpoint>) -> Value {
    let mut base = ApiDoc::openapi();
    base.info.title = "Invoicing dashboard".to_string();
    base.info.description = Some(
        "The merchant dashboard's HTML screens and forms (SPEC §21): for browsers, signed in \
         with a session; the API is described at `/api/v1/openapi.json`."
            .to_string(),
    );
    let mut doc = finished(generated(base, endpoints));
    drop_unused_schemas(&mut doc);
    doc
}

fn finished(api: utoipa::openapi::OpenApi) -> Value {
    let mut doc = serde_json::to_value(api).unwrap_or_default();
    declare_headers(&mut doc);
    outputs_as_sent(&mut doc);
    inputs_as_parsed(&mut doc);
    files_as_binary(&mut doc);
    doc
}

/// `base` with an operation for every one of `endpoints` (a part of the one route table), then
/// the answers every operation shares.
fn generated(
    mut api: utoipa::openapi::OpenApi,
    endpoints: Vec<Endpoint>,
) -> utoipa::openapi::OpenApi {
    for e in endpoints {
        api.paths
            .add_path_operation(&e.path, e.methods, e.operation);
        api.components
            .get_or_insert_with(Components::new)
            .schemas
            .extend(e.schemas);
    }
    CommonAnswers.modify(&mut api);
    api
}

/// Removes the component schemas no operation reaches (the API's, from the dashboard's
/// document), following references from the paths until nothing new is reached.
fn drop_unused_schemas(doc: &mut Value) {
    fn refs(v: &Value, into: &mut std::collections::BTreeSet<String>) {
        match v {
            Value::Object(map) => {
                for (k, v) in map {
                    match (k.as_str(), v.as_str()) {
                        ("$ref", Some(r)) => {
                            if let Some(name) = r.strip_prefix("#/components/schemas/") {
                                into.insert(name.to_string());
                            }
                        }
                        _ => refs(v, into),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|i| refs(i, into)),
            _ => {}
        }
    }
    let mut used = std::collections::BTreeSet::new();
    refs(&doc["paths"], &mut used);
    refs(&doc["components"]["headers"], &mut used);
    loop {
        let mut more = used.clone();
        for name in &used {
            refs(&doc["components"]["schemas"][name], &mut more);
        }
        if more.len() == used.len() {
            break;
        }
        used = more;
    }
    if let Some(schemas) = doc["components"]["schemas"].as_object_mut() {
        schemas.retain(|name, _| used.contains(name));
    }
}

/// An image, PDF or ZIP body is the file's bytes (`string`, `binary`), not the array of numbers
/// utoipa writes for `Vec<u8>`.
fn files_as_binary(doc: &mut Value) {
    fn binary(content: &mut Value) {
        if let Some(media) = content.as_object_mut() {
            for (name, entry) in media.iter_mut() {
                if name.starts_with("image/")
                    || name == "application/pdf"
                    || name == "application/zip"
                    || name == "application/xml"
                {
                    entry["schema"] = json!({"type": "string", "format": "binary"});
                }
            }
        }
    }
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    for op in paths
        .values_mut()
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.values_mut())
    {
        if let Some(body) = op.get_mut("requestBody") {
            let upload = body["content"]
                .as_object()
                .is_some_and(|c| c.keys().any(|m| m.starts_with("image/")));
            if upload {
                // An upload is its body: there is no request without one.
                body["required"] = json!(true);
            }
            if let Some(content) = body.get_mut("content") {
                binary(content);
            }
        }
        if let Some(answers) = op.get_mut("responses").and_then(Value::as_object_mut) {
            for content in answers.values_mut().filter_map(|a| a.get_mut("content")) {
                binary(content);
            }
        }
    }
}
