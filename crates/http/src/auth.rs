//! The API gate: HTTPS only, API-key authentication, and rate limiting, in that order, with the
//! SPEC §6 headers on every API response. Handlers read the caller through [`Auth`].

use crate::client::{client_ip, is_https};
use crate::config::RateConfig;
use crate::error::ApiError;
use crate::paths::{is_api_path, routing_path};
use crate::ratelimit::BucketKey;
use crate::AppState;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderMap, AUTHORIZATION};
use actix_web::middleware::Next;
use actix_web::{web, FromRequest, HttpMessage, HttpRequest};
use chrono::Utc;
use invoicing_domain::api_key::{hash_key, parse_key_shape, ApiKey, KeyRejection, KeyScopes};
use invoicing_domain::tenant::{Actor, Scope};
use std::future::{ready, Ready};

/// Paths under the API prefix that need no key (still limited per client IP).
const PUBLIC_API_PATHS: &[&str] = &["/api/v1/openapi.json"];

/// The authenticated caller of an API request; what it may do is checked by the operations
/// (`crate::ops::Ops::for_key`), as for the dashboard's users.
#[derive(Clone, Debug)]
pub struct Auth {
    pub scope: Scope,
    pub scopes: KeyScopes,
}

impl FromRequest for Auth {
    type Error = ApiError;
    type Future = Ready<Result<Auth, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            req.extensions()
                .get::<Auth>()
                .cloned()
                .ok_or_else(ApiError::missing_api_key),
        )
    }
}

fn bearer_token(headers: &HeaderMap) -> Result<&str, ApiError> {
    let value = headers
        .get(AUTHORIZATION)
        .ok_or_else(ApiError::missing_api_key)?;
    let value = value.to_str().map_err(|_| ApiError::invalid_api_key())?;
    let (scheme, token) = value
        .trim()
        .split_once(' ')
        .ok_or_else(ApiError::invalid_api_key)?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(ApiError::invalid_api_key());
    }
    Ok(token.trim())
}

async fn authenticate(state: &AppState, headers: &HeaderMap) -> Result<ApiKey, ApiError> {
    let token = bearer_token(headers)?;
    if parse_key_shape(token).is_none() {
        return Err(ApiError::invalid_api_key());
    }
    let hash = hash_key(token);
    let repos = state.repos();
    // A key this process holds already needs no thread of the blocking pool.
    let key = match repos.known_key_by_hash(&hash) {
        Some(key) => key,
        None => crate::blocking(move || repos.find_key_by_hash(&hash))
            .await?
            .ok_or_else(ApiError::invalid_api_key)?,
    };
    match key.check_usable(Utc::now()) {
        Ok(()) => Ok(key),
        Err(KeyRejection::Revoked) => Err(ApiError::invalid_api_key()),
        Err(KeyRejection::Expired) => Err(ApiError::api_key_expired()),
    }
}

fn key_rate(key: &ApiKey, default: RateConfig) -> RateConfig {
    RateConfig {
        per_minute: key.rate.per_minute.unwrap_or(default.per_minute),
        burst: key.rate.burst.unwrap_or(default.burst),
    }
}

pub async fn api_gate(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
        return Ok(req.error_response(ApiError::internal()));
    };
    if !is_api_path(routing_path(&req)) {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_boxed_body);
    }
    let ip = client_ip(req.request(), &state.config);
    let default = state.config.api_rate;
    let anonymous = || (BucketKey::AnonymousIp(ip), default);

    if !is_https(req.request(), &state.config) {
        let decision = state.check_rate(BucketKey::AnonymousIp(ip), default).await;
        let mut res = req.error_response(ApiError::https_required());
        decision.write_headers(res.headers_mut());
        return Ok(res);
    }

    let needs_key = !PUBLIC_API_PATHS.contains(&routing_path(&req));
    let auth = if needs_key {
        Some(authenticate(&state, req.headers()).await)
    } else {
        None
    };
    let (bucket, rate) = match &auth {
        Some(Ok(key)) => (BucketKey::ApiKey(key.id.0), key_rate(key, default)),
        _ => anonymous(),
    };
    let decision = state.check_rate(bucket, rate).await;
    let mut res = if !decision.allowed {
        req.error_response(ApiError::rate_limited(decision.retry_after))
    } else {
        match auth {
            Some(Err(e)) => req.error_response(e),
            Some(Ok(key)) => {
                req.extensions_mut().insert(Auth {
                    scope: Scope::new(key.account_id, key.environment)
                        .acting_as(Actor::ApiKey(key.id.0)),
                    scopes: key.scopes,
                });
                next.call(req).await?.map_into_boxed_body()
            }
            None => next.call(req).await?.map_into_boxed_body(),
        }
    };
    decision.write_headers(res.headers_mut());
    Ok(res)
}
