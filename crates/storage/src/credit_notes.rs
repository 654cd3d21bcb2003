//! Credit notes (SPEC §19): issued against an invoice in one transaction with the invoice's
//! credited amount, its move to paid or cancelled when nothing is left due, the events and the
//! optional email. The invoice's row lock serialises credits of one invoice, so together they
//! never exceed its total; the number is taken last, so the counter row is held briefly.

use crate::capped::{kept_page, uncounted_page};
use crate::connection::AnyConnection;
use crate::documents::move_and_record;
use crate::documents::take_number;
use crate::documents::{insert_lines, read_lines, resolve_lines};
use crate::events::record;
use crate::invoice_rows::{load_invoice, load_row as load_invoice_row, payment_link};
use crate::outbox::{queue, Document};
use crate::parties::document_parties;
use crate::rows::{from_db, lock_scoped, missing_or_forbidden, now_db, returning, scoped};
use crate::schema::{credit_notes, invoices};
use crate::store::{Store, TxError};
use chrono::{Datelike, NaiveDateTime};
use diesel::prelude::*;
use invoicing_domain::credit_note::{
    apply_credit, split_gross, CreditContent, CreditError, CreditNote, CreditNoteFilter,
    CreditNoteId, CreditReason, InvoiceBalance, NewCreditNote, PublicCreditNote, RateShare,
};
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::decimal::{Quantity, TaxRate};
use invoicing_domain::document::{DocumentKind, LineItem, Lines};
use invoicing_domain::einvoice::{LineTax, TaxCategory, DEFAULT_UNIT};
use invoicing_domain::email::{EmailKind, EmailRequest};
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::invoice::References;
use invoicing_domain::lines::{document_totals, LineAmounts};
use invoicing_domain::money::Money;
use invoicing_domain::paging::{Page, PageRequest};
use invoicing_domain::ports::{CreditNoteRepository, RepoError, RepoResult};
use invoicing_domain::report::books::{self, BookLine};
use invoicing_domain::supply::SupplyFields;
use invoicing_domain::tenant::Scope;
use std::collections::BTreeMap;

#[derive(Queryable, Selectable)]
#[diesel(table_name = credit_notes)]
struct CreditNoteRow {
    id: i64,
    livemode: bool,
    number: String,
    invoice_id: i64,
    customer_id: i64,
    currency: String,
    reason: String,
    memo: Option<String>,
    subtotal_cents: i64,
    tax_cents: i64,
    total_cents: i64,
    refund_due_cents: i64,
    created_at: NaiveDateTime,
    refs: Option<String>,
}

fn to_credit_notes(
    conn: &mut AnyConnection,
    scope: Scope,
    rows: Vec<CreditNoteRow>,
) -> Result<Vec<CreditNote>, TxError> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let mut lines = read_lines(conn, scope, DocumentKind::CreditNote, &ids)?;
    rows.into_iter()
        .map(|row| {
            let bad = |what: &str| RepoError::Internal(format!("credit note {}: {what}", row.id));
            let refs = References::from_json(row.refs.as_deref());
            Ok(CreditNote {
                id: CreditNoteId(row.id),
                object: CreditNote::OBJECT,
                credit_note_number: row.number,
                invoice_id: InvoiceId(row.invoice_id),
                customer_id: CustomerId(row.customer_id),
                currency: Currency::parse(&row.currency).map_err(|_| bad("currency"))?,
                reason: CreditReason::parse(&row.reason).ok_or_else(|| bad("reason"))?,
                memo: row.memo,
                line_items: lines.remove(&row.id).unwrap_or_default(),
                subtotal_cents: row.subtotal_cents,
                tax_cents: row.tax_cents,
                total_cents: row.total_cents,
                refund_due_cents: row.refund_due_cents,
                delivery_date: refs.supply.delivery_date,
                service_period: refs.supply.service_period,
                buyer_reference: refs.buyer_reference,
                purchase_order: refs.purchase_order,
                livemode: row.livemode,
                created_at: from_db(row.created_at),
            })
        })
        .collect()
}

fn load(conn: &mut AnyConnection, scope: Scope, id: CreditNoteId) -> Result<CreditNote, TxError> {
    let row = scoped!(credit_notes, scope)
        .filter(credit_notes::id.eq(id.0))
        .select(CreditNoteRow::as_select())
        .first::<CreditNoteRow>(conn)
        .optional()?;
    match row {
        Some(row) => to_credit_notes(conn, scope, vec![row])?
            .pop()
            .ok_or_else(|| RepoError::Internal("credit note vanished".into()).into()),
        None => Err(missing_or_forbidden!(conn, credit_notes, id.0).into()),
    }
}

/// The lines of a gross credit: one per tax rate of the invoice, in proportion to each rate's
/// part of its total.
fn split_lines(
    conn: &mut AnyConnection,
    scope: Scope,
    invoice_id: i64,
    number: &str,
    amount: Money,
) -> Result<Vec<LineItem>, TxError> {
    let lines = read_lines(conn, scope, DocumentKind::Invoice, &[invoice_id])?
        .remove(&invoice_id)
        .unwrap_or_default();
    // One share per rate and VAT category, so each credit line keeps its lines' category.
    let mut by_rate: BTreeMap<(i64, LineTax), (TaxRate, i64)> = BTreeMap::new();
    for l in &lines {
        let vat = LineTax {
            category: l.tax_category,
            exemption_reason: l.tax_exemption_reason.clone(),
        };
        by_rate
            .entry((l.tax_rate.thousandths(), vat))
            .or_insert((l.tax_rate, 0))
            .1 += l.total_cents;
    }
    let (vats, shares): (Vec<LineTax>, Vec<RateShare>) = by_rate
        .into_iter()
        .map(|((_, vat), (rate, gross))| (vat, RateShare { rate, gross }))
        .unzip();
    let several = shares.iter().filter(|s| s.gross > 0).count() > 1;
    split_gross(amount.minor(), &shares)
        .into_iter()
        .map(|part| {
            let money = |m: i64| {
                Money::new(m).map_err(|e| TxError::from(RepoError::Internal(e.to_string())))
            };
            let vat = vats.get(part.share).cloned().unwrap_or_default();
            let description = if several {
                // 0 % lines of different categories are told apart by it.
                let category = vat
                    .category
                    .filter(|c| *c != TaxCategory::S)
                    .map(|c| format!(" {}", c.code()));
                format!(
                    "Credit for {number} ({} %{})",
                    part.rate,
                    category.unwrap_or_default()
                )
            } else {
                format!("Credit for {number}")
            };
            Ok(LineItem {
                product_id: None,
                description,
                quantity: Quantity::from_thousandths(1000)
                    .map_err(|e| RepoError::Internal(e.to_string()))?,
                unit_price: money(part.subtotal)?,
                tax_rate: part.rate,
                amounts: LineAmounts {
                    subtotal: money(part.subtotal)?,
                    tax: money(part.tax)?,
                    total: money(part.total())?,
                },
                unit: DEFAULT_UNIT.to_string(),
                tax: vat,
            })
        })
        .collect()
}

fn refused(param: &str, e: CreditError) -> TxError {
    match e {
        CreditError::NotCreditable(_) => RepoError::InvalidTransition(e.to_string()).into(),
        CreditError::NotPositive | CreditError::Exceeds { .. } => {
            RepoError::invalid(param, e.to_string()).into()
        }
    }
}

fn create(
    conn: &mut AnyConnection,
    scope: Scope,
    invoice_id: InvoiceId,
    new: &NewCreditNote,
    email: Option<&EmailRequest>,
    url: &str,
) -> Result<CreditNote, TxError> {
    lock_scoped!(conn, invoices, scope, invoice_id.0)?;
    let inv = load_invoice_row(conn, scope, invoice_id)?;
    let status = inv.status()?;
    let money = |e: invoicing_domain::money::MoneyError| RepoError::Internal(e.to_string());
    let balance = InvoiceBalance::new(inv.total_cents, inv.amount_paid_cents)
        .and_then(|b| b.with_credited(inv.amount_credited_cents))
        .map_err(money)?;
    let currency = Currency::parse(&inv.currency)
        .map_err(|_| RepoError::Internal(format!("invoice {} currency", inv.id)))?;
    let (items, param) = match &new.content {
        CreditContent::Lines(drafts) => (
            resolve_lines(conn, scope, currency, drafts, inv.tax_rounding()?)?.items,
            "line_items",
        ),
        CreditContent::Amount(m) => (
            split_lines(conn, scope, inv.id, &inv.number, *m)?,
            "amount_cents",
        ),
        CreditContent::Remaining => (
            split_lines(conn, scope, inv.id, &inv.number, balance.creditable())?,
            "amount_cents",
        ),
    };
    let totals = document_totals(items.iter().map(|l| &l.amounts))
        .map_err(|e| RepoError::invalid(param, e.to_string()))?;
    let effect =
        apply_credit(status, balance, totals.total.minor()).map_err(|e| refused(param, e))?;
    // What the credit quotes is the invoice's unless the request names its own.
    let invoice_refs = References::from_json(inv.buyer_refs.as_deref());
    let refs = References {
        supply: match new.supply {
            Some(own) => SupplyFields::of(Some(own)),
            None => invoice_refs.supply,
        },
        buyer_reference: new.buyer_reference.clone().or(invoice_refs.buyer_reference),
        purchase_order: new.purchase_order.clone().or(invoice_refs.purchase_order),
    };
    let now = now_db();
    let number = take_number(conn, scope, DocumentKind::CreditNote, now.year())?;
    let row = diesel::insert_into(credit_notes::table)
        .values((
            credit_notes::account_id.eq(scope.account_id.0),
            credit_notes::livemode.eq(scope.livemode()),
            credit_notes::number.eq(&number),
            credit_notes::invoice_id.eq(inv.id),
            credit_notes::customer_id.eq(inv.customer_id),
            credit_notes::currency.eq(&inv.currency),
            credit_notes::reason.eq(new.reason.as_str()),
            credit_notes::memo.eq(&new.memo),
            credit_notes::subtotal_cents.eq(totals.subtotal.minor()),
            credit_notes::tax_cents.eq(totals.tax.minor()),
            credit_notes::total_cents.eq(totals.total.minor()),
            credit_notes::refund_due_cents.eq(effect.refund_due),
            credit_notes::created_at.eq(now),
            credit_notes::refs.eq(refs.to_json()),
        ))
        .returning(returning::<CreditNoteRow>())
        .get_result::<CreditNoteRow>(conn)?;
    let id = row.id;
    let lines: Vec<BookLine> = items.iter().map(BookLine::from).collect();
    let today = crate::local_days::today_of(conn, scope, from_db(now))?;
    crate::books::add(conn, scope, &inv.currency, &books::credited(today, &lines))?;
    insert_lines(
        conn,
        scope,
        DocumentKind::CreditNote,
        id,
        &Lines { items, totals },
    )?;
    diesel::update(scoped!(invoices, scope).filter(invoices::id.eq(inv.id)))
        .set((
            invoices::amount_credited_cents
                .eq(invoices::amount_credited_cents + totals.total.minor()),
            invoices::updated_at.eq(now),
        ))
        .execute(conn)?;
    let credit_note = load(conn, scope, CreditNoteId(id))?;
    record(conn, scope, "credit_note.created", &credit_note)?;
    if let Some(to) = effect.new_status {
        // Paid by payments and credit, or cancelled by credit alone: never a receipt.
        move_and_record(conn, scope.actor, &inv, to, |c| {
            load_invoice(c, scope, invoice_id, url)
        })?;
    }
    if let Some(request) = email {
        let doc = Document {
            kind: DocumentKind::CreditNote,
            id,
            number: &number,
            customer: CustomerId(inv.customer_id),
        };
        queue(conn, scope, EmailKind::CreditNote, doc, request.clone())?;
    }
    Ok(credit_note)
}

/// An invoice's credit notes, oldest first, for its page and PDF.
pub(crate) fn of_invoice(
    conn: &mut AnyConnection,
    scope: Scope,
    invoice: InvoiceId,
) -> Result<Vec<CreditNote>, TxError> {
    let rows = scoped!(credit_notes, scope)
        .filter(credit_notes::invoice_id.eq(invoice.0))
        .order(credit_notes::id.asc())
        .select(CreditNoteRow::as_select())
        .load::<CreditNoteRow>(conn)?;
    to_credit_notes(conn, scope, rows)
}

/// What emails and parties need of a credit note: its number, customer and invoice (403/404
/// like every tenant read).
pub(crate) struct CreditNoteRef {
    pub number: String,
    pub customer_id: i64,
    pub invoice_id: i64,
}

pub(crate) fn credit_note_ref(
    conn: &mut AnyConnection,
    scope: Scope,
    id: i64,
) -> Result<CreditNoteRef, TxError> {
    match scoped!(credit_notes, scope)
        .filter(credit_notes::id.eq(id))
        .select((
            credit_notes::number,
            credit_notes::customer_id,
            credit_notes::invoice_id,
        ))
        .first::<(String, i64, i64)>(conn)
        .optional()?
    {
        Some((number, customer_id, invoice_id)) => Ok(CreditNoteRef {
            number,
            customer_id,
            invoice_id,
        }),
        None => Err(missing_or_forbidden!(conn, credit_notes, id).into()),
    }
}

impl CreditNoteRepository for Store {
    fn create_credit_note(
        &self,
        scope: Scope,
        invoice: InvoiceId,
        new: NewCreditNote,
        email: Option<EmailRequest>,
    ) -> RepoResult<CreditNote> {
        let url = self.public_url();
        self.write(|conn| create(conn, scope, invoice, &new, email.as_ref(), &url))
    }

    fn get_credit_note(&self, scope: Scope, id: CreditNoteId) -> RepoResult<CreditNote> {
        self.read_snapshot(|conn| load(conn, scope, id))
    }

    fn list_credit_notes(
        &self,
        scope: Scope,
        filter: &CreditNoteFilter,
        page: PageRequest,
    ) -> RepoResult<Page<CreditNote>> {
        self.read_snapshot(|conn| {
            let query = || {
                let mut q = scoped!(credit_notes, scope).into_boxed();
                if let Some(i) = filter.invoice_id {
                    q = q.filter(credit_notes::invoice_id.eq(i.0));
                }
                if let Some(c) = filter.customer_id {
                    q = q.filter(credit_notes::customer_id.eq(c.0));
                }
                q
            };
            let rows = crate::rows::below!(query(), credit_notes, page)
                .order((credit_notes::created_at.desc(), credit_notes::id.desc()))
                .limit(page.limit() + 1)
                .offset(page.offset())
                .select(CreditNoteRow::as_select())
                .load::<CreditNoteRow>(conn)?;
            if !page.counts() {
                return uncounted_page(rows, page, |rows| to_credit_notes(conn, scope, rows));
            }
            let total: i64 = query().count().get_result(conn)?;
            kept_page(rows, page, total, |rows| to_credit_notes(conn, scope, rows))
        })
    }

    fn credit_note_as_shown(&self, scope: Scope, id: CreditNoteId) -> RepoResult<PublicCreditNote> {
        let url = self.public_url();
        self.read(|conn| {
            let credit_note = load(conn, scope, id)?;
            let inv = load_invoice_row(conn, scope, credit_note.invoice_id)?;
            let (parties, logo) = document_parties(
                conn,
                scope,
                DocumentKind::Invoice,
                inv.id,
                CustomerId(inv.customer_id),
            )?;
            Ok(PublicCreditNote {
                credit_note,
                invoice_link: payment_link(&url, &inv.number, &inv.token),
                invoice_number: inv.number,
                parties,
                logo,
            })
        })
    }
}
