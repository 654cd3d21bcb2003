//! One invoice's screen: its lines, totals, payments, credit notes, emails, timeline, whether it
//! is an e-invoice yet, and the actions its status allows.

use super::einvoice_view::EInvoiceView;
use crate::dashboard::chrome::{Chrome, Nav};
use crate::dashboard::page;
use crate::dashboard::share::{share, Offer};
use crate::dashboard::views::LineRow;
use crate::dashboard::views::{date, moment, money, payment_status};
use crate::dashboard::{Answer, Visitor};
use crate::path_id::Id;
use crate::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use askama::Template;
use invoicing_domain::credit_note::CreditReason;
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::locale::Locale;
use invoicing_domain::payment::PaymentMethod;
use invoicing_domain::payment_status::PaymentStatus;
use invoicing_domain::sharing::Share;
use invoicing_domain::supply::Supply;

pub(crate) struct PaymentRow {
    pub id: i64,
    pub date: String,
    pub method: &'static str,
    pub reference: String,
    pub amount: String,
    pub status: &'static str,
    pub status_label: &'static str,
    pub pending: bool,
    /// The gateway, refunds and proof (SPEC §25).
    pub x: crate::dashboard::payments::extras::Extras,
    /// The Refund form's amount, when the payment may return anything.
    pub refund: Option<String>,
}

pub(crate) struct CreditRow {
    pub id: i64,
    pub number: String,
    pub date: String,
    pub amount: String,
}

pub(crate) struct EmailRow {
    pub kind: &'static str,
    pub to: String,
    pub status: &'static str,
    pub when: String,
    pub problem: String,
}

/// What the detail's buttons may do: exactly the moves the transition table allows.
pub(crate) struct Allowed {
    pub edit: bool,
    pub send: bool,
    pub pay: bool,
    pub cancel: bool,
    pub record_payment: bool,
    pub credit: bool,
    pub resend: bool,
}

impl Allowed {
    fn of(status: InvoiceStatus, amount_due: i64, credit_left: i64, can_write: bool) -> Allowed {
        let can = |to| can_write && status.transition(to).is_ok();
        Allowed {
            edit: can_write && status == InvoiceStatus::Draft,
            send: can(InvoiceStatus::Sent),
            pay: can(InvoiceStatus::Paid),
            cancel: can(InvoiceStatus::Cancelled),
            record_payment: can_write && status.is_open() && amount_due > 0,
            credit: can_write && credit_left > 0 && status.is_public(),
            resend: can_write && status.is_public(),
        }
    }
}

#[derive(Template)]
#[template(path = "dashboard/invoice.html")]
struct DetailPage {
    c: Chrome,
    einvoice: EInvoiceView,
    id: i64,
    number: String,
    status: &'static str,
    status_label: &'static str,
    customer_id: i64,
    customer: String,
    customer_email: String,
    issued: String,
    due: String,
    /// The delivery date or service period, labelled (SPEC §27).
    supply: Option<(&'static str, String)>,
    currency: &'static str,
    lines: Vec<LineRow>,
    subtotal: String,
    tax: String,
    total: String,
    paid: String,
    credited: String,
    amount_due: String,
    /// What the customer paid beyond what they owe, to refund (SPEC §25), when anything.
    overpaid: Option<String>,
    notes: Option<String>,
    link: Option<String>,
    /// WhatsApp and SMS to the customer's phone, while the invoice waits for payment (SPEC §26).
    share: Option<(String, Share)>,
    payments: Vec<PaymentRow>,
    credit_notes: Vec<CreditRow>,
    emails: Vec<EmailRow>,
    timeline: Vec<crate::dashboard::timeline::TimelineRow>,
    allowed: Allowed,
    methods: Vec<(&'static str, &'static str)>,
    reasons: Vec<(&'static str, &'static str)>,
    mail: bool,
}

pub(crate) fn method_label(t: Locale, m: PaymentMethod) -> &'static str {
    t.text(crate::dashboard::payments::extras::method_key(m))
}

/// One invoice.
#[utoipa::path(get, path = "/dashboard/invoices/{id}", tag = "dashboard", operation_id = "dashboard_invoice",
    params(("id" = String, Path, description = "The invoice's id")),
    responses(
        (status = 200, description = "The invoice", content_type = "text/html", body = String),
        (status = 404, description = "No such invoice in this account and environment", content_type = "text/html", body = String),
    ))]
pub(crate) async fn detail(
    me: Visitor,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: Id<InvoiceId>,
) -> Answer {
    let ops = me.ops(&state);
    // The invoice with the parties it names: the customer as the document shows them, and
    // what its e-invoice still lacks, in one read.
    let (inv, parties, readiness) = ops.invoice_readiness(id).await?;
    let about = format!("invoice_id={}&per_page=100", inv.id.0);
    let few = ops.without_totals();
    let payments = few.list_payments(&about).await?;
    // Only a sent invoice can be credited: a draft has no credit notes to read.
    let credits = if inv.status == InvoiceStatus::Draft {
        Vec::new()
    } else {
        few.list_credit_notes(&about).await?.data
    };
    let emails = few.list_emails(&about).await?;
    let timeline = ops.timeline("invoice", inv.id.0).await?;
    let c = Chrome::new(&me, &req, Nav::Invoices, inv.invoice_number.clone());
    let t = c.t;
    let cur = inv.currency;
    let share = inv.status.is_open().then(|| {
        share(
            t,
            &parties,
            Offer {
                key: "share.invoice",
                number: &inv.invoice_number,
                amount_cents: inv.amount_due_cents,
                currency: cur,
                date: inv.due_date,
                link: &inv.payment_link,
            },
        )
    });
    let einvoice = EInvoiceView::of(
        readiness,
        &parties,
        t,
        inv.customer_id.0,
        inv.id.0,
        inv.status == InvoiceStatus::Draft,
    );
    let (customer, customer_email) = (parties.recipient.name, parties.recipient.email);
    let credit_left = inv.total_cents - inv.amount_credited_cents;
    let allowed = Allowed::of(inv.status, inv.amount_due_cents, credit_left, c.can_write);
    let can_write = c.can_write;
    page(
        StatusCode::OK,
        DetailPage {
            id: inv.id.0,
            status: inv.status.as_str(),
            status_label: t.invoice_status_for_merchant(inv.status),
            customer_id: inv.customer_id.0,
            customer,
            customer_email,
            issued: date(t, inv.issue_date),
            due: date(t, inv.due_date),
            supply: inv.supply().map(|s| match s {
                Supply::Delivered(day) => ("dash.supply.delivery_date", date(t, day)),
                Supply::Period(p) => (
                    "dash.supply.period",
                    format!("{} – {}", date(t, p.start), date(t, p.end)),
                ),
            }),
            currency: cur.code(),
            lines: LineRow::of(t, cur, &inv.line_items),
            subtotal: money(t, inv.subtotal_cents, cur),
            tax: money(t, inv.tax_cents, cur),
            total: money(t, inv.total_cents, cur),
            paid: money(t, inv.amount_paid_cents, cur),
            credited: money(t, inv.amount_credited_cents, cur),
            amount_due: money(t, inv.amount_due_cents, cur),
            overpaid: (inv.overpaid_cents > 0).then(|| money(t, inv.overpaid_cents, cur)),
            notes: inv.notes.clone(),
            link: inv.status.is_public().then(|| inv.payment_link.clone()),
            share: share.flatten(),
            payments: payments
                .data
                .into_iter()
                .map(|p| PaymentRow {
                    x: crate::dashboard::payments::extras::Extras::of(t, &p),
                    refund: crate::dashboard::payments::extras::refund_prefill(
                        t, &p, &inv, can_write,
                    ),
                    id: p.id.0,
                    date: date(t, p.created_at.date_naive()),
                    method: method_label(t, p.method),
                    reference: p.reference.unwrap_or_default(),
                    amount: money(t, p.amount_cents, p.currency),
                    status: p.status.as_str(),
                    status_label: payment_status(t, p.status),
                    pending: p.status == PaymentStatus::Pending,
                })
                .collect(),
            credit_notes: credits
                .into_iter()
                .map(|n| CreditRow {
                    id: n.id.0,
                    number: n.credit_note_number,
                    date: date(t, n.created_at.date_naive()),
                    amount: money(t, n.total_cents, n.currency),
                })
                .collect(),
            emails: emails
                .data
                .into_iter()
                .map(|e| EmailRow {
                    kind: crate::dashboard::settings::emails::kind_label(t, e.kind),
                    to: e.to.join(", "),
                    status: crate::dashboard::settings::emails::status_label(t, e.status),
                    when: moment(t, e.created_at),
                    problem: e.last_error.unwrap_or_default(),
                })
                .collect(),
            timeline: crate::dashboard::timeline::timeline_rows(t, timeline),
            allowed,
            methods: PaymentMethod::ALL
                .into_iter()
                .map(|m| (m.as_str(), method_label(t, m)))
                .collect(),
            reasons: CreditReason::ALL
                .into_iter()
                .map(|r| {
                    (
                        r.as_str(),
                        crate::dashboard::credit_notes::reason_label(t, r),
                    )
                })
                .collect(),
            mail: state.config.mail_enabled,
            einvoice,
            number: inv.invoice_number,
            c,
        },
    )
}
