//! The SMTP connection (SPEC §18): `smtp://` with STARTTLS required (plain text only when the
//! operator allows it), `smtps://` with TLS from the first byte, an optional extra CA, and what
//! an attempt's failure means for the outbox: SMTP 5xx is permanent, anything else (a refused
//! connection, a timeout, a 4xx, a TLS failure) is tried again.

use invoicing_domain::email::SendOutcome;
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{Message, SmtpTransport, Transport};
use std::path::PathBuf;
use std::time::Duration;

/// A server that has not answered within this long has failed the attempt.
const SMTP_TIMEOUT: Duration = Duration::from_secs(30);

/// What the operator configured.
#[derive(Clone, Debug, Default)]
pub struct SmtpSettings {
    pub url: String,
    pub allow_plaintext: bool,
    pub ca_file: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("SMTP_URL is not a URL: {0}")]
    Url(String),
    #[error("SMTP_URL must start with smtp:// (STARTTLS) or smtps:// (implicit TLS), not {0}://")]
    Scheme(String),
    #[error("SMTP_URL names no host")]
    NoHost,
    #[error("SMTP_CA_FILE {path}: {reason}")]
    Ca { path: String, reason: String },
    #[error("SMTP TLS setup failed: {0}")]
    Tls(String),
}

/// Sends messages; cheap to clone and safe to share between worker threads.
#[derive(Clone)]
pub struct Mailer {
    transport: SmtpTransport,
    /// `smtp://host:port`, without credentials: safe to log.
    endpoint: String,
}

fn percent_decoded(s: &str) -> String {
    url::form_urlencoded::parse(format!("x={s}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

impl Mailer {
    pub fn new(settings: &SmtpSettings) -> Result<Mailer, ConfigError> {
        let url = url::Url::parse(&settings.url).map_err(|e| ConfigError::Url(e.to_string()))?;
        let host = url
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or(ConfigError::NoHost)?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let implicit = match url.scheme() {
            "smtp" => false,
            "smtps" => true,
            other => return Err(ConfigError::Scheme(other.to_string())),
        };
        let port = url.port().unwrap_or(if implicit { 465 } else { 587 });
        let mut tls = TlsParameters::builder(host.clone());
        if let Some(path) = &settings.ca_file {
            let ca = |reason: String| ConfigError::Ca {
                path: path.display().to_string(),
                reason,
            };
            let pem = std::fs::read(path).map_err(|e| ca(e.to_string()))?;
            let certs = rustls_pemfile::certs(&mut pem.as_slice())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| ca(e.to_string()))?;
            if certs.is_empty() {
                return Err(ca("holds no PEM certificate".into()));
            }
            for der in certs {
                let cert = Certificate::from_der(der.to_vec()).map_err(|e| ca(e.to_string()))?;
                tls = tls.add_root_certificate(cert);
            }
        }
        let tls = tls.build().map_err(|e| ConfigError::Tls(e.to_string()))?;
        let tls = match (implicit, settings.allow_plaintext) {
            (true, _) => Tls::Wrapper(tls),
            // Plain text only when allowed, and even then STARTTLS when the server offers it.
            (false, true) => Tls::Opportunistic(tls),
            (false, false) => Tls::Required(tls),
        };
        let mut builder = SmtpTransport::builder_dangerous(host.clone())
            .port(port)
            .tls(tls)
            .timeout(Some(SMTP_TIMEOUT));
        if !url.username().is_empty() {
            builder = builder.credentials(Credentials::new(
                percent_decoded(url.username()),
                percent_decoded(url.password().unwrap_or_default()),
            ));
        }
        Ok(Mailer {
            transport: builder.build(),
            endpoint: format!("{}://{host}:{port}", url.scheme()),
        })
    }

    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// One attempt; `message_id` is recorded when it is accepted.
    pub fn send(&self, message: &Message, message_id: &str) -> SendOutcome {
        match self.transport.send(message) {
            Ok(_) => SendOutcome::Sent {
                message_id: message_id.to_string(),
            },
            Err(e) if e.is_permanent() => SendOutcome::Permanent(describe(&e)),
            Err(e) => SendOutcome::Transient(describe(&e)),
        }
    }
}

/// The error with its causes, on one line.
fn describe(e: &lettre::transport::smtp::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(url: &str) -> SmtpSettings {
        SmtpSettings {
            url: url.into(),
            ..Default::default()
        }
    }

    #[test]
    fn urls_are_checked_at_start() {
        assert!(matches!(
            Mailer::new(&settings("http://mail.example.com")),
            Err(ConfigError::Scheme(_))
        ));
        assert!(matches!(
            Mailer::new(&settings("not a url")),
            Err(ConfigError::Url(_))
        ));
        let m = Mailer::new(&settings("smtp://user:p%40ss@mail.example.com")).unwrap();
        assert_eq!(m.endpoint(), "smtp://mail.example.com:587");
        let m = Mailer::new(&settings("smtps://mail.example.com")).unwrap();
        assert_eq!(m.endpoint(), "smtps://mail.example.com:465");
        assert_eq!(percent_decoded("p%40ss"), "p@ss");
    }

    #[test]
    fn an_unreadable_ca_file_is_reported() {
        let missing = SmtpSettings {
            ca_file: Some("/nonexistent/ca.pem".into()),
            ..settings("smtp://mail.example.com")
        };
        let err = Mailer::new(&missing).err().unwrap().to_string();
        assert!(err.contains("/nonexistent/ca.pem"), "{err}");
        let dir = std::env::temp_dir().join(format!("mail-ca-{}", std::process::id()));
        std::fs::write(&dir, "not a certificate").unwrap();
        let garbage = SmtpSettings {
            ca_file: Some(dir.clone()),
            ..settings("smtp://mail.example.com")
        };
        assert!(matches!(Mailer::new(&garbage), Err(ConfigError::Ca { .. })));
        let _ = std::fs::remove_file(dir);
    }

    /// Without the plain-text permission a server that offers no STARTTLS is never sent to in
    /// the clear: the attempt fails (and is retried) instead.
    #[test]
    fn starttls_is_required_unless_plain_text_is_allowed() {
        use std::io::{BufRead, BufReader, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let mut out = stream.try_clone().unwrap();
            let mut lines = BufReader::new(stream).lines();
            out.write_all(b"220 test ESMTP\r\n").unwrap();
            let mut seen = Vec::new();
            while let Some(Ok(line)) = lines.next() {
                seen.push(line.clone());
                let reply: &[u8] = if line.starts_with("EHLO") {
                    b"250-test\r\n250 8BITMIME\r\n"
                } else if line.starts_with("QUIT") {
                    out.write_all(b"221 bye\r\n").unwrap();
                    break;
                } else {
                    b"250 ok\r\n"
                };
                out.write_all(reply).unwrap();
            }
            seen
        });
        let mailer = Mailer::new(&settings(&format!("smtp://127.0.0.1:{port}"))).unwrap();
        let message = Message::builder()
            .from("a@example.com".parse().unwrap())
            .to("b@example.com".parse().unwrap())
            .subject("s")
            .body(String::from("b"))
            .unwrap();
        let outcome = mailer.send(&message, "<x@example.com>");
        assert!(matches!(outcome, SendOutcome::Transient(_)), "{outcome:?}");
        let seen = server.join().unwrap();
        assert!(
            !seen.iter().any(|l| l.starts_with("MAIL FROM")),
            "no message in the clear: {seen:?}"
        );
    }
}
