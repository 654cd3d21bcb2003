//! Crash points for tests: built with the `failpoints` feature, the process aborts (as a
//! `kill -9` would end it) when it reaches the point named by `INVOICING_FAILPOINT`. The
//! end-to-end tests kill the server this way between a commit and its answer. Without the
//! feature, `hit` is nothing.

#[cfg(feature = "failpoints")]
#[allow(clippy::print_stderr)] // the test reads why the process ended
pub fn hit(name: &str) {
    if std::env::var("INVOICING_FAILPOINT").is_ok_and(|v| v == name) {
        eprintln!("failpoint {name}: aborting");
        std::process::abort();
    }
}

#[cfg(not(feature = "failpoints"))]
#[inline(always)]
pub fn hit(_name: &str) {}
