//! An endpoint of the route table: a handler with its method, path and OpenAPI operation, all
//! read from its `#[utoipa::path]` annotation.

use actix_web::http::Method;
use actix_web::Route;
use utoipa::openapi::path::{HttpMethod, Operation};
use utoipa::openapi::schema::Schema;
use utoipa::openapi::RefOr;

/// One handler of the route table, as its `#[utoipa::path]` annotation describes it: the
/// annotation is the one place its method and path are written.
pub struct Endpoint {
    pub methods: Vec<HttpMethod>,
    pub path: String,
    /// Its operation in the OpenAPI document, tags included.
    pub operation: Operation,
    /// The schemas its request and response bodies refer to, for the document's components.
    pub schemas: Vec<(String, RefOr<Schema>)>,
    /// The handler as an actix route for one of `methods`.
    pub(super) route: fn(Method) -> Route,
}

impl Endpoint {
    /// `methods` as actix names them.
    pub fn actix_methods(&self) -> Vec<Method> {
        self.methods.iter().map(actix_method).collect()
    }
}

pub(super) fn actix_method(method: &HttpMethod) -> Method {
    match method {
        HttpMethod::Get => Method::GET,
        HttpMethod::Post => Method::POST,
        HttpMethod::Put => Method::PUT,
        HttpMethod::Delete => Method::DELETE,
        HttpMethod::Options => Method::OPTIONS,
        HttpMethod::Head => Method::HEAD,
        HttpMethod::Patch => Method::PATCH,
        HttpMethod::Trace => Method::TRACE,
    }
}

/// The endpoint of the handler whose annotation generated `P` (`__path_<handler>`), tagged as
/// `#[derive(OpenApi)]`'s `paths(...)` tags it: its annotation's tags, else its module's path.
pub(super) fn endpoint<P>(module: &[&str], route: fn(Method) -> Route) -> Endpoint
where
    P: utoipa::Path + utoipa::__dev::Tags<'static> + utoipa::__dev::SchemaReferences,
{
    let mut operation = P::operation();
    let mut tags = P::tags();
    let module = module.join("::");
    if tags.is_empty() && !module.is_empty() {
        tags.push(&module);
    }
    operation
        .tags
        .get_or_insert_with(Vec::new)
        .extend(tags.iter().map(ToString::to_string));
    let mut schemas = Vec::new();
    P::schemas(&mut schemas);
    Endpoint {
        methods: P::methods(),
        path: P::path(),
        operation,
        schemas,
        route,
    }
}
