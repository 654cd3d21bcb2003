//! `POST /api/v1/customers/{id}/portal_link` and `…/portal_link/revoke` (SPEC §26): links to
//! the customer's portal, made and ended by the merchant's programs.

use crate::auth::Auth;
use crate::body::{NoBody, OptionalJsonBody};
use crate::error::ApiError;
use crate::ops::Ops;
use crate::path_id::Id;
use crate::AppState;
use actix_web::{web, HttpResponse};
use invoicing_domain::customer::CustomerId;
use invoicing_domain::portal::{PortalLink, PortalLinkInput, PortalRevocation};

/// A link to the customer's portal: every document of theirs that left draft, to pay, answer
/// and download. The token is shown this once; the body may be left out (30 days).
#[utoipa::path(post, path = "/api/v1/customers/{id}/portal_link", tag = "customers", operation_id = "create_portal_link",
    params(("id" = i64, Path, description = "Customer id")),
    request_body(content = Option<PortalLinkInput>, description = "`expires_at`, or no body for 30 days"),
    responses(
        (status = 201, description = "The link", body = PortalLink),
        (status = 404, description = "No such customer", body = crate::openapi::error_body::ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn create(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<CustomerId>,
    body: OptionalJsonBody<PortalLinkInput>,
) -> Result<HttpResponse, ApiError> {
    let link = Ops::for_key(&state, &auth)
        .create_portal_link(id, body.0)
        .await?;
    Ok(HttpResponse::Created().json(link))
}

/// Ends every link to the customer's portal, however made (the API, the merchant's screens, a
/// login by email).
#[utoipa::path(post, path = "/api/v1/customers/{id}/portal_link/revoke", tag = "customers", operation_id = "revoke_portal_links",
    params(("id" = i64, Path, description = "Customer id")),
    responses(
        (status = 200, description = "How many links ended", body = PortalRevocation),
        (status = 404, description = "No such customer", body = crate::openapi::error_body::ErrorBody),
    ),
    security(("api_key" = [])))]
pub async fn revoke(
    state: web::Data<AppState>,
    auth: Auth,
    id: Id<CustomerId>,
    _body: OptionalJsonBody<NoBody>,
) -> Result<HttpResponse, ApiError> {
    let revoked = Ops::for_key(&state, &auth).revoke_portal_links(id).await?;
    Ok(HttpResponse::Ok().json(PortalRevocation::new(revoked)))
}
