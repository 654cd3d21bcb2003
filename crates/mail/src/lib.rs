//! Mail: turns a billing document into the email a customer receives (plain text and HTML in the
//! customer's language, the merchant's logo and name, the PDF attached) and sends it over SMTP
//! with lettre and rustls. No database and no scheduling: the server's mail workers claim queued
//! emails from storage, call [`compose`] and [`Mailer::send`], and record the [`SendOutcome`].
//!
//! [`SendOutcome`]: invoicing_domain::email::SendOutcome

mod compose;
mod html;
mod smtp;

pub use compose::{compose, Letter, Sender};
pub use smtp::{ConfigError, Mailer, SmtpSettings};
