//! The composed email's form: what is typed (or first filled in from the draft) and its page;
//! its fields are named as the send body's (`email.to`, `email.subject`).

use super::doc::Doc;
use crate::dashboard::chrome::Chrome;
use crate::dashboard::form::Form;
use crate::dashboard::session::Visitor;
use crate::dashboard::{page, Answer};
use crate::ops::EmailDraft;
use actix_web::HttpRequest;
use askama::Template;
use invoicing_domain::email::EmailInput;
use std::collections::HashMap;

/// The form as typed (or as first filled in).
pub(super) struct Typed {
    to: String,
    cc: String,
    subject: String,
    message: String,
}

impl Typed {
    pub(super) fn of(draft: &EmailDraft) -> Typed {
        Typed {
            to: draft.to.clone(),
            cc: String::new(),
            subject: draft.subject.clone(),
            message: String::new(),
        }
    }

    pub(super) fn read(form: &Form) -> Typed {
        Typed {
            to: form.raw("email.to"),
            cc: form.raw("email.cc"),
            subject: form.raw("email.subject"),
            message: form.raw("email.message"),
        }
    }

    /// As the API takes it: addresses separated by commas, semicolons or spaces.
    pub(super) fn input(&self) -> EmailInput {
        let addresses = |text: &str| -> Option<Vec<String>> {
            let list: Vec<String> = text
                .split([',', ';', ' ', '\n'])
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .map(str::to_string)
                .collect();
            (!list.is_empty()).then_some(list)
        };
        let text = |t: &str| (!t.trim().is_empty()).then(|| t.to_string());
        EmailInput {
            to: Some(addresses(&self.to).unwrap_or_default()),
            cc: addresses(&self.cc),
            subject: text(&self.subject),
            message: text(&self.message),
        }
    }
}

#[derive(Template)]
#[template(path = "dashboard/compose.html")]
struct ComposePage {
    c: Chrome,
    action: String,
    back: String,
    attachment: String,
    sends: bool,
    typed: Typed,
    errors: HashMap<String, String>,
}

impl ComposePage {
    fn err(&self, name: &str) -> Option<&String> {
        self.errors.get(name)
    }

    fn value(&self, name: &str) -> &str {
        match name {
            "email.to" => &self.typed.to,
            "email.cc" => &self.typed.cc,
            _ => &self.typed.subject,
        }
    }
}

pub(super) async fn show(
    me: &Visitor,
    req: &HttpRequest,
    doc: Doc,
    draft: EmailDraft,
    typed: Typed,
    errors: HashMap<String, String>,
) -> Answer {
    let t = crate::dashboard::locale_of(req);
    let title = t.fill("dash.compose.title", &[("attachment", &draft.attachment)]);
    let status = crate::dashboard::form::status_of(&errors);
    page(
        status,
        ComposePage {
            c: Chrome::new(me, req, doc.nav(), title),
            action: format!("{}/email", doc.screen()),
            back: doc.screen(),
            attachment: draft.attachment,
            sends: draft.sends,
            typed,
            errors,
        },
    )
}
