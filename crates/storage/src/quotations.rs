//! Quotations: numbered drafts and their edits, and the repository that drives the lifecycle
//! (`quotation_flow`): sending, the prospect's answer, expiry and conversion.

use crate::capped::{capped_page, count_up_to_cap, kept_page, uncounted_page};
use crate::connection::AnyConnection;
use crate::documents::{
    account_defaults, check_lines_currency, check_patch, document_customer, first_view,
    insert_lines, kept_count, public_row, replace_lines, resolve_lines, resolve_numbered_draft,
    sweep_local, Resolved,
};
use crate::events::record;
use crate::local_days::LocalDay;
use crate::outbox::{queue, Document};
use crate::quotation_flow::{answer, convert, finish_answer, move_quotation, public_view, refused};
use crate::quotation_rows::{load_quotation, load_row, to_quotations, QuotationRow};
use crate::rows::{lock_scoped, now_db, scoped};
use crate::schema::{line_items, quotations};
use crate::store::{Store, TxError};
use chrono::{DateTime, Datelike, NaiveDate, Utc};
use diesel::prelude::*;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::document::{CustomerRef, DocumentKind};
use invoicing_domain::email::{EmailKind, EmailRequest};
use invoicing_domain::invoice::Due;
use invoicing_domain::paging::{Page, PageRequest};
use invoicing_domain::ports::{QuotationRepository, RepoError, RepoResult};
use invoicing_domain::quotation::{
    Answer, ConversionResult, NewQuotation, PublicQuotation, Quotation, QuotationFilter,
    QuotationId, QuotationPatch,
};
use invoicing_domain::quotation_status::QuotationStatus;
use invoicing_domain::tenant::{Actor, Scope};

fn insert(
    conn: &mut AnyConnection,
    scope: Scope,
    new: &NewQuotation,
    url: &str,
) -> Result<Quotation, TxError> {
    let now = now_db();
    let (
        Resolved {
            customer_id,
            currency,
            lines,
            ..
        },
        number,
    ) = resolve_numbered_draft(
        conn,
        scope,
        &new.customer,
        new.currency,
        &new.lines,
        (DocumentKind::Quotation, now.year()),
    )?;
    let id = diesel::insert_into(quotations::table)
        .values((
            quotations::account_id.eq(scope.account_id.0),
            quotations::livemode.eq(scope.livemode()),
            quotations::number.eq(number),
            quotations::status.eq(QuotationStatus::Draft.as_str()),
            quotations::customer_id.eq(customer_id),
            quotations::currency.eq(currency.code()),
            quotations::issue_date.eq(new.issue_date),
            quotations::valid_until.eq(new.valid_until),
            quotations::subtotal_cents.eq(lines.totals.subtotal.minor()),
            quotations::tax_cents.eq(lines.totals.tax.minor()),
            quotations::total_cents.eq(lines.totals.total.minor()),
            quotations::notes.eq(&new.notes),
            quotations::metadata.eq(new.metadata.to_json()),
            quotations::token.eq(&new.token),
            quotations::created_at.eq(now),
            quotations::updated_at.eq(now),
        ))
        .returning(quotations::id)
        .get_result::<i64>(conn)?;
    insert_lines(conn, scope, DocumentKind::Quotation, id, &lines)?;
    let quotation = load_quotation(conn, scope, QuotationId(id), url)?;
    record(conn, scope, QuotationStatus::Draft.event_type(), &quotation)?;
    Ok(quotation)
}

fn update(
    conn: &mut AnyConnection,
    scope: Scope,
    id: QuotationId,
    patch: &QuotationPatch,
    url: &str,
) -> Result<Quotation, TxError> {
    lock_scoped!(conn, quotations, scope, id.0)?;
    let row = load_row(conn, scope, id)?;
    check_patch(&row, row.issue_date, patch.shape())?;
    let customer_id = match patch.customer_id {
        Some(c) => Some(document_customer(conn, scope, &CustomerRef::Existing(c))?),
        None => None,
    };
    let target = scoped!(quotations, scope).filter(quotations::id.eq(row.id));
    if *patch == QuotationPatch::default() {
        return load_quotation(conn, scope, id, url);
    }
    if let Some(d) = patch.valid_until {
        diesel::update(target)
            .set(quotations::valid_until.eq(d))
            .execute(conn)?;
    }
    if let Some(notes) = &patch.notes {
        diesel::update(target)
            .set(quotations::notes.eq(notes))
            .execute(conn)?;
    }
    if let Some(metadata) = &patch.metadata {
        diesel::update(target)
            .set(quotations::metadata.eq(metadata.to_json()))
            .execute(conn)?;
    }
    if let Some(currency) = patch.currency {
        if patch.lines.is_none() {
            check_lines_currency(conn, scope, DocumentKind::Quotation, row.id, currency)?;
        }
        diesel::update(target)
            .set(quotations::currency.eq(currency.code()))
            .execute(conn)?;
    }
    if let Some(c) = customer_id {
        diesel::update(target)
            .set(quotations::customer_id.eq(c))
            .execute(conn)?;
    }
    if let Some(drafts) = &patch.lines {
        let currency = match patch.currency {
            Some(c) => c,
            None => invoicing_domain::currency::Currency::parse(&row.currency)
                .map_err(|_| RepoError::Internal(format!("quotation {} currency", row.id)))?,
        };
        let mode = account_defaults(conn, scope)?.tax_rounding;
        let lines = resolve_lines(conn, scope, currency, drafts, mode)?;
        replace_lines(conn, scope, DocumentKind::Quotation, row.id, &lines)?;
        diesel::update(target)
            .set((
                quotations::subtotal_cents.eq(lines.totals.subtotal.minor()),
                quotations::tax_cents.eq(lines.totals.tax.minor()),
                quotations::total_cents.eq(lines.totals.total.minor()),
            ))
            .execute(conn)?;
    }
    diesel::update(target)
        .set(quotations::updated_at.eq(now_db()))
        .execute(conn)?;
    let quotation = load_quotation(conn, scope, id, url)?;
    record(conn, scope, "quotation.updated", &quotation)?;
    Ok(quotation)
}

/// Sends a draft; with `email`, the message is queued in the same transaction.
fn send(
    conn: &mut AnyConnection,
    scope: Scope,
    id: QuotationId,
    email: Option<EmailRequest>,
    url: &str,
) -> Result<Quotation, TxError> {
    let row = load_row(conn, scope, id)?;
    let quotation = move_quotation(conn, scope.actor, &row, QuotationStatus::Sent, url)?;
    if let Some(request) = email {
        let doc = Document {
            kind: DocumentKind::Quotation,
            id: row.id,
            number: &row.number,
            customer: CustomerId(row.customer_id),
        };
        queue(conn, scope, EmailKind::Quotation, doc, request)?;
    }
    Ok(quotation)
}

impl QuotationRepository for Store {
    fn create_quotation(&self, scope: Scope, new: NewQuotation) -> RepoResult<Quotation> {
        let url = self.public_url();
        self.write_retrying_unique(|conn| insert(conn, scope, &new, &url))
    }

    fn create_and_send_quotation(
        &self,
        scope: Scope,
        new: NewQuotation,
        email: Option<EmailRequest>,
    ) -> RepoResult<Quotation> {
        let url = self.public_url();
        self.write_retrying_unique(|conn| {
            let created = insert(conn, scope, &new, &url)?;
            send(conn, scope, created.id, email.clone(), &url)
        })
    }

    fn get_quotation(&self, scope: Scope, id: QuotationId) -> RepoResult<Quotation> {
        let url = self.public_url();
        self.read_snapshot(|conn| load_quotation(conn, scope, id, &url))
    }

    fn list_quotations(
        &self,
        scope: Scope,
        filter: &QuotationFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Quotation>> {
        let url = self.public_url();
        self.read_snapshot(|conn| {
            let query = || {
                let mut q = scoped!(quotations, scope).into_boxed();
                if let Some(s) = filter.status {
                    q = q.filter(quotations::status.eq(s.as_str()));
                }
                if let Some(c) = filter.customer_id {
                    q = q.filter(quotations::customer_id.eq(c.0));
                }
                if filter.awaiting_answer {
                    q = q.filter(quotations::status.eq_any([
                        QuotationStatus::Sent.as_str(),
                        QuotationStatus::Viewed.as_str(),
                    ]));
                }
                q
            };
            let rows = crate::rows::below!(query(), quotations, page)
                .order((quotations::created_at.desc(), quotations::id.desc()))
                .limit(page.limit() + 1)
                .offset(page.offset())
                .select(QuotationRow::as_select())
                .load::<QuotationRow>(conn)?;
            if !page.counts() {
                return uncounted_page(rows, page, |rows| to_quotations(conn, scope, rows, &url));
            }
            if filter.customer_id.is_none() && !filter.awaiting_answer {
                let total =
                    kept_count(conn, scope, "quotation", filter.status.map(|s| s.as_str()))?;
                return kept_page(rows, page, total, |rows| {
                    to_quotations(conn, scope, rows, &url)
                });
            }
            let counted = count_up_to_cap(conn, query().select(quotations::id))?;
            capped_page(rows, page, counted, |rows| {
                to_quotations(conn, scope, rows, &url)
            })
        })
    }

    fn update_quotation(
        &self,
        scope: Scope,
        id: QuotationId,
        patch: QuotationPatch,
    ) -> RepoResult<Quotation> {
        let url = self.public_url();
        self.write(|conn| update(conn, scope, id, &patch, &url))
    }

    fn delete_quotation(&self, scope: Scope, id: QuotationId) -> RepoResult<()> {
        let url = self.public_url();
        self.write(|conn| {
            lock_scoped!(conn, quotations, scope, id.0)?;
            let quotation = load_quotation(conn, scope, id, &url)?;
            if quotation.status != QuotationStatus::Draft {
                return Err(refused(format!(
                    "only drafts can be deleted; this quotation is {}",
                    quotation.status
                )));
            }
            diesel::delete(
                line_items::table
                    .filter(line_items::account_id.eq(scope.account_id.0))
                    .filter(line_items::document_kind.eq(DocumentKind::Quotation.as_str()))
                    .filter(line_items::document_id.eq(id.0)),
            )
            .execute(conn)?;
            diesel::delete(scoped!(quotations, scope).filter(quotations::id.eq(id.0)))
                .execute(conn)?;
            record(conn, scope, "quotation.deleted", &quotation)?;
            Ok(())
        })
    }

    fn send_quotation(
        &self,
        scope: Scope,
        id: QuotationId,
        email: Option<EmailRequest>,
    ) -> RepoResult<Quotation> {
        let url = self.public_url();
        self.write(|conn| send(conn, scope, id, email.clone(), &url))
    }

    fn answer_quotation(
        &self,
        scope: Scope,
        id: QuotationId,
        answer_: Answer,
        today: NaiveDate,
    ) -> RepoResult<Quotation> {
        let url = self.public_url();
        finish_answer(self.write(|conn| {
            let row = load_row(conn, scope, id)?;
            answer(conn, scope.actor, &row, &answer_, today, &url)
        }))
    }

    fn view_public_quotation(&self, number: &str, token: &str) -> RepoResult<PublicQuotation> {
        let url = self.public_url();
        self.write(|conn| {
            let row = public_row::<QuotationRow>(conn, number, token)?;
            first_view(conn, &row, |c| {
                load_quotation(c, row.scope(), QuotationId(row.id), &url)
            })?;
            public_view(conn, &row, &url)
        })
    }

    fn quotation_as_shown(&self, scope: Scope, id: QuotationId) -> RepoResult<PublicQuotation> {
        let url = self.public_url();
        self.read(|conn| {
            let row = load_row(conn, scope, id)?;
            public_view(conn, &row, &url)
        })
    }

    fn find_public_quotation(&self, number: &str, token: &str) -> RepoResult<PublicQuotation> {
        let url = self.public_url();
        self.read(|conn| {
            let row = public_row::<QuotationRow>(conn, number, token)?;
            public_view(conn, &row, &url)
        })
    }

    fn answer_public_quotation(
        &self,
        number: &str,
        token: &str,
        answer_: Answer,
        now: DateTime<Utc>,
    ) -> RepoResult<PublicQuotation> {
        let url = self.public_url();
        let answered = self.write(|conn| {
            let row = public_row::<QuotationRow>(conn, number, token)?;
            let today = crate::local_days::today_of(conn, row.scope(), now)?;
            // Answered on the quotation's page: the prospect acts.
            Ok((
                row.clone(),
                answer(conn, Actor::Customer, &row, &answer_, today, &url)?,
            ))
        })?;
        finish_answer(Ok(answered.1))?;
        self.read_snapshot(|conn| public_view(conn, &answered.0, &url))
    }

    fn convert_quotation(
        &self,
        scope: Scope,
        id: QuotationId,
        due: Due,
        token: String,
        today: NaiveDate,
    ) -> RepoResult<ConversionResult> {
        let url = self.public_url();
        let result = self.try_write(|conn| convert(conn, scope, id, due, &token, today, &url));
        result.map_err(|e| {
            if e.is_unique_violation() {
                RepoError::InvalidTransition("the quotation has already been converted".into())
            } else {
                e.into_repo()
            }
        })
    }

    fn mark_expired_quotations(&self, now: DateTime<Utc>) -> RepoResult<usize> {
        let url = self.public_url();
        let due = |conn: &mut AnyConnection, day: &LocalDay| {
            Ok(quotations::table
                .filter(quotations::status.eq_any([
                    QuotationStatus::Sent.as_str(),
                    QuotationStatus::Viewed.as_str(),
                ]))
                .filter(quotations::valid_until.lt(day.today))
                .filter(day.rows_of("quotations"))
                .order(quotations::id)
                .limit(200)
                .select(QuotationRow::as_select())
                .load::<QuotationRow>(conn)?)
        };
        sweep_local(self, now, due, QuotationStatus::Expired, |conn, row| {
            load_quotation(conn, row.scope(), QuotationId(row.id), &url)
        })
    }
}
