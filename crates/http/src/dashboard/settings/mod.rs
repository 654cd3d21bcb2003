//! Settings (SPEC §21, owners): the profile of the environment shown, as documents and emails
//! present the business (§16), with reminders and receipts (§18) (`profile/`); the logo, emails,
//! API keys, webhooks, people and Stripe, a file each. Staff and viewers are refused by the
//! operations (the `account` resource), as an API key without `account:write` is.

pub mod emails;
pub mod keys;
pub mod logo;
pub mod people;
pub mod profile;
pub mod stripe;
pub mod webhooks;

use crate::dashboard::chrome::{Chrome, Nav};
use crate::dashboard::session::Visitor;
use actix_web::HttpRequest;

/// The chrome of a settings screen titled by `title_key`.
pub(crate) fn section_chrome(me: &Visitor, req: &HttpRequest, title_key: &'static str) -> Chrome {
    Chrome::new(
        me,
        req,
        Nav::Settings,
        crate::dashboard::locale_of(req).text(title_key).to_string(),
    )
}
