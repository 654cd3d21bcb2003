//! What the invoice page shows: its view of the invoice, its payments, credit notes and the
//! state of the report form.

use crate::routes::pages::{money, DocumentParts, DocumentView};
use askama::Template;
use invoicing_domain::invoice::PublicInvoice;
use invoicing_domain::locale::Locale;
use invoicing_domain::money::Money;
use invoicing_domain::payment::reported;
use invoicing_domain::payment_status::PaymentStatus;
use invoicing_domain::supply::Supply;

/// A payment as the customer sees it on the page.
pub(super) struct PaymentLine {
    pub(super) date: String,
    pub(super) amount: String,
    pub(super) reference: String,
    pub(super) state: &'static str,
}

#[derive(Template)]
#[template(path = "invoice.html")]
pub(super) struct InvoicePage {
    pub(super) doc: DocumentView,
    pub(super) title: String,
    pub(super) report_intro: String,
    pub(super) report_amount_label: String,
    pub(super) status: &'static str,
    pub(super) status_label: &'static str,
    pub(super) due_date: String,
    /// The delivery date or service period, labelled (SPEC §27).
    pub(super) supply: Option<(&'static str, String)>,
    pub(super) show_due: bool,
    pub(super) amount_due: String,
    pub(super) token: String,
    /// The report form, while the invoice takes payments that are neither made nor reported.
    pub(super) accepts_reports: bool,
    /// The customer's reports being checked, in their words ("We have your report of …").
    pub(super) reports_checked: Vec<String>,
    pub(super) amount_value: String,
    pub(super) reference_value: String,
    pub(super) form_errors: Vec<String>,
    pub(super) thanks: Option<String>,
    pub(super) payments: Vec<PaymentLine>,
    /// Credit notes: number, date, amount.
    pub(super) credit_notes: Vec<(String, String, String)>,
    pub(super) credited: Option<String>,
    /// "Pay by card" (SPEC §25), labelled with the amount.
    pub(super) card_button: Option<String>,
    /// How a card payment the customer came back from stands.
    pub(super) card_note: Option<String>,
    /// Why the attached proof file was refused (shown beside its field).
    pub(super) proof_error: Option<String>,
    /// A payment request's way back to the shop (SPEC §26), while it can be paid.
    pub(super) back_to_shop: Option<String>,
    /// Why a payment request's invoice was cancelled: its time ran out.
    pub(super) expired: Option<String>,
}

fn payment_state(t: Locale, status: PaymentStatus) -> &'static str {
    t.text(match status {
        PaymentStatus::Pending => "payment.state.pending",
        PaymentStatus::Verified => "payment.state.verified",
        PaymentStatus::Rejected => "payment.state.rejected",
    })
}

impl InvoicePage {
    pub(super) fn new(p: PublicInvoice, token: String) -> Self {
        let inv = p.invoice;
        let cur = inv.currency;
        let t = p.parties.locale();
        let due = Money::new(inv.amount_due_cents).unwrap_or(Money::ZERO);
        // The form offers, prefilled, only what is neither paid nor reported (SPEC §13).
        let left = inv
            .balance()
            .map(|b| b.reportable(reported(&p.payments)))
            .unwrap_or(due);
        let reports_checked = if inv.status.is_open() {
            p.payments
                .iter()
                .filter(|pay| pay.status == PaymentStatus::Pending)
                .map(|pay| {
                    t.fill(
                        "report.received",
                        &[
                            ("amount", &money(t, pay.amount_cents, cur)),
                            ("date", &t.date(pay.created_at.date_naive())),
                        ],
                    )
                })
                .collect()
        } else {
            Vec::new()
        };
        let merchant = p.parties.issuer.display_name();
        let number = inv.invoice_number.as_str();
        let checkout = p.checkout.unwrap_or_default();
        let expired = match (checkout.expires_at, inv.cancelled_at) {
            (Some(at), Some(cancelled)) if cancelled >= at => Some(t.fill(
                "request.expired",
                &[("date", &t.date(at.date_naive())), ("merchant", merchant)],
            )),
            _ => None,
        };
        InvoicePage {
            title: t.fill(
                "page.invoice_title",
                &[("number", number), ("merchant", merchant)],
            ),
            report_intro: t.fill("report.intro", &[("merchant", merchant)]),
            report_amount_label: t.fill("report.amount", &[("currency", cur.code())]),
            status: inv.status.as_str(),
            status_label: t.invoice_status(inv.status),
            due_date: t.date(inv.due_date),
            supply: supply_fact(inv.supply(), t),
            show_due: inv.status.is_open(),
            amount_due: money(t, inv.amount_due_cents, cur),
            token,
            accepts_reports: inv.status.is_open() && left > Money::ZERO,
            reports_checked,
            amount_value: t.amount_field(left, cur),
            reference_value: String::new(),
            form_errors: Vec::new(),
            thanks: None,
            payments: p
                .payments
                .iter()
                .map(|pay| PaymentLine {
                    date: t.date(pay.created_at.date_naive()),
                    amount: money(t, pay.amount_cents, cur),
                    // A gateway's id (`pi_…`) means nothing to the customer: the way they paid.
                    reference: match pay.gateway {
                        Some(_) => t.text("payment.by_card").to_string(),
                        None => pay.reference.clone().unwrap_or_default(),
                    },
                    state: payment_state(t, pay.status),
                })
                .collect(),
            card_button: None,
            card_note: None,
            proof_error: None,
            back_to_shop: checkout.cancel_url.filter(|_| inv.status.is_open()),
            expired,
            credited: (inv.amount_credited_cents > 0)
                .then(|| money(t, inv.amount_credited_cents, cur)),
            credit_notes: p
                .credit_notes
                .iter()
                .map(|c| {
                    (
                        c.credit_note_number.clone(),
                        t.date(c.created_at.date_naive()),
                        money(t, c.total_cents, cur),
                    )
                })
                .collect(),
            doc: DocumentView::from(DocumentParts {
                parties: p.parties,
                logo: p.logo,
                number: inv.invoice_number,
                issue_date: inv.issue_date,
                currency: cur,
                lines: inv.line_items,
                subtotal_cents: inv.subtotal_cents,
                tax_cents: inv.tax_cents,
                total_cents: inv.total_cents,
                notes: inv.notes,
            }),
        }
    }
}

/// The delivery date or service period as the page names it.
fn supply_fact(supply: Option<Supply>, t: Locale) -> Option<(&'static str, String)> {
    Some(match supply? {
        Supply::Delivered(day) => (t.text("field.delivery_date"), t.date(day)),
        Supply::Period(p) => (
            t.text("field.service_period"),
            format!("{} – {}", t.date(p.start), t.date(p.end)),
        ),
    })
}
