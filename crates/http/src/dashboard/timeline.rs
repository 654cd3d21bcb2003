//! A document's timeline (SPEC §21, "Audit"): its events, the oldest first, each with who
//! caused it: a person by their email address, a key by its visible part, once (an event whose
//! own words say who, "Viewed by the customer", names nobody again).

use super::views::moment;
use crate::ops::Timeline;
use invoicing_domain::event::EVENT_TYPES;
use invoicing_domain::locale::Locale;
use invoicing_domain::tenant::Actor;
use std::collections::HashMap;

pub(crate) struct TimelineRow {
    pub when: String,
    pub what: &'static str,
    pub who: Who,
}

/// Who caused an event, as words around a name ("by {name}") so the name (an email address, a
/// key's visible part) is kept whole on a narrow screen; all empty when the event says who.
#[derive(Default)]
pub(crate) struct Who {
    pub before: String,
    pub name: String,
    pub after: String,
}

impl Who {
    pub fn is_empty(&self) -> bool {
        self.before.is_empty() && self.name.is_empty() && self.after.is_empty()
    }

    fn said(text: String) -> Who {
        Who {
            before: text,
            ..Who::default()
        }
    }
}

/// The text of an event type: `dash.event.<type>` (every type of [`EVENT_TYPES`] has one).
fn label(t: Locale, event_type: &str) -> &'static str {
    EVENT_TYPES
        .iter()
        .position(|k| *k == event_type)
        .map(|i| t.text(EVENT_KEYS[i]))
        .unwrap_or("")
}

/// The catalogue key of each of [`EVENT_TYPES`], in the same order (a test holds them together).
const EVENT_KEYS: &[&str] = &[
    "dash.event.customer.created",
    "dash.event.customer.updated",
    "dash.event.customer.deleted",
    "dash.event.invoice.created",
    "dash.event.invoice.updated",
    "dash.event.invoice.sent",
    "dash.event.invoice.viewed",
    "dash.event.invoice.overdue",
    "dash.event.invoice.paid",
    "dash.event.invoice.cancelled",
    "dash.event.quotation.created",
    "dash.event.quotation.updated",
    "dash.event.quotation.deleted",
    "dash.event.quotation.sent",
    "dash.event.quotation.viewed",
    "dash.event.quotation.accepted",
    "dash.event.quotation.rejected",
    "dash.event.quotation.expired",
    "dash.event.quotation.converted",
    "dash.event.payment.created",
    "dash.event.payment.verified",
    "dash.event.payment.rejected",
    "dash.event.payment.failed",
    "dash.event.payment.refunded",
    "dash.event.payment.proof_uploaded",
    "dash.event.product.created",
    "dash.event.product.updated",
    "dash.event.product.deleted",
    "dash.event.credit_note.created",
    "dash.event.recurring_invoice.created",
    "dash.event.recurring_invoice.updated",
    "dash.event.recurring_invoice.paused",
    "dash.event.recurring_invoice.resumed",
    "dash.event.recurring_invoice.cancelled",
    "dash.event.recurring_invoice.completed",
    "dash.event.email.sent",
    "dash.event.email.failed",
];

/// The events whose text already says who caused them.
const SAYS_WHO: &[&str] = &["invoice.viewed", "quotation.viewed"];

/// Who caused it, in the user's language, named where the account knows the name.
fn actor(t: Locale, actor: Actor, names: &HashMap<Actor, String>) -> Who {
    let named = |key: &str, id: i64| match names.get(&actor) {
        Some(name) => {
            // The sentence around the name: the catalogue places it ("über … {name}").
            let sentence = t.fill(key, &[("name", "\u{1}")]);
            let (before, after) = sentence.split_once('\u{1}').unwrap_or((&sentence, ""));
            Who {
                before: before.to_string(),
                name: name.clone(),
                after: after.to_string(),
            }
        }
        None => Who::said(t.fill(&format!("{key}_id"), &[("id", &id.to_string())])),
    };
    match actor {
        Actor::ApiKey(id) => named("dash.actor.api_key", id),
        Actor::User(id) => named("dash.actor.user", id),
        Actor::System => Who::said(t.text("dash.actor.system").to_string()),
        Actor::Customer => Who::said(t.text("dash.actor.customer").to_string()),
    }
}

pub(crate) fn timeline_rows(t: Locale, timeline: Timeline) -> Vec<TimelineRow> {
    let names = timeline.names;
    timeline
        .events
        .into_iter()
        .map(|e| TimelineRow {
            when: moment(t, e.created_at),
            what: label(t, &e.event_type),
            who: if SAYS_WHO.contains(&e.event_type.as_str()) {
                Who::default()
            } else {
                actor(t, e.actor, &names)
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_type_has_its_text() {
        assert_eq!(EVENT_KEYS.len(), EVENT_TYPES.len());
        for (key, event_type) in EVENT_KEYS.iter().zip(EVENT_TYPES) {
            assert_eq!(*key, format!("dash.event.{event_type}"));
            assert_ne!(Locale::En.text(key), *key, "{key} has no English text");
        }
    }
}
