//! The message: headers, a plain-text and an HTML part in the customer's language (with the
//! logo inline), and the document's PDF attached.

use crate::html;
use chrono::NaiveDate;
use invoicing_domain::email::EmailKind;
use invoicing_domain::money::Money;
use invoicing_render::{Document, Mark};
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
    pub fn new_message_id(&self) -> String {
        let mut bytes = [0u8; 16];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        format!("<{}@{}>", hex::encode(bytes), self.address.domain())
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
    /// The merchant's date as the letter is written (SPEC §27): a reminder before it says "is
    /// due", on or after it "was due".
    pub today: NaiveDate,
    /// A link to the customer's portal (SPEC §26), for an email to the customer alone.
    pub portal_link: Option<&'a str>,
}

/// Text for a header: control characters (a line break would end the header, and lettre
/// refuses to write one) become spaces. Names come from profiles and customers as typed.
pub(crate) fn header_text(s: &str) -> String {
    let text: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    // Text that looks like an encoded word ("=?utf-8?q?…?=") would be decoded by mail programs
    // into whatever it hides (line breaks included): a word joiner keeps it literal.
    text.replace("=?", "=\u{2060}?")
}

/// A recipient; an international domain goes on the envelope in its ASCII (`xn--`) form, which
/// every relay accepts.
pub(crate) fn mailbox(address: &str) -> Result<Mailbox, String> {
    let invalid = |e: String| format!("{address:?} is not an address: {e}");
    let (local, domain) = address
        .rsplit_once('@')
        .ok_or_else(|| invalid("no @".into()))?;
    let domain = idna::domain_to_ascii(domain).map_err(|e| invalid(e.to_string()))?;
    format!("{local}@{domain}")
        .parse::<Address>()
        .map(|a| Mailbox::new(None, a))
        .map_err(|e| invalid(e.to_string()))
}

/// An address as the SMTP envelope carries it (its domain in ASCII), to tell which listed
/// address a server's reply is about.
pub(crate) fn envelope_address(address: &str) -> Option<String> {
    mailbox(address).ok().map(|m| m.email.to_string())
}

/// The plain text in the customer's language, with the document's figures filled in.
fn standard_text(l: &Letter<'_>) -> String {
    let d = l.document;
    let t = d.locale;
    let money = |m: Money| t.money(m, d.currency);
    let date = |day: Option<NaiveDate>| day.map(|x| t.date(x)).unwrap_or_default();
    let due = d.amount_due().unwrap_or(d.total());
    let amount = match l.kind {
        EmailKind::Receipt => d.amount_paid().unwrap_or(d.total()),
        _ => d.total(),
    };
    let period = d
        .period()
        .map(|(from, to)| format!("{} – {}", t.date(from), t.date(to)))
        .unwrap_or_default();
    // A reminder before the due date says "is due", on or after it "was due".
    let before_due = l.kind == EmailKind::Reminder && d.due_date.is_some_and(|due| l.today < due);
    // A document sent again after it closed says so instead of asking to pay or answer.
    let key = match (l.kind, d.mark) {
        (EmailKind::Reminder, _) if before_due => "email.reminder_before.body".to_string(),
        (EmailKind::Invoice, Mark::Paid) => "email.invoice_paid.body".to_string(),
        (EmailKind::Invoice, Mark::Cancelled) => "email.invoice_cancelled.body".to_string(),
        (EmailKind::Quotation, Mark::Accepted | Mark::Declined | Mark::Expired) => {
            "email.quotation_closed.body".to_string()
        }
        (kind, _) => format!("email.{}.body", kind.as_str()),
    };
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
            ("period", &period),
            ("link", d.payment_link.as_deref().unwrap_or_default()),
        ],
    )
    .replace("\\n", "\n")
}

/// The standard text and, for the customer alone, where all their documents are.
fn body_text(l: &Letter<'_>) -> String {
    let text = standard_text(l);
    match l.portal_link {
        Some(portal) => {
            let d = l.document;
            let line = d.locale.fill(
                "portal.email_link",
                &[("merchant", d.seller.name.as_str()), ("link", portal)],
            );
            format!("{text}\n\n{line}")
        }
        None => text,
    }
}

fn summary(l: &Letter<'_>) -> Vec<(&'static str, String)> {
    let d = l.document;
    let t = d.locale;
    if let Some((from, to)) = d.period() {
        let period = format!("{} – {}", t.date(from), t.date(to));
        return vec![
            (t.text("field.number"), d.number.clone()),
            (t.text("statement.period"), period),
            (
                t.text("statement.closing_balance"),
                t.money(d.total(), d.currency),
            ),
        ];
    }
    let mut rows = vec![
        (t.text("field.number"), d.number.clone()),
        (t.text("totals.total"), t.money(d.total(), d.currency)),
    ];
    if let Some(due) = d.due_date {
        rows.push((t.text("field.due_date"), t.date(due)));
    }
    if let Some(until) = d.valid_until {
        rows.push((t.text("field.valid_until"), t.date(until)));
    }
    if let Some(due) = d.amount_due() {
        rows.push((t.text("totals.amount_due"), t.money(due, d.currency)));
    }
    rows
}

/// Builds the message with `message_id`; `Err` names what cannot be sent (an address that
/// does not parse).
pub fn compose(sender: &Sender, l: Letter<'_>, message_id: &str) -> Result<Message, String> {
    let d = l.document;
    let t = d.locale;
    let merchant = d.seller.name.clone();
    let text = body_text(&l);
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
        portal_link: l.portal_link,
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

    let mut builder = Message::builder()
        .from(Mailbox::new(
            Some(header_text(&merchant)),
            sender.address.clone(),
        ))
        .subject(header_text(l.subject))
        .message_id(Some(message_id.to_string()))
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
    builder.multipart(body).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use invoicing_domain::currency::Currency;
    use invoicing_render::{Body, DocumentKind, Locale, Party, Totals};

    fn quotation() -> Document {
        let money = |m| Money::new(m).unwrap();
        Document {
            kind: DocumentKind::Quotation,
            number: "QUO-2026-000007".into(),
            issue_date: NaiveDate::from_ymd_opt(2026, 11, 24).unwrap(),
            due_date: None,
            supply: None,
            valid_until: Some(NaiveDate::from_ymd_opt(2026, 12, 24).unwrap()),
            currency: Currency::parse("EUR").unwrap(),
            seller: Party {
                name: "Ørsted Design".into(),
                ..Default::default()
            },
            logo: None,
            brand_color: None,
            buyer: Party {
                name: "Pat".into(),
                ..Default::default()
            },
            body: Body::Lines {
                lines: Vec::new(),
                totals: Totals {
                    subtotal: money(123_450),
                    taxes: Vec::new(),
                    total: money(123_450),
                    credited: None,
                    paid: None,
                    due: None,
                },
            },
            payment_instructions: None,
            payment_link: Some("https://billing.example.com/quote/QUO-2026-000007?token=t".into()),
            notes: None,
            footer: None,
            mark: Mark::None,
            locale: Locale::En,
            factur_x: None,
        }
    }

    fn letter<'a>(doc: &'a Document, to: &'a [String]) -> Letter<'a> {
        Letter {
            kind: EmailKind::Quotation,
            to,
            cc: &[],
            subject: "Quotation QUO-2026-000007 from Ørsted Design",
            message: None,
            document: doc,
            pdf: b"%PDF-1.7 test".to_vec(),
            reply_to: None,
            paid_on: None,
            today: chrono::Utc::now().date_naive(),
            portal_link: None,
        }
    }

    #[test]
    fn a_quotation_email_in_english_without_logo_or_reply_to() {
        let sender = Sender::parse("Billing <billing@example.com>").unwrap();
        let doc = quotation();
        let to = ["pat@example.com".to_string()];
        let id = sender.new_message_id();
        let message = compose(&sender, letter(&doc, &to), &id).unwrap();
        assert!(id.starts_with('<') && id.ends_with("@example.com>"), "{id}");
        let raw = String::from_utf8(message.formatted()).unwrap();
        assert!(raw.contains(&format!("Message-ID: {id}")), "{raw}");
        assert!(raw.contains("Date: "));
        assert!(!raw.contains("Reply-To:"), "no merchant email, no Reply-To");
        assert!(!raw.contains("cid:logo"), "no logo, no inline image");
        // The display name is encoded (RFC 2047), the address is MAIL_FROM's.
        assert!(raw.contains("From: =?utf-8?"), "{raw}");
        assert!(raw.contains("<billing@example.com>"));
        assert!(raw.contains("filename=\"QUO-2026-000007.pdf\""), "{raw}");
        // The text names the total and the valid-until date in English conventions.
        let text = standard_text(&letter(&doc, &to));
        assert!(text.contains("€1,234.50"), "{text}");
        assert!(text.contains("Dec 24, 2026"), "{text}");
        assert!(!text.contains('{'), "every placeholder filled: {text}");
    }

    /// SPEC §26: an email to the customer names their portal, in their language, linked in the
    /// HTML part too.
    #[test]
    fn an_email_to_the_customer_links_their_portal() {
        let mut doc = quotation();
        doc.locale = Locale::De;
        let to = ["pat@example.com".to_string()];
        let portal = "https://billing.example.com/portal?token=abc";
        let mut l = letter(&doc, &to);
        assert!(!body_text(&l).contains("/portal"));
        l.portal_link = Some(portal);
        let text = body_text(&l);
        assert!(
            text.ends_with(&format!(
                "Alle Ihre Dokumente von Ørsted Design finden Sie an einem Ort: {portal}"
            )),
            "{text}"
        );
        let html = crate::html::paragraphs(&text, &[doc.payment_link.as_deref(), Some(portal)]);
        assert!(
            html.contains(&format!("<a href=\"{}\"", html::escape(portal))),
            "{html}"
        );
        assert!(
            html.contains("<a href=\"https://billing.example.com/quote/QUO-2026-000007?token=t\""),
            "{html}"
        );
    }

    #[test]
    fn a_reminder_before_the_due_date_says_it_is_due() {
        let mut doc = quotation();
        doc.kind = DocumentKind::Invoice;
        let to = ["pat@example.com".to_string()];
        let today = chrono::Utc::now().date_naive();
        let mut l = letter(&doc, &to);
        l.kind = EmailKind::Reminder;
        let mut ahead = doc.clone();
        ahead.due_date = Some(today + chrono::Days::new(3));
        l.document = &ahead;
        assert!(
            standard_text(&l).contains("is due on"),
            "{}",
            standard_text(&l)
        );
        let mut past = doc.clone();
        past.due_date = Some(today);
        l.document = &past;
        assert!(
            standard_text(&l).contains("was due on"),
            "{}",
            standard_text(&l)
        );
    }

    /// Sent again once closed, a document says what it is now, in every language: a paid
    /// invoice thanks, a cancelled one says nothing is due, a closed quotation takes no
    /// answer; none asks to pay or to accept.
    #[test]
    fn a_closed_document_sent_again_says_so() {
        let to = ["pat@example.com".to_string()];
        let cases = [
            (
                DocumentKind::Invoice,
                EmailKind::Invoice,
                Mark::Paid,
                "paid in full",
            ),
            (
                DocumentKind::Invoice,
                EmailKind::Invoice,
                Mark::Cancelled,
                "cancelled",
            ),
            (
                DocumentKind::Quotation,
                EmailKind::Quotation,
                Mark::Accepted,
                "no longer open",
            ),
            (
                DocumentKind::Quotation,
                EmailKind::Quotation,
                Mark::Expired,
                "no longer open",
            ),
        ];
        for (doc_kind, kind, mark, english) in cases {
            let mut doc = quotation();
            doc.kind = doc_kind;
            doc.mark = mark;
            for locale in Locale::all() {
                doc.locale = locale;
                let mut l = letter(&doc, &to);
                l.kind = kind;
                let text = standard_text(&l);
                assert!(!text.contains('{'), "{locale} {mark:?}: {text}");
                assert!(text.contains("https://billing.example.com/"), "{text}");
                if locale == Locale::En {
                    assert!(text.contains(english), "{mark:?}: {text}");
                    assert!(
                        !text.contains("pay it") && !text.contains("accept"),
                        "{text}"
                    );
                }
            }
            // The same document still open asks as before.
            doc.mark = Mark::None;
            doc.locale = Locale::En;
            let mut l = letter(&doc, &to);
            l.kind = kind;
            assert!(!standard_text(&l).contains(english));
        }
    }

    /// A merchant name with a line break cannot add a header: the display name is encoded.
    #[test]
    fn names_cannot_inject_headers() {
        let sender = Sender::parse("billing@example.com").unwrap();
        let mut doc = quotation();
        doc.seller.name = "Evil\r\nBcc: victim@example.com".into();
        let to = ["pat@example.com".to_string()];
        let mut l = letter(&doc, &to);
        l.subject = "Quotation from Evil\r\nBcc: victim@example.com";
        let message = compose(&sender, l, "<t@example.com>").unwrap();
        let raw = String::from_utf8(message.formatted()).unwrap();
        let headers = raw.split("\r\n\r\n").next().unwrap();
        assert!(!headers.lines().any(|l| l.starts_with("Bcc:")), "{headers}");
        assert!(message.envelope().to().len() == 1);
    }

    #[test]
    fn encoded_words_stay_literal_and_domains_go_ascii() {
        assert!(!header_text("=?utf-8?q?hi=0D=0ABcc:_x@y.com?=").contains("=?"));
        let m = mailbox("jürgen@bücher.de").unwrap();
        assert_eq!(m.email.to_string(), "jürgen@xn--bcher-kva.de");
    }

    #[test]
    fn an_unparseable_recipient_is_reported_not_sent() {
        let sender = Sender::parse("billing@example.com").unwrap();
        let doc = quotation();
        let to = ["not an address".to_string()];
        assert!(compose(&sender, letter(&doc, &to), "<t@example.com>").is_err());
        assert!(Sender::parse("Billing <nobody>").is_err());
    }

    #[test]
    fn the_html_escapes_what_the_merchant_typed() {
        let html = crate::html::paragraphs(
            "<script>alert(1)</script>\n\nSee https://x.example/?a=1&b=\"2\"",
            &[Some("https://x.example/?a=1&b=\"2\"")],
        );
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(
            html.contains("<a href=\"https://x.example/?a=1&amp;b=&quot;2&quot;\""),
            "{html}"
        );
    }
}
