//! The route table: every endpoint the app serves is listed once here, by its handler; the
//! handler's `#[utoipa::path]` gives its method and path. The table registers the routes, answers
//! 405 with `Allow` for the other methods on a path, and is what the OpenAPI documents list.

mod documents;
pub(crate) mod endpoint;

pub use documents::{dashboard_document, document};
use endpoint::endpoint;
pub use endpoint::Endpoint;

use crate::dashboard;
use crate::error::ApiError;
use crate::routes::{
    account, credit_notes, customers, einvoices, emails, events, health, invoices, pages,
    payment_requests, payments, portal_links, products, quotations, recurring, reports,
    stripe_webhook, webhooks,
};
use actix_web::http::Method;
use actix_web::{web, HttpRequest, HttpResponse, Route};
use utoipa::openapi::path::HttpMethod;
use utoipa::openapi::RefOr;

/// `routes![customers::create, …]`: the endpoints of these handlers, each read from the
/// `__path_<handler>` struct its `#[utoipa::path]` generated.
macro_rules! routes {
    (@endpoint [$($module:ident)*] $handler:ident) => {
        endpoint::<pastey::paste! { $($module::)* [<__path_ $handler>] }>(
            &[$(stringify!($module)),*],
            |method| web::route().method(method).to($($module::)* $handler),
        )
    };
    (@endpoint [$($module:ident)*] $head:ident :: $($rest:tt)+) => {
        routes!(@endpoint [$($module)* $head] $($rest)+)
    };
    ($($($segment:ident)::+),* $(,)?) => {
        vec![$(routes!(@endpoint [] $($segment)::+)),*]
    };
}

/// Every endpoint the app serves, in the order `Allow` lists a path's methods: the API's and the
/// public pages', then the dashboard's. Each OpenAPI document is made of its own part of the
/// same list (`documents::document`, `documents::dashboard_document`).
pub fn endpoints() -> Vec<Endpoint> {
    let mut all = api_endpoints();
    all.extend(dashboard_endpoints());
    all
}

/// The JSON API, the health probes and the customers' public pages: what clients are generated
/// from. Every list that answers CSV gets a CSV operation of its own (`csv_operations`).
pub fn api_endpoints() -> Vec<Endpoint> {
    csv_operations(routes![
        health::healthz,
        health::readyz,
        documents::serve,
        account::get,
        account::update,
        account::copy_to_live,
        account::export,
        account::gateways::put_stripe,
        account::gateways::get_stripe,
        account::gateways::delete_stripe,
        account::logo::put_logo,
        account::logo::get_logo,
        account::logo::delete_logo,
        customers::create,
        customers::list,
        customers::get,
        customers::update,
        customers::delete,
        portal_links::create,
        portal_links::revoke,
        invoices::create,
        invoices::list,
        invoices::get,
        invoices::update,
        invoices::pdf,
        einvoices::invoice,
        einvoices::invoice_check,
        invoices::send,
        invoices::send_patch,
        emails::resend_invoice,
        credit_notes::create,
        credit_notes::list,
        credit_notes::get,
        credit_notes::pdf,
        einvoices::credit_note,
        einvoices::credit_note_check,
        credit_notes::email,
        recurring::create,
        recurring::list,
        recurring::get,
        recurring::update,
        recurring::pause,
        recurring::resume,
        recurring::cancel,
        emails::list,
        emails::get,
        events::list,
        events::get,
        events::redeliver,
        reports::aging,
        reports::revenue,
        reports::tax,
        reports::statement::statement,
        reports::statement::statement_pdf,
        reports::statement::statement_email,
        webhooks::create,
        webhooks::list,
        webhooks::get,
        webhooks::update,
        webhooks::delete,
        webhooks::rotate_secret,
        webhooks::deliveries,
        quotations::create,
        quotations::list,
        quotations::get,
        quotations::update,
        quotations::delete,
        quotations::moves::send_patch,
        quotations::pdf,
        quotations::moves::send,
        emails::resend_quotation,
        quotations::moves::accept,
        quotations::moves::reject,
        quotations::moves::convert,
        pages::invoice::page,
        pages::invoice::pdf,
        pages::invoice::report::report,
        pages::card::start,
        pages::card::back,
        pages::portal::page,
        pages::portal::statement,
        pages::portal::file,
        pages::portal_login::page,
        pages::portal_login::ask,
        stripe_webhook::receive,
        payments::create,
        payments::list,
        payments::get,
        payments::update,
        payments::verify,
        payments::reject,
        payments::refund,
        payments::proof,
        payment_requests::check,
        payment_requests::create_short,
        payment_requests::list,
        payment_requests::create,
        products::create,
        products::list,
        products::get,
        products::update,
        products::delete,
        pages::quote::page,
        pages::quote::pdf,
        pages::quote::answer::accept,
        pages::quote::answer::decline,
    ])
}

/// The merchant dashboard's HTML screens and forms (SPEC §21), described in a document of their
/// own so no generated API client carries them.
pub fn dashboard_endpoints() -> Vec<Endpoint> {
    routes![
        documents::serve_dashboard,
        dashboard::assets::stylesheet,
        dashboard::assets::copy_script,
        dashboard::assets::totals_script,
        dashboard::assets::favicon,
        dashboard::sign_in::login_page,
        dashboard::sign_in::login,
        dashboard::sign_in::logout,
        dashboard::links::set_password_page,
        dashboard::links::set_password,
        dashboard::links::forgot_page,
        dashboard::links::forgot,
        dashboard::email_change::confirm_page,
        dashboard::email_change::confirm,
        dashboard::sign_in::environment,
        dashboard::sign_in::language,
        dashboard::home::home,
        dashboard::invoices::list,
        dashboard::invoices::form::new_page,
        dashboard::invoices::form::save_new,
        dashboard::invoices::detail::detail,
        dashboard::invoices::form::edit_page,
        dashboard::invoices::form::save_edit,
        dashboard::invoices::actions::pdf,
        dashboard::invoices::actions::einvoice,
        dashboard::compose::invoice_page,
        dashboard::compose::invoice_send,
        dashboard::invoices::actions::action,
        dashboard::customers::list,
        dashboard::customers::form::new_page,
        dashboard::customers::form::create,
        dashboard::customers::detail::detail,
        dashboard::customers::form::edit_page,
        dashboard::customers::form::save,
        dashboard::customers::detail::delete,
        dashboard::customers::portal::portal,
        dashboard::statement::pdf,
        dashboard::statement::post,
        dashboard::quotations::list,
        dashboard::quotations::form::new_page,
        dashboard::quotations::form::save_new,
        dashboard::quotations::detail,
        dashboard::quotations::form::edit_page,
        dashboard::quotations::form::save_edit,
        dashboard::quotations::actions::pdf,
        dashboard::compose::quotation_page,
        dashboard::compose::quotation_send,
        dashboard::quotations::actions::action,
        dashboard::products::list,
        dashboard::products::form::new_page,
        dashboard::products::form::create,
        dashboard::products::form::edit_page,
        dashboard::products::form::save,
        dashboard::products::delete,
        dashboard::credit_notes::list,
        dashboard::credit_notes::detail,
        dashboard::credit_notes::pdf,
        dashboard::recurring::list,
        dashboard::recurring_form::new_page,
        dashboard::recurring_form::save_new,
        dashboard::recurring::detail,
        dashboard::recurring_form::edit_page,
        dashboard::recurring_form::save_edit,
        dashboard::recurring::action,
        dashboard::reports::reports,
        dashboard::export::export,
        dashboard::settings::profile::profile_page,
        dashboard::settings::profile::save_profile,
        dashboard::settings::profile::test_email,
        dashboard::settings::profile::copy_to_live,
        dashboard::settings::logo::upload,
        dashboard::settings::logo::image,
        dashboard::settings::logo::delete,
        dashboard::settings::emails::list,
        dashboard::settings::keys::list,
        dashboard::settings::keys::create,
        dashboard::settings::keys::revoke,
        dashboard::settings::keys::rotate,
        dashboard::settings::webhooks::list,
        dashboard::settings::webhooks::create,
        dashboard::settings::webhooks::endpoint::detail,
        dashboard::settings::webhooks::endpoint::save,
        dashboard::settings::webhooks::endpoint::rotate,
        dashboard::settings::webhooks::endpoint::delete,
        dashboard::settings::webhooks::endpoint::redeliver,
        dashboard::settings::people::list,
        dashboard::settings::people::invite,
        dashboard::settings::people::change_role,
        dashboard::settings::people::remove,
        dashboard::settings::people::revoke_invitation,
        dashboard::settings::stripe::settings,
        dashboard::settings::stripe::connect,
        dashboard::settings::stripe::disconnect,
        dashboard::account::account_page,
        dashboard::account::change_password,
        dashboard::account::change_email,
        dashboard::account::end_session,
        dashboard::two_step::code::code_page,
        dashboard::two_step::code::take_code,
        dashboard::two_step::two_step_page,
        dashboard::two_step::enable,
        dashboard::two_step::codes,
        dashboard::two_step::disable,
        dashboard::two_step::require,
        dashboard::payments::list,
        dashboard::payments::detail::detail,
        dashboard::payments::verify,
        dashboard::payments::reject,
        dashboard::payments::detail::refund,
        dashboard::payments::detail::proof,
    ]
}

const CSV: &str = "text/csv";

/// Each `GET` that answers JSON or, asked for it, CSV (SPEC §22) as two operations, so each has
/// one body type and generated clients type a list as its page: the JSON one at its path (still
/// answering CSV to `Accept: text/csv` or `?format=csv`, said in words), and the CSV one at the
/// path plus `.csv`, with the same filters and no paging, served by the same handler
/// (`csv_export::wanted` knows the path).
fn csv_operations(endpoints: Vec<Endpoint>) -> Vec<Endpoint> {
    let mut out = Vec::with_capacity(endpoints.len() + 16);
    for mut e in endpoints {
        let answers_csv = e.methods == [HttpMethod::Get]
            && e.operation.responses.responses.get("200").is_some_and(
                |r| matches!(r, RefOr::T(r) if r.content.contains_key(CSV) && r.content.len() > 1),
            );
        if !answers_csv {
            out.push(e);
            continue;
        }
        let mut csv = e.operation.clone();
        let csv_path = format!("{}.csv", e.path);
        if let Some(RefOr::T(ok)) = e.operation.responses.responses.get_mut("200") {
            ok.content.shift_remove(CSV);
        }
        if let Some(params) = e.operation.parameters.as_mut() {
            params.retain(|p| p.name != "format");
        }
        let said = format!(
            "Also as CSV: `GET {csv_path}` with the same filters, or this path asked with \
             `Accept: text/csv` or `?format=csv` (SPEC §22)."
        );
        e.operation.description = Some(match e.operation.description.take() {
            Some(d) => format!("{d}\n\n{said}"),
            None => said,
        });
        if let Some(RefOr::T(ok)) = csv.responses.responses.get_mut("200") {
            ok.content.retain(|media, _| media == CSV);
            ok.description = "Every matching row as CSV: UTF-8 with a byte-order mark, RFC 4180, \
                              a header row, amounts as `_cents` integers and decimals"
                .to_string();
        }
        if let Some(params) = csv.parameters.as_mut() {
            params.retain(|p| !matches!(p.name.as_str(), "format" | "page" | "per_page"));
        }
        csv.operation_id = csv.operation_id.map(|id| format!("{id}_csv"));
        csv.summary = csv.summary.map(|s| format!("{s} (CSV)"));
        csv.description = Some(format!(
            "`GET {}` as CSV: every matching row, no paging, streamed.",
            e.path
        ));
        let route = e.route;
        out.push(e);
        out.push(Endpoint {
            methods: vec![HttpMethod::Get],
            path: csv_path,
            operation: csv,
            schemas: Vec::new(),
            route,
        });
    }
    out
}

pub fn register(cfg: &mut web::ServiceConfig) {
    let mut by_path: Vec<(String, Vec<Method>, Vec<Route>)> = Vec::new();
    for e in endpoints() {
        let i = match by_path.iter().position(|(p, _, _)| *p == e.path) {
            Some(i) => i,
            None => {
                by_path.push((e.path.clone(), Vec::new(), Vec::new()));
                by_path.len() - 1
            }
        };
        let (_, methods, routes) = &mut by_path[i];
        for method in e.actix_methods() {
            routes.push((e.route)(method.clone()));
            methods.push(method);
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

/// The app's default service: a path no route matches (outside the API, `/` and a trailing
/// slash lead on: `people::redirect`).
pub async fn not_found(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    if let Some(on) = crate::people::redirect(&req) {
        return Ok(on);
    }
    Err(ApiError::route_not_found(req.method().as_str(), req.path()))
}
