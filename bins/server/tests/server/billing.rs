//! Credit notes, recurring invoices and payment requests end to end (SPEC §19, §20, §26): two
//! servers on one PostgreSQL issue a schedule's first invoice exactly once, sent on its own; a
//! credit note is emailed with its PDF; an invoice export reads back in Python's csv module
//! intact; the scheduler cancels a payment request whose time is up.

use crate::common;

use common::api::Api;
use common::smtp::{self, Sink};
use common::*;
use mail_parser::{MessageParser, MimeHeaders};
use serde_json::json;
use std::time::{Duration, Instant};

#[test]
fn two_servers_issue_a_schedules_first_invoice_once() {
    let Some(db) = invoicing_storage::testing::TestDb::new(invoicing_storage::Backend::Postgres)
    else {
        return;
    };
    let (dir_a, dir_b) = (data_dir("recurring-a"), data_dir("recurring-b"));
    let env = [
        ("DATABASE_URL", db.url.as_str()),
        ("SCHEDULER_INTERVAL_SECS", "1"),
        ("RATE_LIMIT_PER_MINUTE", "60000"),
        ("RATE_LIMIT_BURST", "1000"),
    ];
    let a = start_with(&dir_a, &env);
    let key = a.printed_key().unwrap();
    let b = start_with(&dir_b, &env);
    let api = Api::new(&a, &dir_a, &key);
    let today = chrono::Utc::now()
        .date_naive()
        .format("%Y-%m-%d")
        .to_string();
    let mut ids = Vec::new();
    for n in 0..5 {
        let r = api.ok(
            "POST",
            "/recurring_invoices",
            Some(json!({
                "customer": {"name": format!("C{n}"), "email": format!("c{n}@example.com")},
                "line_items": [{"description": "Plan", "quantity": "1", "unit_price_cents": 900}],
                "interval": "month", "start_date": today, "auto_send": true
            })),
        );
        assert_eq!(r["invoices_created"], 0);
        ids.push(r["id"].as_i64().unwrap());
    }
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let issued: Vec<i64> = ids
            .iter()
            .map(|id| {
                api.ok("GET", &format!("/recurring_invoices/{id}"), None)["invoices_created"]
                    .as_i64()
                    .unwrap()
            })
            .collect();
        if issued.iter().all(|n| *n >= 1) {
            break;
        }
        assert!(Instant::now() < until, "not issued: {issued:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_secs(3));
    let invoices = api.ok("GET", "/invoices?per_page=100", None);
    assert_eq!(invoices["total"], 5, "one invoice per schedule: {invoices}");
    for inv in invoices["data"].as_array().unwrap() {
        assert_eq!(inv["status"], "sent");
        assert_eq!(inv["issue_date"], today);
    }
    for id in &ids {
        assert_eq!(
            api.ok("GET", &format!("/recurring_invoices/{id}"), None)["invoices_created"],
            1
        );
    }
    assert!(a.stop().success());
    assert!(b.stop().success());
    drop(db);
    let _ = std::fs::remove_dir_all(&dir_a);
    let _ = std::fs::remove_dir_all(&dir_b);
}

#[test]
fn the_scheduler_lets_an_unpaid_payment_request_lapse() {
    let dir = data_dir("payment-request");
    let server = start_with(
        &dir,
        &[
            ("SCHEDULER_INTERVAL_SECS", "1"),
            ("RATE_LIMIT_PER_MINUTE", "60000"),
            ("RATE_LIMIT_BURST", "1000"),
        ],
    );
    let key = server.printed_key().unwrap();
    let api = Api::new(&server, &dir, &key);
    let soon = chrono::Utc::now() + chrono::Duration::seconds(2);
    let made = api.ok(
        "POST",
        "/payment-requests",
        Some(json!({
            "amount_cents": 2500, "currency": "EUR", "description": "Order 7",
            "customer_name": "Ada", "customer_email": "ada@example.com",
            "expires_at": soon.to_rfc3339()
        })),
    );
    assert_eq!(made["status"], "sent");
    let path = format!("/invoices/{}", made["invoice_id"]);
    let until = Instant::now() + Duration::from_secs(30);
    while api.ok("GET", &path, None)["status"] != "cancelled" {
        assert!(Instant::now() < until, "still open after its expiry");
        std::thread::sleep(Duration::from_millis(200));
    }
    let open = api.ok("GET", "/payment-requests", None);
    assert_eq!(open["total"], 0, "{open}");
    assert!(server.stop().success());
}

#[test]
fn a_credit_note_is_emailed_with_its_pdf() {
    let dir = data_dir("credit-mail");
    let sink = Sink::start(&dir.join("mail"));
    let url = sink.plain_url();
    let server = start_with(
        &dir,
        &[
            ("SMTP_URL", url.as_str()),
            ("SMTP_ALLOW_PLAINTEXT", "true"),
            ("MAIL_FROM", "Billing <billing@example.com>"),
        ],
    );
    let api = Api::new(&server, &dir, &server.printed_key().unwrap());
    let id = api.invoice("ada@example.com");
    api.ok("POST", &format!("/invoices/{id}/send"), None);
    let note = api.ok(
        "POST",
        &format!("/invoices/{id}/credit_notes"),
        Some(json!({"reason": "duplicate", "email": {}})),
    );
    let number = note["credit_note_number"].as_str().unwrap().to_string();
    let raw = smtp::wait_for(&sink.maildir, 1, 30).remove(0);
    let m = MessageParser::default().parse(&raw).unwrap();
    assert!(m.subject().unwrap().contains(&number), "{:?}", m.subject());
    let pdf = m
        .attachments()
        .find(|p| p.attachment_name() == Some(&format!("{number}.pdf")))
        .expect("the credit note's PDF");
    assert!(pdf.contents().starts_with(b"%PDF"));
    let inv = api.ok("GET", &format!("/invoices/{id}"), None);
    assert_eq!(
        inv["status"], "cancelled",
        "fully credited with nothing paid"
    );
    assert!(server.stop().success());
    sink.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a spreadsheet user gets: the invoices' CSV from the binary, read back by Python's own
/// `csv` module (as Excel and LibreOffice read it: a byte-order mark, quoted line breaks), with
/// the accents, the formula guard and the amounts intact.
#[test]
fn an_invoice_export_reads_back_in_python_with_accents_and_amounts() {
    let dir = data_dir("csv-python");
    let server = start(&dir);
    let api = Api::new(&server, &dir, &server.printed_key().unwrap());
    for (currency, cents, notes) in [
        ("EUR", 123_456, "Grüße aus Köln, „Zoë“\nzweite Zeile"),
        ("JPY", 98_765, "=1+1"),
    ] {
        api.ok(
            "POST",
            "/invoices",
            Some(json!({"customer": {"name": "Ærøskøbing Café", "email": "cafe@example.dk"},
                "currency": currency, "notes": notes,
                "line_items": [{"description": "Kaffe", "quantity": 1, "unit_price_cents": cents}]})),
        );
    }
    let req = ureq::http::Request::builder()
        .uri(format!("{}/invoices?format=csv", api.base))
        .header("authorization", format!("Bearer {}", api.key))
        .body(())
        .unwrap();
    let mut res = api.agent.run(req).unwrap();
    assert_eq!(res.status(), 200);
    let bytes = res.body_mut().read_to_vec().unwrap();
    let file = dir.join("invoices.csv");
    std::fs::write(&file, &bytes).unwrap();
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(
            "import csv, json, sys\n\
             with open(sys.argv[1], encoding='utf-8-sig', newline='') as f:\n\
             \x20   print(json.dumps(list(csv.DictReader(f))))",
        )
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 2);
    let eur = rows.iter().find(|r| r["currency"] == "EUR").unwrap();
    assert_eq!(eur["notes"], "Grüße aus Köln, „Zoë“\nzweite Zeile");
    assert_eq!(eur["total_cents"], "123456");
    assert_eq!(eur["total"], "1234.56");
    let yen = rows.iter().find(|r| r["currency"] == "JPY").unwrap();
    assert_eq!(yen["notes"], "'=1+1", "never run as a formula");
    assert_eq!(yen["total"], "98765");
    assert!(server.stop().success());
    let _ = std::fs::remove_dir_all(&dir);
}
