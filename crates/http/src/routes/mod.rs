//! The route table: every endpoint the app serves is listed once here, which registers it,
//! answers 405 with `Allow` for the other methods on its path, and lets tests compare the table
//! with the OpenAPI document.

/// Declares the SPEC §5 list envelope of one resource (`{data, page, per_page, total,
/// has_more}`), under the name the OpenAPI document gives it.
#[macro_export]
macro_rules! page_schema {
    ($(#[$meta:meta])* $name:ident of $item:ty) => {
        $(#[$meta])*
        #[derive(serde::Serialize, utoipa::ToSchema)]
        pub struct $name {
            pub data: Vec<$item>,
            pub page: u32,
            pub per_page: u32,
            pub total: i64,
            pub has_more: bool,
        }
    };
}

pub mod account;
pub mod credit_notes;
pub mod customers;
pub mod emails;
pub mod events;
pub mod health;
pub mod invoices;
pub mod pages;
pub mod payment_requests;
pub mod payments;
pub mod products;
pub mod quotations;
pub mod recurring;
pub mod webhooks;

use crate::error::ApiError;
use crate::openapi;
use actix_web::http::Method;
use actix_web::{web, HttpRequest, HttpResponse, Route};

pub struct Endpoint {
    pub method: Method,
    pub path: &'static str,
    route: Route,
}

fn ep(method: Method, path: &'static str, route: Route) -> Endpoint {
    Endpoint {
        method,
        path,
        route,
    }
}

pub fn endpoints() -> Vec<Endpoint> {
    use Method as M;
    vec![
        ep(M::GET, "/healthz", web::get().to(health::healthz)),
        ep(M::GET, "/readyz", web::get().to(health::readyz)),
        ep(
            M::GET,
            "/api/v1/openapi.json",
            web::get().to(openapi::serve),
        ),
        ep(M::GET, "/api/v1/account", web::get().to(account::get)),
        ep(
            M::PATCH,
            "/api/v1/account",
            web::patch().to(account::update),
        ),
        ep(
            M::PUT,
            "/api/v1/account/logo",
            web::put().to(account::logo::put_logo),
        ),
        ep(
            M::GET,
            "/api/v1/account/logo",
            web::get().to(account::logo::get_logo),
        ),
        ep(
            M::DELETE,
            "/api/v1/account/logo",
            web::delete().to(account::logo::delete_logo),
        ),
        ep(
            M::POST,
            "/api/v1/customers",
            web::post().to(customers::create),
        ),
        ep(M::GET, "/api/v1/customers", web::get().to(customers::list)),
        ep(
            M::GET,
            "/api/v1/customers/{id}",
            web::get().to(customers::get),
        ),
        ep(
            M::PATCH,
            "/api/v1/customers/{id}",
            web::patch().to(customers::update),
        ),
        ep(
            M::DELETE,
            "/api/v1/customers/{id}",
            web::delete().to(customers::delete),
        ),
        ep(
            M::POST,
            "/api/v1/invoices",
            web::post().to(invoices::create),
        ),
        ep(M::GET, "/api/v1/invoices", web::get().to(invoices::list)),
        ep(
            M::GET,
            "/api/v1/invoices/{id}",
            web::get().to(invoices::get),
        ),
        ep(
            M::PATCH,
            "/api/v1/invoices/{id}",
            web::patch().to(invoices::update),
        ),
        ep(
            M::GET,
            "/api/v1/invoices/{id}/pdf",
            web::get().to(invoices::pdf),
        ),
        ep(
            M::POST,
            "/api/v1/invoices/{id}/send",
            web::post().to(invoices::send),
        ),
        ep(
            M::PATCH,
            "/api/v1/invoices/{id}/send",
            web::patch().to(invoices::send_patch),
        ),
        ep(
            M::POST,
            "/api/v1/invoices/{id}/email",
            web::post().to(emails::resend_invoice),
        ),
        ep(
            M::POST,
            "/api/v1/invoices/{id}/credit_notes",
            web::post().to(credit_notes::create),
        ),
        ep(
            M::GET,
            "/api/v1/credit_notes",
            web::get().to(credit_notes::list),
        ),
        ep(
            M::GET,
            "/api/v1/credit_notes/{id}",
            web::get().to(credit_notes::get),
        ),
        ep(
            M::GET,
            "/api/v1/credit_notes/{id}/pdf",
            web::get().to(credit_notes::pdf),
        ),
        ep(
            M::POST,
            "/api/v1/credit_notes/{id}/email",
            web::post().to(credit_notes::email),
        ),
        ep(
            M::POST,
            "/api/v1/recurring_invoices",
            web::post().to(recurring::create),
        ),
        ep(
            M::GET,
            "/api/v1/recurring_invoices",
            web::get().to(recurring::list),
        ),
        ep(
            M::GET,
            "/api/v1/recurring_invoices/{id}",
            web::get().to(recurring::get),
        ),
        ep(
            M::PATCH,
            "/api/v1/recurring_invoices/{id}",
            web::patch().to(recurring::update),
        ),
        ep(
            M::POST,
            "/api/v1/recurring_invoices/{id}/pause",
            web::post().to(recurring::pause),
        ),
        ep(
            M::POST,
            "/api/v1/recurring_invoices/{id}/resume",
            web::post().to(recurring::resume),
        ),
        ep(
            M::POST,
            "/api/v1/recurring_invoices/{id}/cancel",
            web::post().to(recurring::cancel),
        ),
        ep(M::GET, "/api/v1/emails", web::get().to(emails::list)),
        ep(M::GET, "/api/v1/emails/{id}", web::get().to(emails::get)),
        ep(M::GET, "/api/v1/events", web::get().to(events::list)),
        ep(M::GET, "/api/v1/events/{id}", web::get().to(events::get)),
        ep(
            M::POST,
            "/api/v1/events/{id}/redeliver",
            web::post().to(events::redeliver),
        ),
        ep(
            M::POST,
            "/api/v1/webhooks",
            web::post().to(webhooks::create),
        ),
        ep(M::GET, "/api/v1/webhooks", web::get().to(webhooks::list)),
        ep(
            M::GET,
            "/api/v1/webhooks/{id}",
            web::get().to(webhooks::get),
        ),
        ep(
            M::PATCH,
            "/api/v1/webhooks/{id}",
            web::patch().to(webhooks::update),
        ),
        ep(
            M::DELETE,
            "/api/v1/webhooks/{id}",
            web::delete().to(webhooks::delete),
        ),
        ep(
            M::POST,
            "/api/v1/webhooks/{id}/rotate_secret",
            web::post().to(webhooks::rotate_secret),
        ),
        ep(
            M::GET,
            "/api/v1/webhooks/{id}/deliveries",
            web::get().to(webhooks::deliveries),
        ),
        ep(
            M::POST,
            "/api/v1/quotations",
            web::post().to(quotations::create),
        ),
        ep(
            M::GET,
            "/api/v1/quotations",
            web::get().to(quotations::list),
        ),
        ep(
            M::GET,
            "/api/v1/quotations/{id}",
            web::get().to(quotations::get),
        ),
        ep(
            M::PATCH,
            "/api/v1/quotations/{id}",
            web::patch().to(quotations::update),
        ),
        ep(
            M::DELETE,
            "/api/v1/quotations/{id}",
            web::delete().to(quotations::delete),
        ),
        ep(
            M::PATCH,
            "/api/v1/quotations/{id}/send",
            web::patch().to(quotations::send_patch),
        ),
        ep(
            M::GET,
            "/api/v1/quotations/{id}/pdf",
            web::get().to(quotations::pdf),
        ),
        ep(
            M::POST,
            "/api/v1/quotations/{id}/send",
            web::post().to(quotations::send),
        ),
        ep(
            M::POST,
            "/api/v1/quotations/{id}/email",
            web::post().to(emails::resend_quotation),
        ),
        ep(
            M::POST,
            "/api/v1/quotations/{id}/accept",
            web::post().to(quotations::accept),
        ),
        ep(
            M::POST,
            "/api/v1/quotations/{id}/reject",
            web::post().to(quotations::reject),
        ),
        ep(
            M::POST,
            "/api/v1/quotations/{id}/convert",
            web::post().to(quotations::convert),
        ),
        ep(
            M::GET,
            "/invoice/{number}",
            web::get().to(pages::invoice::page),
        ),
        ep(
            M::GET,
            "/invoice/{number}/pdf",
            web::get().to(pages::invoice::pdf),
        ),
        ep(
            M::POST,
            "/invoice/{number}/payments",
            web::post().to(pages::invoice::report),
        ),
        ep(
            M::POST,
            "/api/v1/payments",
            web::post().to(payments::create),
        ),
        ep(M::GET, "/api/v1/payments", web::get().to(payments::list)),
        ep(
            M::GET,
            "/api/v1/payments/{id}",
            web::get().to(payments::get),
        ),
        ep(
            M::PATCH,
            "/api/v1/payments/{id}",
            web::patch().to(payments::update),
        ),
        ep(
            M::POST,
            "/api/v1/payments/{id}/verify",
            web::post().to(payments::verify),
        ),
        ep(
            M::POST,
            "/api/v1/payments/{id}/reject",
            web::post().to(payments::reject),
        ),
        ep(
            M::GET,
            "/v1/payment-requests",
            web::get().to(payment_requests::check),
        ),
        ep(
            M::GET,
            "/api/v1/payment-requests",
            web::get().to(payment_requests::list),
        ),
        ep(
            M::POST,
            "/api/v1/products",
            web::post().to(products::create),
        ),
        ep(M::GET, "/api/v1/products", web::get().to(products::list)),
        ep(
            M::GET,
            "/api/v1/products/{id}",
            web::get().to(products::get),
        ),
        ep(
            M::PATCH,
            "/api/v1/products/{id}",
            web::patch().to(products::update),
        ),
        ep(
            M::DELETE,
            "/api/v1/products/{id}",
            web::delete().to(products::delete),
        ),
        ep(M::GET, "/quote/{number}", web::get().to(pages::quote::page)),
        ep(
            M::GET,
            "/quote/{number}/pdf",
            web::get().to(pages::quote::pdf),
        ),
        ep(
            M::POST,
            "/quote/{number}/accept",
            web::post().to(pages::quote::accept),
        ),
        ep(
            M::POST,
            "/quote/{number}/decline",
            web::post().to(pages::quote::decline),
        ),
    ]
}

pub fn register(cfg: &mut web::ServiceConfig) {
    let mut by_path: Vec<(&'static str, Vec<Method>, Vec<Route>)> = Vec::new();
    for e in endpoints() {
        match by_path.iter_mut().find(|(p, _, _)| *p == e.path) {
            Some((_, methods, routes)) => {
                methods.push(e.method);
                routes.push(e.route);
            }
            None => by_path.push((e.path, vec![e.method], vec![e.route])),
        }
    }
    for (path, methods, routes) in by_path {
        let allow = methods
            .iter()
            .map(Method::as_str)
            .collect::<Vec<_>>()
            .join(", ");
        let mut resource = web::resource(path);
        for route in routes {
            resource = resource.route(route);
        }
        cfg.service(resource.default_service(web::to(move |req: HttpRequest| {
            let allow = allow.clone();
            async move {
                Err::<HttpResponse, _>(ApiError::method_not_allowed(req.method().as_str(), &allow))
            }
        })));
    }
}

/// The app's default service: a path no route matches.
pub async fn not_found(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::route_not_found(req.method().as_str(), req.path()))
}
