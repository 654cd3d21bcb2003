//! `/api/v1/account`: the merchant's profile and logo (SPEC §16), for the key's environment.

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
