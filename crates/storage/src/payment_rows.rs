//! Reading payments: rows as the API shows them.

use crate::connection::AnyConnection;
use crate::rows::{from_db, missing_or_forbidden, scoped};
use crate::schema::{payment_proofs, payments, refunds};
use crate::store::TxError;
use chrono::NaiveDateTime;
use diesel::prelude::*;
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::gateway::{Refund, RefundId, RefundStatus};
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::payment::{Payment, PaymentId, PaymentMethod, ProofInfo};
use invoicing_domain::payment_status::PaymentStatus;
use invoicing_domain::ports::RepoError;
use invoicing_domain::tenant::Scope;
use invoicing_domain::validation::Metadata;

#[derive(Queryable, Selectable, Clone)]
#[diesel(table_name = payments)]
pub(crate) struct PaymentRow {
    pub id: i64,
    pub livemode: bool,
    pub invoice_id: i64,
    pub customer_id: i64,
    pub amount_cents: i64,
    pub currency: String,
    pub status: String,
    pub method: String,
    pub reference: Option<String>,
    pub rejection_reason: Option<String>,
    pub metadata: String,
    pub verified_at: Option<NaiveDateTime>,
    pub rejected_at: Option<NaiveDateTime>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    pub gateway: Option<String>,
    pub amount_refunded_cents: i64,
}

impl PaymentRow {
    pub(crate) fn status(&self) -> Result<PaymentStatus, TxError> {
        PaymentStatus::parse(&self.status).ok_or_else(|| {
            RepoError::Internal(format!("payment {} has status {:?}", self.id, self.status)).into()
        })
    }

    pub(crate) fn into_domain(self) -> Result<Payment, TxError> {
        let bad = |what: &str| RepoError::Internal(format!("payment {}: bad {what}", self.id));
        Ok(Payment {
            id: PaymentId(self.id),
            object: Payment::OBJECT,
            invoice_id: InvoiceId(self.invoice_id),
            customer_id: CustomerId(self.customer_id),
            amount_cents: self.amount_cents,
            currency: Currency::parse(&self.currency).map_err(|_| bad("currency"))?,
            status: self.status()?,
            method: PaymentMethod::parse(&self.method).ok_or_else(|| bad("method"))?,
            reference: self.reference,
            rejection_reason: self.rejection_reason,
            metadata: Metadata::from_json(&self.metadata),
            livemode: self.livemode,
            gateway: self.gateway,
            amount_refunded_cents: self.amount_refunded_cents,
            refunds: Vec::new(),
            proof: None,
            created_at: from_db(self.created_at),
            verified_at: self.verified_at.map(from_db),
            rejected_at: self.rejected_at.map(from_db),
            updated_at: from_db(self.updated_at),
        })
    }
}

pub(crate) fn load_row(
    conn: &mut AnyConnection,
    scope: Scope,
    id: PaymentId,
) -> Result<PaymentRow, TxError> {
    match scoped!(payments, scope)
        .filter(payments::id.eq(id.0))
        .select(PaymentRow::as_select())
        .first::<PaymentRow>(conn)
        .optional()?
    {
        Some(row) => Ok(row),
        None => Err(missing_or_forbidden!(conn, payments, id.0).into()),
    }
}

pub(crate) fn load_payment(
    conn: &mut AnyConnection,
    scope: Scope,
    id: PaymentId,
) -> Result<Payment, TxError> {
    let mut payment = [load_row(conn, scope, id)?.into_domain()?];
    with_refunds_and_proofs(conn, scope, &mut payment)?;
    let [payment] = payment;
    Ok(payment)
}

/// Fills in the payments' refunds and proof files, two statements for any number of them.
pub(crate) fn with_refunds_and_proofs(
    conn: &mut AnyConnection,
    scope: Scope,
    list: &mut [Payment],
) -> Result<(), TxError> {
    if list.is_empty() {
        return Ok(());
    }
    let ids: Vec<i64> = list.iter().map(|p| p.id.0).collect();
    // Only a verified payment is ever refunded (and stays verified): a list of pending ones
    // (the verification queue) needs no look.
    let verified: Vec<i64> = list
        .iter()
        .filter(|p| p.status == PaymentStatus::Verified)
        .map(|p| p.id.0)
        .collect();
    let refund_rows: Vec<(i64, i64, i64, String, Option<String>, NaiveDateTime)> =
        if verified.is_empty() {
            Vec::new()
        } else {
            scoped!(refunds, scope)
                .filter(refunds::payment_id.eq_any(&verified))
                .order((refunds::created_at.asc(), refunds::id.asc()))
                .select((
                    refunds::payment_id,
                    refunds::id,
                    refunds::amount_cents,
                    refunds::status,
                    refunds::reason,
                    refunds::created_at,
                ))
                .load(conn)?
        };
    let proofs: Vec<(i64, String, String, i64)> = scoped!(payment_proofs, scope)
        .filter(payment_proofs::payment_id.eq_any(&ids))
        .select((
            payment_proofs::payment_id,
            payment_proofs::filename,
            payment_proofs::content_type,
            payment_proofs::size,
        ))
        .load(conn)?;
    for p in list.iter_mut() {
        for (payment_id, id, amount, status, reason, created) in &refund_rows {
            if *payment_id != p.id.0 {
                continue;
            }
            let status = RefundStatus::parse(status)
                .ok_or_else(|| RepoError::Internal(format!("refund {id} status")))?;
            p.refunds.push(Refund {
                id: RefundId(*id),
                amount_cents: *amount,
                status,
                reason: reason.clone(),
                created_at: from_db(*created),
            });
        }
        p.proof = proofs
            .iter()
            .find(|(payment_id, ..)| *payment_id == p.id.0)
            .map(|(_, filename, content_type, size)| ProofInfo {
                filename: filename.clone(),
                content_type: content_type.clone(),
                bytes: *size,
            });
    }
    Ok(())
}

/// An invoice's payments that were not rejected, oldest first: what its public page lists.
pub(crate) fn open_and_verified(
    conn: &mut AnyConnection,
    scope: Scope,
    invoice_id: InvoiceId,
) -> Result<Vec<Payment>, TxError> {
    scoped!(payments, scope)
        .filter(payments::invoice_id.eq(invoice_id.0))
        .filter(payments::status.ne(PaymentStatus::Rejected.as_str()))
        .order((payments::created_at.asc(), payments::id.asc()))
        .select(PaymentRow::as_select())
        .load::<PaymentRow>(conn)?
        .into_iter()
        .map(PaymentRow::into_domain)
        .collect()
}
