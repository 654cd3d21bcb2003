//! What every dashboard screen shows around its content: the navigation, the environment marker
//! and switch, the signed-in user, the language menu, and a notice after a form post.

use super::session::Visitor;
use actix_web::HttpRequest;
use invoicing_domain::currency::Currency;
use invoicing_domain::locale::Locale;
use invoicing_domain::user::Role;

/// The sections of the navigation, to mark the current one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Nav {
    Home,
    Invoices,
    Quotations,
    Customers,
    Payments,
    Products,
    CreditNotes,
    Recurring,
    Reports,
    Settings,
    Account,
}

impl Nav {
    /// The catalogue key of the section's name (a list screen's title).
    pub fn title_key(self) -> &'static str {
        match self {
            Nav::Home => "dash.nav.home",
            Nav::Invoices => "dash.nav.invoices",
            Nav::Quotations => "dash.nav.quotations",
            Nav::Customers => "dash.nav.customers",
            Nav::Payments => "dash.nav.payments",
            Nav::Products => "dash.nav.products",
            Nav::CreditNotes => "dash.nav.credit_notes",
            Nav::Recurring => "dash.nav.recurring",
            Nav::Reports => "dash.nav.reports",
            Nav::Settings => "dash.nav.settings",
            Nav::Account => "dash.account.title",
        }
    }
}

/// Notices a form post may ask its next page to show (`?done=…`), with their texts; nothing
/// else is shown.
const NOTICES: &[(&str, &str)] = &[
    ("created", "dash.done.created"),
    ("saved", "dash.done.saved"),
    ("sent", "dash.done.sent"),
    ("emailed", "dash.done.emailed"),
    ("statement_emailed", "dash.done.statement_emailed"),
    ("cancelled", "dash.done.cancelled"),
    ("paid", "dash.done.paid"),
    ("payment_recorded", "dash.done.payment_recorded"),
    ("payment_verified", "dash.done.payment_verified"),
    ("payment_rejected", "dash.done.payment_rejected"),
    ("credited", "dash.done.credited"),
    ("accepted", "dash.done.accepted"),
    ("declined", "dash.done.declined"),
    ("converted", "dash.done.converted"),
    ("deleted", "dash.done.deleted"),
    ("paused", "dash.done.paused"),
    ("resumed", "dash.done.resumed"),
    ("environment", "dash.done.environment"),
    ("language", "dash.done.language"),
    ("password", "dash.done.password"),
    ("email_link_sent", "dash.done.email_link_sent"),
    ("session_ended", "dash.done.session_ended"),
    ("revoked", "dash.done.revoked"),
    ("redelivered", "dash.done.redelivered"),
    ("invited", "dash.done.invited"),
    ("removed", "dash.done.removed"),
    ("test_queued", "dash.done.test_queued"),
    ("logo", "dash.done.logo"),
    ("logo_removed", "dash.done.logo_removed"),
    ("copied_to_live", "dash.done.copied_to_live"),
    ("stripe_connected", "dash.done.stripe_connected"),
    ("stripe_disconnected", "dash.done.stripe_disconnected"),
    ("refunded", "dash.done.refunded"),
];

pub(crate) struct Chrome {
    pub t: Locale,
    pub title: String,
    pub nav: Nav,
    pub email: String,
    pub live: bool,
    pub csrf: String,
    /// Whether the role may change anything (viewers see no buttons that would be refused).
    pub can_write: bool,
    /// Whether the role manages the account (settings, and later keys, webhooks and people).
    pub owner: bool,
    pub notice: Option<&'static str>,
    /// Where the environment and language forms return to.
    pub here: String,
    /// The page's filters (blank ones and the page number dropped), for its CSV link.
    pub filters: String,
}

impl Chrome {
    pub fn new(visitor: &Visitor, req: &HttpRequest, nav: Nav, title: String) -> Chrome {
        let t = super::locale_of(req);
        let done = super::form::query_value(req.query_string(), "done");
        let notice = NOTICES
            .iter()
            .find(|(name, _)| *name == done)
            .map(|(_, key)| t.text(key));
        Chrome {
            t,
            title,
            nav,
            email: visitor.signed_in.user.email.as_str().to_string(),
            live: visitor.signed_in.session.environment.is_live(),
            csrf: visitor.csrf(),
            can_write: visitor.signed_in.role != Role::Viewer,
            owner: visitor.signed_in.role.manages_users_and_keys(),
            notice,
            here: req.path().to_string(),
            filters: super::form::with_value(
                &super::form::without_blanks(req.query_string()),
                "page",
                "",
            ),
        }
    }

    /// The CSV of the list or report shown, with its filters.
    pub fn export_link(&self, what: &str) -> String {
        if self.filters.is_empty() {
            format!("/dashboard/export/{what}")
        } else {
            format!("/dashboard/export/{what}?{}", self.filters)
        }
    }

    /// A text of the user's language.
    pub fn tr(&self, key: &'static str) -> &'static str {
        self.t.text(key)
    }

    /// The countries a country field offers, named in the user's language (SPEC §27).
    pub fn countries(&self) -> &'static [(&'static str, &'static str)] {
        self.t.countries()
    }

    /// Whether `value` (as stored) is no country code the list offers: kept as its own option.
    pub fn unlisted_country(&self, value: &str) -> bool {
        !value.is_empty() && self.t.country_name(value).is_none()
    }

    /// The currencies a currency field offers: `(code, label)`, the label with its symbol.
    pub fn currencies(&self) -> Vec<(&'static str, String)> {
        Currency::all()
            .map(|c| {
                let label = match c.symbol() {
                    Some(symbol) => format!("{} ({symbol})", c.code()),
                    None => c.code().to_string(),
                };
                (c.code(), label)
            })
            .collect()
    }

    /// The sections the navigation lists (Settings for owners only): where each is, its name,
    /// whether it is the current one.
    pub fn sections(&self) -> Vec<(&'static str, &'static str, bool)> {
        let all = [
            (Nav::Home, "/dashboard"),
            (Nav::Invoices, "/dashboard/invoices"),
            (Nav::Quotations, "/dashboard/quotations"),
            (Nav::Customers, "/dashboard/customers"),
            (Nav::Payments, "/dashboard/payments"),
            (Nav::Products, "/dashboard/products"),
            (Nav::CreditNotes, "/dashboard/credit-notes"),
            (Nav::Recurring, "/dashboard/recurring"),
            (Nav::Reports, "/dashboard/reports"),
            (Nav::Settings, "/dashboard/settings"),
        ];
        all.into_iter()
            .filter(|(nav, _)| *nav != Nav::Settings || self.owner)
            .map(|(nav, href)| (href, self.t.text(nav.title_key()), self.nav == nav))
            .collect()
    }

    /// The language menu: each locale with its own name, the current one marked.
    pub fn languages(&self) -> Vec<(&'static str, &'static str, bool)> {
        Locale::all()
            .map(|l| (l.code(), l.text("dash.language.name"), l == self.t))
            .collect()
    }
}
