//! Checkouts opened for invoices and the one operation that turns a gateway's report of one
//! into a payment. The webhook, the customer's return and the sweep all come here; the invoice's
//! row lock orders them and the payment's gateway reference (unique per tenant) makes the
//! second report find the first one's payment, so one gateway payment is never two.

use crate::connection::AnyConnection;
use crate::events::record;
use crate::invoice_rows::load_invoice;
use crate::payment_rows::load_payment;
use crate::payments::{insert_pending, lock_invoice, verify, Overpay, Pending};
use crate::rows::{now_db, scoped, to_db};
use crate::schema::{checkout_sessions, payments};
use crate::store::TxError;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use invoicing_domain::currency::Currency;
use invoicing_domain::gateway::{
    Checkout, CheckoutOwner, CheckoutRecord, CheckoutStatus, GatewayKind, OpenCheckout, Recorded,
};
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::money::Money;
use invoicing_domain::payment::{PaymentId, PaymentMethod};
use invoicing_domain::ports::RepoError;
use invoicing_domain::tenant::{AccountId, Actor, Environment, Scope};
use invoicing_domain::validation::Metadata;
use std::collections::BTreeMap;

#[derive(Queryable, Selectable)]
#[diesel(table_name = checkout_sessions)]
struct CheckoutRow {
    invoice_id: i64,
    session_id: String,
    url: Option<String>,
    amount_cents: i64,
    currency: String,
    status: String,
}

impl CheckoutRow {
    fn record(self) -> Result<CheckoutRecord, TxError> {
        let bad = |what: &str| {
            TxError::from(RepoError::Internal(format!(
                "checkout {}: bad {what}",
                self.session_id
            )))
        };
        Ok(CheckoutRecord {
            amount: Money::new(self.amount_cents).map_err(|_| bad("amount"))?,
            currency: Currency::parse(&self.currency).map_err(|_| bad("currency"))?,
            status: CheckoutStatus::parse(&self.status).ok_or_else(|| bad("status"))?,
            session_id: self.session_id,
            url: self.url,
        })
    }
}

pub(crate) fn of_invoice(
    conn: &mut AnyConnection,
    scope: Scope,
    invoice: InvoiceId,
) -> Result<Vec<CheckoutRecord>, TxError> {
    scoped!(checkout_sessions, scope)
        .filter(checkout_sessions::invoice_id.eq(invoice.0))
        .order(checkout_sessions::id.desc())
        .select(CheckoutRow::as_select())
        .load::<CheckoutRow>(conn)?
        .into_iter()
        .map(CheckoutRow::record)
        .collect()
}

fn find(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: GatewayKind,
    session_id: &str,
) -> Result<Option<CheckoutRow>, TxError> {
    Ok(scoped!(checkout_sessions, scope)
        .filter(checkout_sessions::gateway.eq(kind.as_str()))
        .filter(checkout_sessions::session_id.eq(session_id))
        .select(CheckoutRow::as_select())
        .first(conn)
        .optional()?)
}

fn set_status(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: GatewayKind,
    session_id: &str,
    status: CheckoutStatus,
) -> Result<(), TxError> {
    diesel::update(
        scoped!(checkout_sessions, scope)
            .filter(checkout_sessions::gateway.eq(kind.as_str()))
            .filter(checkout_sessions::session_id.eq(session_id)),
    )
    .set((
        checkout_sessions::status.eq(status.as_str()),
        checkout_sessions::updated_at.eq(now_db()),
    ))
    .execute(conn)?;
    Ok(())
}

pub(crate) fn save_checkout(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: GatewayKind,
    invoice: InvoiceId,
    checkout: &Checkout,
) -> Result<(), TxError> {
    if find(conn, scope, kind, &checkout.id)?.is_some() {
        return set_status(conn, scope, kind, &checkout.id, checkout.status);
    }
    let now = now_db();
    diesel::insert_into(checkout_sessions::table)
        .values((
            checkout_sessions::account_id.eq(scope.account_id.0),
            checkout_sessions::livemode.eq(scope.livemode()),
            checkout_sessions::invoice_id.eq(invoice.0),
            checkout_sessions::gateway.eq(kind.as_str()),
            checkout_sessions::session_id.eq(&checkout.id),
            checkout_sessions::url.eq(&checkout.url),
            checkout_sessions::amount_cents.eq(checkout.amount.minor()),
            checkout_sessions::currency.eq(checkout.currency.code()),
            checkout_sessions::status.eq(checkout.status.as_str()),
            checkout_sessions::created_at.eq(now),
            checkout_sessions::updated_at.eq(now),
        ))
        .execute(conn)?;
    Ok(())
}

/// The checkout as we opened it, when the report fits it: the same tenant and invoice, the
/// same amount and currency. Anything else changes nothing.
fn known(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: GatewayKind,
    checkout: &Checkout,
) -> Result<Result<CheckoutRow, &'static str>, TxError> {
    // Only the tenant's own: another tenant's (or environment's) checkout is not found here.
    let Some(row) = find(conn, scope, kind, &checkout.id)? else {
        return Ok(Err("a checkout this tenant did not open"));
    };
    let ours = CheckoutOwner {
        account_id: scope.account_id,
        environment: scope.environment,
        invoice_id: InvoiceId(row.invoice_id),
    };
    if checkout.owner != Some(ours) {
        return Ok(Err("a checkout that names another invoice"));
    }
    if checkout.amount.minor() != row.amount_cents || checkout.currency.code() != row.currency {
        return Ok(Err("a checkout of another amount or currency"));
    }
    Ok(Ok(row))
}

pub(crate) fn record_checkout(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: GatewayKind,
    checkout: &Checkout,
    public: (&str, bool),
) -> Result<Recorded, TxError> {
    // The customer paid on the gateway's page.
    let scope = scope.acting_as(Actor::Customer);
    let row = match known(conn, scope, kind, checkout)? {
        Ok(row) => row,
        Err(why) => return Ok(Recorded::Ignored(why)),
    };
    let inv = lock_invoice(conn, scope, InvoiceId(row.invoice_id))?;
    set_status(conn, scope, kind, &checkout.id, checkout.status)?;
    if !checkout.paid {
        return Ok(Recorded::Unpaid(checkout.status));
    }
    let Some(reference) = checkout.payment_reference.as_deref() else {
        return Ok(Recorded::Ignored(
            "a paid checkout without a payment reference",
        ));
    };
    let earlier: Option<i64> = scoped!(payments, scope)
        .filter(payments::gateway.eq(kind.as_str()))
        .filter(payments::reference.eq(reference))
        .select(payments::id)
        .first(conn)
        .optional()?;
    if let Some(id) = earlier {
        return Ok(Recorded::AlreadyPaid(load_payment(
            conn,
            scope,
            PaymentId(id),
        )?));
    }
    if inv.currency != row.currency {
        return Ok(Recorded::Ignored(
            "a checkout in another currency than its invoice",
        ));
    }
    // Which of the gateway's checkouts took it, for the merchant who looks it up there.
    let metadata = Metadata::parse(
        "metadata",
        BTreeMap::from([("checkout_session".to_string(), checkout.id.clone())]),
    )
    .unwrap_or_default();
    let pending = insert_pending(
        conn,
        scope,
        &inv,
        Pending {
            amount: checkout.amount,
            method: PaymentMethod::Card,
            reference: Some(reference),
            metadata: &metadata,
            gateway: Some(kind.as_str()),
        },
    )?;
    let payment = verify(conn, scope, &pending, &inv, public, Overpay::Keep)?;
    Ok(Recorded::Paid(payment))
}

/// A delayed payment that failed after its checkout completed: a timeline entry and
/// `payment.failed` on the invoice, nothing else.
pub(crate) fn record_failure(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: GatewayKind,
    checkout: &Checkout,
    url: &str,
) -> Result<Recorded, TxError> {
    let scope = scope.acting_as(Actor::Customer);
    let row = match known(conn, scope, kind, checkout)? {
        Ok(row) => row,
        Err(why) => return Ok(Recorded::Ignored(why)),
    };
    // It will never pay: the customer may start again.
    set_status(conn, scope, kind, &checkout.id, CheckoutStatus::Expired)?;
    let invoice = load_invoice(conn, scope, InvoiceId(row.invoice_id), url)?;
    record(conn, scope, "payment.failed", &invoice)?;
    Ok(Recorded::Noted)
}

/// Open checkouts not looked at since `before`, oldest first: each look moves it to the back.
pub(crate) fn to_sweep(
    conn: &mut AnyConnection,
    before: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<OpenCheckout>, TxError> {
    let rows: Vec<(i64, bool, String, String)> = checkout_sessions::table
        .filter(checkout_sessions::status.eq(CheckoutStatus::Open.as_str()))
        .filter(checkout_sessions::updated_at.lt(to_db(before)))
        .order(checkout_sessions::updated_at.asc())
        .limit(limit)
        .select((
            checkout_sessions::account_id,
            checkout_sessions::livemode,
            checkout_sessions::gateway,
            checkout_sessions::session_id,
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .filter_map(|(account, livemode, gateway, session_id)| {
            Some(OpenCheckout {
                scope: Scope::new(AccountId(account), Environment::from_livemode(livemode)),
                kind: GatewayKind::parse(&gateway)?,
                session_id,
            })
        })
        .collect())
}

/// Moves a checkout the sweep looked at to the back of the queue.
pub(crate) fn touch(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: GatewayKind,
    session_id: &str,
) -> Result<(), TxError> {
    diesel::update(
        scoped!(checkout_sessions, scope)
            .filter(checkout_sessions::gateway.eq(kind.as_str()))
            .filter(checkout_sessions::session_id.eq(session_id)),
    )
    .set(checkout_sessions::updated_at.eq(now_db()))
    .execute(conn)?;
    Ok(())
}
