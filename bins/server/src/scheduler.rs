//! The scheduler: every `SCHEDULER_INTERVAL_SECS` it asks the card gateway about checkouts still
//! open (a lost webhook costs minutes, not money), turns invoices past their due date into
//! overdue, cancels unpaid payment requests whose time is up, and quotations past their validity into expired, issues recurring invoices whose period
//! has come, queues the payment reminders whose day has come (when mail is on), and forgets
//! idempotency keys older than their retention, ended dashboard sessions, expired set-password
//! links and old sign-in failures. The database decides which process makes each change, so
//! several servers may run it.

use actix_web::web;
use chrono::Utc;
use invoicing_domain::gateway::PaymentGateway;
use invoicing_domain::idempotency::RETENTION;
use invoicing_domain::ports::{
    EmailQueue, IdempotencyRepository, InvoiceRepository, PaymentRequestRepository,
    QuotationRepository, RateLimits, RecurringRepository, UserRepository,
};
use invoicing_http::ops::gateways::{retry_refunds, sweep_checkouts};
use invoicing_storage::Store;
use std::sync::Arc;
use std::time::Duration;

/// The longest a card payment whose webhook was lost waits for the sweep.
const CHECKOUT_SWEEP_MAX: Duration = Duration::from_secs(15);

pub async fn run(store: Store, gateway: Option<Arc<dyn PaymentGateway>>, every: Duration) {
    if let Some(gateway) = gateway {
        actix_web::rt::spawn(checkouts(
            store.clone(),
            gateway,
            every.min(CHECKOUT_SWEEP_MAX),
        ));
    }
    let mut tick = actix_web::rt::time::interval(every);
    loop {
        tick.tick().await;
        // Each account's "today" is its own date at this instant (SPEC §27).
        let now = Utc::now();
        let s = store.clone();
        sweep("invoice(s) became overdue", move || {
            s.mark_overdue_invoices(now)
        })
        .await;
        let s = store.clone();
        sweep("payment request(s) expired", move || {
            s.expire_payment_requests(now)
        })
        .await;
        let s = store.clone();
        sweep("quotation(s) expired", move || {
            s.mark_expired_quotations(now)
        })
        .await;
        let s = store.clone();
        sweep("recurring invoice(s) issued", move || {
            s.issue_recurring(now)
        })
        .await;
        let s = store.clone();
        sweep("reminder(s) queued", move || s.queue_reminders(now)).await;
        let s = store.clone();
        let before = Utc::now() - chrono::Duration::from_std(RETENTION).unwrap_or_default();
        sweep("idempotency key(s) forgotten", move || {
            s.purge_idempotency_keys(before)
        })
        .await;
        let s = store.clone();
        sweep("full rate-limit bucket(s) forgotten", move || {
            s.purge_rate_limits()
        })
        .await;
        let s = store.clone();
        sweep(
            "ended session(s), expired link(s) and old sign-in failure(s) forgotten",
            move || s.purge_user_state(Utc::now()),
        )
        .await;
    }
}

/// Asks the gateway about checkouts still open, on a tick of its own: money waits for it.
async fn checkouts(store: Store, gateway: Arc<dyn PaymentGateway>, every: Duration) {
    let mut tick = actix_web::rt::time::interval(every);
    loop {
        tick.tick().await;
        let (s, g) = (store.clone(), gateway.clone());
        sweep(
            "card payment(s) recorded by the checkout sweep",
            move || sweep_checkouts(&s, g.as_ref(), Utc::now()),
        )
        .await;
        let (s, g) = (store.clone(), gateway.clone());
        sweep("refund(s) settled on retry", move || {
            retry_refunds(&s, g.as_ref(), Utc::now())
        })
        .await;
    }
}

async fn sweep<F, E>(what: &str, f: F)
where
    F: FnOnce() -> Result<usize, E> + Send + 'static,
    E: std::fmt::Display + Send + 'static,
{
    match web::block(f).await {
        Ok(Ok(0)) => {}
        Ok(Ok(n)) => log::info!("scheduler: {n} {what}"),
        Ok(Err(e)) => log::warn!("scheduler: sweep failed ({what}): {e}"),
        Err(e) => log::error!("scheduler: sweep did not finish ({what}): {e}"),
    }
}
