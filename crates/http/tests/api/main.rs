//! The HTTP layer's tests, one binary: the real actix app over SQLite and PostgreSQL, one module
//! per concern, shared helpers in `common`.
// Tests panic to fail and print to report; helpers outside `#[test]` functions too.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

#[macro_use]
mod common;

mod account;
mod auth_and_limits;
mod budgets;
mod card_payments;
mod contract;
mod credit_notes;
mod csv_property;
mod customers;
mod dashboard;
mod dashboard_payments;
mod dashboard_settings;
mod einvoice;
mod emails;
mod events;
mod export;
mod hostile_input;
mod idempotency;
mod invoices;
mod local_days;
mod payment_requests;
mod payments;
mod pdf;
mod peppol;
mod plain_words;
mod portal;
mod products;
mod quotations;
mod recurring;
mod reports;
mod strictness;
mod supply;
mod webhooks;
