//! The domain's property tests, one binary: money arithmetic against an independent reference,
//! and paying invoices.
// Tests panic to fail and print to report; helpers outside `#[test]` functions too.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

mod money_props;
mod payment_props;
