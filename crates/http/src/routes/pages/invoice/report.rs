//! The invoice page's "report a payment" post: checked, recorded as a pending payment, and
//! answered with the page (thanking the customer) or the page again with what is wrong.

use super::report_body::{read_report, AttachedFile, PaymentReportForm, PaymentReportUpload};
use super::view::InvoicePage;
use crate::error::ApiError;
use crate::redirect::see_other;
use crate::routes::pages::{limit_public, missing_as, render, valid_token};
use crate::{blocking, AppState};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use invoicing_domain::locale::Locale;
use invoicing_domain::payment::{reported, PaymentReport, PaymentReportInput};
use invoicing_domain::payment_proof::{parse_proof, ProofError};
use invoicing_domain::validation::FieldError;

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

/// What is wrong with the report, in the customer's words: the domain's problems, found by
/// the form's parse or by storage against the invoice as it stands.
fn said(t: Locale, errors: &[FieldError]) -> Vec<String> {
    errors.iter().map(|e| e.say(t)).collect()
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
    let input = PaymentReportInput {
        amount: form.amount,
        reference: form.reference,
    };
    let parsed = shown
        .invoice
        .read_report(input, locale, reported(&shown.payments));
    let report = match (parsed, proof) {
        (Ok(report), Ok(proof)) => PaymentReport { proof, ..report },
        (parsed, proof) => {
            let messages = parsed
                .err()
                .map(|v| said(locale, v.errors()))
                .unwrap_or_default();
            let proof_error = proof.err().map(|e| proof_message(locale, e));
            return refused(&state, number, token, typed, messages, proof_error).await;
        }
    };
    let repos = state.repos();
    let (n, t) = (number.clone(), token.clone());
    let back = format!("/invoice/{number}?token={token}");
    match blocking(move || repos.report_payment(&n, &t, report)).await {
        Ok(_) => Ok(see_other(&format!("{back}&reported=1"))),
        // Paid or cancelled meanwhile: the page shows where the invoice stands.
        Err(e) if e.code == "invalid_state_transition" => Ok(see_other(&back)),
        Err(e) if e.code == "validation_failed" => {
            let messages = said(locale, &e.details);
            refused(&state, number, token, typed, messages, None).await
        }
        Err(e) => Err(missing_as("invoice")(e)),
    }
}

fn proof_message(t: Locale, e: ProofError) -> String {
    t.text(match e {
        ProofError::NotAllowed => "form.proof.type",
        ProofError::TooLarge => "form.proof.too_large",
    })
    .to_string()
}
