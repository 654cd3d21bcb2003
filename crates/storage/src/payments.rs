//! Payments (SPEC §13): recorded pending (by the merchant, or by the customer on the invoice's
//! page), then verified or rejected. Every change of a payment first locks its invoice's row, so
//! verifications of one invoice run one at a time: together they never exceed its total, and
//! exactly one of them marks it paid. Events are written in the same transaction.

use crate::capped::{capped_page, count_up_to_cap, kept_page, uncounted_page};
use crate::connection::AnyConnection;
use crate::documents::{kept_count, move_and_record};
use crate::events::record;
use crate::invoice_rows::{self, load_invoice, payment_link, InvoiceRow};
use crate::outbox::queue_receipt;
use crate::payment_rows::{load_payment, load_row, with_refunds_and_proofs, PaymentRow};
use crate::rows::{lock_scoped, now_db, scoped};
use crate::schema::{invoices, payments};
use crate::store::{Store, TxError};
use diesel::prelude::*;
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::money::Money;
use invoicing_domain::paging::{Page, PageRequest};
use invoicing_domain::payment::{
    InitialStatus, NewPayment, Payment, PaymentChange, PaymentFilter, PaymentId, PaymentMethod,
    PaymentReport, PaymentRequest,
};
use invoicing_domain::payment_amount::{InvoiceBalance, PaymentAmountError};
use invoicing_domain::payment_status::PaymentStatus;
use invoicing_domain::ports::{PaymentRepository, RepoError, RepoResult};
use invoicing_domain::tenant::{Actor, Scope};
use invoicing_domain::validation::Metadata;
use invoicing_domain::validation::Problem;

fn refused(message: impl ToString) -> TxError {
    RepoError::InvalidTransition(message.to_string()).into()
}

fn currency_of(inv: &InvoiceRow) -> Result<Currency, TxError> {
    Currency::parse(&inv.currency)
        .map_err(|_| RepoError::Internal(format!("invoice {} currency", inv.id)).into())
}

fn balance_of(inv: &InvoiceRow) -> Result<InvoiceBalance, TxError> {
    InvoiceBalance::new(inv.total_cents, inv.amount_paid_cents)
        .and_then(|b| b.with_credited(inv.amount_credited_cents))
        .map_err(|_| RepoError::Internal(format!("invoice {} amounts", inv.id)).into())
}

/// Locks the invoice's row until the transaction ends and reads it as it is now. Every payment
/// change takes this lock first (and a payment's row only after it), so they cannot deadlock.
pub(crate) fn lock_invoice(
    conn: &mut AnyConnection,
    scope: Scope,
    id: InvoiceId,
) -> Result<InvoiceRow, TxError> {
    lock_scoped!(conn, invoices, scope, id.0)?;
    invoice_rows::load_row(conn, scope, id)
}

/// Payments are taken only while the invoice awaits them (sent, viewed, overdue).
fn require_open(inv: &InvoiceRow, what: &str) -> Result<(), TxError> {
    let status = inv.status()?;
    if status.is_open() {
        Ok(())
    } else {
        Err(refused(format!(
            "invoice {} is {status}: {what} only while it is sent, viewed or overdue",
            inv.id
        )))
    }
}

/// A payment as it is first written.
pub(crate) struct Pending<'a> {
    pub amount: Money,
    pub method: PaymentMethod,
    pub reference: Option<&'a str>,
    pub metadata: &'a Metadata,
    /// The gateway that took it (SPEC §25), whose reference is then unique.
    pub gateway: Option<&'a str>,
}

pub(crate) fn insert_pending(
    conn: &mut AnyConnection,
    scope: Scope,
    inv: &InvoiceRow,
    new: Pending<'_>,
) -> Result<PaymentRow, TxError> {
    let Pending {
        amount,
        method,
        reference,
        metadata,
        gateway,
    } = new;
    let now = now_db();
    let id = diesel::insert_into(payments::table)
        .values((
            payments::account_id.eq(scope.account_id.0),
            payments::livemode.eq(scope.livemode()),
            payments::invoice_id.eq(inv.id),
            payments::customer_id.eq(inv.customer_id),
            payments::amount_cents.eq(amount.minor()),
            payments::currency.eq(&inv.currency),
            payments::status.eq(PaymentStatus::Pending.as_str()),
            payments::method.eq(method.as_str()),
            payments::reference.eq(reference),
            payments::metadata.eq(metadata.to_json()),
            payments::gateway.eq(gateway),
            payments::created_at.eq(now),
            payments::updated_at.eq(now),
        ))
        .returning(payments::id)
        .get_result::<i64>(conn)?;
    let row = load_row(conn, scope, PaymentId(id))?;
    record(
        conn,
        scope,
        PaymentStatus::Pending.event_type(),
        &row.clone().into_domain()?,
    )?;
    Ok(row)
}

/// Whether a verification may bring more than the invoice still owes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Overpay {
    /// A merchant's verification: refused (they reject it instead).
    Refuse,
    /// Money a gateway already took (SPEC §25): kept in full, the excess shown as
    /// `overpaid_cents` to refund, even on an invoice paid or cancelled meanwhile.
    Keep,
}

/// Verifies a pending payment whose invoice row the caller has locked: the invoice must still
/// be open and owe at least the amount (unless `overpay` keeps money already taken); the
/// verification that covers the total pays it.
pub(crate) fn verify(
    conn: &mut AnyConnection,
    scope: Scope,
    row: &PaymentRow,
    inv: &InvoiceRow,
    (url, mail): (&str, bool),
    overpay: Overpay,
) -> Result<Payment, TxError> {
    if overpay == Overpay::Refuse {
        require_open(inv, "payments can be verified")?;
    }
    let amount = Money::new(row.amount_cents)
        .map_err(|_| RepoError::Internal(format!("payment {} amount", row.id)))?;
    let balance = balance_of(inv)?;
    let applied = match overpay {
        Overpay::Refuse => balance.apply(amount),
        Overpay::Keep => balance.apply_in_full(amount),
    };
    let after = applied.map_err(|e| match e {
        PaymentAmountError::ExceedsDue { due } => RepoError::invalid(
            "amount_cents",
            format!(
                "payment {} of {} exceeds what invoice {} still owes ({}); reject it instead",
                row.id,
                row.amount_cents,
                inv.id,
                due.minor()
            ),
        ),
        PaymentAmountError::NotPositive | PaymentAmountError::ExceedsUnreported { .. } => {
            RepoError::invalid("amount_cents", e.to_string())
        }
    })?;
    let now = now_db();
    // What it brought counts on the merchant's date (SPEC §27; `collected_days` reads it).
    let collected_on = crate::local_days::today_of(conn, scope, crate::rows::from_db(now))?;
    diesel::update(scoped!(payments, scope).filter(payments::id.eq(row.id)))
        .set((
            payments::status.eq(PaymentStatus::Verified.as_str()),
            payments::verified_at.eq(now),
            payments::collected_on.eq(collected_on),
            payments::updated_at.eq(now),
        ))
        .execute(conn)?;
    diesel::update(scoped!(invoices, scope).filter(invoices::id.eq(inv.id)))
        .set((
            invoices::amount_paid_cents.eq(after.paid().minor()),
            invoices::updated_at.eq(now),
        ))
        .execute(conn)?;
    let payment = load_payment(conn, scope, PaymentId(row.id))?;
    record(conn, scope, PaymentStatus::Verified.event_type(), &payment)?;
    if after.is_settled() && inv.status()?.is_open() {
        let invoice = move_and_record(conn, scope.actor, inv, InvoiceStatus::Paid, |c| {
            load_invoice(c, scope, InvoiceId(inv.id), url)
        })?;
        queue_receipt(conn, scope, &invoice, mail)?;
    }
    Ok(payment)
}

fn reject(
    conn: &mut AnyConnection,
    scope: Scope,
    row: &PaymentRow,
    reason: Option<&str>,
) -> Result<Payment, TxError> {
    let now = now_db();
    diesel::update(scoped!(payments, scope).filter(payments::id.eq(row.id)))
        .set((
            payments::status.eq(PaymentStatus::Rejected.as_str()),
            payments::rejection_reason.eq(reason),
            payments::rejected_at.eq(now),
            payments::updated_at.eq(now),
        ))
        .execute(conn)?;
    let payment = load_payment(conn, scope, PaymentId(row.id))?;
    record(conn, scope, PaymentStatus::Rejected.event_type(), &payment)?;
    Ok(payment)
}

fn create(
    conn: &mut AnyConnection,
    scope: Scope,
    new: &NewPayment,
    url: &str,
    mail: bool,
) -> Result<Payment, TxError> {
    let inv = lock_invoice(conn, scope, new.invoice_id)?;
    require_open(&inv, "payments can be recorded")?;
    balance_of(&inv)?
        .apply(new.amount)
        .map_err(|e| RepoError::invalid("amount_cents", e.to_string()))?;
    let row = insert_pending(
        conn,
        scope,
        &inv,
        Pending {
            amount: new.amount,
            method: new.method,
            reference: new.reference.as_deref(),
            metadata: &new.metadata,
            gateway: None,
        },
    )?;
    match new.initial {
        InitialStatus::Pending => load_payment(conn, scope, PaymentId(row.id)),
        InitialStatus::Verified => verify(conn, scope, &row, &inv, (url, mail), Overpay::Refuse),
    }
}

fn change(
    conn: &mut AnyConnection,
    scope: Scope,
    id: PaymentId,
    change: &PaymentChange,
    url: &str,
    mail: bool,
) -> Result<Payment, TxError> {
    // Answers 403/404 before taking any lock; the invoice of a payment never changes.
    let invoice_id = InvoiceId(load_row(conn, scope, id)?.invoice_id);
    let inv = lock_invoice(conn, scope, invoice_id)?;
    lock_scoped!(conn, payments, scope, id.0)?;
    let row = load_row(conn, scope, id)?;
    row.status()?.transition(change.to).map_err(refused)?;
    match change.to {
        PaymentStatus::Verified => verify(conn, scope, &row, &inv, (url, mail), Overpay::Refuse),
        PaymentStatus::Rejected => reject(conn, scope, &row, change.reason.as_deref()),
        // The table allows no move into pending; reaching this is a bug, not a client error.
        PaymentStatus::Pending => {
            Err(RepoError::Internal("a payment moved to pending".into()).into())
        }
    }
}

fn report(
    conn: &mut AnyConnection,
    number: &str,
    token: &str,
    report: &PaymentReport,
) -> Result<Payment, TxError> {
    let found = invoices::table
        .filter(invoices::token.eq(token))
        .select(InvoiceRow::as_select())
        .first::<InvoiceRow>(conn)
        .optional()?
        .filter(|r| r.number == number)
        .ok_or(RepoError::NotFound)?;
    // Drafts are not public: the page and its form do not exist for them.
    if !found.status()?.is_public() {
        return Err(RepoError::NotFound.into());
    }
    // Reported on the invoice's page: the customer acts.
    let scope = found.scope().acting_as(Actor::Customer);
    let inv = lock_invoice(conn, scope, InvoiceId(found.id))?;
    require_open(&inv, "payments can be reported")?;
    let currency = currency_of(&inv)?;
    let amount = report
        .amount
        .to_minor(currency)
        .map_err(|error| RepoError::invalid("amount", Problem::Amount { error, currency }))?;
    // What the customer reported before and the merchant has yet to check.
    let pending: Vec<i64> = scoped!(payments, scope)
        .filter(payments::invoice_id.eq(inv.id))
        .filter(payments::status.eq(PaymentStatus::Pending.as_str()))
        .select(payments::amount_cents)
        .load(conn)?;
    let reported = invoicing_domain::payment_amount::total(pending);
    balance_of(&inv)?
        .check_report(amount, reported)
        .map_err(|e| RepoError::invalid("amount", Problem::of_report(e, currency)))?;
    let row = insert_pending(
        conn,
        scope,
        &inv,
        Pending {
            amount,
            method: PaymentMethod::BankTransfer,
            reference: Some(&report.reference),
            metadata: &Metadata::default(),
            gateway: None,
        },
    )?;
    if let Some(file) = &report.proof {
        crate::payment_proofs::attach(conn, scope, PaymentId(row.id), file)?;
    }
    load_payment(conn, scope, PaymentId(row.id))
}

fn to_request(row: InvoiceRow, url: &str) -> Result<PaymentRequest, TxError> {
    Ok(PaymentRequest {
        object: PaymentRequest::OBJECT,
        invoice_id: InvoiceId(row.id),
        amount_due_cents: balance_of(&row)?.due().minor(),
        currency: currency_of(&row)?,
        due_date: row.due_date,
        status: row.status()?,
        payment_link: payment_link(url, &row.number, &row.token),
        invoice_number: row.number,
    })
}

impl PaymentRepository for Store {
    fn create_payment(&self, scope: Scope, new: NewPayment) -> RepoResult<Payment> {
        let url = self.public_url();
        self.write(|conn| create(conn, scope, &new, &url, self.mail_enabled()))
    }

    fn get_payment(&self, scope: Scope, id: PaymentId) -> RepoResult<Payment> {
        self.read(|conn| load_payment(conn, scope, id))
    }

    fn list_payments(
        &self,
        scope: Scope,
        filter: &PaymentFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Payment>> {
        self.read(|conn| {
            let query = || {
                let mut q = scoped!(payments, scope).into_boxed();
                if let Some(s) = filter.status {
                    q = q.filter(payments::status.eq(s.as_str()));
                }
                if let Some(CustomerId(c)) = filter.customer_id {
                    q = q.filter(payments::customer_id.eq(c));
                }
                if let Some(InvoiceId(i)) = filter.invoice_id {
                    q = q.filter(payments::invoice_id.eq(i));
                }
                if let Some(min) = filter.amount_min {
                    q = q.filter(payments::amount_cents.ge(min));
                }
                q
            };
            let by_status_only = filter.customer_id.is_none()
                && filter.invoice_id.is_none()
                && filter.amount_min.is_none();
            let rows = crate::rows::below!(query(), payments, page)
                .order((payments::created_at.desc(), payments::id.desc()))
                .limit(page.limit() + 1)
                .offset(page.offset())
                .select(PaymentRow::as_select())
                .load::<PaymentRow>(conn)?;
            let mut rows = rows
                .into_iter()
                .map(PaymentRow::into_domain)
                .collect::<Result<Vec<_>, _>>()?;
            with_refunds_and_proofs(conn, scope, &mut rows)?;
            let convert = Ok::<Vec<Payment>, TxError>;
            if !page.counts() {
                return uncounted_page(rows, page, convert);
            }
            if by_status_only {
                let total = kept_count(conn, scope, "payment", filter.status.map(|s| s.as_str()))?;
                return kept_page(rows, page, total, convert);
            }
            // Other filters (an amount across all payments) count up to the cap (SPEC §5).
            let counted = count_up_to_cap(conn, query().select(payments::id))?;
            capped_page(rows, page, counted, convert)
        })
    }

    fn change_payment(
        &self,
        scope: Scope,
        id: PaymentId,
        payment_change: PaymentChange,
    ) -> RepoResult<Payment> {
        let url = self.public_url();
        self.write(|conn| change(conn, scope, id, &payment_change, &url, self.mail_enabled()))
    }

    fn report_payment(
        &self,
        number: &str,
        token: &str,
        payment_report: PaymentReport,
    ) -> RepoResult<Payment> {
        self.write(|conn| report(conn, number, token, &payment_report))
    }

    fn list_payment_requests(
        &self,
        scope: Scope,
        page: PageRequest,
    ) -> RepoResult<Page<PaymentRequest>> {
        let url = self.public_url();
        self.read(|conn| {
            let open: Vec<&str> = InvoiceStatus::OPEN.map(InvoiceStatus::as_str).to_vec();
            let query = || scoped!(invoices, scope).filter(invoices::status.eq_any(open.clone()));
            let total: i64 = query().count().get_result(conn)?;
            let data = query()
                .order((invoices::created_at.desc(), invoices::id.desc()))
                .limit(page.limit())
                .offset(page.offset())
                .select(InvoiceRow::as_select())
                .load::<InvoiceRow>(conn)?
                .into_iter()
                .map(|row| to_request(row, &url))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Page::new(data, page, total))
        })
    }
}
