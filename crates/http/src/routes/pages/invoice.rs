//! The customer's page of an invoice (SPEC §9), with a "report a payment" form while the invoice
//! is open (SPEC §13). The form posts back without JavaScript; a report records a pending
//! payment for the merchant to verify and redirects (303) to the page, which thanks the
//! customer, so reloading never posts twice. It never marks the invoice paid by itself.

use super::public_pdf;
use super::report_form;
use super::{
    allow_form_target, limit_public, missing_as, money, query_token, render, valid_token,
    DocumentParts, DocumentView,
};
use super::{form_text, form_token};
use crate::error::ApiError;
use crate::form_body::{read_form, require_form};
use crate::multipart::{is_multipart, read_upload, UploadError};
use crate::ops::gateways::card_offer;
use crate::redirect::see_other;
use crate::{blocking, AppState};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use invoicing_domain::gateway::GatewayKind;
use invoicing_domain::invoice::PublicInvoice;
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::locale::Locale;
use invoicing_domain::money::Money;
use invoicing_domain::payment::{PaymentReportInput, REFERENCE_MAX};
use invoicing_domain::payment_amount::{self as amount_text, reported, MajorAmount};
use invoicing_domain::payment_proof::{parse_proof, ProofError, PROOF_MAX_BYTES};
use invoicing_domain::payment_status::PaymentStatus;
use invoicing_domain::ports::Repositories;
use invoicing_domain::supply::Supply;
use invoicing_domain::validation::FieldError;
use serde::Deserialize;
use std::collections::HashMap;
use utoipa::openapi::schema::{ObjectBuilder, Schema};
use utoipa::openapi::RefOr;

/// A payment as the customer sees it on the page.
struct PaymentLine {
    date: String,
    amount: String,
    reference: String,
    state: &'static str,
}

#[derive(Template)]
#[template(path = "invoice.html")]
struct InvoicePage {
    doc: DocumentView,
    title: String,
    report_intro: String,
    report_amount_label: String,
    status: &'static str,
    status_label: &'static str,
    due_date: String,
    /// The delivery date or service period, labelled (SPEC §27).
    supply: Option<(&'static str, String)>,
    show_due: bool,
    amount_due: String,
    token: String,
    /// The report form, while the invoice takes payments that are neither made nor reported.
    accepts_reports: bool,
    /// The customer's reports being checked, in their words ("We have your report of …").
    reports_checked: Vec<String>,
    amount_value: String,
    reference_value: String,
    form_errors: Vec<String>,
    thanks: Option<String>,
    payments: Vec<PaymentLine>,
    /// Credit notes: number, date, amount.
    credit_notes: Vec<(String, String, String)>,
    credited: Option<String>,
    /// "Pay by card" (SPEC §25), labelled with the amount.
    card_button: Option<String>,
    /// How a card payment the customer came back from stands.
    card_note: Option<String>,
    /// Why the attached proof file was refused (shown beside its field).
    proof_error: Option<String>,
}

fn payment_state(t: Locale, status: PaymentStatus) -> &'static str {
    t.text(match status {
        PaymentStatus::Pending => "payment.state.pending",
        PaymentStatus::Verified => "payment.state.verified",
        PaymentStatus::Rejected => "payment.state.rejected",
    })
}

impl InvoicePage {
    fn new(p: PublicInvoice, token: String) -> Self {
        let inv = p.invoice;
        let cur = inv.currency;
        let t = p.parties.locale();
        let due = Money::new(inv.amount_due_cents).unwrap_or(Money::ZERO);
        // The form offers, prefilled, only what is neither paid nor reported (SPEC §13).
        let left = inv
            .balance()
            .map(|b| b.reportable(reported(&p.payments)))
            .unwrap_or(due);
        let reports_checked = if inv.status.is_open() {
            p.payments
                .iter()
                .filter(|pay| pay.status == PaymentStatus::Pending)
                .map(|pay| {
                    t.fill(
                        "report.received",
                        &[
                            ("amount", &money(t, pay.amount_cents, cur)),
                            ("date", &t.date(pay.created_at.date_naive())),
                        ],
                    )
                })
                .collect()
        } else {
            Vec::new()
        };
        let merchant = p.parties.issuer.display_name();
        let number = inv.invoice_number.as_str();
        InvoicePage {
            title: t.fill(
                "page.invoice_title",
                &[("number", number), ("merchant", merchant)],
            ),
            report_intro: t.fill("report.intro", &[("merchant", merchant)]),
            report_amount_label: t.fill("report.amount", &[("currency", cur.code())]),
            status: inv.status.as_str(),
            status_label: t.invoice_status(inv.status),
            due_date: t.date(inv.due_date),
            supply: supply_fact(inv.supply(), t),
            show_due: inv.status.is_open(),
            amount_due: money(t, inv.amount_due_cents, cur),
            token,
            accepts_reports: inv.status.is_open() && left > Money::ZERO,
            reports_checked,
            amount_value: t.amount_field(left, cur),
            reference_value: String::new(),
            form_errors: Vec::new(),
            thanks: None,
            payments: p
                .payments
                .iter()
                .map(|pay| PaymentLine {
                    date: t.date(pay.created_at.date_naive()),
                    amount: money(t, pay.amount_cents, cur),
                    // A gateway's id (`pi_…`) means nothing to the customer: the way they paid.
                    reference: match pay.gateway {
                        Some(_) => t.text("payment.by_card").to_string(),
                        None => pay.reference.clone().unwrap_or_default(),
                    },
                    state: payment_state(t, pay.status),
                })
                .collect(),
            card_button: None,
            card_note: None,
            proof_error: None,
            credited: (inv.amount_credited_cents > 0)
                .then(|| money(t, inv.amount_credited_cents, cur)),
            credit_notes: p
                .credit_notes
                .iter()
                .map(|c| {
                    (
                        c.credit_note_number.clone(),
                        t.date(c.created_at.date_naive()),
                        money(t, c.total_cents, cur),
                    )
                })
                .collect(),
            doc: DocumentView::from(DocumentParts {
                parties: p.parties,
                logo: p.logo,
                number: inv.invoice_number,
                issue_date: inv.issue_date,
                currency: cur,
                lines: inv.line_items,
                subtotal_cents: inv.subtotal_cents,
                tax_cents: inv.tax_cents,
                total_cents: inv.total_cents,
                notes: inv.notes,
            }),
        }
    }
}

fn thanks(t: Locale, merchant: &str) -> String {
    t.fill("report.thanks", &[("merchant", merchant)])
}

/// The customer's page of a sent invoice (HTML; the first view marks it viewed).
#[utoipa::path(get, path = "/invoice/{number}", tag = "public pages", operation_id = "invoice_page",
    params(
        ("number" = String, Path, description = "Invoice number, e.g. INV-2026-000001"),
        ("token" = String, Query, description = "The capability token of the payment link"),
        ("reported" = Option<String>, Query, description = "Set by the redirect after a payment report: the page thanks the customer"),
        ("card" = Option<String>, Query, description = "Set by the return from a card payment: `paid`, `confirming`, `unavailable` or `cancelled`"),
    ),
    responses(
        (status = 200, description = "The invoice page, with a form to report a payment while it is open", body = String, content_type = "text/html"),
        (status = 404, description = "Unknown number, wrong or missing token, or a draft", body = crate::openapi::error_body::ErrorBody),
        (status = 429, description = "Too many page views from this address (`rate_limited`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn page(
    state: web::Data<AppState>,
    req: HttpRequest,
    number: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    limit_public(&state, &req)?;
    let token = query_token(&req).ok_or_else(|| ApiError::resource_missing("invoice"))?;
    let query = serde_urlencoded::from_str::<HashMap<String, String>>(req.query_string())
        .unwrap_or_default();
    let number = number.into_inner();
    let repos = state.repos();
    let shown = token.clone();
    let gateway = state.config.gateway.clone();
    let asks_gateway = gateway.is_some();
    let (public, connected) = blocking(move || {
        let public = repos.view_public_invoice(&number, &token)?;
        let connected = asks_gateway
            && public.invoice.status.is_open()
            && repos
                .invoice_gateway(&number, &token, GatewayKind::Stripe)?
                .1
                .is_some();
        Ok((public, connected))
    })
    .await
    .map_err(missing_as("invoice"))?;
    let merchant = public.parties.issuer.display_name().to_string();
    let t = public.parties.locale();
    let offered = card_offer(gateway.as_deref(), connected, &public.invoice);
    let paid = public.invoice.status == InvoiceStatus::Paid;
    let due = money(t, public.invoice.amount_due_cents, public.invoice.currency);
    let mut page = InvoicePage::new(public, shown);
    if query.contains_key("reported") {
        page.thanks = Some(thanks(t, &merchant));
    }
    page.card_note = match query.get("card").map(String::as_str) {
        Some("paid" | "confirming") if paid => {
            Some(t.fill("card.paid", &[("merchant", &merchant)]))
        }
        Some("paid" | "confirming") => Some(t.text("card.confirming").to_string()),
        Some("unavailable") => Some(t.text("card.unavailable").to_string()),
        _ => None,
    };
    if offered {
        page.card_button = Some(t.fill("card.pay", &[("amount", &due)]));
    }
    let mut res = render(page)?;
    if let (true, Some(g)) = (offered, gateway) {
        allow_form_target(&mut res, &g.checkout_origin());
    }
    Ok(res)
}

/// The invoice's PDF for its customer; opening it does not mark the invoice viewed.
#[utoipa::path(get, path = "/invoice/{number}/pdf", tag = "public pages", operation_id = "invoice_pdf",
    params(
        ("number" = String, Path, description = "Invoice number"),
        ("token" = String, Query, description = "The capability token of the payment link"),
    ),
    responses(
        (status = 200, description = "The PDF", content_type = "application/pdf", body = Vec<u8>),
        (status = 404, description = "Unknown number, wrong or missing token, or a draft", body = crate::openapi::error_body::ErrorBody),
        (status = 429, description = "Too many page views from this address (`rate_limited`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn pdf(
    state: web::Data<AppState>,
    req: HttpRequest,
    number: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let find = |repos: &dyn Repositories, number: &str, token: &str| {
        repos.find_public_invoice(number, token)
    };
    let number = number.into_inner();
    public_pdf(
        &state,
        &req,
        number,
        "invoice",
        find,
        crate::pdf::invoice_document,
    )
    .await
}

/// The fields the report form posts. All three are required: without the token the answer is
/// 404, without an amount or a reference the page again with what is missing (422).
#[derive(Deserialize)]
pub(crate) struct PaymentReportForm {
    token: Option<String>,
    amount: Option<String>,
    reference: Option<String>,
}

impl utoipa::PartialSchema for PaymentReportForm {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .description(Some("The invoice page's \"report a payment\" form"))
            .property("token", form_token())
            .property(
                "amount",
                form_text(
                    amount_text::MAX_TEXT,
                    "In major units as the page's language writes them, e.g. `1,453.00` (en), \
                     `1.453,00` (de), `1 453,00` (fr), with or without the currency's sign: at \
                     most 4 decimals (fewer where the currency has fewer), more than 0 and at \
                     most what is neither paid nor reported",
                )
                .pattern(Some(AMOUNT_PATTERN)),
            )
            .property(
                "reference",
                form_text(REFERENCE_MAX, "The transfer reference; not blank").pattern(Some(r"\S")),
            )
            .required("token")
            .required("amount")
            .required("reference")
            .into()
    }
}

impl utoipa::ToSchema for PaymentReportForm {}

/// The same form with its optional proof of transfer, as a browser posts a file input.
pub(crate) struct PaymentReportUpload;

impl utoipa::PartialSchema for PaymentReportUpload {
    fn schema() -> RefOr<Schema> {
        let RefOr::T(Schema::Object(form)) = PaymentReportForm::schema() else {
            return PaymentReportForm::schema();
        };
        let mut upload = ObjectBuilder::from(form).description(Some(
            "The invoice page's \"report a payment\" form with a proof of the transfer",
        ));
        upload = upload.property(
            "proof",
            ObjectBuilder::new()
                .schema_type(utoipa::openapi::schema::Type::String)
                .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                    utoipa::openapi::KnownFormat::Binary,
                )))
                .description(Some(
                    "Optional: a PDF, PNG or JPEG of at most 5 MiB, judged by its bytes",
                )),
        );
        upload.into()
    }
}

impl utoipa::ToSchema for PaymentReportUpload {}

/// The shape of what [`MajorAmount::parse_in`] reads: digits with separators and spaces, a
/// currency sign or code before or after (the grouping itself is the parser's to check).
const AMOUNT_PATTERN: &str = r"^\s*[^0-9\s]{0,4}\s*[0-9.,][0-9.,\s]*\s*[^0-9\s]{0,4}\s*$";

/// The page again, answering 422 with what the customer typed and what is wrong with it, so
/// they can correct it without losing their input.
async fn refused(
    state: &AppState,
    number: String,
    token: String,
    form: (String, String),
    messages: Vec<String>,
    proof_error: Option<String>,
) -> Result<HttpResponse, ApiError> {
    let repos = state.repos();
    let shown = token.clone();
    let public = blocking(move || repos.view_public_invoice(&number, &token))
        .await
        .map_err(missing_as("invoice"))?;
    let mut page = InvoicePage::new(public, shown);
    (page.amount_value, page.reference_value) = form;
    page.form_errors = messages;
    page.proof_error = proof_error;
    let mut res = render(page)?;
    *res.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
    Ok(res)
}

/// Storage's own refusal, for a report that passed the page's checks and then met a changed
/// invoice: its English reasons under the customer's field names.
fn storage_reasons(t: Locale, errors: Vec<FieldError>) -> Vec<String> {
    errors
        .into_iter()
        .map(|e| {
            let field = if e.param == "amount" {
                t.text("lines.amount")
            } else {
                t.text("report.reference")
            };
            format!("{field} {}", e.message)
        })
        .collect()
}

/// The "report a payment" form of the invoice page (an HTML form post; answers 303 to the page,
/// which thanks the customer). Records a pending payment; the merchant verifies it.
#[utoipa::path(post, path = "/invoice/{number}/payments", tag = "public pages", operation_id = "invoice_report_payment",
    params(("number" = String, Path, description = "Invoice number")),
    request_body(content(
        (PaymentReportForm = "application/x-www-form-urlencoded"),
        (PaymentReportUpload = "multipart/form-data"),
    ), description = "The form as a browser posts it; `multipart/form-data` when it carries `proof`: a PDF, PNG or JPEG of at most 5 MiB, judged by its bytes"),
    responses(
        (status = 303, description = "Back to the invoice page, which thanks the customer (or shows why the invoice takes no payments any more)",
            headers(("Location" = String, description = "The invoice page"))),
        (status = 404, description = "Unknown number, wrong or missing token, or a draft", body = crate::openapi::error_body::ErrorBody),
        (status = 415, description = "Not an HTML form post (`unsupported_media_type`)", body = crate::openapi::error_body::ErrorBody),
        (status = 413, description = "The post is larger than a 5 MiB proof and the form (`payload_too_large`)", body = crate::openapi::error_body::ErrorBody),
        (status = 422, description = "The page again (HTML) with what is wrong: a missing or malformed amount, more than is due, no reference, or a proof file that is not a PDF, PNG or JPEG of at most 5 MiB (beside its field)", body = String, content_type = "text/html"),
        (status = 429, description = "Too many requests from this address (`rate_limited`)", body = crate::openapi::error_body::ErrorBody),
    ))]
pub async fn report(
    state: web::Data<AppState>,
    req: HttpRequest,
    number: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    limit_public(&state, &req)?;
    let (form, file) = read_report(&req, payload).await?;
    let token = valid_token(form.token).ok_or_else(|| ApiError::resource_missing("invoice"))?;
    let number = number.into_inner();
    let typed = (
        form.amount.clone().unwrap_or_default(),
        form.reference.clone().unwrap_or_default(),
    );
    let repos = state.repos();
    let (n, t) = (number.clone(), token.clone());
    let shown = blocking(move || repos.find_public_invoice(&n, &t))
        .await
        .map_err(missing_as("invoice"))?;
    let locale = shown.parties.locale();
    let proof = match file {
        AttachedFile::None => Ok(None),
        AttachedFile::TooLarge => Err(ProofError::TooLarge),
        AttachedFile::Some(name, bytes) => parse_proof(&name, bytes).map(Some),
    };
    let proof_error = proof.as_ref().err().map(|e| proof_message(locale, *e));
    // An invoice no longer open is storage's to answer (back to the page, which says why).
    if shown.invoice.status.is_open() {
        let found = report_form::problems(
            form.amount.as_deref(),
            form.reference.as_deref(),
            &shown.invoice,
            reported(&shown.payments),
            locale,
        );
        if !found.is_empty() || proof_error.is_some() {
            let currency = shown.invoice.currency;
            let messages = found
                .iter()
                .map(|p| report_form::describe(locale, p, currency))
                .collect();
            return refused(&state, number, token, typed, messages, proof_error).await;
        }
    }
    // The amount as the page's locale writes it (`1.453,00`), handed on as the operation reads
    // amounts; text the locale cannot read goes on as typed, for the operation to refuse.
    let currency = shown.invoice.currency;
    let amount = form.amount.map(|typed| {
        MajorAmount::parse_in(&typed, locale, currency)
            .and_then(|a| a.to_minor(currency))
            .map(|m| MajorAmount::format(m, currency))
            .unwrap_or(typed)
    });
    let input = PaymentReportInput {
        amount,
        reference: form.reference,
    };
    let mut report = match input.parse() {
        Ok(r) => r,
        Err(v) => {
            let messages = storage_reasons(locale, v.into_errors());
            return refused(&state, number, token, typed, messages, proof_error).await;
        }
    };
    report.proof = proof.ok().flatten();
    let repos = state.repos();
    let (n, t) = (number.clone(), token.clone());
    let back = format!("/invoice/{number}?token={token}");
    match blocking(move || repos.report_payment(&n, &t, report)).await {
        Ok(_) => Ok(see_other(&format!("{back}&reported=1"))),
        // Paid or cancelled meanwhile: the page shows where the invoice stands.
        Err(e) if e.code == "invalid_state_transition" => Ok(see_other(&back)),
        Err(e) if e.code == "validation_failed" => {
            let messages = storage_reasons(locale, e.details.clone());
            refused(&state, number, token, typed, messages, None).await
        }
        Err(e) => Err(missing_as("invoice")(e)),
    }
}

/// The file a report came with.
enum AttachedFile {
    None,
    TooLarge,
    Some(String, Vec<u8>),
}

/// The report form as posted: URL-encoded, or `multipart/form-data` when it carries a proof.
async fn read_report(
    req: &HttpRequest,
    payload: web::Payload,
) -> Result<(PaymentReportForm, AttachedFile), ApiError> {
    if !is_multipart(req) {
        require_form(req)?;
        let body = read_form(req, payload.into_inner()).await?;
        let form = serde_urlencoded::from_bytes(&body)
            .map_err(|_| ApiError::invalid_parameter("body", "expected an HTML form"))?;
        return Ok((form, AttachedFile::None));
    }
    let upload = match read_upload(req, payload, PROOF_MAX_BYTES, "proof").await {
        Ok(upload) => upload,
        Err(UploadError::Body(e)) => return Err(e),
        Err(UploadError::TooLarge) => return Err(ApiError::form_too_large()),
        Err(UploadError::NotMultipart | UploadError::Unreadable) => {
            return Err(ApiError::invalid_parameter(
                "body",
                "the form could not be read",
            ))
        }
    };
    let form = PaymentReportForm {
        token: upload.field("token"),
        amount: upload.field("amount"),
        reference: upload.field("reference"),
    };
    let file = match (upload.file_too_large, upload.file) {
        (true, _) => AttachedFile::TooLarge,
        (false, Some((name, bytes))) => AttachedFile::Some(name, bytes),
        (false, None) => AttachedFile::None,
    };
    Ok((form, file))
}

fn proof_message(t: Locale, e: ProofError) -> String {
    t.text(match e {
        ProofError::NotAllowed => "form.proof.type",
        ProofError::TooLarge => "form.proof.too_large",
    })
    .to_string()
}

/// The delivery date or service period as the page names it.
fn supply_fact(supply: Option<Supply>, t: Locale) -> Option<(&'static str, String)> {
    Some(match supply? {
        Supply::Delivered(day) => (t.text("field.delivery_date"), t.date(day)),
        Supply::Period(p) => (
            t.text("field.service_period"),
            format!("{} – {}", t.date(p.start), t.date(p.end)),
        ),
    })
}
