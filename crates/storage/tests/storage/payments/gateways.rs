//! Online payments on both backends (SPEC §25): keys sealed at rest and bound to their tenant;
//! a gateway's report of a checkout recorded once, whoever reports it and however often (also
//! at the same instant from two threads); reports that do not fit what we opened change
//! nothing; overpayments kept; refunds only of what was paid beyond what is owed; proof files.

use super::*;
use invoicing_domain::credit_note::CreditNoteInput;
use invoicing_domain::gateway::{
    Checkout, CheckoutOwner, CheckoutStatus, GatewayEvent, GatewayKeysInput, GatewayKind,
    GatewayRefund, Notification, ProofFile, Recorded, RefundInput, RefundStatus,
};
use invoicing_domain::money::Money;
use invoicing_domain::ports::CreditNoteRepository;
use invoicing_domain::ports::GatewayRepository;

const STRIPE: GatewayKind = GatewayKind::Stripe;

fn connect(db: &TestDb, scope: Scope) {
    let keys = GatewayKeysInput {
        secret_key: Some("sk_test_SECRETKEYVALUE4242".into()),
        publishable_key: Some("pk_test_pub".into()),
        webhook_secret: Some("whsec_SIGNINGSECRET9876".into()),
    }
    .parse_stripe(scope.environment)
    .unwrap();
    db.store
        .save_gateway(scope, STRIPE, &keys, Utc::now())
        .unwrap();
}

fn checkout(scope: Scope, inv: &Invoice, id: &str, amount: i64) -> Checkout {
    Checkout {
        id: id.into(),
        url: Some(format!("https://checkout.example/{id}")),
        status: CheckoutStatus::Open,
        paid: false,
        payment_reference: None,
        amount: Money::new(amount).unwrap(),
        currency: inv.currency,
        owner: Some(CheckoutOwner {
            account_id: scope.account_id,
            environment: scope.environment,
            invoice_id: inv.id,
        }),
    }
}

fn paid(mut c: Checkout, intent: &str) -> Checkout {
    c.status = CheckoutStatus::Complete;
    c.paid = true;
    c.payment_reference = Some(intent.into());
    c
}

/// A sent invoice of `total` with an open checkout for all of it, kept as the server keeps it.
fn opened(db: &TestDb, scope: Scope, total: i64, id: &str) -> (Invoice, Checkout) {
    let inv = invoice(db, scope, "payer@example.com", total, true);
    let c = checkout(scope, &inv, id, total);
    db.store.save_checkout(scope, STRIPE, inv.id, &c).unwrap();
    (inv, c)
}

fn keys_are_sealed_and_bound_to_their_tenant(db: TestDb) {
    let scope = scope(&db);
    assert!(db.store.gateway_settings(scope, STRIPE).unwrap().is_none());
    connect(&db, scope);
    let shown = db.store.gateway_settings(scope, STRIPE).unwrap().unwrap();
    assert_eq!(shown.secret_key_last4, "4242");
    assert!(shown.webhook_secret_set && shown.check_ok);
    let endpoint = shown.webhook_url.rsplit('/').next().unwrap().to_string();
    assert_eq!(endpoint.len(), 32, "{}", shown.webhook_url);
    let keys = db.store.gateway_keys(scope, STRIPE).unwrap().unwrap();
    assert_eq!(keys.secret_key.expose(), "sk_test_SECRETKEYVALUE4242");
    let (found, by_url) = db
        .store
        .gateway_endpoint(STRIPE, &endpoint)
        .unwrap()
        .unwrap();
    assert_eq!(
        (found.account_id, found.environment),
        (scope.account_id, scope.environment)
    );
    assert_eq!(by_url, keys);
    let live = Scope::new(scope.account_id, Environment::Live);
    assert!(
        db.store.gateway_keys(live, STRIPE).unwrap().is_none(),
        "per environment"
    );
    let other = self::scope(&db);
    assert!(
        db.store.gateway_keys(other, STRIPE).unwrap().is_none(),
        "per account"
    );
    // A sealed secret moved into another tenant's row does not open there.
    connect(&db, other);
    let column = |s: Scope| {
        format!(
            "(SELECT sealed_secret_key FROM gateway_accounts WHERE account_id = {} AND livemode = {})",
            s.account_id.0,
            if db.backend() == Backend::Postgres { "false" } else { "0" }
        )
    };
    db.execute(&format!(
        "UPDATE gateway_accounts SET sealed_secret_key = {} WHERE account_id = {}",
        column(scope),
        other.account_id.0
    ));
    assert!(matches!(
        db.store.gateway_keys(other, STRIPE),
        Err(RepoError::Internal(_))
    ));
    if db.backend() == Backend::Sqlite {
        let path = db.url.trim_start_matches("sqlite://").to_string();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.extend(std::fs::read(format!("{path}-wal")).unwrap_or_default());
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains("SECRETKEYVALUE"),
            "the secret key is stored in clear"
        );
        assert!(
            !text.contains("SIGNINGSECRET"),
            "the webhook secret is stored in clear"
        );
    }
    // A save without a webhook secret keeps the one saved before.
    let again = GatewayKeysInput {
        secret_key: Some("sk_test_other1111".into()),
        publishable_key: Some("pk_test_pub".into()),
        webhook_secret: None,
    }
    .parse_stripe(scope.environment)
    .unwrap();
    db.store
        .save_gateway(scope, STRIPE, &again, Utc::now())
        .unwrap();
    let keys = db.store.gateway_keys(scope, STRIPE).unwrap().unwrap();
    assert_eq!(
        keys.webhook_secret.unwrap().expose(),
        "whsec_SIGNINGSECRET9876"
    );
    assert_eq!(
        db.store
            .gateway_settings(scope, STRIPE)
            .unwrap()
            .unwrap()
            .webhook_url,
        shown.webhook_url,
        "the webhook URL outlives a change of keys"
    );
    assert!(db.store.delete_gateway(scope, STRIPE).unwrap());
    assert!(!db.store.delete_gateway(scope, STRIPE).unwrap());
    assert!(db
        .store
        .gateway_endpoint(STRIPE, &endpoint)
        .unwrap()
        .is_none());
}

fn a_paid_checkout_is_one_payment_whoever_reports_it(db: TestDb) {
    let scope = scope(&db);
    let (inv, c) = opened(&db, scope, 5_000, "cs_test_one");
    let kept = db.store.invoice_checkouts(scope, inv.id).unwrap();
    assert_eq!(
        (kept.len(), kept[0].status, kept[0].amount.minor()),
        (1, CheckoutStatus::Open, 5_000)
    );
    let unpaid = db.store.record_checkout(scope, STRIPE, &c).unwrap();
    assert_eq!(unpaid, Recorded::Unpaid(CheckoutStatus::Open));
    let done = paid(c, "pi_one");
    let Recorded::Paid(payment) = db.store.record_checkout(scope, STRIPE, &done).unwrap() else {
        panic!("not recorded")
    };
    assert_eq!(
        (payment.method, payment.status, payment.amount_cents),
        (PaymentMethod::Card, PaymentStatus::Verified, 5_000)
    );
    assert_eq!(
        (payment.gateway.as_deref(), payment.reference.as_deref()),
        (Some("stripe"), Some("pi_one"))
    );
    // The return, the sweep and a repeated webhook find it recorded.
    for _ in 0..3 {
        assert!(matches!(
            db.store.record_checkout(scope, STRIPE, &done).unwrap(),
            Recorded::AlreadyPaid(p) if p.id == payment.id
        ));
    }
    let inv = db.store.get_invoice(scope, inv.id).unwrap();
    assert_eq!((inv.status, inv.amount_due_cents), (InvoiceStatus::Paid, 0));
    assert_eq!(events_of(&db, scope, "payment.verified").len(), 1);
    assert_eq!(events_of(&db, scope, "invoice.paid").len(), 1);
    let kept = db.store.invoice_checkouts(scope, inv.id).unwrap();
    assert_eq!(kept[0].status, CheckoutStatus::Complete);
}

fn reports_from_two_threads_at_once_are_one_payment(db: TestDb) {
    let scope = scope(&db);
    let (inv, c) = opened(&db, scope, 7_000, "cs_test_race");
    let done = paid(c, "pi_race");
    let barrier = Arc::new(Barrier::new(4));
    let store = Arc::new(db.store.clone());
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (store, barrier, done) = (store.clone(), barrier.clone(), done.clone());
            std::thread::spawn(move || {
                barrier.wait();
                store.record_checkout(scope, STRIPE, &done)
            })
        })
        .collect();
    let outcomes: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let paid_now = outcomes
        .iter()
        .filter(|o| matches!(o, Ok(Recorded::Paid(_))))
        .count();
    assert_eq!(paid_now, 1, "{outcomes:?}");
    let all = db
        .store
        .list_payments(
            scope,
            &PaymentFilter {
                invoice_id: Some(inv.id),
                ..Default::default()
            },
            PageRequest::new(1, 10).unwrap(),
        )
        .unwrap();
    assert_eq!(all.data.len(), 1);
}

fn reports_that_do_not_fit_change_nothing(db: TestDb) {
    let scope = scope(&db);
    let (inv, c) = opened(&db, scope, 5_000, "cs_test_fit");
    let mut unknown = paid(c.clone(), "pi_x");
    unknown.id = "cs_test_never_opened".into();
    let mut other_amount = paid(c.clone(), "pi_x");
    other_amount.amount = Money::new(1).unwrap();
    let mut other_invoice = paid(c.clone(), "pi_x");
    other_invoice.owner = Some(CheckoutOwner {
        invoice_id: InvoiceId(inv.id.0 + 1),
        ..other_invoice.owner.unwrap()
    });
    let mut no_owner = paid(c.clone(), "pi_x");
    no_owner.owner = None;
    let mut other_currency = paid(c.clone(), "pi_x");
    other_currency.currency = Currency::parse("USD").unwrap();
    for bad in [
        unknown,
        other_amount,
        other_invoice,
        no_owner,
        other_currency,
    ] {
        assert!(
            matches!(
                db.store.record_checkout(scope, STRIPE, &bad).unwrap(),
                Recorded::Ignored(_)
            ),
            "{bad:?}"
        );
    }
    // Another tenant (or environment) reporting our checkout.
    let other = self::scope(&db);
    let live = Scope::new(scope.account_id, Environment::Live);
    for s in [other, live] {
        let ours = paid(c.clone(), "pi_x");
        assert!(matches!(
            db.store.record_checkout(s, STRIPE, &ours).unwrap(),
            Recorded::Ignored(_)
        ));
    }
    let inv = db.store.get_invoice(scope, inv.id).unwrap();
    assert_eq!(
        (inv.status, inv.amount_paid_cents),
        (InvoiceStatus::Sent, 0)
    );
    assert!(events_of(&db, scope, "payment.created").is_empty());
}

fn a_card_payment_beyond_what_is_due_is_kept_as_overpaid(db: TestDb) {
    let scope = scope(&db);
    let (inv, c) = opened(&db, scope, 10_000, "cs_test_over");
    // A transfer verified while the customer was on the card page.
    pay(&db, scope, &inv, 4_000, "verified").unwrap();
    let Recorded::Paid(_) = db
        .store
        .record_checkout(scope, STRIPE, &paid(c, "pi_over"))
        .unwrap()
    else {
        panic!("refused")
    };
    let inv = db.store.get_invoice(scope, inv.id).unwrap();
    assert_eq!(inv.status, InvoiceStatus::Paid);
    assert_eq!((inv.amount_paid_cents, inv.overpaid_cents), (14_000, 4_000));
    // Even an invoice paid meanwhile keeps money a gateway took.
    let (inv2, c2) = opened(&db, scope, 3_000, "cs_test_late");
    pay(&db, scope, &inv2, 3_000, "verified").unwrap();
    assert!(matches!(
        db.store
            .record_checkout(scope, STRIPE, &paid(c2, "pi_late"))
            .unwrap(),
        Recorded::Paid(_)
    ));
    let inv2 = db.store.get_invoice(scope, inv2.id).unwrap();
    assert_eq!(
        (inv2.status, inv2.overpaid_cents),
        (InvoiceStatus::Paid, 3_000)
    );
    assert_eq!(
        events_of(&db, scope, "invoice.paid").len(),
        2,
        "paid once each"
    );
}

fn notifications_are_handled_once_and_only_in_their_environment(db: TestDb) {
    let scope = scope(&db);
    let (inv, c) = opened(&db, scope, 2_000, "cs_test_note");
    let note = |id: &str, livemode: bool| Notification {
        id: id.into(),
        livemode,
        event: GatewayEvent::CheckoutPaid(paid(c.clone(), "pi_note")),
    };
    let other_env = db
        .store
        .record_notification(scope, STRIPE, "ep", &note("evt_live", true))
        .unwrap();
    assert!(matches!(other_env, Recorded::Ignored(_)));
    let first = db
        .store
        .record_notification(scope, STRIPE, "ep", &note("evt_1", false))
        .unwrap();
    assert!(matches!(first, Recorded::Paid(_)));
    let again = db
        .store
        .record_notification(scope, STRIPE, "ep", &note("evt_1", false))
        .unwrap();
    assert_eq!(again, Recorded::Duplicate);
    let another_event = db
        .store
        .record_notification(scope, STRIPE, "ep", &note("evt_2", false))
        .unwrap();
    assert!(matches!(another_event, Recorded::AlreadyPaid(_)));
    let failed = Notification {
        id: "evt_3".into(),
        livemode: false,
        event: GatewayEvent::CheckoutFailed(c.clone()),
    };
    assert_eq!(
        db.store
            .record_notification(scope, STRIPE, "ep", &failed)
            .unwrap(),
        Recorded::Noted
    );
    assert_eq!(events_of(&db, scope, "payment.failed").len(), 1);
    assert_eq!(
        db.store
            .get_invoice(scope, inv.id)
            .unwrap()
            .amount_paid_cents,
        2_000
    );
}

fn the_same_event_delivered_at_once_is_handled_once(db: TestDb) {
    let scope = scope(&db);
    let (inv, c) = opened(&db, scope, 6_000, "cs_test_twice");
    let note = Notification {
        id: "evt_at_once".into(),
        livemode: false,
        event: GatewayEvent::CheckoutPaid(paid(c, "pi_at_once")),
    };
    let barrier = Arc::new(Barrier::new(4));
    let store = Arc::new(db.store.clone());
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (store, barrier, note) = (store.clone(), barrier.clone(), note.clone());
            std::thread::spawn(move || {
                barrier.wait();
                store.record_notification(scope, STRIPE, "ep", &note)
            })
        })
        .collect();
    let outcomes: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    let paid_now = outcomes
        .iter()
        .filter(|o| matches!(o, Ok(Recorded::Paid(_))))
        .count();
    assert_eq!(paid_now, 1, "{outcomes:?}");
    assert_eq!(
        db.store
            .get_invoice(scope, inv.id)
            .unwrap()
            .amount_paid_cents,
        6_000
    );
}

fn refund_input(amount: Option<i64>) -> invoicing_domain::gateway::NewRefund {
    RefundInput {
        amount_cents: amount,
        reason: Some("returned goods".into()),
    }
    .parse()
    .unwrap()
}

fn refunds_return_only_what_is_owed_back(db: TestDb) {
    let scope = scope(&db);
    let (inv, c) = opened(&db, scope, 10_000, "cs_test_refund");
    let Recorded::Paid(card) = db
        .store
        .record_checkout(scope, STRIPE, &paid(c, "pi_refund"))
        .unwrap()
    else {
        panic!()
    };
    let nothing = db.store.start_refund(scope, card.id, &refund_input(None));
    assert!(
        matches!(&nothing, Err(RepoError::Invalid(v)) if v.errors()[0].param == "amount_cents"),
        "{nothing:?}"
    );
    let credit = serde_json::from_value::<CreditNoteInput>(json!({
        "reason": "other",
        "line_items": [{"description": "Returned", "quantity": 1, "unit_price_cents": 2_500}]
    }))
    .unwrap()
    .parse()
    .unwrap()
    .0;
    let note = db
        .store
        .create_credit_note(scope, inv.id, credit, None)
        .unwrap();
    assert_eq!(note.refund_due_cents, 2_500);
    let too_much = db
        .store
        .start_refund(scope, card.id, &refund_input(Some(2_501)));
    assert!(matches!(too_much, Err(RepoError::Invalid(_))));
    let plan = db
        .store
        .start_refund(scope, card.id, &refund_input(None))
        .unwrap();
    assert_eq!(plan.amount.minor(), 2_500);
    assert_eq!(plan.gateway, Some((STRIPE, "pi_refund".to_string())));
    assert!(plan.idempotency_key.starts_with("refund_"));
    // Reserved while the gateway is asked: a second refund finds nothing left.
    assert!(db
        .store
        .start_refund(scope, card.id, &refund_input(None))
        .is_err());
    // The gateway refuses: the amount is refundable again.
    let failed = db.store.finish_refund(scope, &plan, None).unwrap();
    assert_eq!(failed.amount_refunded_cents, 0);
    assert_eq!(failed.refunds[0].status, RefundStatus::Failed);
    let plan = db
        .store
        .start_refund(scope, card.id, &refund_input(None))
        .unwrap();
    // Kept and not yet answered for: what a retry after a crash asks again, with its own key.
    let later = Utc::now() + chrono::Duration::minutes(2);
    let retry = db.store.refunds_to_retry(later, 10).unwrap();
    assert_eq!(retry.len(), 1);
    assert_eq!(
        (retry[0].0.account_id, &retry[0].1),
        (scope.account_id, &plan)
    );
    let done = GatewayRefund {
        id: "re_1".into(),
        payment_reference: Some("pi_refund".into()),
        amount: plan.amount,
        status: RefundStatus::Pending,
    };
    let pending = db.store.finish_refund(scope, &plan, Some(&done)).unwrap();
    assert_eq!(pending.amount_refunded_cents, 2_500);
    assert!(
        db.store.refunds_to_retry(later, 10).unwrap().is_empty(),
        "answered for: the gateway's notification settles it"
    );
    assert!(
        events_of(&db, scope, "payment.refunded").is_empty(),
        "not yet"
    );
    // The gateway's notification settles it, once.
    let settled = Notification {
        id: "evt_refund".into(),
        livemode: false,
        event: GatewayEvent::RefundChanged(GatewayRefund {
            status: RefundStatus::Succeeded,
            ..done
        }),
    };
    db.store
        .record_notification(scope, STRIPE, "ep", &settled)
        .unwrap();
    let payment = db.store.get_payment(scope, card.id).unwrap();
    assert_eq!(payment.refunds.len(), 2);
    assert_eq!(payment.refunds[1].status, RefundStatus::Succeeded);
    assert_eq!(events_of(&db, scope, "payment.refunded").len(), 1);
    let inv = db.store.get_invoice(scope, inv.id).unwrap();
    assert_eq!(
        (inv.amount_paid_cents, inv.overpaid_cents, inv.status),
        (7_500, 0, InvoiceStatus::Paid)
    );
    assert!(
        db.store
            .start_refund(scope, card.id, &refund_input(None))
            .is_err(),
        "twice"
    );
    // A transfer is paid back by hand: done when recorded.
    let inv2 = invoice(&db, scope, "t@example.com", 1_000, true);
    let transfer = pay(&db, scope, &inv2, 1_000, "verified").unwrap();
    let credit = serde_json::from_value::<CreditNoteInput>(json!({"reason": "other"}))
        .unwrap()
        .parse()
        .unwrap()
        .0;
    db.store
        .create_credit_note(scope, inv2.id, credit, None)
        .unwrap();
    let plan = db
        .store
        .start_refund(scope, transfer.id, &refund_input(None))
        .unwrap();
    assert_eq!((plan.gateway.clone(), plan.amount.minor()), (None, 1_000));
    let payment = db.store.get_payment(scope, transfer.id).unwrap();
    assert_eq!(payment.refunds[0].status, RefundStatus::Succeeded);
    assert_eq!(events_of(&db, scope, "payment.refunded").len(), 2);
    // Another tenant's payment is not theirs to refund.
    let other = self::scope(&db);
    assert!(matches!(
        db.store
            .start_refund(other, transfer.id, &refund_input(None)),
        Err(RepoError::Forbidden)
    ));
}

fn proof_files_stay_with_their_payment(db: TestDb) {
    let scope = scope(&db);
    let inv = invoice(&db, scope, "p@example.com", 1_000, true);
    let p = pay(&db, scope, &inv, 1_000, "pending").unwrap();
    let file = ProofFile {
        filename: "receipt.pdf".into(),
        content_type: "application/pdf".into(),
        bytes: b"%PDF-1.7 receipt".to_vec(),
    };
    db.store.attach_proof(scope, p.id, &file).unwrap();
    assert_eq!(db.store.payment_proof(scope, p.id).unwrap(), Some(file));
    let shown = db.store.get_payment(scope, p.id).unwrap().proof.unwrap();
    assert_eq!(
        (shown.content_type.as_str(), shown.bytes),
        ("application/pdf", 16)
    );
    assert_eq!(events_of(&db, scope, "payment.proof_uploaded").len(), 1);
    let other = self::scope(&db);
    assert!(matches!(
        db.store.payment_proof(other, p.id),
        Err(RepoError::Forbidden)
    ));
}

fn a_rotated_secrets_key_reseals_every_connection(db: TestDb) {
    use invoicing_storage::secrets::SecretsKey;
    let (old, new) = (SecretsKey::generate(), SecretsKey::generate());
    let before = db
        .store
        .clone()
        .with_secrets(SecretsKey::parse(&old).unwrap());
    let scope = scope(&db);
    let keys = GatewayKeysInput {
        secret_key: Some("sk_test_rotate1234".into()),
        publishable_key: Some("pk_test_x".into()),
        webhook_secret: Some("whsec_rotate".into()),
    }
    .parse_stripe(scope.environment)
    .unwrap();
    before
        .save_gateway(scope, STRIPE, &keys, Utc::now())
        .unwrap();
    let only_new = db
        .store
        .clone()
        .with_secrets(SecretsKey::parse(&new).unwrap());
    assert!(
        only_new.gateway_keys(scope, STRIPE).is_err(),
        "the old key is needed yet"
    );
    let both = db
        .store
        .clone()
        .with_secrets(SecretsKey::parse(&format!("{new},{old}")).unwrap());
    assert_eq!(both.gateway_keys(scope, STRIPE).unwrap().unwrap(), keys);
    assert_eq!(both.reseal_secrets().unwrap(), 1);
    assert_eq!(both.reseal_secrets().unwrap(), 0, "nothing stale is left");
    assert_eq!(only_new.gateway_keys(scope, STRIPE).unwrap().unwrap(), keys);
}

backend_tests!(
    the_same_event_delivered_at_once_is_handled_once,
    a_rotated_secrets_key_reseals_every_connection,
    keys_are_sealed_and_bound_to_their_tenant,
    a_paid_checkout_is_one_payment_whoever_reports_it,
    reports_from_two_threads_at_once_are_one_payment,
    reports_that_do_not_fit_change_nothing,
    a_card_payment_beyond_what_is_due_is_kept_as_overpaid,
    notifications_are_handled_once_and_only_in_their_environment,
    refunds_return_only_what_is_owed_back,
    proof_files_stay_with_their_payment,
);
