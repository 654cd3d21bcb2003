//! Who is calling and how: the client IP and whether the request counts as HTTPS, believing
//! forwarded headers only from `TRUSTED_PROXIES`.

use crate::config::HttpConfig;
use actix_web::HttpRequest;
use std::net::{IpAddr, Ipv4Addr, Shutdown, TcpStream};
use std::sync::Arc;

/// Put into a connection's data by the server for connections that arrived over TLS.
#[derive(Clone, Copy, Debug)]
pub struct TlsConnection;

/// A duplicate of the connection's socket, put into its data by the server, so that a request
/// whose body stalls can end the connection: actix keeps reading an abandoned chunked body
/// until it ends, which a stalled client never lets happen (SPEC §3).
#[derive(Clone, Debug)]
pub struct ConnectionSocket(pub Arc<TcpStream>);

impl ConnectionSocket {
    /// Stops reading from the client shortly, once the answer being made has been written:
    /// actix then sees the end of its input and closes the connection. (At once, TLS could
    /// report the cut before the answer went out.)
    pub fn stop_reading_soon(&self) {
        let socket = self.0.clone();
        actix_web::rt::spawn(async move {
            actix_web::rt::time::sleep(std::time::Duration::from_millis(100)).await;
            if let Err(e) = socket.shutdown(Shutdown::Read) {
                log::debug!("shutting down a stalled connection: {e}");
            }
        });
    }
}

fn peer_ip(req: &HttpRequest) -> IpAddr {
    req.peer_addr()
        .map(|a| a.ip())
        .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
}

fn via_trusted_proxy(req: &HttpRequest, cfg: &HttpConfig) -> bool {
    cfg.is_trusted_proxy(peer_ip(req))
}

pub fn is_https(req: &HttpRequest, cfg: &HttpConfig) -> bool {
    if req.conn_data::<TlsConnection>().is_some() {
        return true;
    }
    via_trusted_proxy(req, cfg)
        && req
            .headers()
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("https"))
}

/// The address the rate limits key on: the peer, or behind trusted proxies the right-most
/// `X-Forwarded-For` hop that is not itself a trusted proxy.
pub fn client_ip(req: &HttpRequest, cfg: &HttpConfig) -> IpAddr {
    let peer = peer_ip(req);
    if !cfg.is_trusted_proxy(peer) {
        return peer;
    }
    let hops: Vec<IpAddr> = req
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|hop| hop.trim().parse().ok())
        .collect();
    hops.iter()
        .rev()
        .find(|ip| !cfg.is_trusted_proxy(**ip))
        .or(hops.first())
        .copied()
        .unwrap_or(peer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_trusted_proxies;
    use actix_web::test::TestRequest;

    fn cfg() -> HttpConfig {
        let mut c = HttpConfig::new("https://localhost:8443");
        c.trusted_proxies = parse_trusted_proxies("10.0.0.0/8").unwrap();
        c
    }

    #[test]
    fn forwarded_headers_only_from_trusted_proxies() {
        let from_proxy = TestRequest::default()
            .peer_addr("10.0.0.5:1234".parse().unwrap())
            .insert_header(("x-forwarded-proto", "https"))
            .insert_header(("x-forwarded-for", "203.0.113.9, 10.0.0.7"))
            .to_http_request();
        assert!(is_https(&from_proxy, &cfg()));
        assert_eq!(
            client_ip(&from_proxy, &cfg()),
            "203.0.113.9".parse::<IpAddr>().unwrap()
        );

        let spoofed = TestRequest::default()
            .peer_addr("198.51.100.1:1234".parse().unwrap())
            .insert_header(("x-forwarded-proto", "https"))
            .insert_header(("x-forwarded-for", "203.0.113.9"))
            .to_http_request();
        assert!(!is_https(&spoofed, &cfg()));
        assert_eq!(
            client_ip(&spoofed, &cfg()),
            "198.51.100.1".parse::<IpAddr>().unwrap()
        );

        let plain_from_proxy = TestRequest::default()
            .peer_addr("10.0.0.5:1234".parse().unwrap())
            .insert_header(("x-forwarded-proto", "http"))
            .to_http_request();
        assert!(!is_https(&plain_from_proxy, &cfg()));
    }
}
