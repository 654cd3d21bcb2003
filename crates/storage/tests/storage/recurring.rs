//! Recurring invoices on both backends (SPEC §20): each period issued exactly once (sweeps
//! repeated, raced, after downtime with each period's own date), auto-send and email, completion,
//! pause, resume and cancel, tenants.

use chrono::{Days, Months, NaiveDate, Utc};
use invoicing_domain::currency::Currency;
use invoicing_domain::email::{EmailFilter, EmailKind};
use invoicing_domain::event::EventFilter;
use invoicing_domain::invoice::InvoiceFilter;
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::paging::PageRequest;
use invoicing_domain::ports::{
    AccountRepository, EmailRepository, EventRepository, InvoiceRepository, RecurringRepository,
    RepoError,
};
use invoicing_domain::recurring::{RecurringInput, RecurringInvoice, RecurringStatus};
use invoicing_domain::tenant::{Environment, Scope};
use invoicing_storage::testing::TestDb;
use invoicing_storage::{backend_tests, Store};
use serde_json::{json, Value};

fn scope(db: &TestDb, name: &str) -> Scope {
    let a = db
        .store
        .create_account(name, Currency::parse("EUR").unwrap())
        .unwrap();
    Scope::new(a.id, Environment::Test)
}

fn today() -> NaiveDate {
    Utc::now().date_naive()
}

fn iso(d: NaiveDate) -> String {
    d.format("%Y-%m-%d").to_string()
}

/// A schedule; `start` may be in the past here (the API refuses that) to play out downtime.
fn schedule(store: &Store, s: Scope, start: NaiveDate, extra: Value) -> RecurringInvoice {
    let mut body = json!({
        "customer": {"name": "Ada", "email": "ada@example.com"},
        "line_items": [{"description": "Hosting", "quantity": "1", "unit_price_cents": 2000, "tax_rate": "20"}],
        "interval": "month",
        "start_date": iso(start),
    });
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let new = serde_json::from_value::<RecurringInput>(body)
        .unwrap()
        .parse(start)
        .unwrap();
    store.create_recurring(s, new).unwrap()
}

fn issued(store: &Store, s: Scope, id: i64) -> Vec<invoicing_domain::invoice::Invoice> {
    let mut all = store
        .list_invoices(
            s,
            &InvoiceFilter::default(),
            PageRequest::new(1, 100).unwrap(),
        )
        .unwrap()
        .data;
    all.retain(|i| i.recurring_invoice_id == Some(id));
    all.sort_by_key(|i| i.issue_date);
    all
}

fn events(store: &Store, s: Scope, t: &str) -> i64 {
    let f = EventFilter {
        event_type: Some(t.into()),
    };
    store
        .list_events(s, &f, PageRequest::new(1, 100).unwrap())
        .unwrap()
        .total
}

fn each_period_is_issued_once(db: TestDb) {
    let s = scope(&db, "Acme");
    let r = schedule(&db.store, s, today(), json!({}));
    assert_eq!(r.status, RecurringStatus::Active);
    assert_eq!(r.invoices_created, 0, "the sweep issues the first one too");
    assert_eq!(r.next_issue_date, Some(today()));
    assert_eq!(r.total_cents, 2400);
    assert_eq!(events(&db.store, s, "recurring_invoice.created"), 1);
    assert_eq!(
        db.store
            .issue_recurring(invoicing_storage::testing::noon(today()))
            .unwrap(),
        1
    );
    assert_eq!(
        db.store
            .issue_recurring(invoicing_storage::testing::noon(today()))
            .unwrap(),
        0
    );
    let restarted = Store::connect(&db.url, 2).unwrap();
    assert_eq!(
        restarted
            .issue_recurring(invoicing_storage::testing::noon(today()))
            .unwrap(),
        0
    );
    let invoices = issued(&db.store, s, r.id.0);
    assert_eq!(invoices.len(), 1);
    let inv = &invoices[0];
    assert_eq!(inv.issue_date, today());
    assert_eq!(inv.status, InvoiceStatus::Draft, "no auto_send");
    assert_eq!(inv.total_cents, 2400);
    assert_eq!(
        inv.due_date,
        today() + Days::new(30),
        "net_30 from its issue date"
    );
    let r = db.store.get_recurring(s, r.id).unwrap();
    assert_eq!(r.invoices_created, 1);
    assert_eq!(
        r.next_issue_date,
        today().checked_add_months(Months::new(1))
    );
}

fn downtime_issues_each_missed_period_with_its_own_date(db: TestDb) {
    let s = scope(&db, "Acme");
    let start = NaiveDate::from_ymd_opt(2026, 1, 31).unwrap();
    let r = schedule(&db.store, s, start, json!({}));
    let later = NaiveDate::from_ymd_opt(2026, 5, 2).unwrap();
    assert_eq!(
        db.store
            .issue_recurring(invoicing_storage::testing::noon(later))
            .unwrap(),
        4
    );
    let dates: Vec<NaiveDate> = issued(&db.store, s, r.id.0)
        .iter()
        .map(|i| i.issue_date)
        .collect();
    let d = |m, day| NaiveDate::from_ymd_opt(2026, m, day).unwrap();
    assert_eq!(dates, [d(1, 31), d(2, 28), d(3, 31), d(4, 30)]);
    assert_eq!(
        db.store
            .issue_recurring(invoicing_storage::testing::noon(later))
            .unwrap(),
        0
    );
    assert_eq!(
        db.store.get_recurring(s, r.id).unwrap().next_issue_date,
        Some(d(5, 31))
    );
}

fn auto_send_email_and_completion(db: TestDb) {
    let s = scope(&db, "Acme");
    let mailing = db.store.clone().with_mail(true);
    let start = today() - Days::new(40);
    let r = schedule(
        &mailing,
        s,
        start,
        json!({"auto_send": true, "email": true, "occurrences": 2}),
    );
    assert_eq!(
        mailing
            .issue_recurring(invoicing_storage::testing::noon(today()))
            .unwrap(),
        2
    );
    let invoices = issued(&mailing, s, r.id.0);
    assert!(invoices.iter().all(|i| i.status == InvoiceStatus::Sent));
    assert_eq!(events(&mailing, s, "invoice.sent"), 2);
    let emails = mailing
        .list_emails(s, &EmailFilter::default(), PageRequest::new(1, 10).unwrap())
        .unwrap()
        .data;
    assert_eq!(emails.len(), 2);
    assert!(emails.iter().all(|e| e.kind == EmailKind::Invoice));
    let r = mailing.get_recurring(s, r.id).unwrap();
    assert_eq!(r.status, RecurringStatus::Completed);
    assert_eq!(r.next_issue_date, None);
    assert_eq!(r.invoices_created, 2);
    assert_eq!(events(&mailing, s, "recurring_invoice.completed"), 1);
    assert_eq!(
        mailing
            .issue_recurring(invoicing_storage::testing::noon(today() + Days::new(400)))
            .unwrap(),
        0
    );
}

fn pause_resume_and_cancel(db: TestDb) {
    let s = scope(&db, "Acme");
    let start = NaiveDate::from_ymd_opt(2026, 1, 10).unwrap();
    let r = schedule(&db.store, s, start, json!({"interval": "week"}));
    assert_eq!(
        db.store
            .issue_recurring(invoicing_storage::testing::noon(start))
            .unwrap(),
        1
    );
    let paused = db
        .store
        .change_recurring(s, r.id, RecurringStatus::Paused, start)
        .unwrap();
    assert_eq!(paused.status, RecurringStatus::Paused);
    let weeks_later = start + Days::new(30);
    assert_eq!(
        db.store
            .issue_recurring(invoicing_storage::testing::noon(weeks_later))
            .unwrap(),
        0,
        "paused: nothing"
    );
    // Resuming skips what fell while paused: the next period on or after today.
    let resumed = db
        .store
        .change_recurring(s, r.id, RecurringStatus::Active, weeks_later)
        .unwrap();
    assert_eq!(resumed.next_issue_date, Some(start + Days::new(35)));
    assert_eq!(
        db.store
            .issue_recurring(invoicing_storage::testing::noon(start + Days::new(35)))
            .unwrap(),
        1
    );
    assert_eq!(issued(&db.store, s, r.id.0).len(), 2);
    assert_eq!(events(&db.store, s, "recurring_invoice.paused"), 1);
    assert_eq!(events(&db.store, s, "recurring_invoice.resumed"), 1);
    // The table: no resume of an active one; cancel, then nothing more.
    assert!(matches!(
        db.store
            .change_recurring(s, r.id, RecurringStatus::Active, weeks_later),
        Err(RepoError::InvalidTransition(_))
    ));
    let cancelled = db
        .store
        .change_recurring(s, r.id, RecurringStatus::Cancelled, weeks_later)
        .unwrap();
    assert_eq!(
        (cancelled.status, cancelled.next_issue_date),
        (RecurringStatus::Cancelled, None)
    );
    for to in RecurringStatus::ALL {
        assert!(
            db.store.change_recurring(s, r.id, to, weeks_later).is_err(),
            "{to}"
        );
    }
    assert_eq!(
        db.store
            .issue_recurring(invoicing_storage::testing::noon(start + Days::new(400)))
            .unwrap(),
        0
    );
    // Another tenant sees none of it.
    let other = scope(&db, "Other");
    assert!(matches!(
        db.store.get_recurring(other, r.id),
        Err(RepoError::Forbidden)
    ));
    assert!(matches!(
        db.store
            .change_recurring(other, r.id, RecurringStatus::Paused, start),
        Err(RepoError::Forbidden)
    ));
}

/// Four processes sweeping at once issue each period once.
fn racing_sweepers_issue_each_period_once(db: TestDb) {
    let s = scope(&db, "Acme");
    let start = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(
            schedule(&db.store, s, start, json!({"interval": "week"}))
                .id
                .0,
        );
    }
    let day = start + Days::new(7 * 9);
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let store = Store::connect(&db.url, 2).unwrap();
            std::thread::spawn(move || {
                store
                    .issue_recurring(invoicing_storage::testing::noon(day))
                    .unwrap()
            })
        })
        .collect();
    let total: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(total, 30, "ten weekly periods of three schedules");
    for id in ids {
        let invoices = issued(&db.store, s, id);
        assert_eq!(invoices.len(), 10);
        let mut dates: Vec<_> = invoices.iter().map(|i| i.issue_date).collect();
        dates.dedup();
        assert_eq!(dates.len(), 10, "no period twice");
    }
}

/// SPEC §27: a period starts at midnight where the account is: a Port of Spain (UTC−4)
/// schedule starting on 1 March is issued from 04:00 UTC that day, a UTC one from midnight, and
/// the invoice is dated the local day.
fn periods_start_at_the_accounts_midnight(db: TestDb) {
    use chrono::TimeZone as _;
    use invoicing_domain::ports::ProfileRepository;
    use invoicing_domain::profile::ProfilePatch;
    use invoicing_domain::time_zone::TimeZone;
    let day = NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
    let utc = scope(&db, "London");
    let pos = scope(&db, "Port of Spain");
    let patch = ProfilePatch {
        time_zone: TimeZone::parse("America/Port_of_Spain"),
        ..Default::default()
    };
    db.store.update_profile(pos, patch).unwrap();
    let in_utc = schedule(&db.store, utc, day, json!({}));
    let in_pos = schedule(&db.store, pos, day, json!({}));
    let at = |d: u32, h: u32, m: u32| {
        Utc.with_ymd_and_hms(2026, 2 + d / 100, d % 100, h, m, 0)
            .unwrap()
    };
    assert_eq!(db.store.issue_recurring(at(28, 23, 59)).unwrap(), 0);
    assert_eq!(db.store.issue_recurring(at(101, 0, 0)).unwrap(), 1);
    assert_eq!(issued(&db.store, utc, in_utc.id.0).len(), 1);
    assert_eq!(
        db.store.issue_recurring(at(101, 3, 59)).unwrap(),
        0,
        "still February there"
    );
    assert_eq!(db.store.issue_recurring(at(101, 4, 0)).unwrap(), 1);
    let made = issued(&db.store, pos, in_pos.id.0);
    assert_eq!(made.len(), 1);
    assert_eq!(made[0].issue_date, day);
}

backend_tests!(
    each_period_is_issued_once,
    periods_start_at_the_accounts_midnight,
    downtime_issues_each_missed_period_with_its_own_date,
    auto_send_email_and_completion,
    pause_resume_and_cancel,
    racing_sweepers_issue_each_period_once,
);
