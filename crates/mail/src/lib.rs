//! Mail: turns a billing document into the email a customer receives (plain text and HTML in the
//! customer's language, the merchant's logo and name, the PDF attached), and a notice into the
//! email a person receives (an invitation, a password reset, a test: [`compose_notice`]), and
//! sends them over SMTP with lettre and rustls. No database and no scheduling: the server's mail
//! workers claim queued emails from storage, call [`compose`] and [`Mailer::send`], and record
//! the [`SendOutcome`].
//!
//! [`SendOutcome`]: invoicing_domain::email::SendOutcome
#![forbid(unsafe_code)] // only storage calls the OS; the workspace lint is `deny` for it

mod compose;
mod html;
mod notice;
mod smtp;

pub use compose::{compose, Letter, Sender};
pub use notice::compose_notice;
pub use smtp::{ConfigError, Mailer, SmtpSettings};
