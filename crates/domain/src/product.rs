//! Products (SPEC §14): the catalog that line items may name, so a price, tax rate and
//! description are typed once and reused. Parsed here once; storage only keeps what is valid.

use crate::currency::Currency;
use crate::decimal::{DecimalText, TaxRate};
use crate::money::Money;
use crate::validation::{
    not_null, optional_text, parse_currency, required_text, Metadata, Violations,
};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The longest description of a product, and of a document's line.
pub const DESCRIPTION_MAX: usize = 1000;

pub const PRODUCT_NAME_MAX: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ProductId(pub i64);

impl fmt::Display for ProductId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The body of `POST /api/v1/products`.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ProductInput {
    /// 1 to 256 characters; the line description when the product has none.
    pub name: Option<String>,
    /// Up to 1000 characters; the default description of lines that name the product.
    pub description: Option<String>,
    /// Minor units of `currency`; the default unit price of lines that name the product.
    pub unit_price_cents: Option<i64>,
    /// ISO 4217; only documents in this currency may use the product.
    pub currency: Option<String>,
    /// Percent, 0 to 100, at most 3 decimals; default 0.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "19"))]
    pub tax_rate: Option<DecimalText>,
    /// Default true; archived (false) products cannot be put on new lines.
    pub active: Option<bool>,
    pub metadata: Option<BTreeMap<String, String>>,
}

/// A valid product to store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewProduct {
    pub name: String,
    pub description: Option<String>,
    pub unit_price: Money,
    pub currency: Currency,
    pub tax_rate: TaxRate,
    pub active: bool,
    pub metadata: Metadata,
}

fn parse_price(v: &mut Violations, raw: Option<i64>) -> Option<Money> {
    Money::new(raw?)
        .map_err(|e| v.push("unit_price_cents", e.to_string()))
        .ok()
}

fn parse_tax_rate(v: &mut Violations, raw: Option<DecimalText>) -> Option<TaxRate> {
    raw?.tax_rate().map_err(|e| v.push("tax_rate", e)).ok()
}

fn parse_metadata(v: &mut Violations, raw: Option<BTreeMap<String, String>>) -> Option<Metadata> {
    Metadata::parse("metadata", raw?)
        .map_err(|e| v.extend_prefixed("", e))
        .ok()
}

impl ProductInput {
    pub fn parse(self) -> Result<NewProduct, Violations> {
        let mut v = Violations::new();
        let name = required_text(&mut v, "name", self.name, PRODUCT_NAME_MAX);
        let description = optional_text(&mut v, "description", self.description, DESCRIPTION_MAX);
        if self.unit_price_cents.is_none() {
            v.push("unit_price_cents", crate::validation::Problem::Required);
        }
        let unit_price = parse_price(&mut v, self.unit_price_cents);
        if self.currency.is_none() {
            v.push("currency", crate::validation::Problem::Required);
        }
        let currency = parse_currency(&mut v, self.currency);
        let tax_rate = parse_tax_rate(&mut v, self.tax_rate).unwrap_or(TaxRate::ZERO);
        let metadata = parse_metadata(&mut v, Some(self.metadata.unwrap_or_default()));
        match (name, unit_price, currency, metadata) {
            (Some(name), Some(unit_price), Some(currency), Some(metadata)) if v.is_empty() => {
                Ok(NewProduct {
                    name,
                    description,
                    unit_price,
                    currency,
                    tax_rate,
                    active: self.active.unwrap_or(true),
                    metadata,
                })
            }
            _ => Err(v),
        }
    }
}

/// The body of `PATCH /api/v1/products/{id}`: absent fields stay, `description: null` clears
/// it, `metadata: null` resets it to `{}`, and `null` on any other field is 422 (SPEC §4). Each
/// field is read with `double_option` so that `null` is told apart from absent here, once.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ProductPatchInput {
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub name: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    pub description: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub unit_price_cents: Option<Option<i64>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub currency: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "19"))]
    pub tax_rate: Option<Option<DecimalText>>,
    /// `false` archives the product: existing lines keep it, new lines cannot name it.
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = bool))]
    pub active: Option<Option<bool>>,
    /// `null` resets it to `{}`.
    #[serde(default, deserialize_with = "crate::validation::double_option")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<BTreeMap<String, String>>))]
    pub metadata: Option<Option<BTreeMap<String, String>>>,
}

/// A validated change; `None` leaves a field as it is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProductPatch {
    pub name: Option<String>,
    pub description: Option<Option<String>>,
    pub unit_price: Option<Money>,
    pub currency: Option<Currency>,
    pub tax_rate: Option<TaxRate>,
    pub active: Option<bool>,
    pub metadata: Option<Metadata>,
}

impl ProductPatchInput {
    pub fn parse(self) -> Result<ProductPatch, Violations> {
        let mut v = Violations::new();
        let name = not_null(&mut v, "name", self.name)
            .and_then(|n| required_text(&mut v, "name", Some(n), PRODUCT_NAME_MAX));
        let description = self
            .description
            .map(|d| optional_text(&mut v, "description", d, DESCRIPTION_MAX));
        let unit_price_cents = not_null(&mut v, "unit_price_cents", self.unit_price_cents);
        let unit_price = parse_price(&mut v, unit_price_cents);
        let currency = not_null(&mut v, "currency", self.currency);
        let currency = parse_currency(&mut v, currency);
        let tax_rate = not_null(&mut v, "tax_rate", self.tax_rate);
        let tax_rate = parse_tax_rate(&mut v, tax_rate);
        let active = not_null(&mut v, "active", self.active);
        // `null` metadata is the empty map: the field's value when a product is created without it.
        let metadata = self
            .metadata
            .and_then(|m| parse_metadata(&mut v, Some(m.unwrap_or_default())));
        v.finish(|| ProductPatch {
            name,
            description,
            unit_price,
            currency,
            tax_rate,
            active,
            metadata,
        })
    }
}

/// A product as the API returns it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Product {
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub id: ProductId,
    pub object: &'static str,
    pub name: String,
    pub description: Option<String>,
    pub unit_price_cents: i64,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "EUR"))]
    pub currency: Currency,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "19"))]
    pub tax_rate: TaxRate,
    pub active: bool,
    pub metadata: Metadata,
    pub livemode: bool,
    #[serde(serialize_with = "crate::time::serialize")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::time::serialize")]
    pub updated_at: DateTime<Utc>,
}

impl Product {
    pub const OBJECT: &'static str = "product";

    /// What a line that names this product and leaves its description out shows.
    pub fn line_description(&self) -> &str {
        self.description.as_deref().unwrap_or(&self.name)
    }
}

/// Filters of `GET /api/v1/products`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProductFilter {
    pub active: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn parse(value: Value) -> Result<NewProduct, Violations> {
        serde_json::from_value::<ProductInput>(value)
            .unwrap()
            .parse()
    }

    #[test]
    fn defaults_and_required_fields() {
        let p =
            parse(json!({"name": "Hosting", "unit_price_cents": 1500, "currency": "eur"})).unwrap();
        assert!(p.active);
        assert_eq!(p.tax_rate, TaxRate::ZERO);
        assert_eq!(p.currency.code(), "EUR");
        let err = parse(json!({"description": "x"})).unwrap_err();
        let params: Vec<_> = err.errors().iter().map(|e| e.param.as_str()).collect();
        assert_eq!(params, ["name", "unit_price_cents", "currency"]);
    }

    #[test]
    fn every_bad_value_is_reported() {
        let err = parse(
            json!({"name": " ", "unit_price_cents": 2_000_000_000_000_000i64,
            "currency": "EURO", "tax_rate": "101", "description": "d".repeat(1001)}),
        )
        .unwrap_err();
        let params: Vec<_> = err.errors().iter().map(|e| e.param.as_str()).collect();
        assert_eq!(
            params,
            [
                "name",
                "description",
                "unit_price_cents",
                "currency",
                "tax_rate"
            ]
        );
    }

    #[test]
    fn patch_keeps_absent_fields_and_clears_description() {
        let p = serde_json::from_value::<ProductPatchInput>(
            json!({"description": null, "active": false}),
        )
        .unwrap()
        .parse()
        .unwrap();
        assert_eq!(p.description, Some(None));
        assert_eq!(p.active, Some(false));
        assert_eq!(p.name, None);
        let err = serde_json::from_value::<ProductPatchInput>(json!({"name": "", "tax_rate": -1}))
            .unwrap()
            .parse()
            .unwrap_err();
        assert_eq!(err.errors().len(), 2);
    }
}
