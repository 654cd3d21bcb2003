//! The message for a notice (an invitation, a password reset, a test email): the text in the
//! reader's language as plain text and HTML, a button for its link, no attachment.

use crate::compose::{header_text, mailbox, Sender};
use crate::html;
use invoicing_domain::notice::{NewNotice, NoticeJob};
use lettre::message::{MultiPart, SinglePart};
use lettre::Message;

/// Builds the message with `message_id`; `Err` names what cannot be sent.
pub fn compose_notice(
    sender: &Sender,
    job: &NoticeJob,
    message_id: &str,
) -> Result<Message, String> {
    let t = job.locale;
    let page = html::Page {
        locale: t,
        title: &job.subject,
        merchant: &job.sender_name,
        has_logo: false,
        accent: "#1f4fbf".into(),
        message: None,
        body: &job.body,
        link: job.link.as_deref(),
        portal_link: None,
        link_label: t.text(NewNotice::button_key(job.kind)),
        summary: Vec::new(),
    };
    let body = MultiPart::alternative()
        .singlepart(SinglePart::plain(format!("{}\n", job.body)))
        .singlepart(SinglePart::html(html::render(&page)));
    Message::builder()
        .from(lettre::message::Mailbox::new(
            Some(header_text(&job.sender_name)),
            sender.address().clone(),
        ))
        .to(mailbox(&job.recipient)?)
        .subject(header_text(&job.subject))
        .message_id(Some(message_id.to_string()))
        .date_now()
        .multipart(body)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use invoicing_domain::locale::Locale;
    use invoicing_domain::notice::{NoticeId, NoticeKind};

    #[test]
    fn a_reset_carries_its_link_in_both_parts_and_nothing_attached() {
        let sender = Sender::parse("Billing <billing@example.com>").unwrap();
        let link = "https://billing.example.com/dashboard/set-password?token=abc_-";
        let job = NoticeJob {
            id: NoticeId(1),
            claim: "c".into(),
            kind: NoticeKind::PasswordReset,
            recipient: "pat@example.com".into(),
            locale: Locale::Nl,
            sender_name: "Invoicing".into(),
            subject: "Reset".into(),
            body: format!("Open {link} now"),
            link: Some(link.into()),
            attempt: 1,
        };
        let message = compose_notice(&sender, &job, "<1@example.com>").unwrap();
        // The HTML part is quoted-printable: soft line breaks and `=3D` undone to search it.
        let raw = String::from_utf8(message.formatted())
            .unwrap()
            .replace("=\r\n", "")
            .replace("=3D", "=");
        assert!(raw.contains("To: pat@example.com"), "{raw}");
        assert_eq!(
            raw.matches(link).count(),
            4,
            "the plain text; the HTML text, its link and the button: {raw}"
        );
        assert!(!raw.contains("attachment"), "{raw}");
        assert!(raw.contains(Locale::Nl.text("notice.reset.button")));
    }
}
