//! A card payment Stripe took while the server died before writing it down (`kill -9` between
//! Stripe's "paid" and the commit), its webhook lost: the restarted server's sweep asks Stripe
//! and records it, once. SPEC §25, on both backends, against the repository's Stripe stand-in.

use super::*;
use invoicing_gateway_stripe::testing::StandIn;

fn form_post(agent: &ureq::Agent, url: &str, body: &str) -> ureq::http::Response<ureq::Body> {
    let req = ureq::http::Request::builder()
        .method("POST")
        .uri(url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body.to_string())
        .unwrap();
    agent.run(req).unwrap()
}

fn killed_after_stripe_took_the_money(backend: Backend) {
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    let stripe = StandIn::start();
    stripe.webhooks("fail");
    let account = stripe.account();
    let dir = data_dir(&format!("card-crash-{backend:?}"));
    let url = match backend {
        Backend::Sqlite => db_url(&dir),
        Backend::Postgres => db.url.clone(),
    };
    // Everything the server logs, at its most talkative, to search for the secrets after.
    let log = dir.join("server.log");
    let mut server = start_logging(
        &dir,
        &[
            ("DATABASE_URL", &url),
            ("STRIPE_API_BASE", &stripe.base),
            ("INVOICING_FAILPOINT", "card_return.before_record"),
            ("RATE_LIMIT_BURST", "1000"),
            ("RUST_LOG", "trace"),
        ],
        &log,
    );
    let key = server.printed_key().expect("an API key");
    let api = common::api::Api::new(&server, &dir, &key);
    api.ok(
        "PUT",
        "/account/gateways/stripe",
        Some(
            json!({"secret_key": account.test_secret, "publishable_key": account.test_publishable}),
        ),
    );
    let id = api.invoice("ada@example.com");
    let inv = api.ok("POST", &format!("/invoices/{id}/send"), None);
    let number = inv["invoice_number"].as_str().unwrap();
    let token = inv["payment_link"]
        .as_str()
        .unwrap()
        .split("token=")
        .nth(1)
        .unwrap();
    let agent = bounded_agent(&dir);
    let started = form_post(
        &agent,
        &format!("{}/invoice/{number}/card", server.https),
        &format!("token={token}"),
    );
    assert_eq!(started.status().as_u16(), 303);
    let checkout = started.headers()["location"].to_str().unwrap().to_string();
    assert!(checkout.starts_with(&stripe.base), "{checkout}");
    let session = StandIn::session_of(&checkout);
    stripe.control(&format!("/_standin/sessions/{session}/pay"), json!({}));
    // The customer comes back; the server dies between Stripe's "paid" and its commit.
    let back = format!(
        "{}/invoice/{number}/card?token={token}&session_id={session}",
        server.https
    );
    assert!(
        agent.get(&back).call().is_err(),
        "the process died before answering"
    );
    let status = server.child.wait().unwrap();
    assert!(!status.success(), "aborted: {status}");

    // Restarted, with its webhook lost for good: the sweep asks Stripe and records it.
    let server = start_logging(
        &dir,
        &[
            ("DATABASE_URL", &url),
            ("STRIPE_API_BASE", &stripe.base),
            ("RATE_LIMIT_BURST", "1000"),
            ("RUST_LOG", "trace"),
        ],
        &log,
    );
    let api = common::api::Api::new(&server, &dir, &key);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let now = api.ok("GET", &format!("/invoices/{id}"), None);
        if now["status"] == "paid" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "not recorded by the sweep: {now}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    // Coming back again (a reload) finds it recorded: one payment.
    let back = format!(
        "{}/invoice/{number}/card?token={token}&session_id={session}",
        server.https
    );
    let agent = bounded_agent(&dir);
    let again = agent.get(&back).call().unwrap();
    assert_eq!(again.status().as_u16(), 303);
    let payments = api.ok("GET", &format!("/payments?invoice_id={id}"), None);
    assert_eq!(payments["data"].as_array().unwrap().len(), 1, "{payments}");
    assert_eq!(payments["data"][0]["method"], "card");
    assert!(server.stop().success());
    let logged = std::fs::read(&log).unwrap();
    let logged = String::from_utf8_lossy(&logged);
    assert!(
        logged.len() > 1000,
        "the server logged: {} bytes",
        logged.len()
    );
    for secret in [&account.test_secret[8..], "NeverLoggedSigningSecret"] {
        assert!(!logged.contains(secret), "a secret in the server's log");
    }
    // Nor in the database file in clear (SQLite: the bytes on disk).
    if backend == Backend::Sqlite {
        let mut bytes = std::fs::read(dir.join("invoicing.db")).unwrap();
        bytes.extend(std::fs::read(dir.join("invoicing.db-wal")).unwrap_or_default());
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(&account.test_secret[8..]),
            "the secret key in clear on disk"
        );
    }
    drop(db);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[cfg_attr(
    not(feature = "failpoints"),
    ignore = "needs the failpoints feature (scripts/test turns it on)"
)]
fn sqlite_a_card_payment_survives_a_kill_before_its_commit() {
    killed_after_stripe_took_the_money(Backend::Sqlite);
}

#[test]
#[cfg_attr(
    not(feature = "failpoints"),
    ignore = "needs the failpoints feature (scripts/test turns it on)"
)]
fn postgres_a_card_payment_survives_a_kill_before_its_commit() {
    killed_after_stripe_took_the_money(Backend::Postgres);
}

/// Two servers of a fleet (one database, one `SECRETS_KEY`): Stripe's webhook reaches one while
/// the customer's return reaches the other, at the same instant. One payment.
fn webhook_and_return_on_two_servers(backend: Backend) {
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    let stripe = StandIn::start();
    stripe.webhooks("hold");
    let account = stripe.account();
    let dirs = [
        data_dir(&format!("card-fleet-{backend:?}-a")),
        data_dir(&format!("card-fleet-{backend:?}-b")),
    ];
    let url = match backend {
        Backend::Sqlite => db_url(&dirs[0]),
        Backend::Postgres => db.url.clone(),
    };
    let secrets = invoicing_storage::secrets::SecretsKey::generate();
    let env = [
        ("DATABASE_URL", url.as_str()),
        ("STRIPE_API_BASE", stripe.base.as_str()),
        ("SECRETS_KEY", secrets.as_str()),
        ("RATE_LIMIT_BURST", "1000"),
    ];
    let one = start_with(&dirs[0], &env);
    let key = one.printed_key().expect("an API key");
    let two = start_with(&dirs[1], &env);
    let api = common::api::Api::new(&one, &dirs[0], &key);
    let connected = api.ok(
        "PUT",
        "/account/gateways/stripe",
        Some(
            json!({"secret_key": account.test_secret, "publishable_key": account.test_publishable}),
        ),
    );
    let hook = connected["webhook_url"].as_str().unwrap();
    let path = hook.strip_prefix(PUBLIC_URL).unwrap().to_string();
    let signing = stripe.endpoint(&account.test_secret, hook);
    api.ok(
        "PUT",
        "/account/gateways/stripe",
        Some(
            json!({"secret_key": account.test_secret, "publishable_key": account.test_publishable,
                    "webhook_secret": signing}),
        ),
    );
    let id = api.invoice("ada@example.com");
    let inv = api.ok("POST", &format!("/invoices/{id}/send"), None);
    let number = inv["invoice_number"].as_str().unwrap().to_string();
    let token = inv["payment_link"]
        .as_str()
        .unwrap()
        .split("token=")
        .nth(1)
        .unwrap()
        .to_string();
    let agent = bounded_agent(&dirs[0]);
    let started = form_post(
        &agent,
        &format!("{}/invoice/{number}/card", one.https),
        &format!("token={token}"),
    );
    let session = StandIn::session_of(started.headers()["location"].to_str().unwrap());
    stripe.control(&format!("/_standin/sessions/{session}/pay"), json!({}));
    let event = stripe.events(&account.test_secret, "checkout.session.completed")[0].to_string();
    let t = chrono::Utc::now().timestamp();
    let signature = invoicing_gateway_stripe::sign_notification(
        &invoicing_domain::gateway::Secret::new(signing.clone()),
        t,
        event.as_bytes(),
    );
    // Both at once, each from its own thread, to a different server.
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
    let webhook = {
        let (barrier, agent) = (barrier.clone(), bounded_agent(&dirs[0]));
        let url = format!("{}{path}", one.https);
        std::thread::spawn(move || {
            let req = ureq::http::Request::builder()
                .method("POST")
                .uri(url)
                .header("content-type", "application/json")
                .header("stripe-signature", signature)
                .body(event)
                .unwrap();
            barrier.wait();
            agent.run(req).unwrap().status().as_u16()
        })
    };
    let returned = {
        let (barrier, agent) = (barrier.clone(), bounded_agent(&dirs[1]));
        let url = format!(
            "{}/invoice/{number}/card?token={token}&session_id={session}",
            two.https
        );
        std::thread::spawn(move || {
            barrier.wait();
            agent.get(&url).call().unwrap().status().as_u16()
        })
    };
    assert_eq!(
        (webhook.join().unwrap(), returned.join().unwrap()),
        (200, 303)
    );
    let payments = api.ok("GET", &format!("/payments?invoice_id={id}"), None);
    assert_eq!(payments["data"].as_array().unwrap().len(), 1, "{payments}");
    let paid = api.ok("GET", "/events?type=invoice.paid", None);
    assert_eq!(paid["data"].as_array().unwrap().len(), 1);
    assert!(two.stop().success());
    assert!(one.stop().success());
    drop(db);
    for d in &dirs {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn sqlite_two_servers_record_one_card_payment() {
    webhook_and_return_on_two_servers(Backend::Sqlite);
}

#[test]
fn postgres_two_servers_record_one_card_payment() {
    webhook_and_return_on_two_servers(Backend::Postgres);
}
