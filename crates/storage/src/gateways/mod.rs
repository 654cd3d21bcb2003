//! Online payments in storage (SPEC §25): connected gateways, checkouts, recording what a
//! gateway reports, refunds and proof files.

mod checkouts;

use crate::payment_proofs as proofs;
mod refunds;
mod settings;

use crate::documents::public_row;
use crate::invoice_rows::InvoiceRow;
use crate::rows::now_db;
use crate::schema::gateway_events;
use crate::store::{Store, TxError};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use invoicing_domain::gateway::{
    Checkout, CheckoutRecord, GatewayEvent, GatewayKeys, GatewayKind, GatewayRefund,
    GatewaySettings, NewRefund, Notification, OpenCheckout, ProofFile, Recorded, RefundPlan,
};
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::payment::{Payment, PaymentId};
use invoicing_domain::ports::GatewayRepository;
use invoicing_domain::ports::RepoResult;
use invoicing_domain::tenant::Scope;

impl Store {
    /// Seals every tenant secret sealed with an older key again with the first key of
    /// `SECRETS_KEY` (`invoicing-server secrets reseal`); how many connections changed.
    pub fn reseal_secrets(&self) -> RepoResult<usize> {
        self.write(|conn| settings::reseal(conn, &self.secrets))
    }
}

impl GatewayRepository for Store {
    fn save_gateway(
        &self,
        scope: Scope,
        kind: GatewayKind,
        keys: &GatewayKeys,
        checked_at: DateTime<Utc>,
    ) -> RepoResult<GatewaySettings> {
        let url = self.public_url();
        self.write(|conn| {
            settings::save(conn, &self.secrets, scope, kind, keys, checked_at)?.settings(&url)
        })
    }

    fn gateway_settings(
        &self,
        scope: Scope,
        kind: GatewayKind,
    ) -> RepoResult<Option<GatewaySettings>> {
        let url = self.public_url();
        self.read(|conn| {
            settings::load(conn, scope, kind)?
                .map(|row| row.settings(&url))
                .transpose()
        })
    }

    fn gateway_keys(&self, scope: Scope, kind: GatewayKind) -> RepoResult<Option<GatewayKeys>> {
        self.read(|conn| {
            settings::load(conn, scope, kind)?
                .map(|row| row.keys(&self.secrets))
                .transpose()
        })
    }

    fn delete_gateway(&self, scope: Scope, kind: GatewayKind) -> RepoResult<bool> {
        self.write(|conn| settings::delete(conn, scope, kind))
    }

    fn gateway_endpoint(
        &self,
        kind: GatewayKind,
        endpoint: &str,
    ) -> RepoResult<Option<(Scope, GatewayKeys)>> {
        self.read(|conn| {
            settings::by_endpoint(conn, kind, endpoint)?
                .map(|row| Ok::<_, TxError>((row.scope(), row.keys(&self.secrets)?)))
                .transpose()
        })
    }

    fn invoice_gateway(
        &self,
        number: &str,
        token: &str,
        kind: GatewayKind,
    ) -> RepoResult<(Scope, Option<GatewayKeys>)> {
        self.read(|conn| {
            let row = public_row::<InvoiceRow>(conn, number, token)?;
            let scope = row.scope();
            let keys = settings::load(conn, scope, kind)?
                .map(|g| g.keys(&self.secrets))
                .transpose()?;
            Ok((scope, keys))
        })
    }

    fn invoice_checkouts(
        &self,
        scope: Scope,
        invoice: InvoiceId,
    ) -> RepoResult<Vec<CheckoutRecord>> {
        self.read(|conn| checkouts::of_invoice(conn, scope, invoice))
    }

    fn save_checkout(
        &self,
        scope: Scope,
        kind: GatewayKind,
        invoice: InvoiceId,
        checkout: &Checkout,
    ) -> RepoResult<()> {
        self.write(|conn| checkouts::save_checkout(conn, scope, kind, invoice, checkout))
    }

    fn record_checkout(
        &self,
        scope: Scope,
        kind: GatewayKind,
        checkout: &Checkout,
    ) -> RepoResult<Recorded> {
        let url = self.public_url();
        let mail = self.mail_enabled();
        self.write(|conn| checkouts::record_checkout(conn, scope, kind, checkout, (&url, mail)))
    }

    fn record_notification(
        &self,
        scope: Scope,
        kind: GatewayKind,
        endpoint: &str,
        notification: &Notification,
    ) -> RepoResult<Recorded> {
        let url = self.public_url();
        let mail = self.mail_enabled();
        // The same event delivered twice at once: the second insert of its id is refused by
        // the key, and the retry finds it handled.
        self.write_retrying_unique(|conn| {
            let seen: bool = diesel::select(diesel::dsl::exists(
                crate::rows::scoped!(gateway_events, scope)
                    .filter(gateway_events::endpoint.eq(endpoint))
                    .filter(gateway_events::event_id.eq(&notification.id)),
            ))
            .get_result(conn)?;
            if seen {
                return Ok(Recorded::Duplicate);
            }
            let kind_name = match &notification.event {
                GatewayEvent::CheckoutPaid(_) => "checkout_paid",
                GatewayEvent::CheckoutPending(_) => "checkout_pending",
                GatewayEvent::CheckoutFailed(_) => "checkout_failed",
                GatewayEvent::RefundChanged(_) => "refund_changed",
                GatewayEvent::Other(_) => "other",
            };
            diesel::insert_into(gateway_events::table)
                .values((
                    gateway_events::account_id.eq(scope.account_id.0),
                    gateway_events::livemode.eq(scope.livemode()),
                    gateway_events::endpoint.eq(endpoint),
                    gateway_events::event_id.eq(&notification.id),
                    gateway_events::event_type.eq(kind_name),
                    gateway_events::received_at.eq(now_db()),
                ))
                .execute(conn)?;
            if notification.livemode != scope.livemode() {
                return Ok(Recorded::Ignored("an event of the other environment"));
            }
            match &notification.event {
                GatewayEvent::CheckoutPaid(c) | GatewayEvent::CheckoutPending(c) => {
                    checkouts::record_checkout(conn, scope, kind, c, (&url, mail))
                }
                GatewayEvent::CheckoutFailed(c) => {
                    checkouts::record_failure(conn, scope, kind, c, &url)
                }
                GatewayEvent::RefundChanged(r) => {
                    refunds::changed(conn, scope, r)?;
                    Ok(Recorded::Noted)
                }
                GatewayEvent::Other(_) => Ok(Recorded::Noted),
            }
        })
    }

    fn checkouts_to_sweep(
        &self,
        before: DateTime<Utc>,
        limit: i64,
    ) -> RepoResult<Vec<OpenCheckout>> {
        self.write(|conn| {
            let due = checkouts::to_sweep(conn, before, limit)?;
            // Each is handed out once per round, however many processes sweep.
            for c in &due {
                checkouts::touch(conn, c.scope, c.kind, &c.session_id)?;
            }
            Ok(due)
        })
    }

    fn start_refund(
        &self,
        scope: Scope,
        payment: PaymentId,
        refund: &NewRefund,
    ) -> RepoResult<RefundPlan> {
        self.write(|conn| refunds::start(conn, scope, payment, refund))
    }

    fn finish_refund(
        &self,
        scope: Scope,
        plan: &RefundPlan,
        outcome: Option<&GatewayRefund>,
    ) -> RepoResult<Payment> {
        self.write(|conn| refunds::finish(conn, scope, plan, outcome))
    }

    fn refunds_to_retry(
        &self,
        before: DateTime<Utc>,
        limit: i64,
    ) -> RepoResult<Vec<(Scope, RefundPlan)>> {
        self.write(|conn| refunds::to_retry(conn, before, limit))
    }

    fn attach_proof(&self, scope: Scope, payment: PaymentId, file: &ProofFile) -> RepoResult<()> {
        self.write(|conn| proofs::attach(conn, scope, payment, file))
    }

    fn payment_proof(&self, scope: Scope, payment: PaymentId) -> RepoResult<Option<ProofFile>> {
        self.read(|conn| proofs::load(conn, scope, payment))
    }
}
