//! Which reminder an open invoice is owed today (SPEC §18).

use chrono::{Days, NaiveDate};

/// The day an offset from the due date falls on; `None` outside the calendar.
fn day_of(due: NaiveDate, offset: i32) -> Option<NaiveDate> {
    let days = Days::new(u64::from(offset.unsigned_abs()));
    if offset >= 0 {
        due.checked_add_days(days)
    } else {
        due.checked_sub_days(days)
    }
}

/// The offset whose reminder is due for an invoice due on `due`, sent on `sent_on`, with the
/// offsets in `sent` already reminded: the latest offset whose day has come (never one that fell
/// before the invoice was sent), unless that or a later one was already sent. After downtime
/// this is one reminder, the latest, never a burst of old ones.
pub fn reminder_due(
    offsets: &[i32],
    due: NaiveDate,
    sent_on: NaiveDate,
    today: NaiveDate,
    sent: &[i32],
) -> Option<i32> {
    let latest = offsets
        .iter()
        .copied()
        .filter(|o| day_of(due, *o).is_some_and(|d| d <= today && d >= sent_on))
        .max()?;
    (!sent.iter().any(|s| *s >= latest)).then_some(latest)
}
