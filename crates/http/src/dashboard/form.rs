//! Forms and query strings as browsers send them: `application/x-www-form-urlencoded` pairs, in
//! order, a name possibly repeated. Blank fields are what an untouched input sends, so for the
//! list filters they mean "no filter", never an error.

use super::Refusal;
use crate::error::ApiError;
use crate::routes::pages::{require_form, FormBody};
use actix_web::HttpRequest;

/// A posted form's fields.
pub(crate) struct Form(Vec<(String, String)>);

impl Form {
    /// The body of a form post; anything else is refused as the public pages refuse it.
    pub fn read(req: &HttpRequest, body: &FormBody) -> Result<Form, Refusal> {
        require_form(req)?;
        Ok(Form::parse(&body.0))
    }

    pub fn parse(bytes: &[u8]) -> Form {
        Form(
            form_urlencoded::parse(bytes)
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )
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
        self.get(name)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
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

/// A query string without its blank fields: what the API's list operations read.
pub(crate) fn without_blanks(query: &str) -> String {
    let mut out = form_urlencoded::Serializer::new(String::new());
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        if !v.trim().is_empty() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_filters_are_dropped_and_values_replaced() {
        assert_eq!(without_blanks("status=&q=acme+ltd&page="), "q=acme+ltd");
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
}
