//! Email end to end (SPEC §18): the built binary sends to a real SMTP server (aiosmtpd, through
//! `scripts/smtp_sink.py`) in plain text and with STARTTLS and a test CA; the received message
//! is parsed and checked (addresses, display names, subject, both parts, the PDF, the link, the
//! customer's language). Durability: a server that is down, a 550, a restart, two processes on
//! one PostgreSQL; reminders exactly once; receipts. A recipient refused at RCPT does not stop
//! the others.

use crate::common;

use common::api::Api;
use common::smtp::{self, free_port, Options, Sink};
use common::*;
use mail_parser::{MessageParser, MimeHeaders};
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const MAIL_FROM: &str = "Billing Robot <billing@mailer.example.com>";

fn env<'a>(smtp_url: &'a str, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut env = vec![
        ("SMTP_URL", smtp_url),
        ("SMTP_ALLOW_PLAINTEXT", "true"),
        ("MAIL_FROM", MAIL_FROM),
        ("MAIL_RETRY_SCHEDULE", "1s,1s,1s,1s,1s,1s,1s,1s,1s,1s"),
        ("RATE_LIMIT_PER_MINUTE", "60000"),
        ("RATE_LIMIT_BURST", "1000"),
    ];
    env.extend_from_slice(extra);
    env
}

fn german_invoice(api: &Api) -> Value {
    api.ok(
        "POST",
        "/invoices",
        Some(json!({
            "customer": {"name": "Jürgen Groß", "email": "juergen@example.de", "locale": "de",
                "company": "Groß & Söhne KG"},
            "line_items": [{"description": "Beratung", "quantity": "2", "unit_price_cents": 12500, "tax_rate": "19"}]
        })),
    )
}

fn email_of(api: &Api, id: i64) -> Value {
    api.ok("GET", &format!("/emails/{id}"), None)
}

/// Polls the email until `done` holds for it.
fn wait_email(api: &Api, id: i64, secs: u64, done: impl Fn(&Value) -> bool) -> Value {
    let until = Instant::now() + Duration::from_secs(secs);
    loop {
        let e = email_of(api, id);
        if done(&e) {
            return e;
        }
        assert!(Instant::now() < until, "email {id} never got there: {e}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn last_email(api: &Api) -> Value {
    api.ok("GET", "/emails?per_page=1", None)["data"][0].clone()
}

fn pdf_text(pdf: &[u8]) -> String {
    let mut child = Command::new("pdftotext")
        .args(["-", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("pdftotext (poppler-utils; scripts/test installs it)");
    child.stdin.take().unwrap().write_all(pdf).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the attached PDF opens");
    String::from_utf8_lossy(&out.stdout).replace(['\u{a0}', '\u{202f}'], " ")
}

/// A small PNG logo, drawn here.
fn logo() -> Vec<u8> {
    let (w, h) = (4u32, 2u32);
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().unwrap();
        writer.write_image_data(&[0xAA; 4 * 2 * 3]).unwrap();
    }
    out
}

#[test]
fn an_invoice_email_reaches_the_customer_in_their_language() {
    let dir = data_dir("mail-plain");
    let sink = Sink::start(&dir.join("mail"));
    let url = sink.plain_url();
    let server = start_with(&dir, &env(&url, &[]));
    let api = Api::new(&server, &dir, &server.printed_key().unwrap());
    api.ok(
        "PATCH",
        "/account",
        Some(
            json!({"legal_name": "Müller & Söhne GmbH", "email": "buchhaltung@mueller.example",
            "brand_color": "#AA3300"}),
        ),
    );
    let (status, _, _) = {
        let req = ureq::http::Request::builder()
            .method("PUT")
            .uri(format!("{}/account/logo", api.base))
            .header("authorization", format!("Bearer {}", api.key))
            .header("content-type", "image/png")
            .body(logo())
            .unwrap();
        let res = api.agent.run(req).unwrap();
        (res.status().as_u16(), (), ())
    };
    assert_eq!(status, 204);
    let inv = german_invoice(&api);
    let id = inv["id"].as_i64().unwrap();
    let number = inv["invoice_number"].as_str().unwrap().to_string();
    api.ok(
        "POST",
        &format!("/invoices/{id}/send"),
        Some(json!({"email": {"cc": ["chef@example.com"], "message": "Vielen Dank für das Gespräch!"}})),
    );
    let raw = smtp::wait_for(&sink.maildir, 1, 30).remove(0);
    let envelope = smtp::envelope(&sink.maildir, 1);
    assert_eq!(envelope["mail_from"], "billing@mailer.example.com");
    assert_eq!(
        envelope["rcpt_tos"],
        json!(["juergen@example.de", "chef@example.com"])
    );

    let m = MessageParser::default()
        .parse(&raw)
        .expect("a parseable message");
    let from = m.from().and_then(|a| a.first()).unwrap();
    assert_eq!(
        from.name(),
        Some("Müller & Söhne GmbH"),
        "the merchant's legal name"
    );
    assert_eq!(from.address(), Some("billing@mailer.example.com"));
    let reply_to = m.reply_to().and_then(|a| a.first()).unwrap();
    assert_eq!(reply_to.address(), Some("buchhaltung@mueller.example"));
    assert_eq!(
        m.to().and_then(|a| a.first()).unwrap().address(),
        Some("juergen@example.de")
    );
    assert_eq!(
        m.cc().and_then(|a| a.first()).unwrap().address(),
        Some("chef@example.com")
    );
    assert_eq!(
        m.subject(),
        Some(format!("Rechnung {number} von Müller & Söhne GmbH").as_str()),
        "German, with the number; non-ASCII encoded and decoded back"
    );
    assert!(m.date().is_some(), "Date is set");
    let message_id = m.message_id().expect("Message-ID is set").to_string();
    assert!(message_id.ends_with("@mailer.example.com"), "{message_id}");

    let text = m.body_text(0).unwrap().to_string();
    assert!(text.starts_with("Vielen Dank für das Gespräch!"), "{text}");
    assert!(text.contains("Guten Tag Jürgen Groß"), "{text}");
    assert!(
        text.contains("297,50 €") || text.contains("297,50\u{a0}€"),
        "{text}"
    );
    assert!(text.contains("fällig am"), "{text}");
    assert!(
        !text.contains("/portal?token="),
        "a copy to someone else opens its document, not all of the customer's: {text}"
    );
    let html = m.body_html(0).unwrap().to_string();
    assert!(html.contains("lang=\"de\""), "{html}");
    assert!(html.contains("Müller &amp; Söhne GmbH"));
    assert!(html.contains("src=\"cid:logo\""), "the logo inline");
    assert!(html.contains("#aa3300"), "the brand colour");
    assert!(html.contains("Rechnung ansehen"));

    let parts: Vec<_> = m.attachments().collect();
    let pdf = parts
        .iter()
        .find(|p| p.attachment_name() == Some(&format!("{number}.pdf")))
        .expect("the PDF attached");
    assert_eq!(pdf.content_type().map(|c| c.ctype()), Some("application"));
    let pdf_words = pdf_text(pdf.contents());
    assert!(pdf_words.contains(&number), "{pdf_words}");
    assert!(pdf_words.contains("Groß & Söhne KG"), "{pdf_words}");
    let logo_part = parts
        .iter()
        .find(|p| p.content_id() == Some("logo"))
        .expect("the logo part");
    assert_eq!(logo_part.contents(), logo().as_slice());

    // The link opens the invoice's page.
    let link = text
        .split_whitespace()
        .find(|w| w.starts_with(PUBLIC_URL))
        .expect("a link to the public page")
        .to_string();
    let path = link.strip_prefix(PUBLIC_URL).unwrap();
    let (status, _, headers) = call(
        &api.agent,
        "GET",
        &format!("{}{path}", server.https),
        None,
        None,
    );
    assert_eq!(status, 200);
    assert!(headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));

    // The log says sent, with the Message-ID, and `email.sent` was written. The server records
    // `sent` after the SMTP exchange ends, so the sink may hold the message a moment before.
    let eid = last_email(&api)["id"].as_i64().unwrap();
    let e = wait_email(&api, eid, 30, |e| e["status"] != "queued");
    assert_eq!(e["status"], "sent");
    assert_eq!(e["attempts"], 1);
    assert_eq!(e["message_id"], format!("<{message_id}>"));
    let events = api.ok("GET", "/events?type=email.sent", None);
    assert_eq!(events["total"], 1);
    assert_eq!(events["data"][0]["data"]["object"]["id"], e["id"]);

    assert!(server.stop().success());
    sink.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_statement_email_arrives_with_its_pdf() {
    let dir = data_dir("mail-statement");
    let sink = Sink::start(&dir.join("mail"));
    let url = sink.plain_url();
    let server = start_with(&dir, &env(&url, &[]));
    let api = Api::new(&server, &dir, &server.printed_key().unwrap());
    let inv = german_invoice(&api);
    let id = inv["id"].as_i64().unwrap();
    let number = inv["invoice_number"].as_str().unwrap().to_string();
    let customer = inv["customer_id"].as_i64().unwrap();
    api.ok("POST", &format!("/invoices/{id}/send"), None);
    let queued = api.ok(
        "POST",
        &format!("/customers/{customer}/statement/email"),
        Some(json!({"email": {"message": "Ihr Kontoauszug zum Jahresende."}})),
    );
    assert_eq!(queued["kind"], "statement");
    let raw = smtp::wait_for(&sink.maildir, 1, 30).remove(0);
    let m = MessageParser::default().parse(&raw).unwrap();
    let reference = format!(
        "ST-{customer}-{}",
        chrono::Utc::now().date_naive().format("%Y%m%d")
    );
    assert_eq!(
        m.subject(),
        Some(format!("Kontoauszug {reference} von Default").as_str())
    );
    assert_eq!(
        m.to().and_then(|a| a.first()).unwrap().address(),
        Some("juergen@example.de")
    );
    let text = m.body_text(0).unwrap().to_string();
    assert!(
        text.starts_with("Ihr Kontoauszug zum Jahresende."),
        "{text}"
    );
    assert!(text.contains("Guten Tag Jürgen Groß"), "{text}");
    assert!(text.contains("297,50"), "the closing balance: {text}");
    // To the customer alone: the way to all their documents (SPEC §26), which opens.
    let portal = text
        .split_whitespace()
        .find(|w| w.starts_with(&format!("{PUBLIC_URL}/portal?token=")))
        .unwrap_or_else(|| panic!("no portal link: {text}"));
    assert!(
        text.contains("Alle Ihre Dokumente von Default finden Sie an einem Ort"),
        "{text}"
    );
    let html = m.body_html(0).unwrap().to_string();
    assert!(html.contains(&format!("<a href=\"{portal}\"")), "{html}");
    let path = portal.strip_prefix(PUBLIC_URL).unwrap();
    let mut opened = api
        .agent
        .get(format!("{}{path}", server.https))
        .call()
        .expect("the portal opens");
    let page = opened.body_mut().read_to_string().unwrap();
    assert!(
        page.contains(&number),
        "the portal lists the invoice: {page}"
    );
    let pdf = m
        .attachments()
        .find(|p| p.attachment_name() == Some(&format!("{reference}.pdf")))
        .expect("the statement's PDF attached");
    let words = pdf_text(pdf.contents());
    for needle in ["Kontoauszug", "Endsaldo", number.as_str(), "297,50"] {
        assert!(words.contains(needle), "{needle:?} missing from:\n{words}");
    }
    let e = wait_email(&api, queued["id"].as_i64().unwrap(), 30, |e| {
        e["status"] == "sent"
    });
    assert_eq!(e["customer_id"], customer);
    assert!(server.stop().success());
    sink.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A CA, and a certificate for `localhost` it signed, as PEM files in `dir`.
fn test_ca(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "Invoicing test CA");
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let params = rcgen::CertificateParams::new(vec!["localhost".to_string()]).unwrap();
    let cert = params.signed_by(&key, &ca, &ca_key).unwrap();
    let paths = (
        dir.join("ca.pem"),
        dir.join("smtp.pem"),
        dir.join("smtp.key"),
    );
    std::fs::write(&paths.0, ca.pem()).unwrap();
    std::fs::write(&paths.1, cert.pem()).unwrap();
    std::fs::write(&paths.2, key.serialize_pem()).unwrap();
    paths
}

#[test]
fn starttls_with_a_private_ca() {
    let dir = data_dir("mail-tls");
    let (ca, cert, key) = test_ca(&dir);
    let sink = Sink::start_with(
        &dir.join("mail"),
        Options {
            port: free_port(),
            tls: Some((&cert, &key)),
            implicit: false,
            reject: None,
        },
    );
    // STARTTLS required (no plain-text permission), trusting the test CA.
    let url = format!("smtp://localhost:{}", sink.port);
    let ca_file = ca.display().to_string();
    let mut e = env(&url, &[("SMTP_CA_FILE", &ca_file)]);
    e.retain(|(k, _)| *k != "SMTP_ALLOW_PLAINTEXT");
    let server = start_with(&dir, &e);
    let api = Api::new(&server, &dir, &server.printed_key().unwrap());
    let id = german_invoice(&api)["id"].as_i64().unwrap();
    api.ok(
        "POST",
        &format!("/invoices/{id}/send"),
        Some(json!({"email": {}})),
    );
    smtp::wait_for(&sink.maildir, 1, 30);
    assert_eq!(
        smtp::envelope(&sink.maildir, 1)["tls"],
        true,
        "sent over TLS"
    );
    assert!(server.stop().success());

    // Without the CA the certificate is refused: nothing is sent, the attempt is logged.
    let server = start_with(&dir, &env(&url, &[]));
    let email = api_after_restart(&server, &dir, &api.key, id);
    let e = wait_email(&email.0, email.1, 30, |e| e["attempts"].as_i64() >= Some(1));
    assert_eq!(e["status"], "queued");
    assert!(
        e["last_error"]
            .as_str()
            .unwrap_or_default()
            .to_lowercase()
            .contains("certificate"),
        "{e}"
    );
    assert_eq!(smtp::received(&sink.maildir).len(), 1);
    assert!(server.stop().success());
    sink.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn smtps_with_a_private_ca() {
    let dir = data_dir("mail-smtps");
    let (ca, cert, key) = test_ca(&dir);
    let sink = Sink::start_with(
        &dir.join("mail"),
        Options {
            port: free_port(),
            tls: Some((&cert, &key)),
            implicit: true,
            reject: None,
        },
    );
    let url = format!("smtps://localhost:{}", sink.port);
    let ca_file = ca.display().to_string();
    let mut e = env(&url, &[("SMTP_CA_FILE", &ca_file)]);
    e.retain(|(k, _)| *k != "SMTP_ALLOW_PLAINTEXT");
    let server = start_with(&dir, &e);
    let api = Api::new(&server, &dir, &server.printed_key().unwrap());
    let id = german_invoice(&api)["id"].as_i64().unwrap();
    api.ok(
        "POST",
        &format!("/invoices/{id}/send"),
        Some(json!({"email": {}})),
    );
    smtp::wait_for(&sink.maildir, 1, 30);
    assert_eq!(
        smtp::envelope(&sink.maildir, 1)["tls"],
        true,
        "sent over TLS"
    );
    // Recorded once the SMTP exchange has ended, which may be after the sink holds the message.
    let eid = last_email(&api)["id"].as_i64().unwrap();
    let e = wait_email(&api, eid, 30, |e| e["status"] != "queued");
    assert_eq!(e["status"], "sent", "{e}");
    assert!(server.stop().success());
    sink.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fresh client of a restarted server, and a new email about invoice `id`.
fn api_after_restart(server: &Server, dir: &Path, key: &str, id: i64) -> (Api, i64) {
    let api = Api::new(server, dir, key);
    let e = api.ok("POST", &format!("/invoices/{id}/email"), None);
    let eid = e["id"].as_i64().unwrap();
    (api, eid)
}

/// SMTP down: the message stays queued with its attempts listed, survives a restart, and is
/// sent once a server answers; a 550 fails a message at once.
fn durable_delivery(database_url: Option<&str>, name: &str) {
    let dir = data_dir(name);
    let port = free_port();
    let url = format!("smtp://127.0.0.1:{port}");
    let mut extra = Vec::new();
    if let Some(db) = database_url {
        extra.push(("DATABASE_URL", db));
    }
    let server = start_with(&dir, &env(&url, &extra));
    let key = server.printed_key().unwrap();
    let api = Api::new(&server, &dir, &key);
    let id = german_invoice(&api)["id"].as_i64().unwrap();
    api.ok(
        "POST",
        &format!("/invoices/{id}/send"),
        Some(json!({"email": {}})),
    );
    let eid = last_email(&api)["id"].as_i64().unwrap();
    let e = wait_email(&api, eid, 30, |e| e["attempts"].as_i64() >= Some(2));
    assert_eq!(
        e["status"], "queued",
        "still queued while the server is down: {e}"
    );
    assert!(e["last_error"].is_string(), "{e}");
    assert!(e["next_attempt_at"].is_string(), "{e}");

    // A restart loses nothing.
    assert!(server.stop().success());
    let server = start_with(&dir, &env(&url, &extra));
    let api = Api::new(&server, &dir, &key);
    assert_eq!(email_of(&api, eid)["status"], "queued");
    let sink = Sink::start_with(
        &dir.join("mail"),
        Options {
            port,
            tls: None,
            implicit: false,
            reject: Some("^bounce@"),
        },
    );
    let e = wait_email(&api, eid, 30, |e| e["status"] == "sent");
    assert!(
        e["attempts"].as_i64() > Some(2),
        "every attempt counted: {e}"
    );
    smtp::wait_for(&sink.maildir, 1, 10);

    // 550: failed after one attempt, with `email.failed`.
    let bounced = api.ok(
        "POST",
        &format!("/invoices/{id}/email"),
        Some(json!({"email": {"to": ["bounce@example.com"]}})),
    );
    let bid = bounced["id"].as_i64().unwrap();
    let e = wait_email(&api, bid, 30, |e| e["status"] != "queued");
    assert_eq!(e["status"], "failed", "{e}");
    assert_eq!(e["attempts"], 1);
    assert!(e["last_error"].as_str().unwrap().contains("550"), "{e}");
    let failed = api.ok("GET", "/events?type=email.failed", None);
    assert_eq!(failed["total"], 1);
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(smtp::received(&sink.maildir).len(), 1, "each message once");
    assert!(server.stop().success());
    sink.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn durable_delivery_on_sqlite() {
    durable_delivery(None, "mail-durable-sqlite");
}

#[test]
fn durable_delivery_on_postgres() {
    let Some(db) = invoicing_storage::testing::TestDb::new(invoicing_storage::Backend::Postgres)
    else {
        return;
    };
    durable_delivery(Some(&db.url), "mail-durable-pg");
}

/// The newest event of `event_type`'s object.
fn last_event(api: &Api, event_type: &str) -> Value {
    let events = api.ok(
        "GET",
        &format!("/events?type={event_type}&per_page=1"),
        None,
    );
    events["data"][0]["data"]["object"].clone()
}

/// A recipient the server refuses at RCPT (550) does not stop the others: the message reaches
/// the two it accepts, the email is `sent` and names the refused one with the server's reply
/// (the resource, the list and `email.sent`). Only when every recipient is refused does the
/// email fail, at once, naming them all.
#[test]
fn a_refused_recipient_does_not_stop_the_others() {
    let dir = data_dir("mail-refused");
    let sink = Sink::start_with(
        &dir.join("mail"),
        Options {
            port: free_port(),
            tls: None,
            implicit: false,
            reject: Some("^refuse"),
        },
    );
    let url = sink.plain_url();
    let server = start_with(&dir, &env(&url, &[]));
    let api = Api::new(&server, &dir, &server.printed_key().unwrap());
    let id = german_invoice(&api)["id"].as_i64().unwrap();
    api.ok(
        "POST",
        &format!("/invoices/{id}/send"),
        Some(json!({"email": {"cc": ["refuse-typo@example.com", "chef@example.com"]}})),
    );
    let eid = last_email(&api)["id"].as_i64().unwrap();
    let e = wait_email(&api, eid, 30, |e| e["status"] != "queued");
    assert_eq!(e["status"], "sent", "{e}");
    assert_eq!(e["attempts"], 1, "{e}");
    assert!(e["last_error"].is_null(), "{e}");
    let refused = e["refused_recipients"].as_array().expect("a list").clone();
    assert_eq!(refused.len(), 1, "{e}");
    assert_eq!(refused[0]["address"], "refuse-typo@example.com");
    let reply = refused[0]["reply"].as_str().unwrap();
    assert!(
        reply.starts_with("550 ") && reply.contains("mailbox unavailable"),
        "the server's reply, code and text: {reply}"
    );
    smtp::wait_for(&sink.maildir, 1, 10);
    assert_eq!(
        smtp::envelope(&sink.maildir, 1)["rcpt_tos"],
        json!(["juergen@example.de", "chef@example.com"]),
        "the other two received it"
    );
    let listed = api.ok("GET", &format!("/emails?invoice_id={id}"), None);
    assert_eq!(
        listed["data"][0]["refused_recipients"],
        e["refused_recipients"]
    );
    let event = last_event(&api, "email.sent");
    assert_eq!(event["id"], eid);
    assert_eq!(event["refused_recipients"], e["refused_recipients"]);

    // Every recipient refused: failed after one attempt, nothing sent.
    let all = api.ok(
        "POST",
        &format!("/invoices/{id}/email"),
        Some(json!({"email": {"to": ["refuse-a@example.com"], "cc": ["refuse-b@example.com"]}})),
    );
    let aid = all["id"].as_i64().unwrap();
    assert_eq!(all["refused_recipients"], json!([]), "none while queued");
    let e = wait_email(&api, aid, 30, |e| e["status"] != "queued");
    assert_eq!(e["status"], "failed", "{e}");
    assert_eq!(e["attempts"], 1, "{e}");
    let last_error = e["last_error"].as_str().unwrap();
    assert!(
        last_error.contains("550") && last_error.contains("refuse-b@example.com"),
        "the last refusal: {last_error}"
    );
    let addresses: Vec<&str> = e["refused_recipients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["address"].as_str().unwrap())
        .collect();
    assert_eq!(addresses, ["refuse-a@example.com", "refuse-b@example.com"]);
    let event = last_event(&api, "email.failed");
    assert_eq!(event["id"], aid);
    assert_eq!(event["refused_recipients"], e["refused_recipients"]);
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(smtp::received(&sink.maildir).len(), 1, "nothing more sent");
    assert!(server.stop().success());
    sink.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_processes_on_one_postgres_send_each_message_once() {
    let Some(db) = invoicing_storage::testing::TestDb::new(invoicing_storage::Backend::Postgres)
    else {
        return;
    };
    let (dir_a, dir_b) = (data_dir("mail-pg-a"), data_dir("mail-pg-b"));
    let sink = Sink::start(&dir_a.join("mail"));
    let url = sink.plain_url();
    let e = env(&url, &[("DATABASE_URL", &db.url)]);
    let a = start_with(&dir_a, &e);
    let key = a.printed_key().unwrap();
    let b = start_with(&dir_b, &e);
    let (api_a, api_b) = (Api::new(&a, &dir_a, &key), Api::new(&b, &dir_b, &key));
    let id = german_invoice(&api_a)["id"].as_i64().unwrap();
    api_a.ok("POST", &format!("/invoices/{id}/send"), None);
    const N: usize = 40;
    for n in 0..N {
        let api = if n % 2 == 0 { &api_a } else { &api_b };
        api.ok(
            "POST",
            &format!("/invoices/{id}/email"),
            Some(json!({"email": {"to": [format!("r{n}@example.com")]}})),
        );
    }
    let got = smtp::wait_for(&sink.maildir, N, 90);
    std::thread::sleep(Duration::from_secs(3));
    let got = if smtp::received(&sink.maildir).len() > got.len() {
        smtp::received(&sink.maildir)
    } else {
        got
    };
    let mut recipients: Vec<String> = got
        .iter()
        .map(|raw| {
            let m = MessageParser::default().parse(raw).unwrap();
            m.to()
                .and_then(|a| a.first())
                .unwrap()
                .address()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(recipients.len(), N, "{N} messages, none twice");
    recipients.sort();
    recipients.dedup();
    assert_eq!(recipients.len(), N, "every message once");
    assert!(a.stop().success());
    assert!(b.stop().success());
    sink.stop();
    drop(db);
    let _ = std::fs::remove_dir_all(&dir_a);
    let _ = std::fs::remove_dir_all(&dir_b);
}

/// A reminder queued while the mail server was down is not sent once the invoice is paid.
#[test]
fn a_queued_reminder_is_dropped_once_the_invoice_is_paid() {
    let dir = data_dir("mail-reminder-paid");
    let port = free_port();
    let url = format!("smtp://127.0.0.1:{port}");
    let server = start_with(&dir, &env(&url, &[("SCHEDULER_INTERVAL_SECS", "1")]));
    let api = Api::new(&server, &dir, &server.printed_key().unwrap());
    let today = chrono::Utc::now()
        .date_naive()
        .format("%Y-%m-%d")
        .to_string();
    let inv = api.ok(
        "POST",
        "/invoices",
        Some(json!({
            "customer": {"name": "Late", "email": "late@example.com"},
            "due_date": today, "reminders": [0],
            "line_items": [{"description": "Work", "quantity": "1", "unit_price_cents": 5000}]
        })),
    );
    let id = inv["id"].as_i64().unwrap();
    api.ok("POST", &format!("/invoices/{id}/send"), None);
    let reminder = {
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let e = api.ok("GET", &format!("/emails?invoice_id={id}"), None);
            if let Some(r) = e["data"].as_array().and_then(|d| d.first()).cloned() {
                if r["attempts"].as_i64() >= Some(1) {
                    break r;
                }
            }
            assert!(Instant::now() < until, "no reminder attempt: {e}");
            std::thread::sleep(Duration::from_millis(200));
        }
    };
    assert_eq!(reminder["kind"], "reminder");
    api.ok(
        "PATCH",
        &format!("/invoices/{id}"),
        Some(json!({"status": "paid"})),
    );
    let sink = Sink::start_with(
        &dir.join("mail"),
        Options {
            port,
            tls: None,
            implicit: false,
            reject: None,
        },
    );
    let rid = reminder["id"].as_i64().unwrap();
    let e = wait_email(&api, rid, 30, |e| e["status"] != "queued");
    assert_eq!(e["status"], "failed", "{e}");
    assert!(
        e["last_error"].as_str().unwrap().starts_with("not sent"),
        "{e}"
    );
    std::thread::sleep(Duration::from_secs(2));
    assert!(
        smtp::received(&sink.maildir).is_empty(),
        "nothing reached the customer"
    );
    assert!(server.stop().success());
    sink.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reminders_once_and_receipts() {
    let dir = data_dir("mail-reminders");
    let sink = Sink::start(&dir.join("mail"));
    let url = sink.plain_url();
    let fast = env(&url, &[("SCHEDULER_INTERVAL_SECS", "1")]);
    let server = start_with(&dir, &fast);
    let key = server.printed_key().unwrap();
    let api = Api::new(&server, &dir, &key);
    api.ok("PATCH", "/account", Some(json!({"send_receipts": true})));
    let today = chrono::Utc::now()
        .date_naive()
        .format("%Y-%m-%d")
        .to_string();
    let body = |name: &str, reminders: Value| {
        json!({
            "customer": {"name": name, "email": format!("{name}@example.com")},
            "due_date": today, "reminders": reminders,
            "line_items": [{"description": "Work", "quantity": "1", "unit_price_cents": 5000}]
        })
    };
    let due = api.ok("POST", "/invoices", Some(body("due", json!([0]))));
    let paid = api.ok("POST", "/invoices", Some(body("paid", json!([0]))));
    let (due_id, paid_id) = (due["id"].as_i64().unwrap(), paid["id"].as_i64().unwrap());
    // Paid before its reminder's sweep: the payment brings a receipt, never a reminder.
    api.ok("POST", &format!("/invoices/{paid_id}/send"), None);
    api.ok(
        "POST",
        "/payments",
        Some(json!({"invoice_id": paid_id, "amount_cents": 5000, "method": "bank_transfer", "status": "verified"})),
    );
    api.ok("POST", &format!("/invoices/{due_id}/send"), None);
    // The receipt and the sweep's reminder reach the sink before the restart; more sweeps then
    // run over the sent reminder.
    smtp::wait_for(&sink.maildir, 2, 30);
    std::thread::sleep(Duration::from_secs(4));
    assert!(server.stop().success());
    let server = start_with(&dir, &fast);
    std::thread::sleep(Duration::from_secs(4));

    let subjects = |maildir: &Path| -> Vec<(String, String)> {
        smtp::received(maildir)
            .iter()
            .map(|raw| {
                let m = MessageParser::default().parse(raw).unwrap();
                let to = m
                    .to()
                    .and_then(|a| a.first())
                    .unwrap()
                    .address()
                    .unwrap()
                    .to_string();
                (to, m.subject().unwrap_or_default().to_string())
            })
            .collect()
    };
    let got = subjects(&sink.maildir);
    let reminders: Vec<_> = got
        .iter()
        .filter(|(_, s)| s.starts_with("Payment reminder"))
        .collect();
    assert_eq!(
        reminders.len(),
        1,
        "one reminder over many sweeps and a restart: {got:?}"
    );
    assert_eq!(reminders[0].0, "due@example.com");
    let receipts: Vec<_> = got
        .iter()
        .filter(|(_, s)| s.starts_with("Receipt"))
        .collect();
    assert_eq!(receipts.len(), 1, "{got:?}");
    assert_eq!(receipts[0].0, "paid@example.com");
    assert_eq!(got.len(), 2, "nothing else: {got:?}");
    let api = Api::new(&server, &dir, &key);
    let log = api.ok("GET", &format!("/emails?invoice_id={due_id}"), None);
    assert_eq!(log["data"][0]["kind"], "reminder");
    assert!(server.stop().success());
    sink.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
