//! The message: headers, a plain-text and an HTML part in the customer's language (with the
//! logo inline), and the document's PDF attached.

use crate::html;
use chrono::NaiveDate;
use invoicing_domain::email::EmailKind;
use invoicing_domain::money::Money;
use invoicing_render::Document;
use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use lettre::{Address, Message};
use rand::RngCore;

/// `MAIL_FROM`: the address every email is sent from. Its display name is replaced by the
/// merchant's on each message (SPEC §18).
#[derive(Clone, Debug)]
pub struct Sender {
    address: Address,
}

impl Sender {
    pub fn parse(mail_from: &str) -> Result<Sender, String> {
        let mailbox: Mailbox = mail_from
            .parse()
            .map_err(|e| format!("MAIL_FROM {mail_from:?} is not an address: {e}"))?;
        Ok(Sender {
            address: mailbox.email,
        })
    }

    pub fn address(&self) -> &Address {
        &self.address
    }

    /// A fresh `Message-ID` on the sender's domain.
    fn message_id(&self) -> String {
        let mut bytes = [0u8; 16];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        format!("<{id}@{}>", self.address.domain())
    }
}

/// One email about one document.
pub struct Letter<'a> {
    pub kind: EmailKind,
    pub to: &'a [String],
    pub cc: &'a [String],
    pub subject: &'a str,
    /// The merchant's note, shown above the standard text.
    pub message: Option<&'a str>,
    /// The document as its PDF shows it; its locale is the email's.
    pub document: &'a Document,
    pub pdf: Vec<u8>,
    /// The merchant's address, for Reply-To.
    pub reply_to: Option<&'a str>,
    /// For receipts: the day the invoice was paid.
    pub paid_on: Option<NaiveDate>,
}

fn mailbox(address: &str) -> Result<Mailbox, String> {
    address
        .parse::<Address>()
        .map(|a| Mailbox::new(None, a))
        .map_err(|e| format!("{address:?} is not an address: {e}"))
}

/// The plain text in the customer's language, with the document's figures filled in.
fn standard_text(l: &Letter<'_>) -> String {
    let d = l.document;
    let t = d.locale;
    let money = |m: Money| t.money(m, d.currency);
    let date = |day: Option<NaiveDate>| day.map(|x| t.date(x)).unwrap_or_default();
    let due = d.totals.due.unwrap_or(d.totals.total);
    let amount = match l.kind {
        EmailKind::Receipt => d.totals.paid.unwrap_or(d.totals.total),
        _ => d.totals.total,
    };
    let key = format!("email.{}.body", l.kind.as_str());
    t.fill(
        &key,
        &[
            ("customer", d.buyer.name.as_str()),
            ("merchant", d.seller.name.as_str()),
            ("number", d.number.as_str()),
            ("amount", &money(amount)),
            ("amount_due", &money(due)),
            ("due_date", &date(d.due_date)),
            ("valid_until", &date(d.valid_until)),
            ("date", &date(l.paid_on)),
            ("link", d.payment_link.as_deref().unwrap_or_default()),
        ],
    )
    .replace("\\n", "\n")
}

fn summary(l: &Letter<'_>) -> Vec<(&'static str, String)> {
    let d = l.document;
    let t = d.locale;
    let mut rows = vec![
        (t.text("field.number"), d.number.clone()),
        (t.text("totals.total"), t.money(d.totals.total, d.currency)),
    ];
    if let Some(due) = d.due_date {
        rows.push((t.text("field.due_date"), t.date(due)));
    }
    if let Some(until) = d.valid_until {
        rows.push((t.text("field.valid_until"), t.date(until)));
    }
    if let Some(due) = d.totals.due {
        rows.push((t.text("totals.amount_due"), t.money(due, d.currency)));
    }
    rows
}

/// Builds the message; `Err` names what cannot be sent (an address that does not parse).
/// Answers the message and its `Message-ID`.
pub fn compose(sender: &Sender, l: Letter<'_>) -> Result<(Message, String), String> {
    let d = l.document;
    let t = d.locale;
    let merchant = d.seller.name.clone();
    let text = standard_text(&l);
    let plain = match l.message {
        Some(note) => format!("{note}\n\n{text}\n\n-- \n{merchant}\n"),
        None => format!("{text}\n\n-- \n{merchant}\n"),
    };
    let accent = d
        .brand_color
        .map(|[r, g, b]| format!("#{r:02x}{g:02x}{b:02x}"))
        .unwrap_or_else(|| "#1f4fbf".into());
    let link_label = match l.kind {
        EmailKind::Quotation => t.text("email.view_quotation"),
        _ => t.text("email.view_invoice"),
    };
    let page = html::Page {
        locale: t,
        title: l.subject,
        merchant: &merchant,
        has_logo: d.logo.is_some(),
        accent,
        message: l.message,
        body: &text,
        link: d.payment_link.as_deref(),
        link_label,
        summary: summary(&l).into_iter().collect(),
    };
    let html_part = SinglePart::html(html::render(&page));
    let html_block = match &d.logo {
        Some(logo) => MultiPart::related().singlepart(html_part).singlepart(
            Attachment::new_inline("logo".into()).body(
                logo.bytes.clone(),
                ContentType::parse(logo.kind.content_type()).map_err(|e| e.to_string())?,
            ),
        ),
        None => MultiPart::related().singlepart(html_part),
    };
    let body = MultiPart::mixed()
        .multipart(
            MultiPart::alternative()
                .singlepart(SinglePart::plain(plain))
                .multipart(html_block),
        )
        .singlepart(Attachment::new(format!("{}.pdf", d.number)).body(
            l.pdf,
            ContentType::parse("application/pdf").map_err(|e| e.to_string())?,
        ));

    let message_id = sender.message_id();
    let mut builder = Message::builder()
        .from(Mailbox::new(Some(merchant), sender.address.clone()))
        .subject(l.subject)
        .message_id(Some(message_id.clone()))
        .date_now();
    if let Some(reply_to) = l.reply_to {
        builder = builder.reply_to(mailbox(reply_to)?);
    }
    for to in l.to {
        builder = builder.to(mailbox(to)?);
    }
    for cc in l.cc {
        builder = builder.cc(mailbox(cc)?);
    }
    let message = builder.multipart(body).map_err(|e| e.to_string())?;
    Ok((message, message_id))
}
