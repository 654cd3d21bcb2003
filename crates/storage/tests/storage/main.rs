//! The storage layer's tests, one binary: the domain's repository ports against throwaway
//! databases, each body run on SQLite and on PostgreSQL (`backend_tests!`), one module per
//! concern. Under `CI=true` an unreachable PostgreSQL fails the PostgreSQL tests instead of
//! skipping them.
// Tests panic to fail and print to report; helpers outside `#[test]` functions too.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

mod citus;
mod credit_notes;
mod customers;
mod emails;
mod event_actors;
mod idempotency;
mod invoices;
mod keys_and_accounts;
mod payments;
mod products;
mod quotations;
mod recurring;
mod users;
mod webhooks;
