//! CSV and JSON agree, field by field, for random documents: hostile text (quotes, commas, line
//! breaks, formula starts, non-ASCII), currencies with 0, 2 and 3 decimals, random lines.

use crate::common::*;
use actix_web::http::Method;
use actix_web::test::init_service;
use invoicing_http::build_app;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Value};

/// Text that starts as a formula half the time.
fn text() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["=", "+", "-", "@", "", "", "", ""]),
        "[a-zA-Zéß王 ,\"\n;=+@-]{1,24}",
    )
        .prop_map(|(start, rest)| format!("{start}x{rest}"))
}

fn invoice() -> impl Strategy<Value = (Value, bool)> {
    let line = (
        1u32..5000,
        0i64..10_000_000,
        prop::sample::select(vec!["0", "7.5", "19", "21"]),
    )
        .prop_map(|(q, price, rate)| {
            json!({"description": "Item", "quantity": format!("{}.{:03}", q / 1000, q % 1000),
                "unit_price_cents": price, "tax_rate": rate})
        });
    (
        text(),
        text(),
        prop::sample::select(vec!["EUR", "JPY", "KWD"]),
        prop::collection::vec(line, 1..4),
        any::<bool>(),
    )
        .prop_map(|(name, notes, currency, lines, send)| {
            let email = format!("p{}@example.com", rand::random::<u32>());
            let body = json!({"customer": {"name": name, "email": email},
                "currency": currency, "notes": notes, "line_items": lines});
            (body, send)
        })
}

/// What a text cell holds for a JSON string: the text, made inert when a spreadsheet would run it.
fn inert(s: &str) -> String {
    match s.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{s}"),
        _ => s.to_string(),
    }
}

/// Every CSV cell against the JSON object with the same `id`.
fn agrees(header: &[String], row: &[String], object: &Value, exponent: u32) {
    for (name, cell) in header.iter().zip(row) {
        let minor_name = format!("{name}_cents");
        if let Some(minor) = object.get(&minor_name).and_then(Value::as_i64) {
            // The decimal column: the same minor units, written with the currency's exponent.
            let digits = cell.replace(['.', '-'], "");
            assert_eq!(
                digits.parse::<i64>().unwrap(),
                minor.abs(),
                "{name}: {cell}"
            );
            let decimals = cell.split_once('.').map_or(0, |(_, d)| d.len());
            assert_eq!(decimals as u32, exponent, "{name}: {cell}");
            continue;
        }
        match &object[name.as_str()] {
            Value::Null => assert_eq!(cell, "", "{name}"),
            Value::Number(n) => assert_eq!(cell, &n.to_string(), "{name}"),
            Value::String(s) if chrono::DateTime::parse_from_rfc3339(s).is_ok() => {
                let at = |t: &str| chrono::DateTime::parse_from_rfc3339(t).unwrap().timestamp();
                assert_eq!(at(cell), at(s), "{name}: the same second")
            }
            Value::String(s) => assert_eq!(cell, &inert(s), "{name}"),
            other => panic!("{name}: a column for {other}"),
        }
    }
}

async fn csv_and_json_agree_for_random_documents(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    let mut runner = TestRunner::new(Config::default());
    for case in 0..12 {
        // Each case in an account of its own: its lists hold its documents only.
        let key = h.stranger_key(&format!("Case {case}"));
        let docs = prop::collection::vec(invoice(), 1..5)
            .new_tree(&mut runner)
            .unwrap()
            .current();
        for (body, send) in &docs {
            let r = call!(
                &app,
                h.req_as(&key, Method::POST, "/api/v1/invoices"),
                body.clone()
            );
            assert_eq!(r.status, 201, "{}", r.body);
            if *send {
                let id = r.body["id"].as_i64().unwrap();
                let path = format!("/api/v1/invoices/{id}/send");
                assert_eq!(call!(&app, h.req_as(&key, Method::POST, &path)).status, 200);
            }
        }
        for list in ["invoices", "customers"] {
            let json_list = call!(
                &app,
                h.req_as(&key, Method::GET, &format!("/api/v1/{list}?per_page=100"))
            );
            let objects = json_list.body["data"].as_array().unwrap().clone();
            let r = send_raw(
                &app,
                h.req_as(&key, Method::GET, &format!("/api/v1/{list}"))
                    .insert_header(("accept", "text/csv")),
            )
            .await;
            let mut reader =
                csv::Reader::from_reader(r.bytes.strip_prefix("\u{feff}".as_bytes()).unwrap());
            let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
            let rows: Vec<Vec<String>> = reader
                .records()
                .map(|r| r.unwrap().iter().map(String::from).collect())
                .collect();
            assert_eq!(rows.len(), objects.len(), "{list}: case {case}");
            for (row, object) in rows.iter().zip(&objects) {
                assert_eq!(row[0], object["id"].to_string(), "{list}: the same order");
                let exponent = match object["currency"].as_str() {
                    Some("JPY") => 0,
                    Some("KWD") => 3,
                    _ => 2,
                };
                agrees(&header, row, object, exponent);
            }
        }
    }
}

http_tests!(csv_and_json_agree_for_random_documents);
