//! The built binary's tests, one binary: started on free ports and spoken to over HTTPS, driven
//! through its CLI, killed, mailed, webhooked and clicked through in Chromium. One module per
//! concern (each was a binary of its own), helpers in `common`. Every test starts its own
//! servers, data directory, databases, SMTP sink and chromedriver, so the modules share nothing
//! but this process: the tests set no environment variable and never change directory.
// Tests panic to fail and print to report; helpers outside `#[test]` functions too.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

mod common;

mod billing;
mod browser;
mod e2e;
mod fleet;
mod mail;
mod resilience;
mod webhooks;
