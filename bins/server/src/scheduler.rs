//! The scheduler: every `SCHEDULER_INTERVAL_SECS` it turns invoices past their due date into
//! overdue. The database decides which process makes each change, so several servers may run it.

use actix_web::web;
use chrono::Utc;
use invoicing_domain::ports::InvoiceRepository;
use invoicing_storage::Store;
use std::time::Duration;

pub async fn run(store: Store, every: Duration) {
    let mut tick = actix_web::rt::time::interval(every);
    loop {
        tick.tick().await;
        let store = store.clone();
        let today = Utc::now().date_naive();
        match web::block(move || store.mark_overdue_invoices(today)).await {
            Ok(Ok(0)) => {}
            Ok(Ok(n)) => log::info!("scheduler: {n} invoice(s) became overdue"),
            Ok(Err(e)) => log::warn!("scheduler: overdue sweep failed: {e}"),
            Err(e) => log::error!("scheduler: overdue sweep did not finish: {e}"),
        }
    }
}
