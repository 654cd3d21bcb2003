//! An endpoint's form as typed (URL, events, description, enabled), and where the API's refusals
//! point in it.

use crate::dashboard::form::Form;
use invoicing_domain::webhook::WebhookEndpoint;

/// An endpoint's form as typed.
#[derive(Default)]
pub(crate) struct Typed {
    pub url: String,
    pub description: String,
    pub all: bool,
    pub events: Vec<String>,
    pub enabled: bool,
}

impl Typed {
    pub(super) fn of(e: &WebhookEndpoint) -> Typed {
        let all = e.events.iter().any(|t| t == "*");
        Typed {
            url: e.url.clone(),
            description: e.description.clone().unwrap_or_default(),
            all,
            events: if all { Vec::new() } else { e.events.clone() },
            enabled: e.enabled,
        }
    }

    pub(super) fn read(form: &Form) -> Typed {
        Typed {
            url: form.raw("url"),
            description: form.raw("description"),
            all: form.checked("all"),
            events: form
                .pairs()
                .iter()
                .filter(|(k, _)| k == "event")
                .map(|(_, v)| v.clone())
                .collect(),
            enabled: form.checked("enabled"),
        }
    }

    /// The events as the API takes them: `["*"]` when "every event" is ticked.
    pub(super) fn events(&self) -> Vec<String> {
        if self.all {
            vec!["*".to_string()]
        } else {
            self.events.clone()
        }
    }
}
