//! SPEC §25 in the dashboard, through the real app, the repository's Stripe stand-in and both
//! backends: Settings → Payments (an owner connects Stripe with the keys' check, sees the
//! webhook address and events, saves the signing secret, disconnects; everyone else refused; the
//! secrets never in any page), a card payment's reference and refunds on the payments screens
//! (Refund after a credit note goes to Stripe once, a second is refused beside the amount), and
//! the verification queue's proof of transfer, downloaded by the merchant only.

use crate::common::*;
use crate::dashboard::{member, sign_in, Session, PASSWORD};
use actix_web::http::Method;
use actix_web::test::init_service;
use chrono::{Duration, Utc};
use invoicing_domain::ports::UserRepository;
use invoicing_domain::user::{Role, UserEmail};
use invoicing_gateway_stripe::testing::StandIn;
use invoicing_http::build_app;
use serde_json::{json, Value};

const SETTINGS: &str = "/dashboard/settings/payments";
const GATEWAY: &str = "/api/v1/account/gateways/stripe";
/// What a screen may send (as `dashboard.rs` holds every screen to).
const SCREEN_BUDGET: u64 = 16;

/// Makes every session of `email` as if the password was typed ten minutes ago.
fn stale(h: &Harness, email: &str) {
    let user =
        h.db.store
            .find_user_by_email(&UserEmail::parse(email).unwrap())
            .unwrap()
            .unwrap();
    for s in h.db.store.list_sessions(user.id, Utc::now()).unwrap() {
        h.db.store
            .confirm_session_password(s.id, Utc::now() - Duration::minutes(10))
            .unwrap();
    }
}

async fn payments_of<S, B>(app: &S, h: &Harness, inv: &Value) -> Vec<Value>
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let path = format!("/api/v1/payments?invoice_id={}", inv["id"]);
    call!(app, h.req(Method::GET, &path)).body["data"]
        .as_array()
        .unwrap()
        .clone()
}

/// A page's HTML, with the statements it sent held to the screens' budget.
async fn screen<S, B>(app: &S, h: &Harness, s: &Session, path: &str) -> String
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let before = h.db.store.statements_sent();
    let r = send_raw(app, s.get(path)).await;
    let spent = h.db.store.statements_sent() - before;
    assert_eq!(r.status, 200, "{path}: {}", r.text());
    assert!(spent <= SCREEN_BUDGET, "{path} sent {spent} statements");
    let page = r.text();
    assert!(
        !page.contains("dash."),
        "{path}: a catalogue key shown as text"
    );
    page
}

async fn an_owner_connects_stripe_and_its_secrets_never_show(h: Harness) {
    let stripe = StandIn::start();
    let account = stripe.account();
    let state = h.with_stripe(&stripe.base);
    let app = init_service(build_app(state.clone())).await;
    member(&h, h.account, "owner@example.com", Role::Owner);
    member(&h, h.account, "staff@example.com", Role::Staff);
    member(&h, h.account, "viewer@example.com", Role::Viewer);
    let owner = sign_in(&app, "owner@example.com").await;

    // Not connected: the form, and where to find the keys.
    let page = screen(&app, &h, &owner, SETTINGS).await;
    assert!(
        page.contains("name=\"secret_key\" type=\"password\""),
        "{page}"
    );
    assert!(page.contains("name=\"publishable_key\""));
    assert!(page.contains("Developers → API keys"), "{page}");
    assert!(
        page.contains("sk_test_"),
        "the test environment's keys are named"
    );
    assert!(page.contains("href=\"/dashboard/settings/payments\" aria-current=\"page\""));
    assert!(!page.contains("/webhooks/stripe/"));

    // Staff and viewers are refused, as a key without account:write is; nothing saved.
    for email in ["staff@example.com", "viewer@example.com"] {
        let s = sign_in(&app, email).await;
        assert_eq!(send_raw(&app, s.get(SETTINGS)).await.status, 403, "{email}");
        let r = send_raw(
            &app,
            s.post(
                SETTINGS,
                &[
                    ("secret_key", &account.test_secret),
                    ("publishable_key", &account.test_publishable),
                ],
            ),
        )
        .await;
        assert_eq!(r.status, 403, "{email}");
        assert!(!r.text().contains(&account.test_secret));
        let r = send_raw(&app, s.post(&format!("{SETTINGS}/disconnect"), &[])).await;
        assert_eq!(r.status, 403, "{email}");
    }
    assert_error(
        &call!(&app, h.req(Method::GET, GATEWAY)),
        404,
        "gateway_not_connected",
    );

    // Keys of the other environment, and a key Stripe refuses: beside the field, never echoed.
    let r = send_raw(
        &app,
        owner.post(
            SETTINGS,
            &[
                ("secret_key", &account.live_secret),
                ("publishable_key", &account.live_publishable),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 422, "{}", r.text());
    let page = r.text();
    assert!(page.contains("id=\"secret_key-error\""), "{page}");
    assert!(page.contains("id=\"publishable_key-error\""), "{page}");
    assert!(
        !page.contains(&account.live_secret),
        "a secret typed is never shown"
    );
    let refused_key = "sk_test_NotAKeyStripeKnows1234";
    let r = send_raw(
        &app,
        owner.post(
            SETTINGS,
            &[
                ("secret_key", refused_key),
                ("publishable_key", &account.test_publishable),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 422, "{}", r.text());
    let page = r.text();
    assert!(page.contains("id=\"secret_key-error\""), "{page}");
    assert!(page.contains("was refused by Stripe"), "{page}");
    assert!(!page.contains(refused_key));
    assert!(
        page.contains(&format!("value=\"{}\"", account.test_publishable)),
        "the publishable key is kept as typed"
    );
    assert_error(
        &call!(&app, h.req(Method::GET, GATEWAY)),
        404,
        "gateway_not_connected",
    );

    // Stripe not answering: a notice, nothing saved.
    let closed = h.with_stripe("http://127.0.0.1:9");
    let offline = init_service(build_app(closed)).await;
    let r = send_raw(
        &offline,
        owner.post(
            SETTINGS,
            &[
                ("secret_key", &account.test_secret),
                ("publishable_key", &account.test_publishable),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 502, "{}", r.text());
    let page = r.text();
    assert!(page.contains("Stripe could not be reached"), "{page}");
    assert!(page.contains("Nothing was saved"));
    assert!(!page.contains(&account.test_secret));
    assert_error(
        &call!(&app, h.req(Method::GET, GATEWAY)),
        404,
        "gateway_not_connected",
    );

    // Connected: the keys checked with Stripe; the page shows what recognises them, the
    // webhook address to paste into Stripe and the events to select.
    let r = send_raw(
        &app,
        owner.post(
            SETTINGS,
            &[
                ("secret_key", &account.test_secret),
                ("publishable_key", &account.test_publishable),
                ("webhook_secret", ""),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    assert_eq!(
        r.header("location"),
        "/dashboard/settings/payments?done=stripe_connected"
    );
    let api = call!(&app, h.req(Method::GET, GATEWAY));
    assert_eq!(api.status, 200, "{}", api.body);
    let url = api.body["webhook_url"].as_str().unwrap().to_string();
    let page = screen(
        &app,
        &h,
        &owner,
        &format!("{SETTINGS}?done=stripe_connected"),
    )
    .await;
    assert!(page.contains("Stripe is connected"), "{page}");
    assert!(
        page.contains(&format!("readonly value=\"{url}\"")),
        "{page}"
    );
    assert!(page.contains("<code>checkout.session.completed</code>"));
    assert!(page.contains("<code>refund.updated</code>"));
    assert!(page.contains(&account.test_publishable));
    let last4 = &account.test_secret[account.test_secret.len() - 4..];
    assert!(
        page.contains(&format!("secret key ending in ····{last4}")),
        "{page}"
    );
    assert!(page.contains("Stripe accepted the key"));
    assert!(page.contains("No signing secret saved yet"));
    assert!(!page.contains(&account.test_secret));
    assert!(
        page.contains("name=\"secret_key\" type=\"password\" autocomplete=\"off\" spellcheck=\"false\" aria-describedby"),
        "the secret's field is empty: {page}"
    );

    // The endpoint made in Stripe for that address; its signing secret saved with the keys.
    let webhook_secret = stripe.endpoint(&account.test_secret, &url);
    let r = send_raw(
        &app,
        owner.post(
            SETTINGS,
            &[
                ("secret_key", &account.test_secret),
                ("publishable_key", &account.test_publishable),
                ("webhook_secret", &webhook_secret),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let api = call!(&app, h.req(Method::GET, GATEWAY));
    assert_eq!(api.body["webhook_secret_set"], true);
    assert_eq!(api.body["webhook_url"], url.as_str(), "the address stays");
    let page = screen(&app, &h, &owner, SETTINGS).await;
    assert!(page.contains("The signing secret is saved"), "{page}");

    // Neither secret is in any page the owner opens.
    for path in [
        "/dashboard",
        "/dashboard/settings",
        SETTINGS,
        "/dashboard/settings/keys",
        "/dashboard/settings/webhooks",
        "/dashboard/settings/people",
        "/dashboard/settings/emails",
        "/dashboard/payments",
    ] {
        let r = send_raw(&app, owner.get(path)).await;
        assert_eq!(r.status, 200, "{path}");
        for secret in [&account.test_secret, &webhook_secret] {
            let found = r
                .bytes
                .windows(secret.len())
                .any(|w| w == secret.as_bytes());
            assert!(!found, "{path} shows a secret");
        }
    }

    // Saving keys after the password went stale asks for it in the form itself (the asking page
    // would copy the secrets into itself); nothing changes without it.
    stale(&h, "owner@example.com");
    let page = screen(&app, &h, &owner, SETTINGS).await;
    assert!(page.contains("name=\"reauth_password\""), "{page}");
    let keys = [
        ("secret_key", account.test_secret.as_str()),
        ("publishable_key", account.test_publishable.as_str()),
    ];
    let r = send_raw(&app, owner.post(SETTINGS, &keys)).await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("id=\"reauth_password-error\""));
    assert!(!r.text().contains(&account.test_secret));
    let mut with_wrong = keys.to_vec();
    with_wrong.push(("reauth_password", "not my password"));
    let r = send_raw(&app, owner.post(SETTINGS, &with_wrong)).await;
    assert_eq!(r.status, 422);
    assert!(r.text().contains("id=\"reauth_password-error\""));
    let mut with_right = keys.to_vec();
    with_right.push(("reauth_password", PASSWORD));
    let r = send_raw(&app, owner.post(SETTINGS, &with_right)).await;
    assert_eq!(r.status, 303, "{}", r.text());
    assert_eq!(
        call!(&app, h.req(Method::GET, GATEWAY)).body["webhook_secret_set"],
        true,
        "an empty signing secret keeps the saved one"
    );

    // Disconnect: the password again when it is stale, then card payment stops.
    stale(&h, "owner@example.com");
    let r = send_raw(&app, owner.post(&format!("{SETTINGS}/disconnect"), &[])).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("name=\"reauth_password\""));
    assert_eq!(call!(&app, h.req(Method::GET, GATEWAY)).status, 200);
    let r = send_raw(
        &app,
        owner.post(
            &format!("{SETTINGS}/disconnect"),
            &[("reauth_password", PASSWORD)],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    assert_eq!(
        r.header("location"),
        "/dashboard/settings/payments?done=stripe_disconnected"
    );
    assert_error(
        &call!(&app, h.req(Method::GET, GATEWAY)),
        404,
        "gateway_not_connected",
    );
    let page = screen(&app, &h, &owner, SETTINGS).await;
    assert!(
        page.contains("name=\"secret_key\""),
        "the form to connect again"
    );

    // A server without a gateway says so rather than offering a form that cannot work.
    let page = send_raw(
        &init_service(build_app(h.state.clone())).await,
        owner.get(SETTINGS),
    )
    .await
    .text();
    assert!(page.contains("not set up for card payments"), "{page}");
    assert!(!page.contains("name=\"secret_key\""));
}

/// A card payment made on the invoice's page and recorded from the customer's return.
async fn paid_by_card<S, B>(app: &S, h: &Harness, stripe: &StandIn, inv: &Value) -> Value
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let number = inv["invoice_number"].as_str().unwrap();
    let r = send_raw(
        app,
        h.anonymous(Method::POST, &format!("/invoice/{number}/card"))
            .insert_header(("content-type", "application/x-www-form-urlencoded"))
            .set_payload(format!("token={}", token(inv))),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let session = StandIn::session_of(r.header("location"));
    stripe.control(&format!("/_standin/sessions/{session}/pay"), json!({}));
    let back = format!(
        "/invoice/{number}/card?token={}&session_id={session}",
        token(inv)
    );
    assert_eq!(
        send_raw(app, h.anonymous(Method::GET, &back)).await.status,
        303
    );
    let payments = payments_of(app, h, inv).await;
    assert_eq!(payments.len(), 1);
    payments[0].clone()
}

fn refunds_asked(stripe: &StandIn) -> usize {
    stripe
        .requests(None)
        .into_iter()
        .filter(|r| r["path"] == "/v1/refunds")
        .count()
}

async fn card_payments_show_their_reference_and_refund_after_a_credit_note(h: Harness) {
    let stripe = StandIn::start();
    let account = stripe.account();
    stripe.webhooks("hold");
    let state = h.with_stripe(&stripe.base);
    let app = init_service(build_app(state.clone())).await;
    let connected = call!(
        &app,
        h.req(Method::PUT, GATEWAY),
        json!({"secret_key": account.test_secret, "publishable_key": account.test_publishable})
    );
    assert_eq!(connected.status, 200, "{}", connected.body);
    member(&h, h.account, "owner@example.com", Role::Owner);
    member(&h, h.account, "viewer@example.com", Role::Viewer);
    let owner = sign_in(&app, "owner@example.com").await;
    let inv = sent_invoice(&app, &h, 10_000).await;
    let payment = paid_by_card(&app, &h, &stripe, &inv).await;
    let reference = payment["reference"].as_str().unwrap().to_string();
    assert!(reference.starts_with("pi_"), "{reference}");
    let (pid, iid) = (payment["id"].as_i64().unwrap(), inv["id"].as_i64().unwrap());
    let payment_page = format!("/dashboard/payments/{pid}");
    let refund = format!("/dashboard/payments/{pid}/refund");
    let invoice_page = format!("/dashboard/invoices/{iid}");

    // The list shows how it was paid and its reference at Stripe, and leads to the payment.
    let list = screen(&app, &h, &owner, "/dashboard/payments").await;
    assert!(list.contains("Card · Stripe"), "{list}");
    assert!(list.contains(&reference));
    assert!(list.contains(&format!("href=\"{payment_page}\"")));
    // Nothing to refund while the customer owes all they paid: no Refund form.
    let page = screen(&app, &h, &owner, &payment_page).await;
    assert!(
        page.contains(&format!("<code>{reference}</code>")),
        "{page}"
    );
    assert!(!page.contains(&format!("action=\"{refund}\"")), "{page}");
    assert!(page.contains("Nothing to refund"));
    let page = screen(&app, &h, &owner, &invoice_page).await;
    assert!(!page.contains(&format!("action=\"{refund}\"")));
    // Posted anyway: the operation's refusal beside the amount, nothing asked of Stripe.
    let r = send_raw(&app, owner.post(&refund, &[("amount", "")])).await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("id=\"amount-error\""));
    assert_eq!(refunds_asked(&stripe), 0);

    // Credit first (the invoice screen's form), then the Refund form offers what may return.
    let r = send_raw(
        &app,
        owner.post(
            &format!("/dashboard/invoices/{iid}/credit"),
            &[("amount", "25.00"), ("reason", "order_change")],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let page = screen(&app, &h, &owner, &invoice_page).await;
    assert!(page.contains(&format!("action=\"{refund}\"")), "{page}");
    assert!(
        page.contains("name=\"amount\" inputmode=\"decimal\" value=\"25.00\""),
        "{page}"
    );
    assert!(page.contains("To refund"));
    let page = screen(&app, &h, &owner, &payment_page).await;
    assert!(page.contains(&format!("action=\"{refund}\"")), "{page}");
    assert!(page.contains("value=\"25.00\""));
    assert!(page.contains("through Stripe"));
    // A viewer sees the payment, never the form, and cannot post it.
    let viewer = sign_in(&app, "viewer@example.com").await;
    let page = screen(&app, &h, &viewer, &payment_page).await;
    assert!(!page.contains(&format!("action=\"{refund}\"")));
    let r = send_raw(&app, viewer.post(&refund, &[("amount", "25.00")])).await;
    assert_eq!(r.status, 403);
    // Not an amount: beside the field, as typed.
    let r = send_raw(&app, owner.post(&refund, &[("amount", "twenty")])).await;
    assert_eq!(r.status, 422);
    assert!(r.text().contains("id=\"amount-error\""));
    assert!(r.text().contains("value=\"twenty\""));
    assert_eq!(refunds_asked(&stripe), 0);

    // Refunded from the invoice screen: through Stripe, once, and back to the invoice.
    let r = send_raw(
        &app,
        owner.post(
            &refund,
            &[("amount", "25.00"), ("back", invoice_page.as_str())],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    assert_eq!(
        r.header("location"),
        format!("{invoice_page}?done=refunded")
    );
    assert_eq!(refunds_asked(&stripe), 1);
    let p = call!(&app, h.req(Method::GET, &format!("/api/v1/payments/{pid}"))).body;
    assert_eq!(p["amount_refunded_cents"], 2_500);
    let page = screen(&app, &h, &owner, &format!("{invoice_page}?done=refunded")).await;
    assert!(page.contains("The refund is made."), "{page}");
    assert!(page.contains("Refunded €25.00"), "{page}");
    assert!(
        !page.contains(&format!("action=\"{refund}\"")),
        "nothing left to refund"
    );
    let page = screen(&app, &h, &owner, &payment_page).await;
    assert!(page.contains("Refunded €25.00"), "{page}");
    assert!(page.contains("status-verified\">Refunded</span>"), "{page}");
    let list = screen(&app, &h, &owner, "/dashboard/payments").await;
    assert!(list.contains("Refunded €25.00"), "{list}");

    // A second refund: refused beside the amount, as typed; Stripe is not asked again.
    let r = send_raw(&app, owner.post(&refund, &[("amount", "1.00")])).await;
    assert_eq!(r.status, 422, "{}", r.text());
    let page = r.text();
    assert!(page.contains("id=\"amount-error\""), "{page}");
    assert!(page.contains("nothing to refund"), "{page}");
    assert!(page.contains("value=\"1.00\""));
    assert_eq!(refunds_asked(&stripe), 1);

    // Another account's people see no such payment.
    let other = h.new_account("Other");
    member(&h, other, "else@example.com", Role::Owner);
    let stranger = sign_in(&app, "else@example.com").await;
    assert_eq!(
        send_raw(&app, stranger.get(&payment_page)).await.status,
        404
    );
    let r = send_raw(&app, stranger.post(&refund, &[("amount", "1.00")])).await;
    assert_eq!(r.status, 404, "{}", r.text());
}

async fn the_queue_links_a_proof_the_merchant_alone_downloads(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    member(&h, h.account, "owner@example.com", Role::Owner);
    member(&h, h.account, "staff@example.com", Role::Staff);
    let inv = sent_invoice(&app, &h, 5_000).await;
    let mut pdf = b"%PDF-1.7\n".to_vec();
    pdf.resize(120 * 1024, b' ');
    let r = send_raw(
        &app,
        report_with_file(&h, &inv, "50.00", ("transfer.pdf", &pdf)),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let p = payments_of(&app, &h, &inv).await[0].clone();
    let link = format!("/dashboard/payments/{}/proof", p["id"]);
    let owner = sign_in(&app, "owner@example.com").await;
    // The queue, on the home screen and the list of payments to verify: a link to the file.
    for path in [
        "/dashboard",
        "/dashboard/payments?status=pending",
        &format!("/dashboard/invoices/{}", inv["id"]),
        &format!("/dashboard/payments/{}", p["id"]),
    ] {
        let page = screen(&app, &h, &owner, path).await;
        assert!(
            page.contains(&format!(
                "<a href=\"{link}\" download>View proof (PDF, 120 KB)</a>"
            )),
            "{path}: {page}"
        );
        assert!(
            !page.contains("/api/v1/payments/"),
            "{path}: never the API's route"
        );
    }
    // The link downloads it for the merchant's people, as an attachment never sniffed.
    for email in ["owner@example.com", "staff@example.com"] {
        let s = sign_in(&app, email).await;
        let file = send_raw(&app, s.get(&link)).await;
        assert_eq!(file.status, 200, "{email}");
        assert_eq!(file.bytes, pdf);
        assert_eq!(file.header("content-type"), "application/pdf");
        assert_eq!(file.header("x-content-type-options"), "nosniff");
        assert_eq!(
            file.header("content-disposition"),
            "attachment; filename=\"transfer.pdf\""
        );
        assert_eq!(file.header("cache-control"), "no-store");
    }
    // Nobody else: another account's owner finds nothing, a visitor is sent to sign in.
    let other = h.new_account("Other");
    member(&h, other, "else@example.com", Role::Owner);
    let stranger = sign_in(&app, "else@example.com").await;
    let r = send_raw(&app, stranger.get(&link)).await;
    assert_eq!(r.status, 404);
    assert!(!r.bytes.starts_with(b"%PDF"));
    let r = send_raw(&app, h.anonymous(Method::GET, &link)).await;
    assert_eq!(r.status, 303);
    assert!(r.header("location").starts_with("/dashboard/login"));
    // A payment without a proof has no link and no file.
    let inv2 = sent_invoice(&app, &h, 5_000).await;
    let r = send_raw(&app, report_with_file(&h, &inv2, "50.00", ("", b""))).await;
    assert_eq!(r.status, 303);
    let p2 = payments_of(&app, &h, &inv2).await[0].clone();
    let page = screen(
        &app,
        &h,
        &owner,
        &format!("/dashboard/payments/{}", p2["id"]),
    )
    .await;
    assert!(!page.contains("View proof"));
    let r = send_raw(
        &app,
        owner.get(&format!("/dashboard/payments/{}/proof", p2["id"])),
    )
    .await;
    assert_eq!(r.status, 404);
}

http_tests!(
    an_owner_connects_stripe_and_its_secrets_never_show,
    card_payments_show_their_reference_and_refund_after_a_credit_note,
    the_queue_links_a_proof_the_merchant_alone_downloads,
);
