//! Mail to a person rather than a document to a customer (SPEC §21): an owner's invitation, a
//! password reset asked for on the sign-in page, and the settings' test email. Queued and sent
//! like customers' email (the durable-job mechanism, the same retry schedule); the texts come
//! from the catalogues in the reader's language. The body and link, which may carry a one-time
//! token, are kept only until the message is settled.

use crate::email::EmailStatus;
use crate::locale::Locale;
use crate::tenant::AccountId;
use crate::user::{Role, UserEmail};
use chrono::{DateTime, Utc};
use std::fmt;

/// At most this many invitations and test emails an hour per account: the server's mail is not
/// anyone's to spray.
pub const NOTICES_PER_HOUR: u64 = 30;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NoticeId(pub i64);

impl fmt::Display for NoticeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoticeKind {
    Invitation,
    PasswordReset,
    Test,
    /// The link that confirms a new email, to that address.
    EmailChange,
    /// To the old address: a change to another was asked for.
    EmailChanging,
    /// A customer's link to their portal, asked for on its login page (SPEC §26).
    PortalLink,
}

impl NoticeKind {
    pub const ALL: [NoticeKind; 6] = [
        NoticeKind::Invitation,
        NoticeKind::PasswordReset,
        NoticeKind::Test,
        NoticeKind::EmailChange,
        NoticeKind::EmailChanging,
        NoticeKind::PortalLink,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            NoticeKind::Invitation => "invitation",
            NoticeKind::PasswordReset => "password_reset",
            NoticeKind::Test => "test",
            NoticeKind::EmailChange => "email_change",
            NoticeKind::EmailChanging => "email_changing",
            NoticeKind::PortalLink => "portal_link",
        }
    }

    pub fn parse(s: &str) -> Option<NoticeKind> {
        NoticeKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// A message to queue, its texts written in `locale`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewNotice {
    /// The account it is sent for (none for a password reset: a person may belong to several).
    pub account_id: Option<AccountId>,
    pub kind: NoticeKind,
    pub recipient: UserEmail,
    pub locale: Locale,
    /// The name on the `From` line.
    pub sender_name: String,
    pub subject: String,
    pub body: String,
    /// The button under the text (the same link is in the text).
    pub link: Option<String>,
}

impl NewNotice {
    /// An owner's invitation to `merchant`'s account with `role`, from `inviter`.
    pub fn invitation(
        locale: Locale,
        account_id: AccountId,
        recipient: UserEmail,
        merchant: &str,
        inviter: &UserEmail,
        role: Role,
        link: String,
    ) -> NewNotice {
        let values = [
            ("merchant", merchant),
            ("inviter", inviter.as_str()),
            ("role", locale.text(role_key(role))),
            ("link", link.as_str()),
        ];
        NewNotice {
            account_id: Some(account_id),
            kind: NoticeKind::Invitation,
            subject: locale.fill("notice.invitation.subject", &values),
            body: body(locale, "notice.invitation.body", &values),
            recipient,
            locale,
            sender_name: merchant.to_string(),
            link: Some(link),
        }
    }

    /// A reset link for `recipient`, asked for on the sign-in page.
    pub fn password_reset(locale: Locale, recipient: UserEmail, link: String) -> NewNotice {
        let values = [("email", recipient.as_str()), ("link", link.as_str())];
        NewNotice {
            account_id: None,
            kind: NoticeKind::PasswordReset,
            subject: locale.text("notice.reset.subject").to_string(),
            body: body(locale, "notice.reset.body", &values),
            recipient,
            locale,
            sender_name: locale.text("dash.product").to_string(),
            link: Some(link),
        }
    }

    /// The link that makes `new` the sign-in email of the user who signs in as `old`.
    pub fn email_change(
        locale: Locale,
        new: UserEmail,
        old: &UserEmail,
        link: String,
    ) -> NewNotice {
        let values = [
            ("old", old.as_str()),
            ("new", new.as_str()),
            ("link", link.as_str()),
        ];
        NewNotice {
            account_id: None,
            kind: NoticeKind::EmailChange,
            subject: locale.text("notice.email_change.subject").to_string(),
            body: body(locale, "notice.email_change.body", &values),
            recipient: new,
            locale,
            sender_name: locale.text("dash.product").to_string(),
            link: Some(link),
        }
    }

    /// To the address being replaced: who asked, and what to do if it was not them.
    pub fn email_changing(locale: Locale, old: UserEmail, new: &UserEmail) -> NewNotice {
        let values = [("old", old.as_str()), ("new", new.as_str())];
        NewNotice {
            account_id: None,
            kind: NoticeKind::EmailChanging,
            subject: locale.text("notice.email_changing.subject").to_string(),
            body: body(locale, "notice.email_changing.body", &values),
            recipient: old,
            locale,
            sender_name: locale.text("dash.product").to_string(),
            link: None,
        }
    }

    /// The settings' test email: proof that mail reaches `recipient`.
    pub fn test(
        locale: Locale,
        account_id: AccountId,
        recipient: UserEmail,
        merchant: &str,
    ) -> NewNotice {
        let values = [("merchant", merchant)];
        NewNotice {
            account_id: Some(account_id),
            kind: NoticeKind::Test,
            subject: locale.fill("notice.test.subject", &values),
            body: body(locale, "notice.test.body", &values),
            recipient,
            locale,
            sender_name: merchant.to_string(),
            link: None,
        }
    }

    /// A link to the customer's portal at `merchant`, asked for by email (valid 24 hours).
    pub fn portal_link(
        locale: Locale,
        account_id: AccountId,
        recipient: UserEmail,
        merchant: &str,
        link: String,
    ) -> NewNotice {
        let values = [("merchant", merchant), ("link", link.as_str())];
        NewNotice {
            account_id: Some(account_id),
            kind: NoticeKind::PortalLink,
            subject: locale.fill("notice.portal.subject", &values),
            body: body(locale, "notice.portal.body", &values),
            recipient,
            locale,
            sender_name: merchant.to_string(),
            link: Some(link),
        }
    }

    /// The label of the button under the text.
    pub fn button_key(kind: NoticeKind) -> &'static str {
        match kind {
            NoticeKind::Invitation => "notice.invitation.button",
            NoticeKind::PasswordReset => "notice.reset.button",
            NoticeKind::Test | NoticeKind::EmailChanging => "dash.product",
            NoticeKind::EmailChange => "notice.email_change.button",
            NoticeKind::PortalLink => "notice.portal.button",
        }
    }
}

fn body(locale: Locale, key: &str, values: &[(&str, &str)]) -> String {
    locale.fill(key, values).replace("\\n", "\n")
}

/// The catalogue key of a role's name.
pub fn role_key(role: Role) -> &'static str {
    match role {
        Role::Owner => "dash.role.owner",
        Role::Staff => "dash.role.staff",
        Role::Viewer => "dash.role.viewer",
    }
}

/// A queued or settled notice, as the settings show the last test email.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub id: NoticeId,
    pub kind: NoticeKind,
    pub recipient: String,
    pub status: EmailStatus,
    pub attempts: u32,
    pub last_error: Option<String>,
    pub sent_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

/// A claimed notice, for the mail worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoticeJob {
    pub id: NoticeId,
    /// Proves the claim when the outcome is recorded.
    pub claim: String,
    pub kind: NoticeKind,
    pub recipient: String,
    pub locale: Locale,
    pub sender_name: String,
    pub subject: String,
    pub body: String,
    pub link: Option<String>,
    /// The number of this attempt, from 1.
    pub attempt: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn email(s: &str) -> UserEmail {
        UserEmail::parse(s).unwrap()
    }

    #[test]
    fn an_invitation_names_the_business_the_inviter_the_role_and_the_link() {
        let n = NewNotice::invitation(
            Locale::De,
            AccountId(3),
            email("pat@example.com"),
            "Ørsted Design",
            &email("ada@example.com"),
            Role::Staff,
            "https://billing.example.com/dashboard/set-password?token=abc".into(),
        );
        assert_eq!(n.kind, NoticeKind::Invitation);
        assert!(n.subject.contains("Ørsted Design"), "{}", n.subject);
        assert!(n.body.contains("ada@example.com"), "{}", n.body);
        assert!(n.body.contains(Locale::De.text("dash.role.staff")));
        assert!(n.body.contains("token=abc"));
        assert!(
            !n.body.contains("{"),
            "every placeholder filled: {}",
            n.body
        );
        assert_eq!(n.sender_name, "Ørsted Design");
    }

    #[test]
    fn a_reset_and_a_test_are_written_in_the_readers_language() {
        let reset = NewNotice::password_reset(
            Locale::Fr,
            email("pat@example.com"),
            "https://x.example/l".into(),
        );
        assert_eq!(reset.account_id, None);
        assert!(reset.body.contains("https://x.example/l"));
        assert!(reset.body.contains("pat@example.com"));
        assert_ne!(reset.subject, Locale::En.text("notice.reset.subject"));
        let test = NewNotice::test(Locale::En, AccountId(1), email("a@b.example"), "Acme");
        assert!(test.subject.contains("Acme"));
        assert_eq!(test.link, None);
        for k in NoticeKind::ALL {
            assert_eq!(NoticeKind::parse(k.as_str()), Some(k));
        }
    }
}
