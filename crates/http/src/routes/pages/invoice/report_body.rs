//! The body of a payment report: the form's fields (URL-encoded, or multipart with a proof of
//! transfer), their OpenAPI schemas, and reading them from a post.

use crate::error::ApiError;
use crate::form_body::{read_form, require_form};
use crate::multipart::{is_multipart, read_upload, UploadError};
use crate::routes::pages::{form_text, form_token};
use actix_web::{web, HttpRequest};
use invoicing_domain::payment::REFERENCE_MAX;
use invoicing_domain::payment_amount::{self as amount_text};
use invoicing_domain::payment_proof::PROOF_MAX_BYTES;
use serde::Deserialize;
use utoipa::openapi::schema::{ObjectBuilder, Schema};
use utoipa::openapi::RefOr;

/// The fields the report form posts. All three are required: without the token the answer is
/// 404, without an amount or a reference the page again with what is missing (422).
#[derive(Deserialize)]
pub(crate) struct PaymentReportForm {
    pub(super) token: Option<String>,
    pub(super) amount: Option<String>,
    pub(super) reference: Option<String>,
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

/// The file a report came with.
pub(super) enum AttachedFile {
    None,
    TooLarge,
    Some(String, Vec<u8>),
}

/// The report form as posted: URL-encoded, or `multipart/form-data` when it carries a proof.
pub(super) async fn read_report(
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
