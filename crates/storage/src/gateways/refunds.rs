//! Refunds (SPEC §25): a payment returns at most what the customer paid beyond what they owe
//! (an overpayment, or what a credit note made due), so income never leaves the books through
//! a refund. The amount is reserved when the refund is kept, before any gateway is asked, and
//! given back if the gateway refuses it or it fails later.

use crate::connection::AnyConnection;
use crate::events::record;

use crate::payment_rows::{load_payment, load_row};
use crate::payments::lock_invoice;
use crate::rows::{lock_scoped, now_db, scoped};
use crate::schema::{invoices, payments, refunds};
use crate::store::TxError;
use diesel::prelude::*;
use invoicing_domain::currency::Currency;
use invoicing_domain::gateway::{
    refundable, GatewayKind, GatewayRefund, NewRefund, RefundId, RefundPlan, RefundStatus,
};
use invoicing_domain::invoice::{overpaid, InvoiceId};
use invoicing_domain::money::Money;
use invoicing_domain::payment::{Payment, PaymentId};
use invoicing_domain::payment_status::PaymentStatus;
use invoicing_domain::ports::RepoError;
use invoicing_domain::tenant::Scope;

fn internal(what: String) -> TxError {
    RepoError::Internal(what).into()
}

/// Moves `amount` between what the payment returned and what the invoice holds as paid:
/// `+` when a refund is kept, `−` when it fails.
fn shift(
    conn: &mut AnyConnection,
    scope: Scope,
    payment: PaymentId,
    invoice: InvoiceId,
    amount: i64,
) -> Result<(), TxError> {
    let now = now_db();
    diesel::update(scoped!(payments, scope).filter(payments::id.eq(payment.0)))
        .set((
            payments::amount_refunded_cents.eq(payments::amount_refunded_cents + amount),
            payments::updated_at.eq(now),
        ))
        .execute(conn)?;
    diesel::update(scoped!(invoices, scope).filter(invoices::id.eq(invoice.0)))
        .set((
            invoices::amount_paid_cents.eq(invoices::amount_paid_cents - amount),
            invoices::updated_at.eq(now),
        ))
        .execute(conn)?;
    Ok(())
}

pub(crate) fn start(
    conn: &mut AnyConnection,
    scope: Scope,
    payment_id: PaymentId,
    new: &NewRefund,
) -> Result<RefundPlan, TxError> {
    let invoice_id = InvoiceId(load_row(conn, scope, payment_id)?.invoice_id);
    let inv = lock_invoice(conn, scope, invoice_id)?;
    lock_scoped!(conn, payments, scope, payment_id.0)?;
    let row = load_row(conn, scope, payment_id)?;
    if row.status()? != PaymentStatus::Verified {
        return Err(RepoError::InvalidTransition(format!(
            "payment {} is {}: only a verified payment can be refunded",
            row.id, row.status
        ))
        .into());
    }
    let money = |c: i64| Money::new(c).map_err(|_| internal(format!("payment {} amounts", row.id)));
    let held = money(overpaid(
        inv.status()?,
        inv.total_cents,
        inv.amount_paid_cents,
        inv.amount_credited_cents,
    ))?;
    let left = refundable(
        money(row.amount_cents)?,
        money(row.amount_refunded_cents)?,
        held,
    );
    if left == Money::ZERO {
        return Err(RepoError::invalid(
            "amount_cents",
            "nothing to refund: a payment returns only what was paid beyond what the invoice \
             owes; credit the invoice first (a credit note), then refund",
        )
        .into());
    }
    let amount = match new.amount {
        Some(a) if a.minor() > left.minor() => {
            return Err(RepoError::invalid(
                "amount_cents",
                format!("must not exceed what may be refunded, {}", left.minor()),
            )
            .into())
        }
        Some(a) => a,
        None => left,
    };
    let gateway = match row.gateway.as_deref() {
        None => None,
        Some(g) => {
            let kind = GatewayKind::parse(g).ok_or_else(|| internal(format!("gateway {g}")))?;
            let reference = row
                .reference
                .clone()
                .ok_or_else(|| internal(format!("payment {} has no reference", row.id)))?;
            Some((kind, reference))
        }
    };
    // Paid back by hand is done when it is recorded; a gateway's refund waits for its answer.
    let status = if gateway.is_some() {
        RefundStatus::Pending
    } else {
        RefundStatus::Succeeded
    };
    // The key a gateway sees for this refund, however often it is asked.
    let key = format!("refund_{}", crate::rows::random_hex::<16>());
    let now = now_db();
    let id: i64 = diesel::insert_into(refunds::table)
        .values((
            refunds::account_id.eq(scope.account_id.0),
            refunds::livemode.eq(scope.livemode()),
            refunds::payment_id.eq(row.id),
            refunds::invoice_id.eq(inv.id),
            refunds::amount_cents.eq(amount.minor()),
            refunds::status.eq(status.as_str()),
            refunds::reason.eq(&new.reason),
            refunds::idempotency_key.eq(&key),
            refunds::created_at.eq(now),
            refunds::updated_at.eq(now),
        ))
        .returning(refunds::id)
        .get_result(conn)?;
    shift(conn, scope, payment_id, invoice_id, amount.minor())?;
    if status == RefundStatus::Succeeded {
        let payment = load_payment(conn, scope, payment_id)?;
        record(conn, scope, "payment.refunded", &payment)?;
    }
    Ok(RefundPlan {
        refund_id: RefundId(id),
        payment_id,
        amount,
        currency: Currency::parse(&row.currency)
            .map_err(|_| internal(format!("payment {} currency", row.id)))?,
        reason: new.reason.clone(),
        idempotency_key: key,
        gateway,
    })
}

/// Moves a refund to `to` (from pending), giving its amount back when it failed; the payment
/// afterwards.
fn settle(
    conn: &mut AnyConnection,
    scope: Scope,
    refund: RefundId,
    gateway_id: Option<&str>,
    to: RefundStatus,
) -> Result<Option<Payment>, TxError> {
    let Some((payment_id, invoice_id, amount, status)) = scoped!(refunds, scope)
        .filter(refunds::id.eq(refund.0))
        .select((
            refunds::payment_id,
            refunds::invoice_id,
            refunds::amount_cents,
            refunds::status,
        ))
        .first::<(i64, i64, i64, String)>(conn)
        .optional()?
    else {
        return Ok(None);
    };
    lock_invoice(conn, scope, InvoiceId(invoice_id))?;
    let now = now_db();
    if let Some(g) = gateway_id {
        diesel::update(scoped!(refunds, scope).filter(refunds::id.eq(refund.0)))
            .set(refunds::gateway_refund_id.eq(g))
            .execute(conn)?;
    }
    let from =
        RefundStatus::parse(&status).ok_or_else(|| internal(format!("refund {}", refund)))?;
    // Only a pending refund moves; an answer about one that ended changes nothing.
    if from != RefundStatus::Pending || to == RefundStatus::Pending {
        return load_payment(conn, scope, PaymentId(payment_id)).map(Some);
    }
    diesel::update(scoped!(refunds, scope).filter(refunds::id.eq(refund.0)))
        .set((refunds::status.eq(to.as_str()), refunds::updated_at.eq(now)))
        .execute(conn)?;
    if to == RefundStatus::Failed {
        shift(
            conn,
            scope,
            PaymentId(payment_id),
            InvoiceId(invoice_id),
            -amount,
        )?;
    }
    let payment = load_payment(conn, scope, PaymentId(payment_id))?;
    if to == RefundStatus::Succeeded {
        record(conn, scope, "payment.refunded", &payment)?;
    }
    Ok(Some(payment))
}

pub(crate) fn finish(
    conn: &mut AnyConnection,
    scope: Scope,
    plan: &RefundPlan,
    outcome: Option<&GatewayRefund>,
) -> Result<Payment, TxError> {
    let (gateway_id, to) = match outcome {
        Some(r) => (Some(r.id.as_str()), r.status),
        None => (None, RefundStatus::Failed),
    };
    settle(conn, scope, plan.refund_id, gateway_id, to)?
        .ok_or_else(|| internal(format!("refund {} vanished", plan.refund_id)))
}

/// A gateway's word on one of its refunds (a notification): ours when we asked for it.
pub(crate) fn changed(
    conn: &mut AnyConnection,
    scope: Scope,
    refund: &GatewayRefund,
) -> Result<(), TxError> {
    let id: Option<i64> = scoped!(refunds, scope)
        .filter(refunds::gateway_refund_id.eq(&refund.id))
        .select(refunds::id)
        .first(conn)
        .optional()?;
    if let Some(id) = id {
        settle(conn, scope, RefundId(id), None, refund.status)?;
    }
    Ok(())
}

/// account, livemode, refund, payment, amount, reason, idempotency key.
type PendingRow = (i64, bool, i64, i64, i64, Option<String>, String);

/// Pending refunds no gateway answered for, kept before `before`, oldest first.
pub(crate) fn to_retry(
    conn: &mut AnyConnection,
    before: chrono::DateTime<chrono::Utc>,
    limit: i64,
) -> Result<Vec<(Scope, RefundPlan)>, TxError> {
    let rows: Vec<PendingRow> = refunds::table
        .filter(refunds::status.eq(RefundStatus::Pending.as_str()))
        .filter(refunds::gateway_refund_id.is_null())
        .filter(refunds::updated_at.lt(crate::rows::to_db(before)))
        .order(refunds::updated_at.asc())
        .limit(limit)
        .select((
            refunds::account_id,
            refunds::livemode,
            refunds::id,
            refunds::payment_id,
            refunds::amount_cents,
            refunds::reason,
            refunds::idempotency_key,
        ))
        .load(conn)?;
    let mut plans = Vec::new();
    for (account, livemode, id, payment_id, amount, reason, key) in rows {
        let scope = Scope::new(
            invoicing_domain::tenant::AccountId(account),
            invoicing_domain::tenant::Environment::from_livemode(livemode),
        );
        let payment = load_row(conn, scope, PaymentId(payment_id))?;
        let (Some(g), Some(reference)) = (payment.gateway.as_deref(), payment.reference.clone())
        else {
            continue;
        };
        let Some(kind) = GatewayKind::parse(g) else {
            continue;
        };
        plans.push((
            scope,
            RefundPlan {
                refund_id: RefundId(id),
                payment_id: PaymentId(payment_id),
                amount: Money::new(amount).map_err(|_| internal(format!("refund {id} amount")))?,
                currency: Currency::parse(&payment.currency)
                    .map_err(|_| internal(format!("payment {payment_id} currency")))?,
                reason,
                idempotency_key: key,
                gateway: Some((kind, reference)),
            },
        ));
        // Moved to the back of the queue: each is handed out once per round.
        diesel::update(scoped!(refunds, scope).filter(refunds::id.eq(id)))
            .set(refunds::updated_at.eq(now_db()))
            .execute(conn)?;
    }
    Ok(plans)
}
