//! The SMTP connection (SPEC §18): `smtp://` with STARTTLS required (plain text only when the
//! operator allows it), `smtps://` with TLS from the first byte, an optional extra CA, and what
//! an attempt's failure means for the outbox: SMTP 5xx is permanent, anything else (a refused
//! connection, a timeout, a 4xx, a TLS failure) is tried again.
//!
//! One refused recipient does not stop the others: lettre's `SmtpTransport` gives up on the
//! first refused `RCPT TO`, so the transaction is driven here with lettre's own
//! [`SmtpConnection`] and commands (`MAIL FROM`, one `RCPT TO` per recipient, `DATA`). A
//! recipient refused with a 5xx is set aside with the server's reply and the message goes to
//! the accepted ones; when all are refused nothing is sent and the email fails. A 4xx for any
//! recipient (or any other failure before `DATA`) ends the attempt before anything is sent, so
//! the retry sends the message to everyone once.

use invoicing_domain::email::{RefusedRecipient, SendOutcome};
use lettre::address::Envelope;
use lettre::transport::smtp::authentication::{Credentials, DEFAULT_MECHANISMS};
use lettre::transport::smtp::client::{Certificate, SmtpConnection, Tls, TlsParameters};
use lettre::transport::smtp::commands::{Data, Mail, Rcpt};
use lettre::transport::smtp::extension::{ClientId, Extension, MailBodyParameter, MailParameter};
use lettre::transport::smtp::Error as SmtpError;
use lettre::{Address, Message};
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

/// Sends messages, one connection per message; cheap to clone and safe to share between
/// worker threads.
#[derive(Clone)]
pub struct Mailer {
    host: String,
    port: u16,
    tls: Tls,
    credentials: Option<Credentials>,
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
        let credentials = (!url.username().is_empty()).then(|| {
            Credentials::new(
                percent_decoded(url.username()),
                percent_decoded(url.password().unwrap_or_default()),
            )
        });
        Ok(Mailer {
            endpoint: format!("{}://{host}:{port}", url.scheme()),
            host,
            port,
            tls,
            credentials,
        })
    }

    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// One attempt; `message_id` is recorded when it is accepted. `listed` are the email's
    /// `to` and `cc` as it lists them, which name the refused recipients.
    pub fn send(&self, message: &Message, message_id: &str, listed: &[String]) -> SendOutcome {
        let mut conn = match self.connect() {
            Ok(conn) => conn,
            Err(e) => return failure(&e),
        };
        let outcome = transaction(&mut conn, message.envelope(), &message.formatted(), listed);
        // QUIT and close, as lettre's transport does after each message.
        conn.abort();
        match outcome {
            Ok(refused) => SendOutcome::Sent {
                message_id: message_id.to_string(),
                refused,
            },
            Err(failed) => failed,
        }
    }

    /// A connection ready for `MAIL FROM`: TLS as configured, then authenticated (what
    /// lettre's `SmtpTransport` does before each message).
    fn connect(&self) -> Result<SmtpConnection, SmtpError> {
        let hello = ClientId::default();
        let implicit = match &self.tls {
            Tls::Wrapper(parameters) => Some(parameters),
            _ => None,
        };
        let mut conn = SmtpConnection::connect(
            (self.host.as_str(), self.port),
            Some(SMTP_TIMEOUT),
            &hello,
            implicit,
            None,
        )?;
        match &self.tls {
            Tls::Opportunistic(parameters) if conn.can_starttls() => {
                conn.starttls(parameters, &hello)?
            }
            Tls::Required(parameters) => conn.starttls(parameters, &hello)?,
            _ => {}
        }
        if let Some(credentials) = &self.credentials {
            conn.auth(DEFAULT_MECHANISMS, credentials)?;
        }
        Ok(conn)
    }
}

/// Each refusal with the address as `listed` spells it (the envelope carries international
/// domains in their ASCII form).
fn named(refused: Vec<(Address, String)>, listed: &[String]) -> Vec<RefusedRecipient> {
    refused
        .into_iter()
        .map(|(address, reply)| RefusedRecipient {
            address: listed
                .iter()
                .find(|l| {
                    crate::compose::envelope_address(l).as_deref()
                        == Some(AsRef::<str>::as_ref(&address))
                })
                .cloned()
                .unwrap_or_else(|| address.to_string()),
            reply,
        })
        .collect()
}

/// The outcome of an attempt that ended in `e`.
fn failure(e: &SmtpError) -> SendOutcome {
    if e.is_permanent() {
        SendOutcome::Permanent(describe(e))
    } else {
        SendOutcome::Transient(describe(e))
    }
}

/// What one `RCPT TO` ended in.
enum Answer {
    Accepted,
    /// A 5xx: this recipient is set aside, the others go on.
    Refused {
        reply: String,
        error: String,
    },
    /// Anything else: the attempt ends here, before anything was sent.
    Stop(SendOutcome),
}

fn answer<T>(result: Result<T, SmtpError>) -> Answer {
    match result {
        Ok(_) => Answer::Accepted,
        Err(e) if e.is_permanent() => Answer::Refused {
            reply: reply(&e),
            error: describe(&e),
        },
        Err(e) => Answer::Stop(failure(&e)),
    }
}

/// Folds the answers to the `RCPT TO`s (in order; taken lazily, so none is asked after one that
/// ends the attempt) into whether to go on to `DATA`: the
/// refused recipients when at least one was accepted, else the outcome that ends the attempt
/// (every recipient refused: failed at once; a 4xx or a lost connection: tried again).
fn decide(
    answers: impl IntoIterator<Item = (Address, Answer)>,
    listed: &[String],
) -> Result<Vec<RefusedRecipient>, SendOutcome> {
    let mut accepted = 0;
    let mut refused = Vec::new();
    let mut last_error = None;
    for (address, answer) in answers {
        match answer {
            Answer::Accepted => accepted += 1,
            Answer::Refused { reply, error } => {
                refused.push((address, reply));
                last_error = Some(error);
            }
            Answer::Stop(outcome) => return Err(outcome),
        }
    }
    match (accepted, last_error) {
        (0, Some(error)) => Err(SendOutcome::AllRefused {
            error,
            refused: named(refused, listed),
        }),
        (0, None) => Err(SendOutcome::Permanent(
            "the message has no recipient".into(),
        )),
        _ => Ok(named(refused, listed)),
    }
}

/// `MAIL FROM`, a `RCPT TO` for each recipient, and `DATA` unless no recipient was accepted.
fn transaction(
    conn: &mut SmtpConnection,
    envelope: &Envelope,
    body: &[u8],
    listed: &[String],
) -> Result<Vec<RefusedRecipient>, SendOutcome> {
    let mut options = Vec::new();
    // As lettre does: SMTPUTF8 for non-ASCII addresses, 8BITMIME for a non-ASCII body, and
    // neither sent to a server that does not offer it.
    let unsupported = |what: &str| {
        Err(SendOutcome::Permanent(format!(
            "the SMTP server does not offer {what}, which this message needs"
        )))
    };
    if envelope
        .from()
        .into_iter()
        .chain(envelope.to())
        .any(|a: &Address| !AsRef::<str>::as_ref(a).is_ascii())
    {
        if !conn.server_info().supports_feature(Extension::SmtpUtfEight) {
            return unsupported("SMTPUTF8 (non-ASCII addresses)");
        }
        options.push(MailParameter::SmtpUtfEight);
    }
    if !body.is_ascii() {
        if !conn.server_info().supports_feature(Extension::EightBitMime) {
            return unsupported("8BITMIME (non-ASCII text)");
        }
        options.push(MailParameter::Body(MailBodyParameter::EightBitMime));
    }
    conn.command(Mail::new(envelope.from().cloned(), options))
        .map_err(|e| failure(&e))?;
    let answers = envelope.to().iter().map(|to| {
        (
            to.clone(),
            answer(conn.command(Rcpt::new(to.clone(), Vec::new()))),
        )
    });
    let refused = decide(answers, listed)?;
    conn.command(Data).map_err(|e| failure(&e))?;
    conn.message(body).map_err(|e| failure(&e))?;
    Ok(refused)
}

/// A reply as the server sent it: the code, then its text on one line.
fn reply(e: &SmtpError) -> String {
    let code = e.status().map(|c| c.to_string()).unwrap_or_default();
    let text = std::error::Error::source(e)
        .map(|s| s.to_string())
        .unwrap_or_default();
    one_line(&format!("{code} {text}"))
}

/// `text` with its runs of white space (line breaks of a multi-line reply included) as one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
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
    one_line(&text)
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
        let (port, server) = scripted(|_| "250 ok");
        let mailer = Mailer::new(&settings(&format!("smtp://127.0.0.1:{port}"))).unwrap();
        let outcome = mailer.send(&message(&["b@example.com"], &[]), "<x@example.com>", &[]);
        assert!(matches!(outcome, SendOutcome::Transient(_)), "{outcome:?}");
        let seen = server.join().unwrap();
        assert!(
            !seen.iter().any(|l| l.starts_with("MAIL FROM")),
            "no message in the clear: {seen:?}"
        );
    }

    /// A scripted SMTP server on loopback for one connection: `rcpt` gives the reply to each
    /// `RCPT TO` address; it answers the rest with success and returns the lines it read
    /// (the message's own lines as one `<message>` line).
    fn scripted(rcpt: fn(&str) -> &'static str) -> (u16, std::thread::JoinHandle<Vec<String>>) {
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
                let reply = if line.starts_with("EHLO") {
                    "250-test\r\n250 8BITMIME\r\n".to_string()
                } else if let Some(to) = line.strip_prefix("RCPT TO:") {
                    format!("{}\r\n", rcpt(to.trim_matches(['<', '>'])))
                } else if line == "DATA" {
                    "354 go ahead\r\n".to_string()
                } else if line.starts_with("QUIT") {
                    seen.push(line);
                    let _ = out.write_all(b"221 bye\r\n");
                    break;
                } else {
                    "250 ok\r\n".to_string()
                };
                seen.push(line.clone());
                out.write_all(reply.as_bytes()).unwrap();
                if line == "DATA" {
                    for body in lines.by_ref() {
                        if body.unwrap() == "." {
                            break;
                        }
                    }
                    seen.push("<message>".into());
                    out.write_all(b"250 2.0.0 queued\r\n").unwrap();
                }
            }
            seen
        });
        (port, server)
    }

    fn plain_mailer(port: u16) -> Mailer {
        Mailer::new(&SmtpSettings {
            url: format!("smtp://127.0.0.1:{port}"),
            allow_plaintext: true,
            ca_file: None,
        })
        .unwrap()
    }

    fn message(to: &[&str], cc: &[&str]) -> Message {
        let mut m = Message::builder()
            .from("billing@example.com".parse().unwrap())
            .subject("Invoice INV-1");
        for a in to {
            m = m.to(a.parse().unwrap());
        }
        for a in cc {
            m = m.cc(a.parse().unwrap());
        }
        m.body(String::from("Hello")).unwrap()
    }

    fn listed(addresses: &[&str]) -> Vec<String> {
        addresses.iter().map(|a| a.to_string()).collect()
    }

    fn refused(address: &str, reply: &str) -> RefusedRecipient {
        RefusedRecipient {
            address: address.into(),
            reply: reply.into(),
        }
    }

    fn unknown_mailbox(to: &str) -> &'static str {
        if to.starts_with("refuse") {
            "550 5.1.1 mailbox unavailable"
        } else {
            "250 2.1.5 ok"
        }
    }

    /// One of three recipients refused at RCPT: the message still goes (DATA) to the other
    /// two, and the refused one is named with the server's reply.
    #[test]
    fn a_refused_recipient_does_not_stop_the_others() {
        let (port, server) = scripted(unknown_mailbox);
        let to = [
            "ada@example.com",
            "refuse-typo@example.com",
            "bob@example.com",
        ];
        let outcome = plain_mailer(port).send(&message(&to[..1], &to[1..]), "<m@x>", &listed(&to));
        assert_eq!(
            outcome,
            SendOutcome::Sent {
                message_id: "<m@x>".into(),
                refused: vec![refused(
                    "refuse-typo@example.com",
                    "550 5.1.1 mailbox unavailable"
                )],
            }
        );
        let seen = server.join().unwrap();
        let rcpts: Vec<&String> = seen.iter().filter(|l| l.starts_with("RCPT")).collect();
        assert_eq!(rcpts.len(), 3, "every recipient asked for: {seen:?}");
        assert!(seen.iter().any(|l| l == "<message>"), "{seen:?}");
        assert_eq!(seen.last().map(String::as_str), Some("QUIT"));
    }

    /// Every recipient refused: nothing is sent, and the email fails at once with each
    /// refusal (a multi-line reply on one line) and the last one as its error.
    #[test]
    fn every_recipient_refused_sends_nothing() {
        let (port, server) = scripted(|to| {
            if to.starts_with("refuse-a") {
                "550-5.1.1 no such user\r\n550 5.1.1 try another"
            } else {
                "553 5.1.3 bad address"
            }
        });
        let to = ["refuse-a@example.com", "refuse-b@example.com"];
        let outcome = plain_mailer(port).send(&message(&to, &[]), "<m@x>", &listed(&to));
        let SendOutcome::AllRefused { error, refused: r } = outcome else {
            panic!("{outcome:?}");
        };
        assert_eq!(
            r,
            vec![
                refused("refuse-a@example.com", "550 5.1.1 no such user try another"),
                refused("refuse-b@example.com", "553 5.1.3 bad address"),
            ]
        );
        assert!(
            error.contains("553") && error.contains("bad address"),
            "{error}"
        );
        let seen = server.join().unwrap();
        assert!(!seen.iter().any(|l| l == "DATA"), "{seen:?}");
    }

    /// A 4xx for any recipient ends the attempt before DATA: the retry sends the message to
    /// everyone once, never twice to the ones accepted now.
    #[test]
    fn a_temporary_refusal_retries_the_whole_message() {
        let (port, server) = scripted(|to| match to {
            "later@example.com" => "451 4.7.1 greylisted, try again",
            "refuse@example.com" => "550 5.1.1 mailbox unavailable",
            _ => "250 ok",
        });
        let to = ["ada@example.com", "refuse@example.com", "later@example.com"];
        let outcome = plain_mailer(port).send(&message(&to, &[]), "<m@x>", &listed(&to));
        let SendOutcome::Transient(error) = outcome else {
            panic!("{outcome:?}");
        };
        assert!(error.contains("451"), "{error}");
        let seen = server.join().unwrap();
        assert!(!seen.iter().any(|l| l == "DATA"), "{seen:?}");
    }

    /// The refused address is named as the email lists it, not in the envelope's ASCII form.
    #[test]
    fn refusals_are_named_as_listed() {
        let (port, server) = scripted(|to| {
            if to.starts_with("refuse") {
                "550 5.1.1 unknown"
            } else {
                "250 ok"
            }
        });
        let listed = listed(&["ada@example.com", "refuse@bücher.example"]);
        let envelope = crate::compose::envelope_address(&listed[1]).unwrap();
        assert_eq!(envelope, "refuse@xn--bcher-kva.example");
        let outcome = plain_mailer(port).send(
            &message(&["ada@example.com"], &[&envelope]),
            "<m@x>",
            &listed,
        );
        let SendOutcome::Sent { refused: r, .. } = outcome else {
            panic!("{outcome:?}");
        };
        assert_eq!(
            r,
            vec![refused("refuse@bücher.example", "550 5.1.1 unknown")]
        );
        server.join().unwrap();
    }

    fn address(a: &str) -> Address {
        a.parse().unwrap()
    }

    fn refusal(reply: &str) -> Answer {
        Answer::Refused {
            reply: reply.into(),
            error: format!("permanent error ({reply})"),
        }
    }

    /// The rule itself: any acceptance sends, with the refusals listed; none fails with the
    /// last refusal; a stop (a 4xx, a lost connection) wins over everything.
    #[test]
    fn partial_acceptance() {
        let a = || (address("a@example.com"), Answer::Accepted);
        let r = |x: &str| (address(&format!("{x}@example.com")), refusal(x));
        assert_eq!(decide([a(), a()], &[]), Ok(vec![]));
        assert_eq!(
            decide([r("x"), a(), r("y")], &[]),
            Ok(vec![
                refused("x@example.com", "x"),
                refused("y@example.com", "y")
            ])
        );
        assert_eq!(
            decide([r("x"), r("y")], &[]),
            Err(SendOutcome::AllRefused {
                error: "permanent error (y)".into(),
                refused: vec![refused("x@example.com", "x"), refused("y@example.com", "y")],
            })
        );
        let stop = (
            address("b@example.com"),
            Answer::Stop(SendOutcome::Transient("451".into())),
        );
        assert_eq!(
            decide([a(), r("x"), stop], &[]),
            Err(SendOutcome::Transient("451".into()))
        );
        assert!(matches!(decide([], &[]), Err(SendOutcome::Permanent(_))));
    }
}
