use super::RecurringStatus::*;
use super::*;
use chrono::Datelike;
use proptest::prelude::*;

fn d(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

#[test]
fn the_table_over_every_pair() {
    let allowed = [
        (Active, Paused),
        (Paused, Active),
        (Active, Cancelled),
        (Paused, Cancelled),
        (Active, Completed),
    ];
    for from in RecurringStatus::ALL {
        for to in RecurringStatus::ALL {
            let expected = allowed.contains(&(from, to));
            assert_eq!(from.transition(to).is_ok(), expected, "{from} -> {to}");
        }
        assert_eq!(RecurringStatus::parse(from.as_str()), Some(from));
    }
    assert_eq!(Paused.event_type(Some(Active)), "recurring_invoice.paused");
    assert_eq!(Active.event_type(Some(Paused)), "recurring_invoice.resumed");
    assert_eq!(Active.event_type(None), "recurring_invoice.created");
}

#[test]
fn month_ends_are_kept_and_clamped() {
    let c = Cadence::new(Interval::Month, 1, d("2027-01-31")).unwrap();
    let dates: Vec<_> = (0..5).map(|n| c.period(n).unwrap()).collect();
    assert_eq!(
        dates,
        [
            d("2027-01-31"),
            d("2027-02-28"),
            d("2027-03-31"),
            d("2027-04-30"),
            d("2027-05-31")
        ]
    );
    let leap = Cadence::new(Interval::Year, 1, d("2028-02-29")).unwrap();
    assert_eq!(leap.period(1), Some(d("2029-02-28")));
    assert_eq!(leap.period(4), Some(d("2032-02-29")));
    let fortnight = Cadence::new(Interval::Week, 2, d("2027-01-01")).unwrap();
    assert_eq!(fortnight.period(3), Some(d("2027-02-12")));
    assert!(Cadence::new(Interval::Week, 0, d("2027-01-01")).is_none());
    assert!(Cadence::new(Interval::Week, 53, d("2027-01-01")).is_none());
}

#[test]
fn a_sweep_after_downtime_issues_each_missed_period_with_its_own_date() {
    let c = Cadence::new(Interval::Month, 1, d("2027-01-15")).unwrap();
    assert_eq!(c.due(End::Never, 0, d("2027-01-14")), []);
    assert_eq!(
        c.due(End::Never, 0, d("2027-01-15")),
        [(0, d("2027-01-15"))]
    );
    assert_eq!(
        c.due(End::Never, 1, d("2027-04-20")),
        [
            (1, d("2027-02-15")),
            (2, d("2027-03-15")),
            (3, d("2027-04-15"))
        ]
    );
    assert_eq!(
        c.due(End::Occurrences(2), 1, d("2027-04-20")),
        [(1, d("2027-02-15"))]
    );
    assert_eq!(
        c.due(End::Date(d("2027-03-14")), 1, d("2027-04-20")),
        [(1, d("2027-02-15"))]
    );
}

#[test]
fn resume_finds_the_first_period_on_or_after_today() {
    let c = Cadence::new(Interval::Month, 1, d("2027-01-31")).unwrap();
    assert_eq!(
        c.first_on_or_after(d("2026-12-01")),
        Some((0, d("2027-01-31")))
    );
    assert_eq!(
        c.first_on_or_after(d("2027-02-28")),
        Some((1, d("2027-02-28")))
    );
    assert_eq!(
        c.first_on_or_after(d("2027-03-01")),
        Some((2, d("2027-03-31")))
    );
    let w = Cadence::new(Interval::Week, 1, d("2027-01-01")).unwrap();
    assert_eq!(
        w.first_on_or_after(d("2027-01-02")),
        Some((1, d("2027-01-08")))
    );
}

fn days_in_month(y: i32, m: u32) -> u32 {
    let next = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    NaiveDate::from_ymd_opt(next.0, next.1, 1)
        .unwrap()
        .pred_opt()
        .unwrap()
        .day()
}

proptest! {
    /// Periods strictly increase and never skip or repeat a month; each keeps the start's day,
    /// clamped to short months.
    #[test]
    fn monthly_periods_never_skip_or_repeat(
        y in 2000i32..2100, m in 1u32..=12, day in 1u32..=31, count in 1u32..=52,
    ) {
        let day = day.min(days_in_month(y, m));
        let start = NaiveDate::from_ymd_opt(y, m, day).unwrap();
        let c = Cadence::new(Interval::Month, count, start).unwrap();
        let mut prev = None;
        for n in 0..40 {
            let date = c.period(n).unwrap();
            let months = (date.year() - y) * 12 + date.month() as i32 - m as i32;
            prop_assert_eq!(months, (n * count) as i32);
            prop_assert_eq!(date.day(), day.min(days_in_month(date.year(), date.month())));
            if let Some(p) = prev {
                prop_assert!(date > p);
            }
            prev = Some(date);
            let (k, first) = c.first_on_or_after(date).unwrap();
            prop_assert_eq!((k, first), (n, date));
        }
    }

    /// Yearly from Feb 29: Feb 29 in leap years, Feb 28 in the others.
    #[test]
    fn yearly_from_february_29(leap in (500i32..525).prop_map(|k| k * 4), n in 0u32..100) {
        let start = NaiveDate::from_ymd_opt(leap, 2, 29).unwrap();
        let c = Cadence::new(Interval::Year, 1, start).unwrap();
        let date = c.period(n).unwrap();
        prop_assert_eq!(date.year(), leap + n as i32);
        prop_assert_eq!(date.month(), 2);
        prop_assert_eq!(date.day(), days_in_month(date.year(), 2));
    }

    /// Sweeping on any sequence of days issues every period up to the last day once, in order.
    #[test]
    fn sweeps_issue_each_period_once(
        gaps in proptest::collection::vec(0u64..70, 1..20),
        interval in prop_oneof![Just(Interval::Week), Just(Interval::Month), Just(Interval::Year)],
        count in 1u32..4,
    ) {
        let start = d("2027-01-31");
        let c = Cadence::new(interval, count, start).unwrap();
        let mut next = 0;
        let mut issued = Vec::new();
        let mut today = start - Days::new(3);
        for gap in gaps {
            today = today + Days::new(gap);
            for (n, date) in c.due(End::Never, next, today) {
                prop_assert_eq!(n, next);
                issued.push(date);
                next += 1;
            }
        }
        let expected: Vec<_> = (0..).map_while(|n| c.period(n).filter(|p| *p <= today)).collect();
        prop_assert_eq!(issued, expected);
    }
}
