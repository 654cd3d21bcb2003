//! Where a webhook may point (SPEC §11): the host is resolved and every address it resolves to
//! must be globally reachable, unless private targets are allowed. Checked when an endpoint is
//! registered or changed; the delivery worker checks again on every attempt, as DNS can change.

use invoicing_domain::validation::Violations;
use invoicing_domain::webhook::{is_private_target, WebhookUrl};
use std::net::ToSocketAddrs;

/// Resolves the URL's host (blocking: call off the async workers) and refuses private targets.
pub fn check_target(url: &WebhookUrl, allow_private: bool) -> Result<(), Violations> {
    if allow_private {
        return Ok(());
    }
    let refuse = |message: &str| Err(Violations::single("url", message));
    let Some((host, port)) = url.host_and_port() else {
        return refuse("must name a host");
    };
    let addrs = match (host.as_str(), port).to_socket_addrs() {
        Ok(addrs) => addrs.collect::<Vec<_>>(),
        Err(_) => return refuse("the host could not be resolved"),
    };
    if addrs.is_empty() {
        return refuse("the host could not be resolved");
    }
    if addrs.iter().any(|a| is_private_target(a.ip())) {
        return refuse("resolves to a private or otherwise not globally reachable address");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use invoicing_domain::tenant::Environment;

    #[test]
    fn names_that_resolve_to_loopback_are_refused() {
        let url = WebhookUrl::parse("http://localhost:9/hook", Environment::Test, false).unwrap();
        assert_eq!(
            check_target(&url, false).unwrap_err().errors()[0].param,
            "url"
        );
        assert!(check_target(&url, true).is_ok());
        let unknown =
            WebhookUrl::parse("https://no-such-host.invalid/x", Environment::Test, false).unwrap();
        assert!(check_target(&unknown, false).is_err());
    }
}
