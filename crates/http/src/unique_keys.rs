//! JSON read into a `serde_json::Value` that refuses an object naming a key twice.
//!
//! serde_json keeps the last of two equal keys, so `{"amount_cents": 1, "amount_cents": 900}`
//! would be read as 900 while a proxy, a log or a signature check in front of the server may
//! have read 1. RFC 8259 leaves duplicates to the reader; a billing API refuses them.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// A JSON value whose objects never repeated a key.
pub struct UniqueKeys(pub Value);

/// The start of the error a repeated key gives, to tell it from a syntax error.
pub const REPEATED_KEY: &str = "the key is given twice";

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor).map(UniqueKeys)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // JSON text has no NaN or infinity, so every float read from it is a number.
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(UniqueKeys(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format!("{REPEATED_KEY}: `{key}`")));
            }
            let UniqueKeys(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Value, String> {
        serde_json::from_str::<UniqueKeys>(text)
            .map(|v| v.0)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn reads_what_serde_json_reads() {
        for text in [
            r#"{"a": 1, "b": [true, null, -2, 3.5, "x"], "c": {"d": {}}}"#,
            r#"{"big": 18446744073709551615, "small": -9223372036854775808, "f": 4190559487487390.0}"#,
            r#"{"s": "\u00e9\n", "e": 2e3}"#,
        ] {
            assert_eq!(
                read(text).unwrap(),
                serde_json::from_str::<Value>(text).unwrap()
            );
        }
    }

    #[test]
    fn refuses_a_key_given_twice_at_any_depth() {
        for text in [
            r#"{"amount_cents": 1, "amount_cents": 900}"#,
            r#"{"lines": [{"q": 1, "q": 2}]}"#,
            r#"{"a": {"b": 1, "b": 1}}"#,
        ] {
            let e = read(text).unwrap_err();
            assert!(e.contains(REPEATED_KEY), "{text}: {e}");
        }
        // The same key in two objects is two keys.
        assert!(read(r#"{"a": {"k": 1}, "b": {"k": 1}}"#).is_ok());
    }
}
