//! `Idempotency-Key` on `POST` requests of the API (SPEC §15). Runs inside the API gate, so the
//! caller is known: a new key runs the request and keeps its answer; a retry with the same
//! request replays it (`Idempotent-Replayed: true`); the same key with another request is 422;
//! while the first is still running, 409.
//!
//! The request runs in a transaction of its own, opened here: every storage call of the handler
//! joins it ([`AppState::repos`]), and the answer is inserted into it before it commits. So the
//! effect and the stored answer commit together or not at all, and the open transaction is the
//! claim on the key: a crash (or a lost connection) ends both, and a retry then either finds the
//! answer or runs anew. Answers that are not kept roll the effect back with them.

use crate::auth::Auth;
use crate::body::{BodyReader, MAX_BODY_BYTES};
use crate::envelope::RequestId;
use crate::error::ApiError;
use crate::paths::{is_api_path, routing_path};
use crate::{blocking, blocking_final, blocking_within, AppState, REQUEST_REPOS};
use actix_web::body::{self, BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue, CONTENT_TYPE};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::web::{self, Bytes, BytesMut};
use actix_web::{HttpMessage, HttpRequest, HttpResponse, ResponseError};
use invoicing_domain::idempotency::{
    IdempotencyClaim, IdempotencyKey, RequestFingerprint, StoredResponse,
};
use invoicing_domain::ports::IdempotentRequest;

const HEADER: &str = "idempotency-key";
const ABANDON_WAIT: std::time::Duration = std::time::Duration::from_secs(2);
const REPLAYED: &str = "idempotent-replayed";

pub async fn guard(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let raw = req.headers().get(HEADER).map(|v| v.as_bytes().to_vec());
    let auth = req.extensions().get::<Auth>().cloned();
    let state = req.app_data::<web::Data<AppState>>().cloned();
    let (Some(raw), Some(auth), Some(state)) = (raw, auth, state) else {
        return pass(req, next).await;
    };
    if req.method() != Method::POST || !is_api_path(routing_path(&req)) {
        return pass(req, next).await;
    }
    let key = match IdempotencyKey::parse(&raw) {
        Ok(key) => key,
        Err(e) => {
            let err = ApiError::invalid_parameter("Idempotency-Key", e.to_string());
            return Ok(req.error_response(err));
        }
    };
    let payload = req.take_payload();
    let body = match read_body(&req.request().clone(), payload).await {
        Ok(body) => body,
        Err(e) => return Ok(req.error_response(e)),
    };
    let path = match req.query_string() {
        "" => routing_path(&req).to_string(),
        q => format!("{}?{q}", routing_path(&req)),
    };
    let request = RequestFingerprint::new(req.method().as_str(), &path, &body);
    req.set_payload(Payload::from(body));

    let scope = auth.scope;
    let repos = state.repos();
    let claim = blocking(move || repos.begin_idempotent(scope, &key, &request));
    match claim.await {
        Err(e) => Ok(req.error_response(e)),
        Ok(IdempotencyClaim::InUse) => Ok(req.error_response(ApiError::idempotency_key_in_use())),
        Ok(IdempotencyClaim::Reused) => Ok(req.error_response(ApiError::idempotency_key_reused())),
        Ok(IdempotencyClaim::Replay(stored)) => {
            let id = req.extensions().get::<RequestId>().map(|r| r.0.clone());
            let replay = replay(&stored, id.as_deref());
            Ok(req.into_response(replay))
        }
        Ok(IdempotencyClaim::Run(tx)) => run(req, next, tx).await,
    }
}

async fn pass(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    next.call(req)
        .await
        .map(ServiceResponse::map_into_boxed_body)
}

/// Runs the request in its transaction and commits the answer with it, or rolls both back when
/// the answer is not one to keep.
async fn run(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
    tx: Box<dyn IdempotentRequest>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let outcome = REQUEST_REPOS.scope(tx.repos(), next.call(req)).await;
    let res = match outcome {
        Ok(res) if StoredResponse::is_kept(res.status().as_u16()) => res,
        other => {
            abandon(tx).await;
            return other.map(ServiceResponse::map_into_boxed_body);
        }
    };
    let status = res.status().as_u16();
    let (req, res) = res.into_parts();
    let (head, body) = res.into_parts();
    let Ok(bytes) = body::to_bytes(body).await else {
        abandon(tx).await;
        return Ok(ServiceResponse::new(
            req,
            ApiError::internal().error_response(),
        ));
    };
    let stored = StoredResponse {
        status,
        body: String::from_utf8_lossy(&bytes).to_string(),
    };
    crate::failpoint::hit("idempotency.before_commit");
    if let Err(e) = blocking_final(move || tx.commit(&stored)).await {
        // Whether the commit reached the database is unknown: a retry with the key finds out.
        log::error!("committing an idempotent request: {}", e.message);
        return Ok(ServiceResponse::new(req, e.error_response()));
    }
    crate::failpoint::hit("idempotency.after_commit");
    Ok(ServiceResponse::new(
        req,
        head.set_body(BoxBody::new(bytes)),
    ))
}

/// Rolls the request's transaction back, so that a corrected retry finds the key free. Waits
/// only briefly: after a storage timeout the connection may still be busy (the rollback then
/// finishes in the background).
async fn abandon(tx: Box<dyn IdempotentRequest>) {
    let rolled_back = blocking_within(ABANDON_WAIT, move || tx.rollback()).await;
    if let Err(e) = rolled_back {
        log::warn!("rolling back an idempotent request: {}", e.message);
    }
}

async fn read_body(req: &HttpRequest, payload: Payload) -> Result<Bytes, ApiError> {
    let mut bytes = BytesMut::new();
    let mut body = BodyReader::new(req, payload);
    while let Some(chunk) = body.next_chunk().await? {
        if bytes.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(ApiError::payload_too_large());
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes.freeze())
}

/// The first answer again; an error body gets this request's id.
fn replay(stored: &StoredResponse, request_id: Option<&str>) -> HttpResponse {
    let status = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK);
    let mut body = stored.body.clone();
    if let (Some(id), Ok(mut value)) = (
        request_id,
        serde_json::from_str::<serde_json::Value>(&stored.body),
    ) {
        if let Some(error) = value.get_mut("error").and_then(|e| e.as_object_mut()) {
            error.insert("request_id".into(), id.into());
            body = value.to_string();
        }
    }
    let mut res = HttpResponse::build(status);
    res.insert_header((
        HeaderName::from_static(REPLAYED),
        HeaderValue::from_static("true"),
    ));
    if body.is_empty() {
        return res.finish();
    }
    res.insert_header((CONTENT_TYPE, HeaderValue::from_static("application/json")))
        .body(body)
}
