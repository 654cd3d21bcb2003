//! Stripe's request bodies: `application/x-www-form-urlencoded` with nested values written in
//! bracket notation (`line_items[0][price_data][currency]=eur`), as Stripe's own libraries send
//! them. Keys and values are percent-encoded whole (brackets become `%5B`/`%5D`, as stripe-go
//! and stripe-python send them; Stripe decodes before it reads the brackets).

use url::form_urlencoded;

/// One parameter: a string, a map of named parameters, or a list (indexed `[0]`, `[1]`, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Param {
    Str(String),
    Map(Vec<(&'static str, Param)>),
    List(Vec<Param>),
}

impl From<&str> for Param {
    fn from(s: &str) -> Param {
        Param::Str(s.to_string())
    }
}

impl From<String> for Param {
    fn from(s: String) -> Param {
        Param::Str(s)
    }
}

impl From<i64> for Param {
    fn from(n: i64) -> Param {
        Param::Str(n.to_string())
    }
}

/// A request body under construction: top-level parameters in the order they are pushed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Form {
    params: Vec<(&'static str, Param)>,
}

impl Form {
    pub(crate) fn new() -> Form {
        Form::default()
    }

    pub(crate) fn push(&mut self, name: &'static str, value: impl Into<Param>) -> &mut Form {
        self.params.push((name, value.into()));
        self
    }

    /// The flat `(key, value)` pairs, keys in bracket notation, not yet percent-encoded.
    pub(crate) fn pairs(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (name, value) in &self.params {
            flatten(name.to_string(), value, &mut out);
        }
        out
    }

    /// The body to send.
    pub(crate) fn encode(&self) -> String {
        let mut body = String::new();
        for (key, value) in self.pairs() {
            if !body.is_empty() {
                body.push('&');
            }
            body.extend(form_urlencoded::byte_serialize(key.as_bytes()));
            body.push('=');
            body.extend(form_urlencoded::byte_serialize(value.as_bytes()));
        }
        body
    }
}

fn flatten(key: String, value: &Param, out: &mut Vec<(String, String)>) {
    match value {
        Param::Str(s) => out.push((key, s.clone())),
        Param::Map(entries) => {
            for (name, v) in entries {
                // Names are ours (constants): a bracket inside one would change the nesting.
                debug_assert!(!name.contains(['[', ']']), "{name}");
                flatten(format!("{key}[{name}]"), v, out);
            }
        }
        Param::List(items) => {
            for (i, v) in items.iter().enumerate() {
                flatten(format!("{key}[{i}]"), v, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(body: &str) -> Vec<(String, String)> {
        form_urlencoded::parse(body.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect()
    }

    #[test]
    fn nested_maps_and_lists_use_brackets() {
        let mut form = Form::new();
        form.push("mode", "payment").push(
            "line_items",
            Param::List(vec![Param::Map(vec![
                (
                    "price_data",
                    Param::Map(vec![
                        ("currency", "eur".into()),
                        ("unit_amount", 1250.into()),
                        ("product_data", Param::Map(vec![("name", "INV-1".into())])),
                    ]),
                ),
                ("quantity", 1.into()),
            ])]),
        );
        assert_eq!(
            form.pairs(),
            [
                ("mode", "payment"),
                ("line_items[0][price_data][currency]", "eur"),
                ("line_items[0][price_data][unit_amount]", "1250"),
                ("line_items[0][price_data][product_data][name]", "INV-1"),
                ("line_items[0][quantity]", "1"),
            ]
            .map(|(k, v)| (k.to_string(), v.to_string()))
        );
        assert_eq!(
            form.encode(),
            "mode=payment\
             &line_items%5B0%5D%5Bprice_data%5D%5Bcurrency%5D=eur\
             &line_items%5B0%5D%5Bprice_data%5D%5Bunit_amount%5D=1250\
             &line_items%5B0%5D%5Bprice_data%5D%5Bproduct_data%5D%5Bname%5D=INV-1\
             &line_items%5B0%5D%5Bquantity%5D=1"
        );
        assert_eq!(decode(&form.encode()), form.pairs());
    }

    #[test]
    fn lists_count_from_zero_in_order() {
        let mut form = Form::new();
        form.push("expand", Param::List(vec!["a".into(), "b".into()]));
        assert_eq!(form.encode(), "expand%5B0%5D=a&expand%5B1%5D=b");
    }

    #[test]
    fn values_that_would_break_the_body_are_escaped() {
        let mut form = Form::new();
        form.push("a", "x&y=z+1%2 ok")
            .push("b", "Rechnung Nº 7 – Müller")
            .push(
                "c",
                "https://example.com/paid?session={CHECKOUT_SESSION_ID}&x=1",
            )
            .push("d", "");
        let body = form.encode();
        assert_eq!(
            body,
            "a=x%26y%3Dz%2B1%252+ok\
             &b=Rechnung+N%C2%BA+7+%E2%80%93+M%C3%BCller\
             &c=https%3A%2F%2Fexample.com%2Fpaid%3Fsession%3D%7BCHECKOUT_SESSION_ID%7D%26x%3D1\
             &d="
        );
        // Nothing but the separators is left unescaped, and it reads back exactly.
        assert_eq!(body.matches('&').count(), 3);
        assert_eq!(body.matches('=').count(), 4);
        assert!(body.is_ascii());
        assert_eq!(decode(&body), form.pairs());
    }

    #[test]
    fn an_empty_form_is_an_empty_body() {
        assert_eq!(Form::new().encode(), "");
    }
}
