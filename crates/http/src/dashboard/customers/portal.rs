//! The customer's portal links from the dashboard (SPEC §26): made and ended through the same
//! operations as the API's `…/portal_link` and `…/portal_link/revoke`.

use crate::dashboard::chrome::{Chrome, Nav};
use crate::dashboard::{page, see_other, Answer, Posted};
use crate::path_id::Id;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::portal::PortalLinkInput;

#[derive(Template)]
#[template(path = "dashboard/portal_link.html")]
struct LinkPage {
    c: Chrome,
    id: i64,
    url: String,
    hint: String,
}

/// Makes a link to the customer's portal and shows it, this once; or ends every link.
#[utoipa::path(post, path = "/dashboard/customers/{id}/portal/{action}", tag = "dashboard", operation_id = "dashboard_customer_portal",
    params(
        ("id" = String, Path, description = "The customer's id"),
        ("action" = String, Path, description = "`link` (make one, valid 30 days, shown once) or `revoke` (end them all)"),
    ),
    request_body(content = crate::dashboard::DashboardForm, content_type = "application/x-www-form-urlencoded", description = "`csrf`"),
    responses(
        (status = 200, description = "The new link, shown once", content_type = "text/html", body = String),
        (status = 303, description = "Ended: back to the customer", headers(("Location" = String, description = "The customer"))),
        (status = 404, description = "No such customer (or action)", content_type = "text/html", body = String),
    ))]
pub(crate) async fn portal(
    Posted { me, .. }: Posted,
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Answer {
    let (raw_id, action) = path.into_inner();
    let id = Id::<CustomerId>::parse(&raw_id);
    let ops = me.ops(&state);
    match action.as_str() {
        "link" => {
            let customer = ops.customer(id).await?;
            let link = ops
                .create_portal_link(id, PortalLinkInput::default())
                .await?;
            let c = Chrome::new(&me, &req, Nav::Customers, customer.name.clone());
            let hint = c.t.fill(
                "dash.portal.link_hint",
                &[("date", &c.t.date(link.expires_at.date_naive()))],
            );
            page(
                StatusCode::OK,
                LinkPage {
                    id: customer.id.0,
                    url: link.url,
                    hint,
                    c,
                },
            )
        }
        "revoke" => {
            let customer = ops.customer(id).await?;
            ops.revoke_portal_links(id).await?;
            Ok(see_other(&format!(
                "/dashboard/customers/{}?done=revoked",
                customer.id.0
            )))
        }
        _ => Err(crate::error::ApiError::resource_missing("page").into()),
    }
}
