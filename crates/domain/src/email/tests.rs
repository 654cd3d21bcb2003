use super::*;
use chrono::NaiveDate;
use proptest::prelude::*;

fn d(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

fn input(to: &[&str], cc: &[&str]) -> EmailInput {
    EmailInput {
        to: (!to.is_empty()).then(|| to.iter().map(|s| s.to_string()).collect()),
        cc: (!cc.is_empty()).then(|| cc.iter().map(|s| s.to_string()).collect()),
        ..Default::default()
    }
}

#[test]
fn an_empty_request_goes_to_the_customer_with_the_default_subject() {
    let r = EmailInput::default().parse("email").unwrap();
    assert_eq!(r, EmailRequest::default());
}

#[test]
fn recipients_are_checked_and_counted_together() {
    let six: Vec<String> = (0..6).map(|i| format!("a{i}@example.com")).collect();
    let six: Vec<&str> = six.iter().map(String::as_str).collect();
    let err = input(&six, &six).parse("email").unwrap_err();
    assert_eq!(err.errors()[0].param, "email.to");
    assert!(input(&six[..5], &six[..5]).parse("email").is_ok());

    let err = input(&["a@example.com", "not an address"], &[])
        .parse("email")
        .unwrap_err();
    assert_eq!(err.errors()[0].param, "email.to[1]");
    let empty = EmailInput {
        to: Some(vec![]),
        ..Default::default()
    };
    assert_eq!(
        empty.parse("email").unwrap_err().errors()[0].param,
        "email.to"
    );
}

#[test]
fn repeated_recipients_are_sent_once() {
    let r = input(
        &["a@example.com", "A@Example.com"],
        &["a@example.com", "b@example.com"],
    )
    .parse("email")
    .unwrap();
    assert_eq!(r.to.len(), 1);
    assert_eq!(r.cc.len(), 1);
    assert_eq!(r.cc[0].as_str(), "b@example.com");
    for unsendable in ["\"x@y.com\"@example.com", "a@[127.0.0.1]"] {
        assert!(
            input(&[unsendable], &[]).parse("email").is_err(),
            "{unsendable}"
        );
    }
}

#[test]
fn subjects_take_no_control_characters_and_messages_only_line_breaks() {
    let with = |subject: &str, message: &str| EmailInput {
        subject: Some(subject.into()),
        message: Some(message.into()),
        ..Default::default()
    };
    let err = with("Hi\r\nBcc: x@evil.example", "ok")
        .parse("email")
        .unwrap_err();
    assert_eq!(err.errors()[0].param, "email.subject");
    let err = with("ok", "bell\u{7}").parse("email").unwrap_err();
    assert_eq!(err.errors()[0].param, "email.message");
    let ok = with(" Héllo ", "Line one\r\nLine two\n\tindented")
        .parse("email")
        .unwrap();
    assert_eq!(ok.subject.as_deref(), Some("Héllo"));
    assert!(ok.message.unwrap().contains("\r\nLine two"));
    let long = "x".repeat(SUBJECT_MAX + 1);
    assert!(with(&long, "").parse("email").is_err());
    assert!(with(&long[1..], &"y".repeat(MESSAGE_MAX))
        .parse("email")
        .is_ok());
    assert!(with("s", &"y".repeat(MESSAGE_MAX + 1))
        .parse("email")
        .is_err());
}

#[test]
fn default_subjects_carry_the_number_in_the_customers_language() {
    let en = EmailKind::Invoice.default_subject(Locale::En, "INV-2026-000001", "Acme");
    assert_eq!(en, "Invoice INV-2026-000001 from Acme");
    for kind in EmailKind::ALL {
        for locale in Locale::ALL {
            let s = kind.default_subject(locale, "N-42", "M");
            assert!(s.contains("N-42"), "{kind:?} {locale:?}: {s}");
            assert!(!s.contains('{'), "{kind:?} {locale:?}: {s}");
        }
    }
    assert_ne!(
        EmailKind::Invoice.default_subject(Locale::De, "N", "M"),
        EmailKind::Invoice.default_subject(Locale::En, "N", "M")
    );
}

#[test]
fn the_reminder_due_is_the_latest_passed_offset_not_yet_sent() {
    let due = d("2026-12-10");
    let sent_on = d("2026-12-01");
    let offsets = [-3, 0, 7];
    assert_eq!(
        reminder_due(&offsets, due, sent_on, d("2026-12-06"), &[]),
        None
    );
    assert_eq!(
        reminder_due(&offsets, due, sent_on, d("2026-12-07"), &[]),
        Some(-3)
    );
    assert_eq!(
        reminder_due(&offsets, due, sent_on, d("2026-12-08"), &[-3]),
        None
    );
    assert_eq!(
        reminder_due(&offsets, due, sent_on, d("2026-12-10"), &[-3]),
        Some(0)
    );
    // Down from the 6th to the 20th: one reminder, the latest.
    assert_eq!(
        reminder_due(&offsets, due, sent_on, d("2026-12-20"), &[]),
        Some(7)
    );
    assert_eq!(
        reminder_due(&offsets, due, sent_on, d("2026-12-20"), &[7]),
        None
    );
    // A later offset already sent means an older one never follows.
    assert_eq!(
        reminder_due(&[0, 7], due, sent_on, d("2026-12-20"), &[7]),
        None
    );
}

#[test]
fn offsets_that_fell_before_the_invoice_was_sent_are_skipped() {
    let due = d("2026-12-10");
    assert_eq!(
        reminder_due(&[-3], due, d("2026-12-09"), d("2026-12-09"), &[]),
        None
    );
    assert_eq!(
        reminder_due(&[-3, 0], due, d("2026-12-09"), d("2026-12-10"), &[]),
        Some(0)
    );
    // Due today, offset 0, sent today: reminded today.
    assert_eq!(reminder_due(&[0], due, due, due, &[]), Some(0));
}

proptest! {
    /// Sweeping every day and recording what was sent reminds each offset at most once, in
    /// order, and never before its day.
    #[test]
    fn daily_sweeps_remind_each_offset_at_most_once(
        offsets in proptest::collection::btree_set(-30i32..30, 0..6),
        sent_after in 0u64..20,
        gap in 1u64..5,
    ) {
        let offsets: Vec<i32> = offsets.into_iter().collect();
        let due = d("2026-06-15");
        let sent_on = d("2026-05-10") + chrono::Days::new(sent_after);
        let mut sent = Vec::new();
        let mut today = sent_on;
        while today <= d("2026-08-01") {
            if let Some(o) = reminder_due(&offsets, due, sent_on, today, &sent) {
                prop_assert!(!sent.contains(&o));
                prop_assert!(sent.iter().all(|s| *s < o));
                prop_assert!(day_of_for_test(due, o) <= today);
                sent.push(o);
            }
            today = today + chrono::Days::new(gap);
        }
    }
}

fn day_of_for_test(due: NaiveDate, offset: i32) -> NaiveDate {
    due + chrono::Duration::days(i64::from(offset))
}
