//! Public pages for customers and prospects (SPEC §9, §10): server-rendered HTML, no JavaScript,
//! no external assets, opened by a capability token; limited per client IP. Invoices and
//! quotations render through one document view, so both pages show lines and totals alike.

pub mod card;
pub mod invoice;
pub mod portal;
pub mod portal_login;
pub mod quote;

use crate::client::client_ip;
use crate::error::ApiError;
use crate::ratelimit::BucketKey;
use crate::AppState;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse};
use chrono::NaiveDate;
use invoicing_domain::currency::Currency;
use invoicing_domain::document::LineItemView;
use invoicing_domain::locale::Locale;
use invoicing_domain::money::Money;
use invoicing_domain::parties::{address_lines_in, Parties, TaxIdentifier};
use invoicing_domain::ports::{RepoResult, Repositories};
use invoicing_domain::profile::Logo;
use utoipa::openapi::schema::{ObjectBuilder, Type};

/// The accent of a page whose merchant chose no colour.
pub(crate) const DEFAULT_BRAND_COLOR: &str = "#1F5FBF";

pub(crate) struct LineRow {
    pub description: String,
    pub quantity: String,
    pub unit_price: String,
    pub tax_rate: String,
    pub subtotal: String,
    /// Why no VAT is charged on it, printed beneath it (SPEC §27).
    pub exemption: Option<String>,
}

/// What every document page shows: who bills whom, the lines and the totals, formatted for the
/// document's currency.
pub(crate) struct DocumentView {
    /// The legal name, else the name.
    pub merchant: String,
    pub merchant_lines: Vec<String>,
    pub merchant_tax_ids: Vec<TaxIdentifier>,
    pub merchant_contact: Vec<String>,
    /// A `data:` URI: pages load nothing from elsewhere.
    pub logo: Option<String>,
    pub brand_color: String,
    pub footer: Option<String>,
    pub payment_instructions: Option<String>,
    pub lang: &'static str,
    /// The language the customer reads: labels, dates and amounts.
    pub t: Locale,
    pub number: String,
    pub customer_name: String,
    pub customer_company: Option<String>,
    pub customer_tax_ids: Vec<TaxIdentifier>,
    pub customer_email: String,
    pub address_lines: Vec<String>,
    pub issue_date: String,
    pub items_caption: String,
    pub lines: Vec<LineRow>,
    pub subtotal: String,
    pub tax: String,
    pub total: String,
    pub notes: Option<String>,
    /// "All your documents from …", leading to the portal's login (SPEC §26), where the
    /// service mails its links.
    pub portal: Option<String>,
}

impl DocumentView {
    /// Offers the portal where a customer can ask for its link by email.
    pub(crate) fn offer_portal(&mut self, mail_enabled: bool) {
        self.portal = mail_enabled.then(|| {
            self.t
                .fill("portal.page_link", &[("merchant", self.merchant.as_str())])
        });
    }
}

/// The parts of a document the page needs, borrowed from an invoice or a quotation.
pub(crate) struct DocumentParts {
    pub parties: Parties,
    pub logo: Option<Logo>,
    pub number: String,
    pub issue_date: NaiveDate,
    pub currency: Currency,
    pub lines: Vec<LineItemView>,
    pub subtotal_cents: i64,
    pub tax_cents: i64,
    pub total_cents: i64,
    pub notes: Option<String>,
}

/// An amount as `t` writes it (stored amounts are always within range).
pub(crate) fn money(t: Locale, minor: i64, currency: Currency) -> String {
    Money::new(minor)
        .map(|m| t.money(m, currency))
        .unwrap_or_else(|_| minor.to_string())
}

impl From<DocumentParts> for DocumentView {
    fn from(d: DocumentParts) -> Self {
        use base64::Engine;
        let cur = d.currency;
        let t = d.parties.locale();
        let lang = t.code();
        let Parties { issuer, recipient } = d.parties;
        let merchant_contact = [&issuer.email, &issuer.phone, &issuer.website]
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        DocumentView {
            merchant: issuer.display_name().to_string(),
            merchant_lines: issuer
                .address
                .as_ref()
                .map(|a| address_lines_in(a, t))
                .unwrap_or_default(),
            merchant_tax_ids: issuer.tax_identifiers(),
            merchant_contact,
            logo: d.logo.map(|l| {
                format!(
                    "data:{};base64,{}",
                    l.kind.content_type(),
                    base64::engine::general_purpose::STANDARD.encode(&l.bytes)
                )
            }),
            brand_color: issuer
                .brand_color
                .clone()
                .unwrap_or_else(|| DEFAULT_BRAND_COLOR.into()),
            footer: issuer.invoice_footer,
            payment_instructions: issuer.payment_instructions,
            lang,
            t,
            number: d.number,
            customer_tax_ids: recipient.tax_identifiers(),
            customer_name: recipient.name,
            customer_company: recipient.company,
            customer_email: recipient.email,
            address_lines: recipient
                .address
                .as_ref()
                .map(|a| address_lines_in(a, t))
                .unwrap_or_default(),
            issue_date: t.date(d.issue_date),
            items_caption: t.fill("lines.items", &[("currency", cur.code())]),
            lines: d
                .lines
                .into_iter()
                .map(|l| LineRow {
                    description: l.description,
                    quantity: t.quantity(l.quantity),
                    unit_price: money(t, l.unit_price_cents, cur),
                    tax_rate: t.percent(l.tax_rate),
                    subtotal: money(t, l.subtotal_cents, cur),
                    exemption: l.tax_exemption_reason,
                })
                .collect(),
            subtotal: money(t, d.subtotal_cents, cur),
            tax: money(t, d.tax_cents, cur),
            total: money(t, d.total_cents, cur),
            notes: d.notes,
            portal: None,
        }
    }
}

/// A public PDF (SPEC §17): the pages' rate limit and token rules, then `find` (a lookup that
/// marks nothing viewed) and `document`, rendered like the API's.
pub(crate) async fn public_pdf<T: Send + 'static>(
    state: &AppState,
    req: &HttpRequest,
    number: String,
    what: &'static str,
    find: impl FnOnce(&dyn Repositories, &str, &str) -> RepoResult<T> + Send + 'static,
    document: impl FnOnce(T) -> invoicing_render::Document,
) -> Result<HttpResponse, ApiError> {
    limit_public(state, req)?;
    let token = query_token(req).ok_or_else(|| ApiError::resource_missing(what))?;
    let repos = state.repos();
    let shown = crate::blocking(move || find(repos.as_ref(), &number, &token))
        .await
        .map_err(missing_as(what))?;
    crate::pdf::respond(document(shown)).await
}

/// Takes a token from the client IP's public-page bucket.
pub(crate) fn limit_public(state: &AppState, req: &HttpRequest) -> Result<(), ApiError> {
    let ip = client_ip(req, &state.config);
    let decision = state
        .limiter
        .check(BucketKey::PublicIp(ip), state.config.public_rate);
    if decision.allowed {
        Ok(())
    } else {
        Err(ApiError::rate_limited(decision.retry_after))
    }
}

/// The longest capability token a page looks up; longer ones name nothing.
pub(crate) const TOKEN_MAX: usize = 128;

/// A capability token as pages receive it (query string or form field). Tokens are never made
/// with control characters, so one holding any names nothing; PostgreSQL would refuse a NUL.
pub(crate) fn valid_token(token: Option<String>) -> Option<String> {
    token.filter(|t| !t.is_empty() && t.len() <= TOKEN_MAX && !t.chars().any(char::is_control))
}

/// The schema of a form field that is text of at most `max` characters. The forms' schemas are
/// written from the same constants the handlers enforce (utoipa's `max_length` takes only
/// literals), so the document cannot drift from them.
pub(crate) fn form_text(max: usize, description: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .max_length(Some(max))
        .description(Some(description))
}

/// The `token` field every page form posts back: the capability of the page's URL.
pub(crate) fn form_token() -> ObjectBuilder {
    form_text(
        TOKEN_MAX,
        "The capability token of the page's URL; a missing or wrong one is 404",
    )
    .min_length(Some(1))
}

pub(crate) fn query_token(req: &HttpRequest) -> Option<String> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(req.query_string()).ok()?;
    let mut tokens = pairs
        .into_iter()
        .filter(|(k, _)| k == "token")
        .map(|(_, v)| v);
    // Two tokens name no one document: which one was meant is not for the page to guess.
    match (tokens.next(), tokens.next()) {
        (Some(token), None) => valid_token(Some(token)),
        _ => None,
    }
}

/// A page's own "not found": the same answer for an unknown number and a wrong token.
pub(crate) fn missing_as(what: &'static str) -> impl Fn(ApiError) -> ApiError {
    move |e| e.naming(what)
}

pub(crate) fn render(page: impl askama::Template) -> Result<HttpResponse, ApiError> {
    let body = page.render().map_err(|e| {
        log::error!("rendering a public page: {e}");
        ApiError::internal()
    })?;
    Ok(html(body))
}

/// Lets the page's forms post to `origin` too (the card gateway's checkout, which the "Pay by
/// card" redirect leads to: browsers hold a form's redirects to `form-action`). Nothing else is
/// loosened.
pub(crate) fn allow_form_target(res: &mut HttpResponse, origin: &str) {
    let safe = origin
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b".:/-[]".contains(&b));
    if !safe || !(origin.starts_with("https://") || origin.starts_with("http://")) {
        return;
    }
    let policy = format!(
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self' {origin}; frame-ancestors 'none'"
    );
    if let Ok(value) = HeaderValue::from_str(&policy) {
        res.headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, value);
    }
}

/// Headers for pages that carry a capability in their URL: never cached, never referred on.
pub(crate) fn html(body: String) -> HttpResponse {
    let mut res = HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(body);
    let headers = res.headers_mut();
    for (name, value) in [
        (header::CACHE_CONTROL, "no-store"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'",
        ),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    res
}
