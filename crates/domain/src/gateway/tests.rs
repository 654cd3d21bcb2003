use super::*;
use crate::tenant::{AccountId, Environment};

fn input(secret: &str, publishable: &str, webhook: &str) -> GatewayKeysInput {
    GatewayKeysInput {
        secret_key: Some(secret.into()),
        publishable_key: Some(publishable.into()),
        webhook_secret: Some(webhook.into()),
    }
}

#[test]
fn test_keys_only_in_test_and_live_keys_only_in_live() {
    let test = input("sk_test_abc", "pk_test_abc", "whsec_abc");
    assert!(test.parse_stripe(Environment::Test).is_ok());
    let refused = test.parse_stripe(Environment::Live).unwrap_err();
    let params: Vec<_> = refused.errors().iter().map(|e| e.param.as_str()).collect();
    assert_eq!(params, ["secret_key", "publishable_key"]);
    let live = input("sk_live_abc", "pk_live_abc", "whsec_abc");
    assert!(live.parse_stripe(Environment::Live).is_ok());
    assert!(live.parse_stripe(Environment::Test).is_err());
    assert!(input("rk_test_x", "pk_test_x", "whsec_x")
        .parse_stripe(Environment::Test)
        .is_ok());
}

#[test]
fn keys_refuse_blank_bare_prefixes_and_strange_bytes() {
    let every = GatewayKeysInput::default()
        .parse_stripe(Environment::Test)
        .unwrap_err();
    assert_eq!(every.errors().len(), 2, "the webhook secret may come later");
    for bad in ["sk_test_", "sk_test_a b", "sk_test_é", "sk_test_a\"<"] {
        let e = input(bad, "pk_test_x", "whsec_x")
            .parse_stripe(Environment::Test)
            .unwrap_err();
        assert_eq!(e.errors()[0].param, "secret_key", "{bad}");
    }
    let e = input("sk_test_x", "pk_test_x", "sk_test_x")
        .parse_stripe(Environment::Test)
        .unwrap_err();
    assert_eq!(e.errors()[0].param, "webhook_secret");
}

#[test]
fn secrets_never_print() {
    let keys = input("sk_test_supersecret1234", "pk_test_x", "whsec_hidden9876")
        .parse_stripe(Environment::Test)
        .unwrap();
    let shown = format!("{keys:?}");
    assert!(!shown.contains("supersecret"), "{shown}");
    assert!(!shown.contains("hidden"), "{shown}");
    assert!(shown.contains("1234") && shown.contains("9876"), "{shown}");
    assert_eq!(keys.secret_key.last4(), "1234");
    let body = format!("{:?}", input("sk_test_supersecret", "pk", "w"));
    assert!(!body.contains("supersecret"));
}

#[test]
fn the_checkout_reference_names_one_tenant_and_invoice() {
    let owner = CheckoutOwner {
        account_id: AccountId(42),
        environment: Environment::Live,
        invoice_id: InvoiceId(7),
    };
    assert_eq!(owner.reference(), "acct_42:live:inv_7");
    assert_eq!(
        CheckoutOwner::parse_reference(&owner.reference()),
        Some(owner)
    );
    for bad in [
        "",
        "acct_42:live",
        "acct_42:prod:inv_7",
        "acct_x:live:inv_7",
        "acct_42:live:inv_7:more",
        "42:live:7",
    ] {
        assert_eq!(CheckoutOwner::parse_reference(bad), None, "{bad}");
    }
}

#[test]
fn refundable_is_the_smaller_of_what_is_left_and_what_is_overpaid() {
    let m = |c| crate::money::Money::new(c).unwrap();
    assert_eq!(refundable(m(1000), m(0), m(300)), m(300));
    assert_eq!(refundable(m(1000), m(800), m(300)), m(200));
    assert_eq!(refundable(m(1000), m(1000), m(300)), m(0));
    assert_eq!(refundable(m(1000), m(0), m(0)), m(0));
}

#[test]
fn refund_bodies_are_checked() {
    assert!(RefundInput::default().parse().unwrap().amount.is_none());
    for bad in [0, -5, crate::money::MAX_AMOUNT + 1] {
        let e = RefundInput {
            amount_cents: Some(bad),
            reason: None,
        }
        .parse()
        .unwrap_err();
        assert_eq!(e.errors()[0].param, "amount_cents");
    }
    let e = RefundInput {
        amount_cents: Some(5),
        reason: Some("x".repeat(REASON_MAX_FOR_TEST + 1)),
    }
    .parse()
    .unwrap_err();
    assert_eq!(e.errors()[0].param, "reason");
}

const REASON_MAX_FOR_TEST: usize = crate::refund::REASON_MAX;
