//! What every screen shows of a payment beside its amount and status (SPEC §25): how it was paid
//! (a card through Stripe with its reference), what was refunded of it, the customer's proof of
//! transfer, and the amount a Refund form starts with.

use crate::dashboard::views::{date, money};
use invoicing_domain::gateway::{refundable, GatewayKind, RefundStatus};
use invoicing_domain::invoice::Invoice;
use invoicing_domain::locale::Locale;
use invoicing_domain::money::Money;
use invoicing_domain::payment::{Payment, PaymentMethod};
use invoicing_domain::payment_proof::ProofKind;
use invoicing_domain::payment_status::PaymentStatus;

/// The catalogue key of a payment method's name.
pub(crate) fn method_key(m: PaymentMethod) -> &'static str {
    match m {
        PaymentMethod::BankTransfer => "dash.method.bank_transfer",
        PaymentMethod::Card => "dash.method.card",
        PaymentMethod::Cash => "dash.method.cash",
        PaymentMethod::Other => "dash.method.other",
    }
}

/// A refund as the screens list it.
pub(crate) struct RefundRow {
    pub amount: String,
    pub date: String,
    pub status_label: &'static str,
    /// The colour of its status: `pending`, `verified` (done) or `rejected` (failed).
    pub tone: &'static str,
    pub reason: String,
}

/// What every screen shows of a payment beside its amount and status (SPEC §25): the gateway
/// that took it, what was refunded of it, and the customer's proof of transfer.
pub(crate) struct Extras {
    /// The gateway's name ("Stripe"), when one took it (its reference is then its id there).
    pub gateway: Option<&'static str>,
    /// "Refunded €25.00", when anything was.
    pub refunded: Option<String>,
    pub refunds: Vec<RefundRow>,
    /// The proof's download and its label ("View proof (PDF, 120 KB)").
    pub proof: Option<(String, String)>,
}

fn refund_status(t: Locale, s: RefundStatus) -> (&'static str, &'static str) {
    match s {
        RefundStatus::Pending => (t.text("dash.refund_status.pending"), "pending"),
        RefundStatus::Succeeded => (t.text("dash.refund_status.succeeded"), "verified"),
        RefundStatus::Failed => (t.text("dash.refund_status.failed"), "rejected"),
    }
}

/// A file's size as people read it: "120 KB", "1.5 MB" (in the locale's writing).
fn file_size(t: Locale, bytes: i64) -> String {
    const KIB: i64 = 1024;
    if bytes < KIB * KIB {
        let kb = ((bytes + KIB - 1) / KIB).max(1);
        t.fill("dash.size.kb", &[("n", &kb.to_string())])
    } else {
        let tenths = (bytes * 10 + KIB * KIB / 2) / (KIB * KIB);
        let n = format!("{}{}{}", tenths / 10, t.decimal_separator(), tenths % 10);
        t.fill("dash.size.mb", &[("n", &n)])
    }
}

impl Extras {
    pub fn of(t: Locale, p: &Payment) -> Extras {
        let gateway = p
            .gateway
            .as_deref()
            .and_then(GatewayKind::parse)
            .map(|g| match g {
                GatewayKind::Stripe => "Stripe",
            });
        let refunded = (p.amount_refunded_cents != 0).then(|| {
            t.fill(
                "dash.payment.refunded",
                &[("amount", &money(t, p.amount_refunded_cents, p.currency))],
            )
        });
        let refunds = p
            .refunds
            .iter()
            .map(|r| {
                let (status_label, tone) = refund_status(t, r.status);
                RefundRow {
                    amount: money(t, r.amount_cents, p.currency),
                    date: date(t, r.created_at.date_naive()),
                    status_label,
                    tone,
                    reason: r.reason.clone().unwrap_or_default(),
                }
            })
            .collect();
        let proof = p.proof.as_ref().map(|f| {
            let kind = match ProofKind::from_content_type(&f.content_type) {
                Some(ProofKind::Pdf) => "PDF",
                Some(ProofKind::Png) => "PNG",
                Some(ProofKind::Jpeg) => "JPEG",
                None => "",
            };
            let label = t.fill(
                "dash.payment.view_proof",
                &[("kind", kind), ("size", &file_size(t, f.bytes))],
            );
            (format!("/dashboard/payments/{}/proof", p.id.0), label)
        });
        Extras {
            gateway,
            refunded,
            refunds,
            proof,
        }
    }
}

/// The amount a Refund form starts with, as the user's language writes it: what the payment
/// may still return (the domain's rule, for display; the operation decides), when a verified
/// payment may return anything and the user may change payments.
pub(crate) fn refund_prefill(
    t: Locale,
    p: &Payment,
    inv: &Invoice,
    can_write: bool,
) -> Option<String> {
    let money = |c: i64| Money::new(c).unwrap_or(Money::ZERO);
    let left = refundable(
        money(p.amount_cents),
        money(p.amount_refunded_cents),
        money(inv.overpaid_cents),
    );
    (can_write && p.status == PaymentStatus::Verified && left.minor() > 0)
        .then(|| t.amount_field(left, p.currency))
}

/// A payment as the list and its screen show it.
pub(crate) struct Row {
    pub id: i64,
    pub invoice_id: i64,
    pub customer: String,
    pub date: String,
    pub method: &'static str,
    pub reference: String,
    pub amount: String,
    pub status: &'static str,
    pub status_label: &'static str,
    pub pending: bool,
    pub x: Extras,
}
