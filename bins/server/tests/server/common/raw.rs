//! Raw HTTP/1.1 over TLS, for requests no well-behaved client would send: a partial head, a body
//! shorter than its `Content-Length`, then silence.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub type TlsStream = rustls::StreamOwned<rustls::ClientConnection, TcpStream>;

/// A TLS connection to `https` (`https://localhost:PORT`) trusting the server's certificate.
pub fn connect(dir: &Path, https: &str) -> TlsStream {
    let pem = std::fs::read(dir.join("tls/localhost.crt")).unwrap();
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_pemfile::certs(&mut &pem[..]) {
        roots.add(cert.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = "localhost".try_into().unwrap();
    let conn = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    let port = https.rsplit(':').next().unwrap();
    let tcp = TcpStream::connect(format!("127.0.0.1:{port}")).unwrap();
    rustls::StreamOwned::new(conn, tcp)
}

/// How a stalled request ended, as the client saw it.
#[derive(Debug)]
pub enum Outcome {
    /// A whole response (head and `Content-Length` body), the connection still open 2 s later.
    Answered(String),
    /// The server closed the connection; whatever it sent before is kept.
    Closed(String),
    /// Nothing ended it before the client gave up.
    Hung(String),
}

/// Sends `bytes`, then waits (at most `bound`) for an answer or the end of the connection.
pub fn send_and_stall(mut stream: TlsStream, bytes: &[u8], bound: Duration) -> (Outcome, Duration) {
    stream.write_all(bytes).unwrap();
    stream.flush().unwrap();
    let sent = Instant::now();
    stream.sock.set_read_timeout(Some(bound)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let text = || String::from_utf8_lossy(&got).to_string();
        if complete(&got) {
            let answered = sent.elapsed();
            let grace = Some(Duration::from_secs(2));
            stream.sock.set_read_timeout(grace).unwrap();
            let closed = match stream.read(&mut buf) {
                Ok(n) => n == 0,
                Err(e) => !matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
            };
            let outcome = if closed {
                Outcome::Closed(text())
            } else {
                Outcome::Answered(text())
            };
            return (outcome, answered);
        }
        if sent.elapsed() >= bound {
            return (Outcome::Hung(text()), sent.elapsed());
        }
        match stream.read(&mut buf) {
            Ok(0) => return (Outcome::Closed(text()), sent.elapsed()),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return (Outcome::Hung(text()), sent.elapsed())
            }
            Err(_) => return (Outcome::Closed(text()), sent.elapsed()),
        }
    }
}

fn complete(got: &[u8]) -> bool {
    let text = String::from_utf8_lossy(got);
    let Some(end) = text.find("\r\n\r\n") else {
        return false;
    };
    let length = text[..end]
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    got.len() >= end + 4 + length
}
