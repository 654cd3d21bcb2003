//! `/api/v1/account`: the merchant's profile and logo (SPEC §16), for the key's environment.

pub mod gateways;
pub mod logo;

use crate::auth::Auth;
use crate::body::JsonBody;
use crate::error::ApiError;
use crate::ops::Ops;
use crate::AppState;
use actix_web::{web, HttpResponse};
use invoicing_domain::profile::{Profile, ProfilePatchInput};

/// The merchant's profile for this key's environment.
#[utoipa::path(get, path = "/api/v1/account", tag = "account",
    responses((status = 200, description = "The profile (its defaults until first changed)", body = Profile)),
    security(("api_key" = [])))]
pub async fn get(state: web::Data<AppState>, auth: Auth) -> Result<HttpResponse, ApiError> {
    let profile = Ops::for_key(&state, &auth).profile().await?;
    Ok(HttpResponse::Ok().json(profile))
}

/// Copy the test profile and logo into live (never keys, webhooks or secrets): set up in test,
/// then go live with the same business details. Takes a test key with `account:write`.
#[utoipa::path(post, path = "/api/v1/account/copy_to_live", tag = "account",
    responses(
        (status = 200, description = "The live profile, now a copy of the test one", body = Profile),
        (status = 403, description = "A live key, or a key without `account:write` (`insufficient_permissions`)", body = crate::openapi::error_body::ErrorBody)),
    security(("api_key" = [])))]
pub async fn copy_to_live(
    state: web::Data<AppState>,
    auth: Auth,
) -> Result<HttpResponse, ApiError> {
    let profile = Ops::for_key(&state, &auth).copy_profile_to_live().await?;
    Ok(HttpResponse::Ok().json(profile))
}

/// Change the profile; absent fields stay, `null` clears an optional field. Documents already
/// sent keep the profile they were sent with.
#[utoipa::path(patch, path = "/api/v1/account", tag = "account",
    request_body = ProfilePatchInput,
    responses((status = 200, description = "The changed profile", body = Profile)),
    security(("api_key" = [])))]
pub async fn update(
    state: web::Data<AppState>,
    auth: Auth,
    body: JsonBody<ProfilePatchInput>,
) -> Result<HttpResponse, ApiError> {
    let profile = Ops::for_key(&state, &auth).update_profile(body.0).await?;
    Ok(HttpResponse::Ok().json(profile))
}

/// Everything of this key's account and environment (SPEC §24): a ZIP of one JSON Lines file
/// per resource (each line the object as the API answers it) and the PDF of every document that
/// left draft. Streamed as it is written; never a key's hash or a webhook's secret.
#[utoipa::path(get, path = "/api/v1/account/export", tag = "account",
    responses((status = 200, description = "`account-export.zip`: `profile.json`, `api_keys.jsonl`, `customers.jsonl`, `invoices.jsonl`, `quotations.jsonl`, `credit_notes.jsonl`, `payments.jsonl`, `products.jsonl`, `recurring_invoices.jsonl`, `emails.jsonl`, `events.jsonl`, `webhook_endpoints.jsonl`, `webhook_deliveries.jsonl`, `pdf/{invoices,quotations,credit_notes}/NUMBER.pdf`, then `export.json` (rows per file)",
        content_type = "application/zip", body = Vec<u8>)),
    security(("api_key" = [])))]
pub async fn export(state: web::Data<AppState>, auth: Auth) -> Result<HttpResponse, ApiError> {
    let chunks = Ops::for_key(&state, &auth).export_account()?;
    let body = futures_util::stream::unfold(chunks, |mut rx| async move {
        rx.recv().await.map(|chunk| (chunk, rx))
    });
    Ok(HttpResponse::Ok()
        .content_type("application/zip")
        .insert_header((
            actix_web::http::header::CONTENT_DISPOSITION,
            "attachment; filename=\"account-export.zip\"",
        ))
        .insert_header((actix_web::http::header::CACHE_CONTROL, "private, no-store"))
        .streaming(body))
}
