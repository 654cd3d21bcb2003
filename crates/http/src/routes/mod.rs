//! The JSON API's and the public pages' handlers, a module per resource. The route table
//! (`crate::route_table`) lists them.

/// Declares the SPEC §5 list envelope of one resource (`{data, page, per_page, total,
/// has_more}`, and `total_capped: true` when a filtered count stopped at 10,000), under the name
/// the OpenAPI document gives it.
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
            /// Present (and `true`) only when `total` stopped counting at 10,000.
            #[schema(nullable = false)]
            pub total_capped: Option<bool>,
        }
    };
}

pub mod account;
pub mod credit_notes;
pub mod customers;
pub mod einvoices;
pub mod emails;
pub mod events;
pub mod health;
pub mod invoices;
pub mod pages;
pub mod payment_requests;
pub mod payments;
pub mod portal_links;
pub mod products;
pub mod quotations;
pub mod recurring;
pub mod reports;
pub mod stripe_webhook;
pub mod webhooks;
