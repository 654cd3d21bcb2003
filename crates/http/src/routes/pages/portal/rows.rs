//! The portal's rows: each document of the customer as a line of its table, with its page
//! and its files, and the statement form's choices.

use crate::ops::portal::PortalView;
use crate::routes::pages::money;
use invoicing_domain::currency::Currency;
use invoicing_domain::invoice::Invoice;
use invoicing_domain::locale::Locale;
use invoicing_domain::payment_status::PaymentStatus;

/// A file of a row: what its link says (a catalogue key) and where it leads.
pub(crate) struct FileLink {
    pub label: &'static str,
    pub href: String,
}

/// A document as a row of the portal: its number, when, what, where it stands, its page and
/// its files.
pub(crate) struct Row {
    pub number: String,
    pub date: String,
    pub amount: String,
    pub status: &'static str,
    pub status_label: &'static str,
    pub link: String,
    pub files: Vec<FileLink>,
}

/// One table of the portal: its anchor, its heading's key, what its date is, what its links
/// say, its rows.
pub(crate) struct Section {
    pub id: &'static str,
    pub heading: &'static str,
    pub date: &'static str,
    pub action: &'static str,
    pub rows: Vec<Row>,
}

/// The statement's form: the period it offers first and the currencies to choose from.
pub(crate) struct StatementForm {
    pub from: String,
    pub to: String,
    pub currencies: Vec<&'static str>,
}

/// `token=…`, encoded for a query.
pub(super) fn token_query(token: &str) -> String {
    serde_urlencoded::to_string([("token", token)]).unwrap_or_default()
}

/// Where a file of the portal is found.
fn file_href(token: &str, kind: &str, id: i64, format: &str) -> String {
    format!("/portal/{kind}/{id}/{format}?{}", token_query(token))
}

/// A PDF link, and the e-invoice's where the customer is a business that may want one.
fn files(token: &str, kind: &str, id: i64, einvoice: bool) -> Vec<FileLink> {
    let mut files = vec![FileLink {
        label: "portal.pdf",
        href: file_href(token, kind, id, "pdf"),
    }];
    if einvoice {
        files.push(FileLink {
            label: "portal.einvoice",
            href: file_href(token, kind, id, "ubl"),
        });
    }
    files
}

fn invoice_row(t: Locale, inv: &Invoice, token: &str, einvoice: bool) -> Row {
    let open = inv.status.is_open();
    Row {
        number: inv.invoice_number.clone(),
        // The open ones' table heads its dates "Due date", the others' "Date".
        date: t.date(if open { inv.due_date } else { inv.issue_date }),
        amount: money(
            t,
            if open {
                inv.amount_due_cents
            } else {
                inv.total_cents
            },
            inv.currency,
        ),
        status: inv.status.as_str(),
        status_label: t.invoice_status(inv.status),
        link: inv.payment_link.clone(),
        files: files(token, "invoices", inv.id.0, einvoice),
    }
}

/// The page's tables, from what the operation read.
pub(super) fn sections(t: Locale, v: &PortalView, token: &str) -> Vec<Section> {
    let einvoice = invoicing_domain::einvoice::for_business(
        v.customer.vat_id.as_ref(),
        v.customer.electronic_address.as_ref(),
    );
    let invoice = |id| v.invoices_named.get(&id);
    let section = |id, heading, date, action, rows: Vec<Row>| Section {
        id,
        heading,
        date,
        action,
        rows,
    };
    vec![
        section(
            "open",
            "portal.open",
            "field.due_date",
            "portal.pay",
            v.open
                .data
                .iter()
                .map(|i| invoice_row(t, i, token, einvoice))
                .collect(),
        ),
        section(
            "settled",
            "portal.settled",
            "field.date",
            "portal.view",
            v.settled
                .data
                .iter()
                .map(|i| invoice_row(t, i, token, einvoice))
                .collect(),
        ),
        section(
            "quotations",
            "portal.quotations",
            "field.valid_until",
            "portal.view",
            v.quotations
                .data
                .iter()
                .map(|q| Row {
                    number: q.quote_number.clone(),
                    date: t.date(q.valid_until),
                    amount: money(t, q.total_cents, q.currency),
                    status: q.status.as_str(),
                    status_label: t.quotation_status(q.status),
                    link: q.public_url.clone(),
                    files: files(token, "quotations", q.id.0, false),
                })
                .collect(),
        ),
        section(
            "credit-notes",
            "portal.credit_notes",
            "field.date",
            "portal.view",
            v.credit_notes
                .data
                .iter()
                .map(|n| Row {
                    number: n.credit_note_number.clone(),
                    date: t.date(n.created_at.date_naive()),
                    amount: money(t, n.total_cents, n.currency),
                    status: "credited",
                    status_label: t.text("portal.credited"),
                    link: invoice(n.invoice_id)
                        .map(|i| i.payment_link.clone())
                        .unwrap_or_default(),
                    files: files(token, "credit_notes", n.id.0, einvoice),
                })
                .collect(),
        ),
        section(
            "payments",
            "portal.payments",
            "field.date",
            "portal.view",
            v.payments
                .data
                .iter()
                .map(|p| Row {
                    number: invoice(p.invoice_id)
                        .map(|i| i.invoice_number.clone())
                        .unwrap_or_default(),
                    date: t.date(p.created_at.date_naive()),
                    amount: money(t, p.amount_cents, p.currency),
                    status: p.status.as_str(),
                    status_label: t.text(match p.status {
                        PaymentStatus::Pending => "payment.state.pending",
                        PaymentStatus::Verified => "payment.state.verified",
                        PaymentStatus::Rejected => "payment.state.rejected",
                    }),
                    link: invoice(p.invoice_id)
                        .map(|i| i.payment_link.clone())
                        .unwrap_or_default(),
                    files: Vec::new(),
                })
                .collect(),
        ),
    ]
    .into_iter()
    .filter(|s| !s.rows.is_empty())
    .collect()
}

/// The currencies the customer's documents on the page are in, the statement's choice.
pub(super) fn currencies(v: &PortalView) -> Vec<&'static str> {
    let mut seen: Vec<Currency> = v
        .open
        .data
        .iter()
        .chain(&v.settled.data)
        .map(|i| i.currency)
        .chain(v.quotations.data.iter().map(|q| q.currency))
        .chain(v.credit_notes.data.iter().map(|n| n.currency))
        .collect();
    seen.sort_by_key(|c| c.code());
    seen.dedup();
    seen.into_iter().map(|c| c.code()).collect()
}
