//! Forms and query strings as browsers send them: `application/x-www-form-urlencoded` pairs, in
//! order, a name possibly repeated. Blank fields are what an untouched input sends, so for the
//! list filters they mean "no filter", never an error.

use super::Refusal;
use crate::error::ApiError;
use crate::form_body::{require_form, FormBody};
use actix_web::http::StatusCode;
use actix_web::HttpRequest;
use invoicing_domain::currency::Currency;
use invoicing_domain::locale::Locale;
use invoicing_domain::payment_amount::MajorAmount;

/// The positive number a dashboard path names (`/…/{id}/…`); anything else is no such `what`.
pub(crate) fn path_number(raw: &str, what: &'static str) -> Result<i64, Refusal> {
    raw.parse::<i64>()
        .ok()
        .filter(|i| *i > 0)
        .ok_or_else(|| Refusal::Api(ApiError::resource_missing(what)))
}

/// A posted form's fields.
pub(crate) struct Form(Vec<(String, String)>);

impl Form {
    /// The body of a form post; anything else is refused as the public pages refuse it.
    pub fn read(req: &HttpRequest, body: &FormBody) -> Result<Form, Refusal> {
        require_form(req)?;
        Ok(Form::parse(&body.0))
    }

    /// Fields read otherwise (a multipart post's text parts).
    pub fn from_pairs(pairs: Vec<(String, String)>) -> Form {
        Form(pairs)
    }

    pub fn parse(bytes: &[u8]) -> Form {
        Form(
            form_urlencoded::parse(bytes)
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )
    }

    /// Every field, in the order posted (to carry a post over a confirmation).
    pub fn pairs(&self) -> &[(String, String)] {
        &self.0
    }

    /// The first value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The value of `name`, trimmed; `None` when absent or blank.
    pub fn text(&self, name: &str) -> Option<String> {
        self.get(name).and_then(non_blank)
    }

    /// The value as typed, `""` when absent (to show it again in its field).
    pub fn raw(&self, name: &str) -> String {
        self.get(name).unwrap_or_default().to_string()
    }

    /// Whether a checkbox `name` was ticked.
    pub fn checked(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// A positive id in `name`; a field that holds anything else is the form's mistake.
    pub fn id(&self, name: &str) -> Result<Option<i64>, ApiError> {
        match self.text(name) {
            None => Ok(None),
            Some(v) => v
                .parse::<i64>()
                .ok()
                .filter(|id| *id > 0)
                .map(Some)
                .ok_or_else(|| ApiError::invalid_parameter(name, "must be a positive integer")),
        }
    }
}

/// The operations' refusal beside the fields it names, for a form whose fields are named as the
/// API's parameters (`address.city`). Two conventions hold for every form: a list item's
/// refusal (`events[3]`) stands beside the list's field (`events`), and an amount the API takes
/// in minor units (`unit_price_cents`) is typed in major units in the field without the suffix
/// (`unit_price`).
pub(crate) fn field_errors(
    e: &ApiError,
    req: &HttpRequest,
) -> std::collections::HashMap<String, String> {
    field_errors_as(e, req, |param| form_field(param).to_string())
}

/// The form's field for the API's parameter `param` (see [`field_errors`]).
pub(crate) fn form_field(param: &str) -> &str {
    let param = param
        .strip_suffix(']')
        .and_then(|p| p.rsplit_once('['))
        .map_or(param, |(list, _)| list);
    param.strip_suffix("_cents").unwrap_or(param)
}

/// [`field_errors`] for a form that names a field otherwise (`field_of` maps the API's
/// parameter to it), each problem in the visitor's language; what names no field goes under
/// `form`, shown at the top.
pub(crate) fn field_errors_as(
    e: &ApiError,
    req: &HttpRequest,
    field_of: impl Fn(&str) -> String,
) -> std::collections::HashMap<String, String> {
    let t = super::locale_of(req);
    let mut out = std::collections::HashMap::new();
    for d in &e.details {
        out.entry(field_of(&d.param)).or_insert_with(|| d.say(t));
    }
    if out.is_empty() {
        let at = e
            .param
            .as_deref()
            .map(&field_of)
            .unwrap_or_else(|| "form".into());
        out.insert(at, e.message.clone());
    }
    out
}

/// Whether a refusal is the form's to show again (a field's mistake), not a page of its own
/// (a forbidden action, a missing resource, a status that does not allow it, an outage).
pub(crate) fn is_field_mistake(e: &ApiError) -> bool {
    matches!(e.status.as_u16(), 400 | 422)
}

/// A unit price as typed, in minor units of `currency`: the domain reads it
/// ([`MajorAmount::signed_minor_in`]); its refusal is the field's message.
pub(crate) fn price_minor(text: &str, currency: Currency, t: Locale) -> Result<i64, String> {
    MajorAmount::signed_minor_in(text, t, currency).map_err(|e| e.to_string())
}

/// Typed text as the operations take it: trimmed, and `None` when blank.
pub(crate) fn non_blank(s: &str) -> Option<String> {
    Some(s.trim()).filter(|s| !s.is_empty()).map(str::to_string)
}

/// A query string without its blank fields and without the notice a screen was sent back with
/// (`done`, read by `Chrome`): what the API's list operations read, so every screen accepts
/// the notices it is sent back with.
pub(crate) fn without_blanks(query: &str) -> String {
    let mut out = form_urlencoded::Serializer::new(String::new());
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        if !v.trim().is_empty() && k != "done" {
            out.append_pair(&k, &v);
        }
    }
    out.finish()
}

/// The value of `name` in a query string, `""` when absent.
pub(crate) fn query_value(query: &str, name: &str) -> String {
    form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

/// A query string with `name` set to `value` (paging and tab links keep the other filters).
pub(crate) fn with_value(query: &str, name: &str, value: &str) -> String {
    let mut out = form_urlencoded::Serializer::new(String::new());
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        if k != name && !v.trim().is_empty() {
            out.append_pair(&k, &v);
        }
    }
    if !value.is_empty() {
        out.append_pair(name, value);
    }
    out.finish()
}

/// One URL query component, percent-encoded.
pub(crate) fn encode_component(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// A form's answer: 200 as first shown, 422 when it comes back with refusals beside its fields.
pub(crate) fn status_of(errors: &std::collections::HashMap<String, String>) -> StatusCode {
    if errors.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_are_read_in_the_currencys_exponent() {
        let eur = Currency::parse("EUR").unwrap();
        let jpy = Currency::parse("JPY").unwrap();
        let en = Locale::En;
        assert_eq!(price_minor("12.50", eur, en), Ok(1250));
        assert_eq!(price_minor("12,5", eur, en), Ok(1250));
        assert_eq!(price_minor("-5", eur, en), Ok(-500));
        assert_eq!(price_minor("0", eur, en), Ok(0));
        assert_eq!(price_minor("0.00", eur, en), Ok(0));
        assert_eq!(price_minor("1500", jpy, en), Ok(1500));
        assert!(price_minor("1.5", jpy, en).is_err());
        assert_eq!(price_minor("1.200,00", eur, Locale::De), Ok(120_000));
        assert_eq!(price_minor("-1.200,50", eur, Locale::De), Ok(-120_050));
        assert!(price_minor("abc", eur, en).is_err());
        assert!(price_minor("", eur, en).is_err());
    }

    #[test]
    fn blank_filters_are_dropped_and_values_replaced() {
        assert_eq!(without_blanks("status=&q=acme+ltd&page="), "q=acme+ltd");
        assert_eq!(
            without_blanks("done=environment&status=sent"),
            "status=sent"
        );
        assert_eq!(
            with_value("status=paid&page=2", "page", "3"),
            "status=paid&page=3"
        );
        assert_eq!(with_value("status=paid&page=2", "status", ""), "page=2");
        assert_eq!(query_value("q=a%26b", "q"), "a&b");
        let f = Form::parse(b"a=+x+&b=&c=1&c=2&id=-3");
        assert_eq!(f.text("a").as_deref(), Some("x"));
        assert_eq!(f.text("b"), None);
        assert_eq!(f.get("c"), Some("1"));
        assert!(f.id("id").is_err());
        assert_eq!(
            encode_component("/dashboard/invoices?status=paid"),
            "%2Fdashboard%2Finvoices%3Fstatus%3Dpaid"
        );
    }

    #[test]
    fn a_refusal_stands_beside_the_field_named_as_its_parameter() {
        assert_eq!(form_field("address.city"), "address.city");
        assert_eq!(form_field("events[3]"), "events");
        assert_eq!(form_field("unit_price_cents"), "unit_price");
        assert_eq!(form_field("amount_cents"), "amount");
        assert_eq!(
            form_field("line_items[0].description"),
            "line_items[0].description"
        );
    }
}
