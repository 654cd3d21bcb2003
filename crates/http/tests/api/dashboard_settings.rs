//! SPEC §21's settings through the real app on both backends: API keys, webhook endpoints,
//! people and invitations, password resets by email, the logo, the test email, and
//! re-authentication; each checked against what the API (or storage) then shows, and refused to
//! everyone but owners with nothing changed.

use crate::common::*;
use crate::dashboard::{
    browser, form, member, password_step, sign_in, sign_in_with, Session, PASSWORD,
};
use actix_web::http::Method;
use actix_web::test::init_service;
use chrono::{Duration, Utc};
use invoicing_domain::notice::{NoticeJob, NoticeKind};
use invoicing_domain::ports::{ApiKeyRepository, NoticeQueue, UserRepository};
use invoicing_domain::tenant::{AccountId, Environment};
use invoicing_domain::user::{Invitation, Role, SecretToken, TotpSecret, UserEmail};
use invoicing_http::build_app;
use serde_json::json;

macro_rules! app {
    ($h:expr) => {
        init_service(build_app($h.state.clone())).await
    };
}

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

/// The text between `start` and the next `"` after it.
fn value_after(page: &str, start: &str) -> Option<String> {
    let at = page.find(start)? + start.len();
    Some(page[at..at + page[at..].find('"')?].to_string())
}

/// The notices queued so far (claimed, as a mail worker would).
fn queued_notices(h: &Harness) -> Vec<NoticeJob> {
    h.db.store
        .claim_notices(Utc::now(), std::time::Duration::from_secs(60), 50)
        .unwrap()
}

fn token_of(link: &str) -> String {
    link.rsplit_once("token=").unwrap().1.to_string()
}

async fn keys_are_made_shown_once_work_on_the_api_and_need_the_password_again(h: Harness) {
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    let owner = sign_in(&app, "owner@example.com").await;
    let before = h.db.store.list_keys(h.account).unwrap().len();

    // A mistake in the form: shown beside its field, no key made.
    let r = send_raw(
        &app,
        owner.post(
            "/dashboard/settings/keys",
            &[("scope", "invoices:read"), ("rate_per_minute", "0")],
        ),
    )
    .await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("id=\"rate_per_minute-error\""));
    assert_eq!(h.db.store.list_keys(h.account).unwrap().len(), before);

    // A read-only key for invoices (with "full access" left ticked: the ticked scopes win):
    // shown once, works on the API as its scopes say.
    let r = send_raw(
        &app,
        owner.post(
            "/dashboard/settings/keys",
            &[
                ("all", "1"),
                ("scope", "invoices:read"),
                ("rate_per_minute", "120"),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let key = value_after(
        &r.text(),
        "id=\"issued-secret\" class=\"secret\" type=\"text\" readonly value=\"",
    )
    .expect("the new key on the page");
    assert!(key.starts_with("sk_test_"), "{key}");
    let listed = call!(&app, h.req_as(&key, Method::GET, "/api/v1/invoices"));
    assert_eq!(listed.status, 200, "{}", listed.body);
    let refused = call!(
        &app,
        h.req_as(&key, Method::POST, "/api/v1/customers"),
        json!({"name": "Ada"})
    );
    assert_error(&refused, 403, "insufficient_permissions");
    let page = send_raw(&app, owner.get("/dashboard/settings/keys"))
        .await
        .text();
    assert!(!page.contains(&key), "never shown again");
    assert!(page.contains(&key[key.len() - 4..]), "its last four are");
    let stored =
        h.db.store
            .list_keys(h.account)
            .unwrap()
            .into_iter()
            .find(|k| key.ends_with(&k.last4))
            .unwrap();
    assert_eq!(stored.rate.per_minute, Some(120));
    assert!(stored.last_used_at.is_some(), "the API noted its use");

    // Rotated: the replacement works, the old one still does during the grace period.
    let r = send_raw(
        &app,
        owner.post(
            &format!("/dashboard/settings/keys/{}/rotate", stored.id.0),
            &[("grace_hours", "24")],
        ),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let replacement = value_after(&r.text(), "readonly value=\"").unwrap();
    assert_ne!(replacement, key);
    for k in [&key, &replacement] {
        let r = call!(&app, h.req_as(k, Method::GET, "/api/v1/invoices"));
        assert_eq!(r.status, 200);
    }
    // Revoked: refused at once.
    let r = send_raw(
        &app,
        owner.post(
            &format!("/dashboard/settings/keys/{}/revoke", stored.id.0),
            &[],
        ),
    )
    .await;
    assert_eq!(r.status, 303);
    let r = call!(&app, h.req_as(&key, Method::GET, "/api/v1/invoices"));
    assert_error(&r, 401, "invalid_api_key");

    // Another account's key is no key here: not found, and it keeps working.
    let other = h.new_account("Other");
    let theirs = h.make_key(other, Environment::Test, "*", GENEROUS, None);
    let their_id = h.db.store.list_keys(other).unwrap()[0].id.0;
    let r = send_raw(
        &app,
        owner.post(&format!("/dashboard/settings/keys/{their_id}/revoke"), &[]),
    )
    .await;
    assert_eq!(r.status, 404);
    let r = call!(&app, h.req_as(&theirs, Method::GET, "/api/v1/invoices"));
    assert_eq!(r.status, 200);

    // Five minutes on: the password again before a new key; a wrong one makes nothing.
    stale(&h, "owner@example.com");
    let count = h.db.store.list_keys(h.account).unwrap().len();
    let r = send_raw(
        &app,
        owner.post("/dashboard/settings/keys", &[("all", "1")]),
    )
    .await;
    assert_eq!(r.status, 200);
    let page = r.text();
    assert!(page.contains("name=\"reauth_password\""), "{page}");
    assert!(
        page.contains("name=\"all\" value=\"1\""),
        "the post is carried"
    );
    assert!(!page.contains("sk_test_"));
    let r = send_raw(
        &app,
        owner.post(
            "/dashboard/settings/keys",
            &[("all", "1"), ("reauth_password", "not my password")],
        ),
    )
    .await;
    assert_eq!(r.status, 422);
    assert_eq!(h.db.store.list_keys(h.account).unwrap().len(), count);
    let r = send_raw(
        &app,
        owner.post(
            "/dashboard/settings/keys",
            &[("all", "1"), ("reauth_password", PASSWORD)],
        ),
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(r.text().contains("sk_test_"));
    assert_eq!(h.db.store.list_keys(h.account).unwrap().len(), count + 1);
}

async fn webhook_endpoints_through_the_dashboard_as_the_api_sees_them(h: Harness) {
    let strict = app!(h);
    // The test hosts do not resolve: the rest runs where unresolvable targets are allowed.
    let app = init_service(build_app(h.permissive())).await;
    member(&h, h.account, "owner@example.com", Role::Owner);
    let owner = sign_in(&app, "owner@example.com").await;
    // The SSRF rules of the API: a private target is refused beside the field.
    let r = send_raw(
        &strict,
        owner.post(
            "/dashboard/settings/webhooks",
            &[("url", "https://127.0.0.1/hook"), ("all", "1")],
        ),
    )
    .await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("id=\"url-error\""));
    let r = send_raw(
        &app,
        owner.post(
            "/dashboard/settings/webhooks",
            &[
                ("url", "https://hooks.example.com/in"),
                ("description", "Shop"),
                ("event", "invoice.paid"),
                ("event", "customer.created"),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let secret = value_after(
        &r.text(),
        "id=\"hook-secret\" class=\"secret\" type=\"text\" readonly value=\"",
    )
    .unwrap();
    assert!(secret.starts_with("whsec_"), "{secret}");
    let listed = call!(&app, h.req(Method::GET, "/api/v1/webhooks"));
    let hook = &listed.body["data"][0];
    let id = hook["id"].as_i64().unwrap();
    assert_eq!(hook["events"], json!(["customer.created", "invoice.paid"]));
    assert_eq!(hook["description"], "Shop");
    let page = send_raw(
        &app,
        owner.get(&format!("/dashboard/settings/webhooks/{id}")),
    )
    .await
    .text();
    assert!(!page.contains(&secret), "the secret is shown once");

    // Changed: every event, disabled; the API shows it.
    let r = send_raw(
        &app,
        owner.post(
            &format!("/dashboard/settings/webhooks/{id}"),
            &[("url", "https://hooks.example.com/in"), ("all", "1")],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let got = call!(&app, h.req(Method::GET, &format!("/api/v1/webhooks/{id}")));
    assert_eq!(got.body["events"], json!(["*"]));
    assert_eq!(got.body["enabled"], false);
    assert_eq!(got.body["description"], serde_json::Value::Null);

    // A new URL asks for the password again after five minutes; nothing changes before.
    stale(&h, "owner@example.com");
    let moved = [
        ("url", "https://hooks.example.com/moved"),
        ("all", "1"),
        ("enabled", "1"),
    ];
    let r = send_raw(
        &app,
        owner.post(&format!("/dashboard/settings/webhooks/{id}"), &moved),
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(r.text().contains("name=\"reauth_password\""));
    let got = call!(&app, h.req(Method::GET, &format!("/api/v1/webhooks/{id}")));
    assert_eq!(got.body["url"], "https://hooks.example.com/in");
    let mut confirmed = moved.to_vec();
    confirmed.push(("reauth_password", PASSWORD));
    let r = send_raw(
        &app,
        owner.post(&format!("/dashboard/settings/webhooks/{id}"), &confirmed),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let got = call!(&app, h.req(Method::GET, &format!("/api/v1/webhooks/{id}")));
    assert_eq!(got.body["url"], "https://hooks.example.com/moved");
    assert_eq!(got.body["enabled"], true);

    // A new secret, shown once.
    let r = send_raw(
        &app,
        owner.post(&format!("/dashboard/settings/webhooks/{id}/rotate"), &[]),
    )
    .await;
    assert_eq!(r.status, 200);
    let rotated = value_after(&r.text(), "readonly value=\"").unwrap();
    assert!(rotated.starts_with("whsec_") && rotated != secret);

    // Deliveries: an event queued for the endpoint; redelivered on request.
    let made = call!(
        &app,
        h.req(Method::POST, "/api/v1/customers"),
        json!({"name": "Ada", "email": "ada@example.com"})
    );
    assert_eq!(made.status, 201);
    let events = call!(&app, h.req(Method::GET, "/api/v1/events"));
    let event = events.body["data"][0]["id"].as_i64().unwrap();
    let r = send_raw(
        &app,
        owner.post(
            &format!("/dashboard/settings/webhooks/{id}/redeliver"),
            &[("event", &event.to_string())],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let r = send_raw(
        &app,
        owner.post(
            &format!("/dashboard/settings/webhooks/{id}/redeliver"),
            &[("event", "999999999")],
        ),
    )
    .await;
    assert_eq!(r.status, 404);

    // Deleted.
    let r = send_raw(
        &app,
        owner.post(&format!("/dashboard/settings/webhooks/{id}/delete"), &[]),
    )
    .await;
    assert_eq!(r.status, 303);
    let gone = call!(&app, h.req(Method::GET, &format!("/api/v1/webhooks/{id}")));
    assert_eq!(gone.status, 404);
}

async fn an_invitation_works_once_for_its_account_and_people_can_be_changed(h: Harness) {
    let h = Harness::mailing(h.db.backend()).unwrap_or(h);
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    let owner = sign_in(&app, "owner@example.com").await;
    let r = send_raw(
        &app,
        owner.post(
            "/dashboard/settings/people/invite",
            &[("email", "not an address"), ("role", "staff")],
        ),
    )
    .await;
    assert_eq!(r.status, 422);
    assert!(r.text().contains("id=\"email-error\""));
    let r = send_raw(
        &app,
        owner.post(
            "/dashboard/settings/people/invite",
            &[("email", "Pat@Example.com"), ("role", "staff")],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let page = send_raw(&app, owner.get("/dashboard/settings/people"))
        .await
        .text();
    assert!(page.contains("Pat@example.com"), "pending: {page}");
    let mail = queued_notices(&h);
    assert_eq!(mail.len(), 1);
    assert_eq!(mail[0].kind, NoticeKind::Invitation);
    assert_eq!(mail[0].recipient, "Pat@example.com");
    let link = mail[0].link.clone().unwrap();
    assert!(link.starts_with(&format!("{PUBLIC_URL}/dashboard/set-password?token=")));
    assert!(mail[0].body.contains(&link) && mail[0].body.contains("Acme Ltd"));
    let token = token_of(&link);

    // An altered link is no link.
    let mut altered = token.clone();
    altered.replace_range(0..1, if altered.starts_with('A') { "B" } else { "A" });
    let r = send_raw(
        &app,
        browser(
            Method::GET,
            &format!("/dashboard/set-password?token={altered}"),
        ),
    )
    .await;
    assert!(r.text().contains("class=\"problem\""));

    // The link sets a password; then the person signs in as staff and sees no settings.
    let new_password = "pat's own long passphrase";
    let set = |token: &str| {
        form(
            browser(Method::POST, "/dashboard/set-password"),
            &[
                ("token", token),
                ("password", new_password),
                ("confirm", new_password),
            ],
        )
    };
    let r = send_raw(&app, set(&token)).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let again = send_raw(&app, set(&token)).await;
    assert_eq!(again.status, 422, "a link works once");
    let signed = send_raw(
        &app,
        form(
            browser(Method::POST, "/dashboard/login"),
            &[("email", "pat@example.com"), ("password", new_password)],
        ),
    )
    .await;
    assert_eq!(signed.status, 303);
    let members = h.db.store.list_members(h.account).unwrap();
    let pat = members
        .iter()
        .find(|m| m.user.email.as_str() == "Pat@example.com")
        .unwrap();
    assert_eq!(pat.role, Role::Staff);

    // Someone with a password, in another account, joins with it: a member here, and of no
    // account the link did not name.
    let elsewhere = h.new_account("Elsewhere");
    member(&h, elsewhere, "sam@example.com", Role::Owner);
    let r = send_raw(
        &app,
        owner.post(
            "/dashboard/settings/people/invite",
            &[("email", "sam@example.com"), ("role", "viewer")],
        ),
    )
    .await;
    assert_eq!(r.status, 303);
    let link = queued_notices(&h)[0].link.clone().unwrap();
    let page = send_raw(&app, browser(Method::GET, &link.replace(PUBLIC_URL, "")))
        .await
        .text();
    assert!(
        page.contains("autocomplete=\"current-password\""),
        "joins: {page}"
    );
    let join = |password: &str| {
        form(
            browser(Method::POST, "/dashboard/set-password"),
            &[("token", &token_of(&link)), ("password", password)],
        )
    };
    assert_eq!(send_raw(&app, join("wrong password!!")).await.status, 422);
    assert_eq!(send_raw(&app, join(PASSWORD)).await.status, 303);
    assert_eq!(send_raw(&app, join(PASSWORD)).await.status, 422, "once");
    let sam =
        h.db.store
            .find_user_by_email(&UserEmail::parse("sam@example.com").unwrap())
            .unwrap()
            .unwrap();
    let accounts: Vec<(AccountId, Role)> =
        h.db.store
            .list_memberships(sam.id)
            .unwrap()
            .into_iter()
            .map(|m| (m.account_id, m.role))
            .collect();
    assert_eq!(accounts.len(), 2);
    assert!(accounts.contains(&(h.account, Role::Viewer)));
    assert!(
        accounts.contains(&(elsewhere, Role::Owner)),
        "unchanged there"
    );

    // An expired invitation.
    let expired = SecretToken::generate(&mut rand::rngs::OsRng);
    h.db.store
        .invite(
            &UserEmail::parse("late@example.com").unwrap(),
            Invitation {
                account_id: h.account,
                role: Role::Staff,
                invited_by: pat.user.id,
            },
            &expired.hash(),
            Utc::now() - Duration::hours(73),
            None,
        )
        .unwrap();
    let r = send_raw(&app, set(expired.plain())).await;
    assert_eq!(r.status, 422, "expired after 72 hours");

    // Five minutes on, a change of people asks for the password first; nothing changes before.
    stale(&h, "owner@example.com");
    let r = send_raw(
        &app,
        owner.post(
            "/dashboard/settings/people/invite",
            &[("email", "eve@example.com"), ("role", "owner")],
        ),
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(r.text().contains("name=\"reauth_password\""));
    let pending = h.db.store.list_invitations(h.account, Utc::now()).unwrap();
    assert!(pending
        .iter()
        .all(|i| i.email.as_str() != "eve@example.com"));
    let r = send_raw(
        &app,
        owner.post(
            "/dashboard/settings/people/invite",
            &[
                ("email", "eve@example.com"),
                ("role", "owner"),
                ("reauth_password", PASSWORD),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());

    // Roles: changed; the last owner is kept; a removed member's sessions end at once.
    let pat_session = sign_in_with(&app, "pat@example.com", new_password).await;
    let r = send_raw(
        &app,
        owner.post(
            &format!("/dashboard/settings/people/{}/role", pat.user.id.0),
            &[("role", "viewer")],
        ),
    )
    .await;
    assert_eq!(r.status, 303);
    let me =
        h.db.store
            .find_user_by_email(&UserEmail::parse("owner@example.com").unwrap())
            .unwrap()
            .unwrap();
    let r = send_raw(
        &app,
        owner.post(
            &format!("/dashboard/settings/people/{}/role", me.id.0),
            &[("role", "staff")],
        ),
    )
    .await;
    assert_eq!(r.status, 409, "the last owner");
    let r = send_raw(
        &app,
        owner.post(
            &format!("/dashboard/settings/people/{}/remove", me.id.0),
            &[],
        ),
    )
    .await;
    assert_eq!(r.status, 409);
    assert_eq!(
        send_raw(&app, pat_session.get("/dashboard")).await.status,
        200
    );
    let r = send_raw(
        &app,
        owner.post(
            &format!("/dashboard/settings/people/{}/remove", pat.user.id.0),
            &[],
        ),
    )
    .await;
    assert_eq!(r.status, 303);
    assert_eq!(
        send_raw(&app, pat_session.get("/dashboard")).await.status,
        303,
        "signed out at once"
    );
    // Another account's member is not found here.
    let r = send_raw(
        &app,
        owner.post(
            &format!("/dashboard/settings/people/{}/role", sam.id.0 + 1000),
            &[("role", "owner")],
        ),
    )
    .await;
    assert_eq!(r.status, 404);
}

async fn a_reset_link_is_emailed_only_to_members_works_once_and_expires(h: Harness) {
    let h = Harness::mailing(h.db.backend()).unwrap_or(h);
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    let ask = |email: &str| {
        form(
            browser(Method::POST, "/dashboard/forgot-password"),
            &[("email", email)],
        )
    };
    let known = send_raw(&app, ask("owner@example.com")).await;
    let unknown = send_raw(&app, ask("nobody@example.com")).await;
    assert_eq!(known.status, 200);
    assert_eq!(unknown.status, 200);
    assert_eq!(
        known.text().replace("owner@example.com", ""),
        unknown.text().replace("nobody@example.com", ""),
        "the same answer either way"
    );
    // Asked again at once: no second email.
    send_raw(&app, ask("owner@example.com")).await;
    let mail = queued_notices(&h);
    assert_eq!(mail.len(), 1, "one email, to the member only");
    assert_eq!(mail[0].kind, NoticeKind::PasswordReset);
    assert_eq!(mail[0].recipient, "owner@example.com");
    let token = token_of(mail[0].link.as_deref().unwrap());
    let new = "a completely new passphrase";
    let set = || {
        form(
            browser(Method::POST, "/dashboard/set-password"),
            &[("token", &token), ("password", new), ("confirm", new)],
        )
    };
    assert_eq!(send_raw(&app, set()).await.status, 303);
    assert_eq!(send_raw(&app, set()).await.status, 422, "once");
    sign_in_with(&app, "owner@example.com", new).await;

    // A reset link is dead after 30 minutes.
    let late = SecretToken::generate(&mut rand::rngs::OsRng);
    let notice = invoicing_domain::notice::NewNotice::password_reset(
        invoicing_domain::locale::Locale::En,
        UserEmail::parse("owner@example.com").unwrap(),
        "https://x.example/".into(),
    );
    assert!(h
        .db
        .store
        .email_password_reset(
            &UserEmail::parse("owner@example.com").unwrap(),
            &late.hash(),
            Utc::now() - Duration::minutes(31),
            notice,
        )
        .unwrap());
    let r = send_raw(
        &app,
        form(
            browser(Method::POST, "/dashboard/set-password"),
            &[("token", late.plain()), ("password", new), ("confirm", new)],
        ),
    )
    .await;
    assert_eq!(r.status, 422);
}

/// A one-pixel PNG.
fn png() -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::new_rgb8(1, 1)
        .write_to(&mut out, image::ImageFormat::Png)
        .unwrap();
    out.into_inner()
}

fn multipart(session: &Session, file: &[u8]) -> actix_web::test::TestRequest {
    let boundary = "XyZzYboundary";
    let mut body = Vec::new();
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n{}\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"logo\"; filename=\"logo.png\"\r\nContent-Type: image/png\r\n\r\n",
            session.csrf
        )
        .as_bytes(),
    );
    body.extend_from_slice(file);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    browser(Method::POST, "/dashboard/settings/logo")
        .insert_header(("cookie", format!("__Host-session={}", session.cookie)))
        .insert_header((
            "content-type",
            format!("multipart/form-data; boundary={boundary}"),
        ))
        .set_payload(body)
}

async fn the_logo_and_the_test_email_from_the_settings(h: Harness) {
    let h = Harness::mailing(h.db.backend()).unwrap_or(h);
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    member(&h, h.account, "staff@example.com", Role::Staff);
    let owner = sign_in(&app, "owner@example.com").await;
    let r = send_raw(&app, multipart(&owner, b"not an image")).await;
    assert_eq!(r.status, 422);
    assert!(r.text().contains("id=\"logo-error\""));
    let none = call!(&app, h.req(Method::GET, "/api/v1/account/logo"));
    assert_eq!(none.status, 404);
    let image = png();
    let r = send_raw(&app, multipart(&owner, &image)).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let stored = send_raw(&app, h.req(Method::GET, "/api/v1/account/logo")).await;
    assert_eq!(stored.status, 200);
    assert_eq!(stored.bytes, image);
    let page = send_raw(&app, owner.get("/dashboard/settings"))
        .await
        .text();
    assert!(
        page.contains("src=\"/dashboard/settings/logo\""),
        "the preview"
    );
    let preview = send_raw(&app, owner.get("/dashboard/settings/logo")).await;
    assert_eq!(preview.bytes, image);
    // A forged upload (no valid csrf) changes nothing.
    let forged = Session {
        cookie: owner.cookie.clone(),
        csrf: "forged".into(),
    };
    let r = send_raw(&app, multipart(&forged, b"x")).await;
    assert_eq!(r.status, 403);
    let r = send_raw(&app, owner.post("/dashboard/settings/logo/delete", &[])).await;
    assert_eq!(r.status, 303);
    let none = call!(&app, h.req(Method::GET, "/api/v1/account/logo"));
    assert_eq!(none.status, 404);

    // The test email: queued to the address typed; the page says how it is going.
    let r = send_raw(
        &app,
        owner.post("/dashboard/settings/test-email", &[("to", "nope")]),
    )
    .await;
    assert_eq!(r.status, 422);
    let r = send_raw(
        &app,
        owner.post(
            "/dashboard/settings/test-email",
            &[("to", "me@example.com")],
        ),
    )
    .await;
    assert_eq!(r.status, 303);
    let page = send_raw(&app, owner.get("/dashboard/settings"))
        .await
        .text();
    assert!(page.contains("me@example.com") && page.contains("status-email-queued"));
    let mail = queued_notices(&h);
    assert_eq!(mail.len(), 1);
    assert_eq!(mail[0].kind, NoticeKind::Test);
    // Nobody sprays mail through the server: 30 an hour per account.
    for n in 1..30 {
        let to = format!("me{n}@example.com");
        let r = send_raw(
            &app,
            owner.post("/dashboard/settings/test-email", &[("to", &to)]),
        )
        .await;
        assert_eq!(r.status, 303, "{n}");
    }
    let r = send_raw(
        &app,
        owner.post(
            "/dashboard/settings/test-email",
            &[("to", "one@example.com")],
        ),
    )
    .await;
    assert_eq!(r.status, 429);
    assert_eq!(queued_notices(&h).len(), 29);

    // Staff: refused, nothing changed.
    let staff = sign_in(&app, "staff@example.com").await;
    let r = send_raw(&app, multipart(&staff, &image)).await;
    assert_eq!(r.status, 403);
    let r = send_raw(
        &app,
        staff.post("/dashboard/settings/test-email", &[("to", "x@example.com")]),
    )
    .await;
    assert_eq!(r.status, 403);
    assert!(queued_notices(&h).is_empty());
    let none = call!(&app, h.req(Method::GET, "/api/v1/account/logo"));
    assert_eq!(none.status, 404);
}

/// A removed owner's pending invitations go with them.
async fn a_removed_owners_invitations_are_withdrawn(h: Harness) {
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    member(&h, h.account, "leaving@example.com", Role::Owner);
    let leaving = sign_in(&app, "leaving@example.com").await;
    let r = send_raw(
        &app,
        leaving.post(
            "/dashboard/settings/people/invite",
            &[("email", "second-mailbox@example.com"), ("role", "owner")],
        ),
    )
    .await;
    assert_eq!(r.status, 200, "the link shown (no mail here): {}", r.text());
    assert_eq!(
        h.db.store
            .list_invitations(h.account, Utc::now())
            .unwrap()
            .len(),
        1
    );
    let owner = sign_in(&app, "owner@example.com").await;
    let gone =
        h.db.store
            .find_user_by_email(&UserEmail::parse("leaving@example.com").unwrap())
            .unwrap()
            .unwrap();
    let r = send_raw(
        &app,
        owner.post(
            &format!("/dashboard/settings/people/{}/remove", gone.id.0),
            &[],
        ),
    )
    .await;
    assert_eq!(r.status, 303);
    assert!(h
        .db
        .store
        .list_invitations(h.account, Utc::now())
        .unwrap()
        .is_empty());
}

/// Every settings post a staff member or viewer might forge: 403, and nothing changes.
async fn only_owners_change_settings(h: Harness) {
    let app = init_service(build_app(h.permissive())).await;
    member(&h, h.account, "staff@example.com", Role::Staff);
    member(&h, h.account, "viewer@example.com", Role::Viewer);
    let hook = call!(
        &app,
        h.req(Method::POST, "/api/v1/webhooks"),
        json!({"url": "https://hooks.example.com/in", "events": ["*"]})
    );
    let hook = hook.body["id"].as_i64().unwrap();
    let key = h.db.store.list_keys(h.account).unwrap()[0].id.0;
    let owner_id = {
        member(&h, h.account, "owner@example.com", Role::Owner);
        h.db.store
            .find_user_by_email(&UserEmail::parse("owner@example.com").unwrap())
            .unwrap()
            .unwrap()
            .id
            .0
    };
    let posts: Vec<(String, Vec<(&str, &str)>)> = vec![
        ("/dashboard/settings/keys".into(), vec![("all", "1")]),
        (format!("/dashboard/settings/keys/{key}/revoke"), vec![]),
        (format!("/dashboard/settings/keys/{key}/rotate"), vec![]),
        (
            "/dashboard/settings/webhooks".into(),
            vec![("url", "https://hooks.example.com/x"), ("all", "1")],
        ),
        (
            format!("/dashboard/settings/webhooks/{hook}"),
            vec![("url", "https://hooks.example.com/evil"), ("all", "1")],
        ),
        (
            format!("/dashboard/settings/webhooks/{hook}/rotate"),
            vec![],
        ),
        (
            format!("/dashboard/settings/webhooks/{hook}/delete"),
            vec![],
        ),
        (
            "/dashboard/settings/people/invite".into(),
            vec![("email", "mallory@example.com"), ("role", "owner")],
        ),
        (
            format!("/dashboard/settings/people/{owner_id}/role"),
            vec![("role", "viewer")],
        ),
        (
            format!("/dashboard/settings/people/{owner_id}/remove"),
            vec![],
        ),
        ("/dashboard/settings/logo/delete".into(), vec![]),
    ];
    for email in ["staff@example.com", "viewer@example.com"] {
        let s = sign_in(&app, email).await;
        for (path, fields) in &posts {
            let r = send_raw(&app, s.post(path, fields)).await;
            assert_eq!(r.status, 403, "{email} {path}: {}", r.text());
        }
    }
    assert_eq!(h.db.store.list_keys(h.account).unwrap().len(), 1);
    let hooks = call!(&app, h.req(Method::GET, "/api/v1/webhooks"));
    assert_eq!(hooks.body["data"].as_array().unwrap().len(), 1);
    assert_eq!(hooks.body["data"][0]["url"], "https://hooks.example.com/in");
    let members = h.db.store.list_members(h.account).unwrap();
    assert_eq!(members.len(), 3);
    assert!(members
        .iter()
        .any(|m| m.user.id.0 == owner_id && m.role == Role::Owner));
    assert!(h
        .db
        .store
        .list_invitations(h.account, Utc::now())
        .unwrap()
        .is_empty());
    let r = call!(&app, h.req(Method::GET, "/api/v1/invoices"));
    assert_eq!(r.status, 200, "the key still works");
}

http_tests!(
    an_owner_copies_the_test_profile_to_live,
    keys_are_made_shown_once_work_on_the_api_and_need_the_password_again,
    webhook_endpoints_through_the_dashboard_as_the_api_sees_them,
    an_invitation_works_once_for_its_account_and_people_can_be_changed,
    a_reset_link_is_emailed_only_to_members_works_once_and_expires,
    the_logo_and_the_test_email_from_the_settings,
    only_owners_change_settings,
    a_removed_owners_invitations_are_withdrawn,
    people_change_their_own_email_through_a_link_to_the_new_address,
);

/// SPEC §27: everyone changes their own email: the password asked again, a link to the new
/// address that makes the change (once, and only there: never on a set-password page), a word
/// to the old address; then the person signs in with the new email, not the old.
async fn people_change_their_own_email_through_a_link_to_the_new_address(h: Harness) {
    let h = Harness::mailing(h.db.backend()).unwrap_or(h);
    let app = app!(h);
    member(&h, h.account, "viewer@example.com", Role::Viewer);
    member(&h, h.account, "taken@example.com", Role::Staff);
    let me = sign_in(&app, "viewer@example.com").await;
    let ask = |email: &str, password: &str| {
        me.post(
            "/dashboard/account/email",
            &[("email", email), ("current", password)],
        )
    };
    for (email, password, problem) in [
        ("not an email", PASSWORD, "That is not an email address."),
        (
            "Viewer@Example.com",
            PASSWORD,
            "That is already your email.",
        ),
        (
            "new@example.com",
            "wrong password",
            "The current password is not right.",
        ),
        (
            "taken@example.com",
            PASSWORD,
            "Another user signs in with that email.",
        ),
    ] {
        let r = send_raw(&app, ask(email, password)).await;
        assert_eq!(r.status, 422, "{email}");
        assert!(r.text().contains(problem), "{email}: {}", r.text());
    }
    assert!(queued_notices(&h).is_empty(), "nothing sent for a refusal");

    let r = send_raw(&app, ask("new@example.com", PASSWORD)).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let mut mail = queued_notices(&h);
    mail.sort_by_key(|n| n.recipient.clone());
    let kinds: Vec<(&str, NoticeKind)> = mail
        .iter()
        .map(|n| (n.recipient.as_str(), n.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("new@example.com", NoticeKind::EmailChange),
            ("viewer@example.com", NoticeKind::EmailChanging)
        ]
    );
    assert!(mail[1].body.contains("new@example.com"), "{}", mail[1].body);
    let link = mail[0].link.clone().unwrap();
    assert!(link.contains("/dashboard/confirm-email?token="), "{link}");
    let token = token_of(&link);
    // Nothing changes until the link is used, and it is no set-password link.
    sign_in(&app, "viewer@example.com").await;
    let page = send_raw(
        &app,
        browser(
            Method::GET,
            &format!("/dashboard/set-password?token={token}"),
        ),
    )
    .await;
    assert!(page.text().contains("no longer works"), "{}", page.text());
    let set = form(
        browser(Method::POST, "/dashboard/set-password"),
        &[
            ("token", &token),
            ("password", "hijacked passphrase"),
            ("confirm", "hijacked passphrase"),
        ],
    );
    assert_eq!(send_raw(&app, set).await.status, 422);
    // Opening the link changes nothing: its button does.
    let opened = send_raw(
        &app,
        browser(
            Method::GET,
            &format!("/dashboard/confirm-email?token={token}"),
        ),
    )
    .await;
    assert_eq!(opened.status, 200);
    assert!(h
        .db
        .store
        .find_user_by_email(&UserEmail::parse("new@example.com").unwrap())
        .unwrap()
        .is_none());
    // A reset link the old mailbox holds dies with the change.
    let viewer =
        h.db.store
            .find_user_by_email(&UserEmail::parse("viewer@example.com").unwrap())
            .unwrap()
            .unwrap();
    let reset = SecretToken::generate(&mut rand::rngs::OsRng);
    h.db.store
        .create_link(invoicing_domain::user::NewLink::new(
            viewer.id,
            invoicing_domain::user::LinkPurpose::PasswordReset,
            &reset,
            Utc::now(),
        ))
        .unwrap();
    let confirm = || {
        form(
            browser(Method::POST, "/dashboard/confirm-email"),
            &[("token", &token)],
        )
    };
    let r = send_raw(&app, confirm()).await;
    assert_eq!(r.status, 303);
    assert_eq!(r.header("location"), "/dashboard/login?done=email_changed");
    assert_eq!(send_raw(&app, confirm()).await.status, 422, "once");
    assert!(
        h.db.store
            .find_link(&reset.hash(), Utc::now())
            .unwrap()
            .is_none(),
        "the old address's reset link is void"
    );
    sign_in(&app, "new@example.com").await;
    let old = form(
        browser(Method::POST, "/dashboard/login"),
        &[("email", "viewer@example.com"), ("password", PASSWORD)],
    );
    let r = send_raw(&app, old).await;
    assert_ne!(
        r.header("location"),
        "/dashboard",
        "the old email signs in no more"
    );

    // A request a minute after another voids the first link; one within the minute is refused.
    let me = sign_in(&app, "new@example.com").await;
    let user =
        h.db.store
            .find_user_by_email(&UserEmail::parse("new@example.com").unwrap())
            .unwrap()
            .unwrap();
    let first = SecretToken::generate(&mut rand::rngs::OsRng);
    let email = |e: &str| UserEmail::parse(e).unwrap();
    let earlier = invoicing_domain::user::NewLink::email_change(
        user.id,
        email("first@example.com"),
        &first,
        Utc::now() - Duration::minutes(2),
    );
    let note = |to: &str| {
        invoicing_domain::notice::NewNotice::email_changing(
            invoicing_domain::locale::Locale::En,
            email(to),
            &email("first@example.com"),
        )
    };
    assert!(h
        .db
        .store
        .request_email_change(earlier, note("a@example.com"), note("b@example.com"))
        .unwrap());
    queued_notices(&h);
    let again = |to: &str| {
        me.post(
            "/dashboard/account/email",
            &[("email", to), ("current", PASSWORD)],
        )
    };
    assert_eq!(
        send_raw(&app, again("second@example.com")).await.status,
        303
    );
    let r = send_raw(&app, again("third@example.com")).await;
    assert_eq!(r.status, 422);
    assert!(r.text().contains("wait a minute"), "{}", r.text());
    let links: Vec<String> = queued_notices(&h)
        .into_iter()
        .filter_map(|n| n.link)
        .map(|l| token_of(&l))
        .collect();
    assert_eq!(links.len(), 1, "one link, to the second address");
    let use_link = |t: &str| {
        form(
            browser(Method::POST, "/dashboard/confirm-email"),
            &[("token", t)],
        )
    };
    assert_eq!(
        send_raw(&app, use_link(first.plain())).await.status,
        422,
        "voided"
    );
    assert_eq!(send_raw(&app, use_link(&links[0])).await.status, 303);
    sign_in(&app, "second@example.com").await;
}

/// The secret a set-up page shows.
fn secret_on(page: &str) -> TotpSecret {
    let start = "id=\"secret\">";
    let at = page.find(start).expect("a secret to scan") + start.len();
    let secret = &page[at..at + page[at..].find('<').unwrap()];
    TotpSecret::parse(secret).unwrap()
}

async fn code_step<S, B>(app: &S, s: &Session, code: &str) -> u16
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    send_raw(app, s.post("/dashboard/login/code", &[("code", code)]))
        .await
        .status
}

/// A session of the password alone (the code still to come): its cookie and the code page's
/// CSRF token.
async fn password_only<S, B>(app: &S, email: &str) -> Session
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let mut s = password_step(app, email, PASSWORD).await;
    let home = send_raw(app, s.get("/dashboard")).await;
    assert_eq!(home.status, 303);
    assert!(home.header("location").starts_with("/dashboard/login/code"));
    let page = send_raw(app, s.get("/dashboard/login/code")).await;
    assert_eq!(page.status, 200);
    s.csrf = crate::dashboard::csrf_in(&page.text());
    s
}

async fn a_second_factor_is_asked_after_the_password_and_each_code_works_once(h: Harness) {
    let app = app!(h);
    member(&h, h.account, "owner@example.com", Role::Owner);
    member(&h, h.account, "staff@example.com", Role::Staff);
    let owner = sign_in(&app, "owner@example.com").await;
    // Requiring it of everyone needs one's own first.
    let r = send_raw(
        &app,
        owner.post(
            "/dashboard/settings/people/two-step",
            &[("required", "true")],
        ),
    )
    .await;
    assert_eq!(r.status, 409);

    // Set up: a wrong code changes nothing; the right one turns it on and shows ten codes once.
    let page = send_raw(&app, owner.get("/dashboard/account/two-step")).await;
    assert_eq!(page.status, 200);
    assert!(
        page.text().contains("src=\"data:image/svg+xml;base64,"),
        "a QR code"
    );
    let secret = secret_on(&page.text());
    let now = Utc::now();
    let wrong = if secret.code_at(now) == "123456" {
        "654321"
    } else {
        "123456"
    };
    let enable = |code: String| {
        owner.post(
            "/dashboard/account/two-step/enable",
            &[("code", code.as_str())],
        )
    };
    let r = send_raw(&app, enable(wrong.to_string())).await;
    assert_eq!(r.status, 422);
    // A secret of the page's choosing is never the one set up.
    let chosen = TotpSecret::parse("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA").unwrap();
    let r = send_raw(
        &app,
        owner.post(
            "/dashboard/account/two-step/enable",
            &[("secret", chosen.base32()), ("code", &chosen.code_at(now))],
        ),
    )
    .await;
    assert_eq!(r.status, 422);
    let r = send_raw(&app, enable(secret.code_at(now))).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let text = r.text();
    let codes: Vec<String> = text
        .match_indices("<li><code>")
        .map(|(at, _)| text[at + 10..at + 21].to_string())
        .collect();
    assert_eq!(codes.len(), 10, "{text}");
    // Kept by a download of the same codes (a data URI: they are stored nowhere readable), or
    // copied.
    let file = text
        .split("id=\"recovery-codes-file\" href=\"data:text/plain;charset=utf-8;base64,")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a download link");
    use base64::Engine;
    let file = base64::engine::general_purpose::STANDARD
        .decode(file)
        .unwrap();
    assert_eq!(
        String::from_utf8(file).unwrap(),
        codes.join("\r\n") + "\r\n"
    );
    assert!(text.contains("data-copy=\"recovery-codes\""), "{text}");
    let owner_id =
        h.db.store
            .find_user_by_email(&UserEmail::parse("owner@example.com").unwrap())
            .unwrap()
            .unwrap()
            .id;
    assert_eq!(h.db.store.recovery_codes_left(owner_id).unwrap(), 10);
    // On already: it cannot be re-keyed with the password alone.
    let r = send_raw(&app, enable(secret.code_at(now + Duration::seconds(30)))).await;
    assert_eq!(r.status, 409);

    // The next sign-in asks for a code: wrong, reused or expired codes are refused.
    let s = password_only(&app, "owner@example.com").await;
    assert_eq!(code_step(&app, &s, wrong).await, 422);
    assert_eq!(
        code_step(&app, &s, &secret.code_at(now)).await,
        422,
        "the code that turned it on was used"
    );
    let old = secret.code_at(now - Duration::minutes(5));
    assert_eq!(code_step(&app, &s, &old).await, 422, "expired");
    let next = secret.code_at(now + Duration::seconds(30));
    assert_eq!(code_step(&app, &s, &next).await, 303);
    assert_eq!(send_raw(&app, s.get("/dashboard")).await.status, 200);
    let again = password_only(&app, "owner@example.com").await;
    assert_eq!(
        code_step(&app, &again, &next).await,
        422,
        "a code works once"
    );
    // A recovery code works once, typed loosely.
    let loose = codes[0].to_uppercase().replace('-', " ");
    assert_eq!(code_step(&app, &again, &loose).await, 303);
    let third = password_only(&app, "owner@example.com").await;
    assert_eq!(code_step(&app, &third, &codes[0]).await, 422, "used");
    assert_eq!(h.db.store.recovery_codes_left(owner_id).unwrap(), 9);
    // Guessing is throttled as passwords are.
    let mut last = 0;
    for _ in 0..12 {
        last = code_step(&app, &third, "000000").await;
    }
    assert_eq!(last, 429);

    // Required of everyone: the staff member must set it up before anything else.
    let r = send_raw(
        &app,
        owner.post(
            "/dashboard/settings/people/two-step",
            &[("required", "true")],
        ),
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let staff = password_step(&app, "staff@example.com", PASSWORD).await;
    let r = send_raw(&app, staff.get("/dashboard/invoices")).await;
    assert_eq!(r.status, 303);
    assert_eq!(r.header("location"), "/dashboard/account/two-step");
    let page = send_raw(&app, staff.get("/dashboard/account/two-step")).await;
    assert_eq!(page.status, 200);
    let theirs = secret_on(&page.text());
    let csrf = crate::dashboard::csrf_in(&page.text());
    let staff = Session {
        cookie: staff.cookie,
        csrf,
    };
    let r = send_raw(
        &app,
        staff.post(
            "/dashboard/account/two-step/enable",
            &[
                ("secret", theirs.base32()),
                ("code", &theirs.code_at(Utc::now())),
            ],
        ),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        send_raw(&app, staff.get("/dashboard/invoices"))
            .await
            .status,
        200
    );
    // …and cannot turn it off while it is required; nor can staff change the rule. The rule is
    // said before the password is asked again: nobody types it for a change that cannot be made.
    h.db.execute("UPDATE user_sessions SET password_entered_at = '2000-01-01 00:00:00'");
    let r = send_raw(&app, staff.post("/dashboard/account/two-step/disable", &[])).await;
    assert_eq!(r.status, 409);
    assert!(
        !r.text().contains("name=\"reauth_password\""),
        "{}",
        r.text()
    );
    let r = send_raw(&app, staff.post("/dashboard/settings/people/two-step", &[])).await;
    assert_eq!(r.status, 403);
    assert!(h.db.store.account_requires_totp(h.account).unwrap());
}

mod second_factor {
    use super::*;
    http_tests!(a_second_factor_is_asked_after_the_password_and_each_code_works_once);
}

/// SPEC §27 in the dashboard: in live, an owner's settings offer "Copy the test profile to
/// live"; the copy makes the live profile the test one (as the API's does); staff may not.
async fn an_owner_copies_the_test_profile_to_live(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    member(&h, h.account, "owner@example.com", Role::Owner);
    member(&h, h.account, "staff@example.com", Role::Staff);
    let r = call!(
        &app,
        h.req(Method::PATCH, "/api/v1/account"),
        json!({"legal_name": "Acme Handels GmbH",
            "address": {"line1": "Hauptstraße 1", "city": "Berlin", "postal_code": "10115", "country": "DE"}})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let s = sign_in(&app, "owner@example.com").await;
    let page = send_raw(&app, s.get("/dashboard/settings")).await.text();
    assert!(
        !page.contains("/dashboard/settings/copy-to-live"),
        "not offered in test"
    );
    let r = send_raw(
        &app,
        s.post("/dashboard/environment", &[("environment", "live")]),
    )
    .await;
    assert_eq!(r.status, 303);
    let page = send_raw(&app, s.get("/dashboard/settings")).await.text();
    assert!(
        page.contains("action=\"/dashboard/settings/copy-to-live\""),
        "offered in live"
    );
    let staff = sign_in(&app, "staff@example.com").await;
    let r = send_raw(&app, staff.post("/dashboard/settings/copy-to-live", &[])).await;
    assert_eq!(r.status, 403, "{}", r.text());
    let live = h.live_key();
    let before = call!(&app, h.req_as(&live, Method::GET, "/api/v1/account")).body;
    assert!(before["legal_name"].is_null());
    // A live invoice cannot go out yet: the refusal says what to add and links to Settings.
    let draft = call!(
        &app,
        h.req_as(&live, Method::POST, "/api/v1/invoices"),
        json!({"customer": {"name": "Ana", "email": "ana@example.com"},
            "line_items": [{"description": "Work", "quantity": 1, "unit_price_cents": 1000}]})
    );
    let send_path = format!("/dashboard/invoices/{}/send", draft.body["id"]);
    let r = send_raw(&app, s.post(&send_path, &[])).await;
    assert_eq!(r.status, 422, "{}", r.text());
    let page = r.text();
    assert!(
        page.contains("legal name and its address with the country in Settings"),
        "{page}"
    );
    assert!(page.contains("href=\"/dashboard/settings\""), "{page}");
    let r = send_raw(&app, s.post("/dashboard/settings/copy-to-live", &[])).await;
    assert_eq!(r.status, 303, "{}", r.text());
    assert_eq!(
        r.header("location"),
        "/dashboard/settings?done=copied_to_live"
    );
    let after = call!(&app, h.req_as(&live, Method::GET, "/api/v1/account")).body;
    assert_eq!(after["legal_name"], "Acme Handels GmbH");
    assert_eq!(after["address"]["country"], "DE");
    let page = send_raw(&app, s.get("/dashboard/settings?done=copied_to_live"))
        .await
        .text();
    assert!(
        page.contains("Acme Handels GmbH"),
        "the live form shows the copy"
    );
    let r = send_raw(&app, s.post(&send_path, &[])).await;
    assert_eq!(r.status, 303, "now it goes out: {}", r.text());
    // Home in live shows what going live takes, ticked as it is done; staff see no checklist.
    let home = send_raw(&app, s.get("/dashboard")).await.text();
    let steps = home
        .split("id=\"go-live-steps\"")
        .nth(1)
        .expect("the checklist in live")
        .split("</section>")
        .next()
        .unwrap()
        .to_string();
    // The seller (copied) and the live key (the test made one) are done; the way to be paid is
    // not.
    assert_eq!(steps.matches("<li class=\"done\">").count(), 2, "{steps}");
    assert!(steps.contains("<span class=\"todo\">"), "{steps}");
    assert!(
        steps.contains("href=\"/dashboard/settings/keys\""),
        "{steps}"
    );
    let r = call!(
        &app,
        h.req_as(&live, Method::PATCH, "/api/v1/account"),
        json!({"payment_instructions": "IBAN DE89 3704 0044 0532 0130 00"})
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let home = send_raw(&app, s.get("/dashboard")).await.text();
    assert_eq!(
        home.matches("<li class=\"done\">").count(),
        3,
        "paid and a live key too"
    );
    let r = send_raw(
        &app,
        staff.post("/dashboard/environment", &[("environment", "live")]),
    )
    .await;
    assert_eq!(r.status, 303);
    let home = send_raw(&app, staff.get("/dashboard")).await.text();
    assert!(!home.contains("go-live-steps"), "owners only");
    let r = send_raw(
        &app,
        s.post("/dashboard/environment", &[("environment", "test")]),
    )
    .await;
    assert_eq!(r.status, 303);
    let home = send_raw(&app, s.get("/dashboard")).await.text();
    assert!(!home.contains("go-live-steps"), "live only");
}
