//! The adapter over real HTTP: a tiny server on 127.0.0.1 answers canned responses and keeps
//! what it was sent.

use super::*;
use invoicing_domain::gateway::{CheckoutOwner, RefundStatus};
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::tenant::{AccountId, Environment};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread::JoinHandle;

const SECRET_KEY: &str = "sk_test_51HsuperSECRETvalue9876";

fn keys() -> GatewayKeys {
    GatewayKeys {
        secret_key: Secret::new(SECRET_KEY),
        publishable_key: "pk_test_x".into(),
        webhook_secret: None,
    }
}

/// One request as the server read it.
#[derive(Debug)]
struct Seen {
    request_line: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn form(&self) -> Vec<(String, String)> {
        url::form_urlencoded::parse(self.body.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect()
    }
}

fn read_request(stream: &TcpStream) -> Seen {
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).unwrap();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (k, v) = line.split_once(':').unwrap();
        headers.push((k.trim().to_string(), v.trim().to_string()));
    }
    let length = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .map_or(0, |(_, v)| v.parse().unwrap());
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    Seen {
        request_line: request_line.trim_end().to_string(),
        headers,
        body: String::from_utf8(body).unwrap(),
    }
}

/// Answers each connection with the next canned `(status, body)`, then stops; the handle
/// gives back what was sent.
fn serve(answers: Vec<(u16, String)>) -> (String, JoinHandle<Vec<Seen>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let handle = std::thread::spawn(move || {
        let mut seen = Vec::new();
        for (status, body) in answers {
            let (mut stream, _) = listener.accept().unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            seen.push(read_request(&stream));
            let response = format!(
                "HTTP/1.1 {status} Whatever\r\ncontent-type: application/json\r\n\
                 request-id: req_test123\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            stream.write_all(response.as_bytes()).unwrap();
        }
        seen
    });
    (base, handle)
}

fn gateway(base: &str) -> StripeGateway {
    StripeGateway::new(base, Duration::from_secs(5)).unwrap()
}

fn owner() -> CheckoutOwner {
    CheckoutOwner {
        account_id: AccountId(42),
        environment: Environment::Test,
        invoice_id: InvoiceId(7),
    }
}

fn eur() -> Currency {
    Currency::parse("EUR").unwrap()
}

fn checkout_request() -> CheckoutRequest {
    CheckoutRequest {
        owner: owner(),
        amount: Money::new(1250).unwrap(),
        currency: eur(),
        description: "Invoice 2026-0007 & Co = 100% + more".into(),
        customer_email: Some("ada+billing@example.com".into()),
        success_url: "https://pay.example.com/i/abc?paid=1".into(),
        cancel_url: "https://pay.example.com/i/abc".into(),
        idempotency_key: "checkout-7-1250-EUR".into(),
    }
}

fn session_body(status: &str, payment_status: &str, payment_intent: &str) -> String {
    serde_json::json!({
        "id": "cs_test_a1",
        "object": "checkout.session",
        "amount_total": 1250,
        "currency": "eur",
        "client_reference_id": "acct_42:test:inv_7",
        "metadata": {"account_id": "42", "environment": "test", "invoice_id": "7"},
        "payment_intent": if payment_intent.is_empty() { serde_json::Value::Null } else { payment_intent.into() },
        "payment_status": payment_status,
        "status": status,
        "url": if status == "open" { "https://checkout.stripe.com/c/pay/cs_test_a1".into() } else { serde_json::Value::Null },
    })
    .to_string()
}

/// Every error the tests provoke: none may show the key, in `Debug` or `Display`.
fn assert_no_secret(e: &GatewayError) {
    for shown in [format!("{e}"), format!("{e:?}")] {
        assert!(!shown.contains(SECRET_KEY), "{shown}");
        assert!(!shown.contains("superSECRET"), "{shown}");
    }
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn create_checkout_sends_what_stripe_expects() {
    let (base, server) = serve(vec![(200, session_body("open", "unpaid", ""))]);
    let checkout = gateway(&base)
        .create_checkout(&keys(), &checkout_request())
        .unwrap();
    let seen = server.join().unwrap();
    let req = &seen[0];
    assert_eq!(req.request_line, "POST /v1/checkout/sessions HTTP/1.1");
    assert_eq!(
        req.header("authorization"),
        Some(format!("Bearer {SECRET_KEY}").as_str())
    );
    assert_eq!(req.header("stripe-version"), Some("2024-06-20"));
    assert_eq!(req.header("idempotency-key"), Some("checkout-7-1250-EUR"));
    assert_eq!(
        req.header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(req.header("user-agent"), Some(USER_AGENT));
    assert!(USER_AGENT.starts_with("invoicing-gateway-stripe/"));
    assert_eq!(
        req.form(),
        pairs(&[
            ("mode", "payment"),
            ("line_items[0][price_data][currency]", "eur"),
            ("line_items[0][price_data][unit_amount]", "1250"),
            (
                "line_items[0][price_data][product_data][name]",
                "Invoice 2026-0007 & Co = 100% + more"
            ),
            ("line_items[0][quantity]", "1"),
            ("client_reference_id", "acct_42:test:inv_7"),
            ("metadata[account_id]", "42"),
            ("metadata[environment]", "test"),
            ("metadata[invoice_id]", "7"),
            ("payment_intent_data[metadata][account_id]", "42"),
            ("payment_intent_data[metadata][environment]", "test"),
            ("payment_intent_data[metadata][invoice_id]", "7"),
            ("customer_email", "ada+billing@example.com"),
            ("success_url", "https://pay.example.com/i/abc?paid=1"),
            ("cancel_url", "https://pay.example.com/i/abc"),
        ])
    );
    // The escapes are on the wire, not only after decoding.
    assert!(req.body.contains(
        "line_items%5B0%5D%5Bprice_data%5D%5Bproduct_data%5D%5Bname%5D=Invoice+2026-0007+%26+Co+%3D+100%25+%2B+more"
    ));
    assert_eq!(
        checkout,
        Checkout {
            id: "cs_test_a1".into(),
            url: Some("https://checkout.stripe.com/c/pay/cs_test_a1".into()),
            status: CheckoutStatus::Open,
            paid: false,
            payment_reference: None,
            amount: Money::new(1250).unwrap(),
            currency: eur(),
            owner: Some(owner()),
        }
    );
}

#[test]
fn amounts_go_out_in_stripes_units_and_without_an_email_when_none() {
    let mut request = checkout_request();
    request.amount = Money::new(5).unwrap();
    request.currency = Currency::parse("ISK").unwrap();
    request.customer_email = None;
    let body = session_body("open", "unpaid", "")
        .replace("\"eur\"", "\"isk\"")
        .replace("1250", "500");
    let (base, server) = serve(vec![(200, body)]);
    let checkout = gateway(&base).create_checkout(&keys(), &request).unwrap();
    let form = server.join().unwrap().remove(0).form();
    assert!(form.contains(&("line_items[0][price_data][currency]".into(), "isk".into())));
    assert!(form.contains(&(
        "line_items[0][price_data][unit_amount]".into(),
        "500".into()
    )));
    assert!(!form.iter().any(|(k, _)| k == "customer_email"));
    assert_eq!(checkout.amount.minor(), 5);
}

#[test]
fn a_session_that_is_not_what_was_asked_is_not_taken() {
    let body = session_body("open", "unpaid", "").replace("1250", "1251");
    let (base, server) = serve(vec![(200, body)]);
    let e = gateway(&base)
        .create_checkout(&keys(), &checkout_request())
        .unwrap_err();
    server.join().unwrap();
    assert!(matches!(e, GatewayError::Malformed(_)), "{e:?}");
}

#[test]
fn amounts_stripe_cannot_take_are_refused_before_any_request() {
    // Nothing listens: a request would be Unreachable, not Refused.
    let g = gateway(&closed_port());
    let mut request = checkout_request();
    request.currency = Currency::parse("KWD").unwrap();
    request.amount = Money::new(5124).unwrap();
    let e = g.create_checkout(&keys(), &request).unwrap_err();
    assert_eq!(
        e,
        GatewayError::Refused {
            param: Some("amount".into()),
            message: "Stripe cannot take exactly 5.124 KWD".into()
        }
    );
    request.currency = Currency::parse("IQD").unwrap();
    assert!(matches!(
        g.create_checkout(&keys(), &request),
        Err(GatewayError::Refused { .. })
    ));
    let refund = RefundRequest {
        payment_reference: "pi_1".into(),
        amount: Money::new(0).unwrap(),
        currency: eur(),
        reason: None,
        idempotency_key: "refund-1".into(),
    };
    assert!(matches!(
        g.refund(&keys(), &refund),
        Err(GatewayError::Refused { .. })
    ));
}

#[test]
fn a_session_is_read_by_its_id() {
    let (base, server) = serve(vec![
        (200, session_body("complete", "paid", "pi_3Abc")),
        (
            200,
            session_body("complete", "paid", "").replace(
                "\"payment_intent\":null",
                "\"payment_intent\":{\"id\":\"pi_3Abc\",\"object\":\"payment_intent\"}",
            ),
        ),
    ]);
    let g = gateway(&base);
    let a = g.checkout(&keys(), "cs_test_a1").unwrap();
    let b = g.checkout(&keys(), "cs_test_a1").unwrap();
    let seen = server.join().unwrap();
    assert_eq!(
        seen[0].request_line,
        "GET /v1/checkout/sessions/cs_test_a1 HTTP/1.1"
    );
    assert_eq!(seen[0].header("stripe-version"), Some(STRIPE_VERSION));
    assert_eq!(seen[0].header("idempotency-key"), None);
    assert_eq!(seen[0].body, "");
    for c in [a, b] {
        assert!(c.paid);
        assert_eq!(c.status, CheckoutStatus::Complete);
        assert_eq!(c.payment_reference.as_deref(), Some("pi_3Abc"));
        assert_eq!(c.url, None);
    }
}

#[test]
fn ids_that_could_change_the_path_are_refused_before_any_request() {
    let g = gateway(&closed_port());
    let long = "a".repeat(256);
    for id in [
        "",
        "cs_1/expire",
        "../refunds",
        "cs_1?expand[]=x",
        "cs_1#x",
        "cs 1",
        "cs_1%2F",
        "cs_é",
        long.as_str(),
    ] {
        for r in [g.checkout(&keys(), id), g.expire_checkout(&keys(), id)] {
            assert_eq!(
                r,
                Err(GatewayError::Refused {
                    param: Some("id".into()),
                    message: "is not a Stripe id (letters, digits and underscores)".into()
                }),
                "{id:?}"
            );
        }
    }
}

#[test]
fn expire_posts_with_a_key_derived_from_the_session() {
    let (base, server) = serve(vec![(200, session_body("expired", "unpaid", ""))]);
    let c = gateway(&base)
        .expire_checkout(&keys(), "cs_test_a1")
        .unwrap();
    let seen = server.join().unwrap();
    assert_eq!(
        seen[0].request_line,
        "POST /v1/checkout/sessions/cs_test_a1/expire HTTP/1.1"
    );
    assert_eq!(seen[0].header("idempotency-key"), Some("expire-cs_test_a1"));
    assert_eq!(seen[0].body, "");
    assert_eq!(c.status, CheckoutStatus::Expired);
}

#[test]
fn expiring_a_session_paid_meanwhile_answers_the_paid_session() {
    let refusal = r#"{"error":{"type":"invalid_request_error","message":"Only Checkout Sessions with a status in [\"open\"] can be expired. This Checkout Session has a status of \"complete\"."}}"#;
    let (base, server) = serve(vec![
        (400, refusal.into()),
        (200, session_body("complete", "paid", "pi_3Abc")),
    ]);
    let c = gateway(&base)
        .expire_checkout(&keys(), "cs_test_a1")
        .unwrap();
    let seen = server.join().unwrap();
    assert_eq!(
        seen[1].request_line,
        "GET /v1/checkout/sessions/cs_test_a1 HTTP/1.1"
    );
    assert!(c.paid);

    // Refused while still open: the refusal stands.
    let (base, server) = serve(vec![
        (400, refusal.into()),
        (200, session_body("open", "unpaid", "")),
    ]);
    let e = gateway(&base)
        .expire_checkout(&keys(), "cs_test_a1")
        .unwrap_err();
    server.join().unwrap();
    assert!(matches!(e, GatewayError::Refused { .. }), "{e:?}");
}

#[test]
fn refund_sends_the_intent_amount_and_reason() {
    let answer = serde_json::json!({
        "id": "re_1", "object": "refund", "amount": 500, "currency": "eur",
        "payment_intent": "pi_3Abc", "status": "pending", "reason": "requested_by_customer",
        "metadata": {"reason": "Overpaid by 5 €"}
    })
    .to_string();
    let (base, server) = serve(vec![(200, answer)]);
    let request = RefundRequest {
        payment_reference: "pi_3Abc".into(),
        amount: Money::new(500).unwrap(),
        currency: eur(),
        reason: Some("Overpaid by 5 €".into()),
        idempotency_key: "refund-77".into(),
    };
    let refund = gateway(&base).refund(&keys(), &request).unwrap();
    let seen = server.join().unwrap();
    assert_eq!(seen[0].request_line, "POST /v1/refunds HTTP/1.1");
    assert_eq!(seen[0].header("idempotency-key"), Some("refund-77"));
    assert_eq!(
        seen[0].form(),
        pairs(&[
            ("payment_intent", "pi_3Abc"),
            ("amount", "500"),
            ("reason", "requested_by_customer"),
            ("metadata[reason]", "Overpaid by 5 €"),
        ])
    );
    assert_eq!(
        refund,
        GatewayRefund {
            id: "re_1".into(),
            payment_reference: Some("pi_3Abc".into()),
            amount: Money::new(500).unwrap(),
            status: RefundStatus::Pending,
        }
    );
}

#[test]
fn check_keys_reads_the_balance() {
    let (base, server) = serve(vec![(
        200,
        r#"{"object":"balance","available":[],"livemode":false,"pending":[]}"#.into(),
    )]);
    gateway(&base).check_keys(&keys()).unwrap();
    let seen = server.join().unwrap();
    assert_eq!(seen[0].request_line, "GET /v1/balance HTTP/1.1");
    assert_eq!(
        seen[0].header("authorization"),
        Some(format!("Bearer {SECRET_KEY}").as_str())
    );
}

#[test]
fn a_refused_key_is_unauthorized_and_never_shown() {
    // A stand-in that echoes the whole key: it is masked all the same.
    let echo = format!(
        r#"{{"error":{{"type":"invalid_request_error","message":"Invalid API Key provided: {SECRET_KEY}"}}}}"#
    );
    let (base, server) = serve(vec![(401, echo.clone()), (403, echo)]);
    let g = gateway(&base);
    for _ in 0..2 {
        let e = g.check_keys(&keys()).unwrap_err();
        assert_eq!(
            e,
            GatewayError::Unauthorized("Invalid API Key provided: …9876".into())
        );
        assert_no_secret(&e);
    }
    server.join().unwrap();
}

/// Whatever answers and however it fails, no error shows the key.
#[test]
fn no_error_of_any_kind_shows_the_key() {
    let echo = |kind: &str| {
        format!(
            r#"{{"error":{{"type":"{kind}","code":"{SECRET_KEY}","message":"key {SECRET_KEY} seen","param":"{SECRET_KEY}"}}}}"#
        )
    };
    let (base, server) = serve(vec![
        (400, echo("invalid_request_error")),
        (402, echo("card_error")),
        (401, echo("invalid_request_error")),
        (500, echo("api_error")),
        (429, echo("invalid_request_error")),
        (200, format!("{{\"id\": \"{SECRET_KEY}\"}}")),
        (200, format!("{SECRET_KEY} is not json")),
        (404, format!("<html>{SECRET_KEY}</html>")),
    ]);
    let g = gateway(&base);
    let mut kinds = Vec::new();
    for _ in 0..8 {
        let e = g.checkout(&keys(), "cs_test_a1").unwrap_err();
        assert_no_secret(&e);
        kinds.push(std::mem::discriminant(&e));
    }
    server.join().unwrap();
    kinds.dedup();
    assert!(
        kinds.len() >= 4,
        "Refused, Unauthorized, Unreachable and Malformed all seen"
    );
    for e in [
        gateway(&closed_port()).check_keys(&keys()).unwrap_err(),
        GatewayError::Refused {
            param: None,
            message: String::new(),
        },
    ] {
        assert_no_secret(&e);
    }
}

#[test]
fn server_errors_and_rate_limits_are_unreachable() {
    let (base, server) = serve(vec![
        (
            500,
            r#"{"error":{"type":"api_error","message":"Something went wrong"}}"#.into(),
        ),
        (503, "<html>down</html>".into()),
        (
            429,
            r#"{"error":{"type":"invalid_request_error","code":"rate_limit"}}"#.into(),
        ),
    ]);
    let g = gateway(&base);
    let errors: Vec<_> = (0..3)
        .map(|_| g.checkout(&keys(), "cs_test_a1").unwrap_err())
        .collect();
    server.join().unwrap();
    assert_eq!(
        errors,
        [
            GatewayError::Unreachable("HTTP 500: Something went wrong".into()),
            GatewayError::Unreachable("HTTP 503: no details".into()),
            GatewayError::Unreachable("HTTP 429: rate_limit".into()),
        ]
    );
}

#[test]
fn stripes_refusals_carry_param_and_message() {
    let body = r#"{"error":{"type":"invalid_request_error","code":"url_invalid","message":"Not a valid URL","param":"success_url"}}"#;
    let (base, server) = serve(vec![(400, body.into()), (200, "not json".into())]);
    let g = gateway(&base);
    let e = g.create_checkout(&keys(), &checkout_request()).unwrap_err();
    assert_eq!(
        e,
        GatewayError::Refused {
            param: Some("success_url".into()),
            message: "Not a valid URL".into()
        }
    );
    let e = g.create_checkout(&keys(), &checkout_request()).unwrap_err();
    assert!(matches!(e, GatewayError::Malformed(_)), "{e:?}");
    server.join().unwrap();
}

fn closed_port() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}")
}

#[test]
fn a_closed_port_is_unreachable() {
    let g = gateway(&closed_port());
    let e = g.check_keys(&keys()).unwrap_err();
    assert!(matches!(e, GatewayError::Unreachable(_)), "{e:?}");
    assert_no_secret(&e);
    let e = g.create_checkout(&keys(), &checkout_request()).unwrap_err();
    assert!(matches!(e, GatewayError::Unreachable(_)), "{e:?}");
    assert_no_secret(&e);
}

#[test]
fn a_silent_server_times_out_as_unreachable() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let g = StripeGateway::new(&base, Duration::from_millis(300)).unwrap();
    let held = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        std::thread::sleep(Duration::from_secs(2));
        drop(stream);
    });
    let started = std::time::Instant::now();
    let e = g.check_keys(&keys()).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(
        e,
        GatewayError::Unreachable("no answer within 300 ms".into())
    );
    held.join().unwrap();
}

#[test]
fn keys_and_idempotency_keys_that_cannot_be_headers_are_refused() {
    let g = gateway(&closed_port());
    let mut bad = keys();
    bad.secret_key = Secret::new("sk_test_abc\r\nX-Evil: 1");
    let e = g.check_keys(&bad).unwrap_err();
    assert!(matches!(e, GatewayError::Unauthorized(_)), "{e:?}");
    assert!(!format!("{e:?}").contains("Evil"));
    let long = "k".repeat(256);
    for key in ["", "a b", "é", long.as_str()] {
        let mut request = checkout_request();
        request.idempotency_key = key.to_string();
        let e = g.create_checkout(&keys(), &request).unwrap_err();
        assert_eq!(
            e,
            GatewayError::Refused {
                param: Some("idempotency_key".into()),
                message: "must be 1 to 255 printable ASCII characters".into()
            },
            "{key:?}"
        );
    }
}

#[test]
fn plain_http_only_for_loopback() {
    let t = Duration::from_secs(5);
    for ok in [
        "https://api.stripe.com",
        "https://api.stripe.com/",
        "https://stripe.example.com:8443/prefix/",
        "http://127.0.0.1:12111",
        "http://127.5.6.7",
        "http://[::1]:8080",
        "http://localhost:9999",
        "http://LOCALHOST",
        "https://localhost",
    ] {
        let g = StripeGateway::new(ok, t).unwrap_or_else(|e| panic!("{ok}: {e}"));
        assert!(!g.api_base().ends_with('/'), "{ok}");
    }
    assert_eq!(
        StripeGateway::new("https://api.stripe.com/", t)
            .unwrap()
            .api_base(),
        STRIPE_API_BASE
    );
    for insecure in [
        "http://api.stripe.com",
        "http://10.0.0.1",
        "http://192.168.1.5:12111",
        "http://128.0.0.1",
        "http://[::2]",
        "http://[::ffff:127.0.0.1]",
        "http://localhost.example.com",
        "http://0.0.0.0:12111",
    ] {
        assert!(
            matches!(
                StripeGateway::new(insecure, t),
                Err(ConfigError::Insecure(_))
            ),
            "{insecure}"
        );
    }
    for odd in [
        "ftp://api.stripe.com",
        "https://user:pw@api.stripe.com",
        "ftp://user:pw@api.stripe.com",
        "http://user:pw@example.com",
        "https://api.stripe.com/?x=1",
        "https://api.stripe.com/#x",
        "unix:/tmp/socket",
    ] {
        let e = StripeGateway::new(odd, t).unwrap_err();
        assert!(matches!(e, ConfigError::Unsupported(_)), "{odd}: {e:?}");
        assert!(!e.to_string().contains("pw"), "{e}");
    }
    assert!(matches!(
        StripeGateway::new("api.stripe.com", t),
        Err(ConfigError::NotAUrl(_))
    ));
    assert!(matches!(
        StripeGateway::new("", t),
        Err(ConfigError::NotAUrl(_))
    ));
    assert_eq!(
        StripeGateway::new(STRIPE_API_BASE, Duration::ZERO).unwrap_err(),
        ConfigError::ZeroTimeout
    );
}

#[test]
fn the_port_is_implemented_for_stripe() {
    let g = gateway(STRIPE_API_BASE);
    let port: &dyn PaymentGateway = &g;
    assert_eq!(port.kind(), GatewayKind::Stripe);
    assert_eq!(port.checkout_origin(), "https://checkout.stripe.com");
    let t = Duration::from_secs(1);
    for (base, origin) in [
        (
            "https://stripe-proxy.example.com/api/",
            "https://checkout.stripe.com",
        ),
        ("http://127.0.0.1:12111/", "http://127.0.0.1:12111"),
        ("http://localhost:8080", "http://localhost:8080"),
        ("http://[::1]:9000", "http://[::1]:9000"),
    ] {
        assert_eq!(
            StripeGateway::new(base, t).unwrap().checkout_origin(),
            origin,
            "{base}"
        );
    }
    assert_eq!(
        port.chargeable(Money::new(500).unwrap(), Currency::parse("JPY").unwrap()),
        Some(500)
    );
    fn send_sync<T: Send + Sync>() {}
    send_sync::<StripeGateway>();
}

#[test]
fn verify_notification_checks_then_reads() {
    let g = gateway(STRIPE_API_BASE);
    let secret = Secret::new("whsec_abc123");
    let payload = serde_json::json!({
        "id": "evt_1", "object": "event", "livemode": true, "type": "checkout.session.completed",
        "data": {"object": serde_json::from_str::<serde_json::Value>(&session_body("complete", "paid", "pi_1")).unwrap()}
    })
    .to_string();
    let t = 1_800_000_000;
    let now = DateTime::from_timestamp(t + 10, 0).unwrap();
    let header = sign_notification(&secret, t, payload.as_bytes());
    let n = g
        .verify_notification(&secret, &header, payload.as_bytes(), now)
        .unwrap();
    assert_eq!(n.id, "evt_1");
    assert!(n.livemode);
    assert!(
        matches!(n.event, invoicing_domain::gateway::GatewayEvent::CheckoutPaid(ref c) if c.payment_reference.as_deref() == Some("pi_1"))
    );
    // A bad signature is refused before the body is read.
    let e = g
        .verify_notification(
            &Secret::new("whsec_other"),
            &header,
            payload.as_bytes(),
            now,
        )
        .unwrap_err();
    assert_eq!(e, GatewayError::BadSignature("no v1 signature matches"));
    // A signed body that is not an event is malformed.
    let header = sign_notification(&secret, t, b"{}");
    assert!(matches!(
        g.verify_notification(&secret, &header, b"{}", now),
        Err(GatewayError::Malformed(_))
    ));
}
