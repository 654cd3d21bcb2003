//! The merchant's day in storage (SPEC §27): each profile names its time zone, and a sweep that
//! asks "which invoices are overdue today" asks it once per date the accounts are on, since at
//! any instant the zones in use stand on at most three dates.

use crate::connection::AnyConnection;
use crate::rows::scoped;
use crate::schema::account_profiles;
use crate::store::TxError;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::expression::SqlLiteral;
use diesel::prelude::*;
use diesel::sql_types::Bool;
use invoicing_domain::tenant::Scope;
use invoicing_domain::time_zone::TimeZone;
use std::collections::BTreeMap;

/// The zone `scope` keeps its days in (UTC without a profile).
pub(crate) fn zone_of(conn: &mut AnyConnection, scope: Scope) -> Result<TimeZone, TxError> {
    let name: Option<String> = scoped!(account_profiles, scope)
        .select(account_profiles::time_zone)
        .first(conn)
        .optional()?;
    Ok(name.map(|n| TimeZone::from_stored(&n)).unwrap_or_default())
}

/// `scope`'s date at `now`.
pub(crate) fn today_of(
    conn: &mut AnyConnection,
    scope: Scope,
    now: DateTime<Utc>,
) -> Result<NaiveDate, TxError> {
    Ok(zone_of(conn, scope)?.today(now))
}

/// One date some accounts are on at an instant, and which accounts those are.
pub(crate) struct LocalDay {
    pub today: NaiveDate,
    /// SQL over `{t}` (the swept table, with `account_id` and `livemode`).
    condition: String,
}

impl LocalDay {
    /// The condition that keeps the rows of `table` whose account is on this date.
    pub(crate) fn rows_of(&self, table: &'static str) -> SqlLiteral<Bool> {
        diesel::dsl::sql::<Bool>(&self.condition.replace("{t}", table))
    }
}

/// The dates the accounts are on at `now`, the latest first.
pub(crate) fn local_days(
    conn: &mut AnyConnection,
    now: DateTime<Utc>,
) -> Result<Vec<LocalDay>, TxError> {
    let stored: Vec<String> = account_profiles::table
        .select(account_profiles::time_zone)
        .distinct()
        .load(conn)?;
    let mut by_date: BTreeMap<NaiveDate, Vec<TimeZone>> = BTreeMap::new();
    by_date.entry(TimeZone::UTC.today(now)).or_default();
    let mut others = Vec::new();
    for zone in stored.iter().filter_map(|n| TimeZone::parse(n)) {
        if zone != TimeZone::UTC {
            by_date.entry(zone.today(now)).or_default().push(zone);
            others.push(zone);
        }
    }
    let utc_date = TimeZone::UTC.today(now);
    Ok(by_date
        .into_iter()
        .rev()
        .map(|(today, zones)| {
            // UTC's date also holds every scope without a profile, or with a zone no longer known:
            // all but the others' zones.
            let condition = if today == utc_date {
                let elsewhere: Vec<TimeZone> = others
                    .iter()
                    .copied()
                    .filter(|z| !zones.contains(z))
                    .collect();
                match in_zones(&elsewhere) {
                    Some(list) => format!("NOT EXISTS ({})", profile_in(&list)),
                    None => "1 = 1".to_string(),
                }
            } else {
                let list = in_zones(&zones).unwrap_or_default();
                format!("EXISTS ({})", profile_in(&list))
            };
            LocalDay { today, condition }
        })
        .collect())
}

/// `'A', 'B'` for a SQL `IN`; the names come from the zone database (letters, digits and
/// `/_+-`), never from stored text, so quoting them is safe.
fn in_zones(zones: &[TimeZone]) -> Option<String> {
    if zones.is_empty() {
        return None;
    }
    let quoted: Vec<String> = zones.iter().map(|z| format!("'{}'", z.name())).collect();
    Some(quoted.join(", "))
}

fn profile_in(list: &str) -> String {
    format!(
        "SELECT 1 FROM account_profiles p WHERE p.account_id = {{t}}.account_id \
         AND p.livemode = {{t}}.livemode AND p.time_zone IN ({list})"
    )
}
