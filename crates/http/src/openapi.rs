//! `GET /api/v1/openapi.json`: the OpenAPI 3.1 document, generated from the handlers'
//! annotations, with the error answers every operation shares added from the same rules the
//! middleware applies, so the document cannot drift from the code.

use crate::routes::{
    customers, events, health, invoices, pages, payment_requests, payments, products, quotations,
    webhooks,
};
use actix_web::HttpResponse;
use invoicing_domain::customer::{
    Address, AddressInput, Customer, CustomerInput, CustomerPatchInput,
};
use invoicing_domain::document::{LineItemInput, LineItemView};
use invoicing_domain::event::{Event, EventData};
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
use std::sync::OnceLock;
use utoipa::openapi::path::{HttpMethod, Operation, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::Required;
use utoipa::openapi::{ContentBuilder, OpenApi as Document, Ref, ResponseBuilder};
use utoipa::{Modify, OpenApi, ToSchema};

/// The SPEC §4 error body.
#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    pub error: ErrorObject,
}

#[derive(Serialize, ToSchema)]
pub struct ErrorObject {
    /// invalid_request_error, authentication_error, permission_error, rate_limit_error, api_error
    #[serde(rename = "type")]
    pub kind: String,
    pub code: String,
    pub message: String,
    pub param: Option<String>,
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
        quotations::send, quotations::send_post, quotations::accept, quotations::reject, quotations::convert,
        events::list, events::get, events::redeliver,
        payments::create, payments::list, payments::get, payments::update, payments::verify, payments::reject,
        payment_requests::check, payment_requests::list, pages::invoice::report,
        products::create, products::list, products::get, products::update, products::delete,
        webhooks::create, webhooks::list, webhooks::get, webhooks::update, webhooks::delete, webhooks::rotate_secret, webhooks::deliveries,
        pages::invoice::page, pages::quote::page, pages::quote::accept, pages::quote::decline,
    ),
    components(schemas(ErrorBody, ErrorObject, ErrorDetail, Customer, CustomerInput, CustomerPatchInput, Address, AddressInput, Metadata, customers::CustomerList,
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
            "page" => None,
            "per_page" => Some(100),
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

impl Modify for CommonAnswers {
    fn modify(&self, doc: &mut Document) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
        for (path, item) in doc.paths.paths.iter_mut() {
            let api = path.starts_with("/api/") || path.starts_with("/v1/");
            let ops = [
                (HttpMethod::Get, item.get.as_mut()),
                (HttpMethod::Post, item.post.as_mut()),
                (HttpMethod::Patch, item.patch.as_mut()),
                (HttpMethod::Delete, item.delete.as_mut()),
                (HttpMethod::Put, item.put.as_mut()),
            ];
            for (method, op) in ops {
                let Some(op) = op else { continue };
                // Handlers share names across modules (`list`, `get`); the tag makes them unique.
                if let (Some(id), Some(tag)) = (
                    op.operation_id.as_mut(),
                    op.tags.as_ref().and_then(|t| t.first()),
                ) {
                    *id = format!("{}_{id}", tag.replace(' ', "_"));
                }
                bound_paging(op);
                let keyed = op.security.as_ref().is_some_and(|s| !s.is_empty());
                if keyed && matches!(method, HttpMethod::Post) {
                    idempotent(op);
                }
                if op.request_body.is_some() {
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
                }
                if api {
                    add(op, "403", "Plain HTTP (`https_required`), missing scope (`insufficient_permissions`) or another tenant's resource (`resource_forbidden`)");
                    add(
                        op,
                        "429",
                        "Rate limit exceeded (`rate_limited`); see `Retry-After`",
                    );
                }
                if keyed {
                    add(op, "401", "Missing, invalid, revoked or expired API key");
                    add(op, "400", "A bad query or path value (`invalid_parameter`)");
                    add(
                        op,
                        "503",
                        "The database is unavailable (`service_unavailable`)",
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

/// The generated document (built once).
pub fn document() -> &'static serde_json::Value {
    static DOC: OnceLock<serde_json::Value> = OnceLock::new();
    DOC.get_or_init(|| serde_json::to_value(ApiDoc::openapi()).unwrap_or_default())
}

/// The OpenAPI 3.1 document of this API.
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "operations",
    responses((status = 200, description = "The OpenAPI 3.1 document")))]
pub async fn serve() -> HttpResponse {
    HttpResponse::Ok().json(document())
}
