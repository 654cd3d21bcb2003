//! Status moves, public lookups and sweeps for any document kind.
//!
//! Every status change goes through `move_status`: an `UPDATE … WHERE status = <from>` that
//! the database arbitrates. A writer that holds the row lock and a reader that took none (the
//! public page marking a document viewed, a sweeper) therefore cannot overwrite each other: the
//! one that finds the status already changed gets `InvalidTransition` and writes no event.

use crate::connection::AnyConnection;
use crate::events::record;
use crate::parties::keep_parties;
use crate::rows::now_db;
use crate::store::{Store, TxError};
use chrono::{NaiveDate, NaiveDateTime};
use invoicing_domain::customer::CustomerId;
use invoicing_domain::document_rules::{self, DocumentStatus, FirstView, PatchRefused, PatchShape};
use invoicing_domain::ports::{RepoError, RepoResult};
use invoicing_domain::tenant::{Actor, Scope};
use invoicing_domain::validation::Problem;
use serde::Serialize;

/// One document kind's stored row, as the core reads and moves it.
pub(crate) trait DocumentRow: Sized {
    type Status: DocumentStatus;

    fn scope(&self) -> Scope;
    fn id(&self) -> i64;
    fn number(&self) -> &str;
    fn customer(&self) -> CustomerId;
    fn status(&self) -> Result<Self::Status, TxError>;

    /// The row a capability token names, in any tenant (the token is the credential).
    fn by_token(conn: &mut AnyConnection, token: &str) -> Result<Option<Self>, TxError>;

    /// Re-reads the row (403/404 when the scope does not see it).
    fn reload(conn: &mut AnyConnection, scope: Scope, id: i64) -> Result<Self, TxError>;

    /// `UPDATE … SET status = to, updated_at = now, <to's timestamp> = now WHERE id = id AND
    /// status = from` in the scope; the number of rows moved (0 or 1).
    fn update_status(
        conn: &mut AnyConnection,
        scope: Scope,
        id: i64,
        from: Self::Status,
        to: Self::Status,
        now: NaiveDateTime,
    ) -> Result<usize, TxError>;

    /// `UPDATE … SET viewed_at = now, updated_at = now WHERE id = id AND status = status AND
    /// viewed_at IS NULL` in the scope; the number of rows stamped (0 or 1).
    fn stamp_viewed(
        conn: &mut AnyConnection,
        scope: Scope,
        id: i64,
        status: Self::Status,
        now: NaiveDateTime,
    ) -> Result<usize, TxError>;
}

fn refused(reason: impl ToString) -> TxError {
    RepoError::InvalidTransition(reason.to_string()).into()
}

/// Moves `row` from the status it was read with to `to`, if the transition table allows it
/// and nobody changed it since (409 otherwise). Leaving the draft fixes the parties the
/// document shows. Writes no event: see `move_and_record`.
pub(crate) fn move_status<R: DocumentRow>(
    conn: &mut AnyConnection,
    row: &R,
    to: R::Status,
) -> Result<(), TxError> {
    let from = row.status()?;
    from.check_move(to).map_err(refused)?;
    let scope = row.scope();
    if from == R::Status::DRAFT && to != R::Status::DRAFT {
        keep_parties(conn, scope, R::Status::KIND, row.id(), row.customer())?;
    }
    let now = now_db();
    if R::update_status(conn, scope, row.id(), from, to, now)? == 0 {
        let now = R::reload(conn, scope, row.id())?.status()?;
        return Err(refused(format!(
            "a {} cannot go from {now} to {to}: it changed meanwhile",
            R::Status::KIND.as_str()
        )));
    }
    crate::books::on_invoice_move(conn, scope, row.id(), from.counting(to), now)
}

/// `move_status`, then the document as `load` reads it, recorded in the row's tenant as `to`'s
/// event caused by `actor` (a row read from the database knows its tenant, not who acts).
pub(crate) fn move_and_record<R: DocumentRow, D: Serialize>(
    conn: &mut AnyConnection,
    actor: Actor,
    row: &R,
    to: R::Status,
    load: impl FnOnce(&mut AnyConnection) -> Result<D, TxError>,
) -> Result<D, TxError> {
    move_status(conn, row, to)?;
    let document = load(conn)?;
    record(
        conn,
        row.scope().acting_as(actor),
        to.event_type(),
        &document,
    )?;
    Ok(document)
}

/// A public read of a document: the first one does what the domain says (`first_view`): a
/// sent document moves to viewed; an overdue invoice or expired quotation nobody had opened
/// keeps its status and gets `viewed_at`; either writes the viewed event, caused by the
/// customer. Concurrent first views, or a cancel committed meanwhile, find the row changed,
/// which is no error for a reader (and writes nothing).
pub(crate) fn first_view<R: DocumentRow, D: Serialize>(
    conn: &mut AnyConnection,
    row: &R,
    load: impl FnOnce(&mut AnyConnection) -> Result<D, TxError>,
) -> Result<(), TxError> {
    let status = row.status()?;
    match status.first_view() {
        FirstView::Nothing => Ok(()),
        FirstView::Move(to) => match move_and_record(conn, Actor::Customer, row, to, load) {
            Ok(_) | Err(TxError::Repo(RepoError::InvalidTransition(_))) => Ok(()),
            Err(e) => Err(e),
        },
        FirstView::Record => {
            let scope = row.scope();
            if R::stamp_viewed(conn, scope, row.id(), status, now_db())? == 0 {
                return Ok(());
            }
            let document = load(conn)?;
            record(
                conn,
                scope.acting_as(Actor::Customer),
                R::Status::VIEWED.event_type(),
                &document,
            )
        }
    }
}

/// Refuses a patch the document rules do not allow for `row` as stored: 409 for what only a
/// draft may change, 422 for a closing date before the issue date.
pub(crate) fn check_patch<R: DocumentRow>(
    row: &R,
    issue_date: NaiveDate,
    patch: PatchShape,
) -> Result<(), TxError> {
    document_rules::check_patch(row.status()?, issue_date, patch).map_err(|e| match e {
        PatchRefused::NotDraft { .. } => refused(e),
        PatchRefused::BeforeIssueDate { field } => {
            RepoError::invalid(field, Problem::not_before("issue_date", e.to_string())).into()
        }
    })
}

/// The document a public link names: the number must match the token's document, and
/// documents in a private status (drafts) do not exist for the public. One answer (404) for
/// every miss, so a link reveals nothing about documents it does not name.
pub(crate) fn public_row<R: DocumentRow>(
    conn: &mut AnyConnection,
    number: &str,
    token: &str,
) -> Result<R, TxError> {
    match R::by_token(conn, token)? {
        Some(row) if row.number() == number && row.status()?.is_public() => Ok(row),
        _ => Err(RepoError::NotFound.into()),
    }
}

/// Moves every document `due` returns to `to`, one transaction each, in batches until none
/// is left; the number moved; the events are the system's. A document another process (or a
/// request) moved first is skipped, so racing sweepers write one event per document between
/// them.
pub(crate) fn sweep<R: DocumentRow, D: Serialize>(
    store: &Store,
    due: impl Fn(&mut AnyConnection) -> Result<Vec<R>, TxError>,
    to: R::Status,
    load: impl Fn(&mut AnyConnection, &R) -> Result<D, TxError>,
) -> RepoResult<usize> {
    let mut moved = 0;
    loop {
        let batch = store.read(&due)?;
        if batch.is_empty() {
            return Ok(moved);
        }
        for row in batch {
            let moved_by_system = store
                .write(|conn| move_and_record(conn, Actor::System, &row, to, |c| load(c, &row)));
            match moved_by_system {
                Ok(_) => moved += 1,
                Err(RepoError::InvalidTransition(_)) => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// [`sweep`] once per date the accounts are on at `now` (SPEC §27: each account's "today" is
/// its own): `due` picks the rows due on that day, of the accounts on it.
pub(crate) fn sweep_local<R: DocumentRow, D: Serialize>(
    store: &Store,
    now: chrono::DateTime<chrono::Utc>,
    due: impl Fn(&mut AnyConnection, &crate::local_days::LocalDay) -> Result<Vec<R>, TxError>,
    to: R::Status,
    load: impl Fn(&mut AnyConnection, &R) -> Result<D, TxError>,
) -> RepoResult<usize> {
    let mut moved = 0;
    for day in store.read(|conn| crate::local_days::local_days(conn, now))? {
        moved += sweep(store, |conn| due(conn, &day), to, &load)?;
    }
    Ok(moved)
}

/// Implements `DocumentRow` for a row type with `id`, `number`, `customer_id`, `token` and
/// `status` columns and inherent `scope()` / `status()`: `stamped` lists the statuses with the
/// timestamp column set on entry, `unstamped` the others (every status once, so a new status
/// does not compile until it is placed).
macro_rules! document_row {
    (
        $row:ty, $table:ident, $status:ident,
        stamped { $($stamp_status:ident => $stamp:ident),* $(,)? },
        unstamped { $($plain:ident),* $(,)? }
    ) => {
        impl $crate::documents::DocumentRow for $row {
            type Status = $status;

            fn scope(&self) -> invoicing_domain::tenant::Scope {
                <$row>::scope(self)
            }
            fn id(&self) -> i64 {
                self.id
            }
            fn number(&self) -> &str {
                &self.number
            }
            fn customer(&self) -> invoicing_domain::customer::CustomerId {
                invoicing_domain::customer::CustomerId(self.customer_id)
            }
            fn status(&self) -> Result<$status, $crate::store::TxError> {
                <$row>::status(self)
            }
            fn by_token(
                conn: &mut $crate::connection::AnyConnection,
                token: &str,
            ) -> Result<Option<Self>, $crate::store::TxError> {
                Ok($table::table
                    .filter($table::token.eq(token))
                    .select(<$row>::as_select())
                    .first::<$row>(conn)
                    .optional()?)
            }
            fn reload(
                conn: &mut $crate::connection::AnyConnection,
                scope: invoicing_domain::tenant::Scope,
                id: i64,
            ) -> Result<Self, $crate::store::TxError> {
                match $crate::rows::scoped!($table, scope)
                    .filter($table::id.eq(id))
                    .select(<$row>::as_select())
                    .first::<$row>(conn)
                    .optional()?
                {
                    Some(row) => Ok(row),
                    None => Err($crate::rows::missing_or_forbidden!(conn, $table, id).into()),
                }
            }
            fn update_status(
                conn: &mut $crate::connection::AnyConnection,
                scope: invoicing_domain::tenant::Scope,
                id: i64,
                from: $status,
                to: $status,
                now: chrono::NaiveDateTime,
            ) -> Result<usize, $crate::store::TxError> {
                let target = $crate::rows::scoped!($table, scope)
                    .filter($table::id.eq(id))
                    .filter($table::status.eq(from.as_str()));
                let moved = ($table::status.eq(to.as_str()), $table::updated_at.eq(now));
                Ok(match to {
                    $($status::$stamp_status => diesel::update(target)
                        .set((moved, $table::$stamp.eq(now)))
                        .execute(conn)?,)*
                    $($status::$plain)|* => diesel::update(target).set(moved).execute(conn)?,
                })
            }
            fn stamp_viewed(
                conn: &mut $crate::connection::AnyConnection,
                scope: invoicing_domain::tenant::Scope,
                id: i64,
                status: $status,
                now: chrono::NaiveDateTime,
            ) -> Result<usize, $crate::store::TxError> {
                let target = $crate::rows::scoped!($table, scope)
                    .filter($table::id.eq(id))
                    .filter($table::status.eq(status.as_str()))
                    .filter($table::viewed_at.is_null());
                Ok(diesel::update(target)
                    .set(($table::viewed_at.eq(now), $table::updated_at.eq(now)))
                    .execute(conn)?)
            }
        }
    };
}
pub(crate) use document_row;
