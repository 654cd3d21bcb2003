//! What the HTTP layer needs to know about its deployment.

use invoicing_domain::gateway::PaymentGateway;
use invoicing_domain::time_zone::{Clock, SystemClock};
use ipnet::IpNet;
use std::net::IpAddr;
use std::sync::Arc;

/// A token bucket's shape: `per_minute` tokens a minute into a bucket of `burst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateConfig {
    pub per_minute: u32,
    pub burst: u32,
}

#[derive(Clone, Debug)]
pub struct HttpConfig {
    /// Base of the public pages, without a trailing slash.
    pub public_url: String,
    pub trusted_proxies: Vec<IpNet>,
    pub api_rate: RateConfig,
    pub public_rate: RateConfig,
    /// `WEBHOOK_ALLOW_PRIVATE_TARGETS`: webhook URLs may reach loopback and private networks.
    pub webhook_allow_private: bool,
    /// Whether `SMTP_URL` is set: without it, requests that ask for mail are 422.
    pub mail_enabled: bool,
    /// `RATE_LIMITS=process`: API buckets in this process's memory even where the database
    /// could share them (one server on PostgreSQL, which then spends no statement on them).
    pub process_rate_limits: bool,
    /// Where "now" comes from (the system's; tests set their own).
    pub clock: Arc<dyn Clock>,
    /// The card gateway's adapter (SPEC §25); `None`: this server offers no card payments.
    pub gateway: Option<Arc<dyn PaymentGateway>>,
}

impl HttpConfig {
    pub fn new(public_url: &str) -> Self {
        HttpConfig {
            public_url: public_url.trim_end_matches('/').to_string(),
            trusted_proxies: Vec::new(),
            api_rate: RateConfig {
                per_minute: 60,
                burst: 10,
            },
            public_rate: RateConfig {
                per_minute: 120,
                burst: 30,
            },
            webhook_allow_private: false,
            mail_enabled: false,
            process_rate_limits: false,
            clock: Arc::new(SystemClock),
            gateway: None,
        }
    }

    pub fn is_trusted_proxy(&self, ip: IpAddr) -> bool {
        self.trusted_proxies.iter().any(|net| net.contains(&ip))
    }
}

/// Parses `TRUSTED_PROXIES`: comma-separated CIDRs or single addresses.
pub fn parse_trusted_proxies(text: &str) -> Result<Vec<IpNet>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<IpNet>()
                .or_else(|_| s.parse::<IpAddr>().map(IpNet::from))
                .map_err(|_| format!("{s:?} is not a CIDR or IP address"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cidrs_and_addresses() {
        let nets = parse_trusted_proxies("10.0.0.0/8, 127.0.0.1,::1").unwrap();
        let mut cfg = HttpConfig::new("https://x/");
        assert_eq!(cfg.public_url, "https://x");
        cfg.trusted_proxies = nets;
        assert!(cfg.is_trusted_proxy("10.1.2.3".parse().unwrap()));
        assert!(cfg.is_trusted_proxy("127.0.0.1".parse().unwrap()));
        assert!(!cfg.is_trusted_proxy("192.168.0.1".parse().unwrap()));
        assert!(parse_trusted_proxies("nope").is_err());
        assert!(parse_trusted_proxies("").unwrap().is_empty());
    }
}
