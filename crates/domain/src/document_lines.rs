//! Line items of invoices and quotations: what clients send, parsed once into lines that are
//! complete or still need their catalog product, resolved into final lines with amounts, and the
//! line as the API returns it.

use crate::currency::Currency;
use crate::decimal::{DecimalText, Quantity, TaxRate};
use crate::einvoice::{
    allocate_document_tax, parse_category, parse_exemption_reason, parse_unit, LineTax,
    TaxCategory, TaxRounding, DEFAULT_UNIT,
};
use crate::lines::{document_totals, line_amounts, DocumentTotals, LineAmounts, TotalsError};
use crate::money::Money;
use crate::product::DESCRIPTION_MAX;
use crate::product::{Product, ProductId};
use crate::validation::{required_text, Violations};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The most lines a document may have.
pub const MAX_LINES: usize = 500;

/// One line as sent.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct LineItemInput {
    /// 1 to 1000 characters; default the product's description (or name) with `product_id`.
    pub description: Option<String>,
    /// A JSON number or decimal string, > 0, at most 3 decimals, at most 1 000 000.
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "1.5"))]
    pub quantity: Option<DecimalText>,
    /// Minor units of the document's currency; negative for a discount line. Default the
    /// product's price with `product_id`.
    pub unit_price_cents: Option<i64>,
    /// Percent, 0 to 100, at most 3 decimals; default the product's rate with `product_id`,
    /// else 0.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "19"))]
    pub tax_rate: Option<DecimalText>,
    /// An active product in the document's currency whose fields fill what the line leaves out.
    pub product_id: Option<i64>,
    /// A UN/ECE Recommendation 20 unit code (`C62` one, `HUR` hour, `DAY`, `KGM`…); default `C62`.
    pub unit: Option<String>,
    /// The VAT category (EN 16931): `S` standard (the default above 0 %), or for 0 % lines `Z`
    /// zero rated, `E` exempt, `AE` reverse charge, `K` intra-EU, `G` export, `O` outside scope.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<TaxCategory>))]
    pub tax_category: Option<String>,
    /// Why a 0 % line is exempt: text, or a VATEX code such as `VATEX-EU-AE`. E-invoices need
    /// it for `E`, `AE`, `K`, `G` and `O`.
    pub tax_exemption_reason: Option<String>,
}

/// What a line says for e-invoices (SPEC §23), parsed but not yet checked against the rate
/// (a product line learns its rate from the product).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineExtras {
    pub unit: Option<String>,
    pub tax_category: Option<TaxCategory>,
    pub tax_exemption_reason: Option<String>,
}

/// A valid line with its computed amounts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineItem {
    /// The catalog product the line was made from, if any.
    pub product_id: Option<ProductId>,
    pub description: String,
    pub quantity: Quantity,
    pub unit_price: Money,
    pub tax_rate: TaxRate,
    pub amounts: LineAmounts,
    /// A UN/ECE Recommendation 20 code.
    pub unit: String,
    pub tax: LineTax,
}

/// Valid lines and the document totals computed from them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lines {
    pub items: Vec<LineItem>,
    pub totals: DocumentTotals,
}

/// A parsed line that names a product: what it leaves out comes from the product, which only
/// storage can read, so its amounts are computed by [`LineDrafts::resolve`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProductLine {
    pub product_id: ProductId,
    pub description: Option<String>,
    pub quantity: Quantity,
    pub unit_price: Option<Money>,
    pub tax_rate: Option<TaxRate>,
    pub extras: LineExtras,
}

/// One parsed line: complete as given (or copied from a stored document), or still needing
/// its product.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineDraft {
    Complete(LineItem),
    FromProduct(ProductLine),
}

/// 1 to 500 parsed lines of a document, before products fill their gaps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineDrafts {
    items: Vec<LineDraft>,
}

fn parse_line(v: &mut Violations, at: &str, input: LineItemInput) -> Option<LineDraft> {
    let product_id = match input.product_id {
        None => None,
        Some(id) if id > 0 => Some(ProductId(id)),
        Some(_) => {
            v.push(
                format!("{at}.product_id"),
                crate::validation::Problem::NotPositiveInteger,
            );
            return None;
        }
    };
    let description = match (&input.description, product_id) {
        (None, Some(_)) => None,
        _ => required_text(
            v,
            &format!("{at}.description"),
            input.description,
            DESCRIPTION_MAX,
        ),
    };
    let quantity = match input.quantity {
        None => {
            v.push(
                format!("{at}.quantity"),
                crate::validation::Problem::Required,
            );
            None
        }
        Some(q) => q
            .quantity()
            .map_err(|e| v.push(format!("{at}.quantity"), e))
            .ok(),
    };
    let unit_price = match (input.unit_price_cents, product_id) {
        (None, Some(_)) => None,
        (None, None) => {
            v.push(
                format!("{at}.unit_price_cents"),
                crate::validation::Problem::Required,
            );
            None
        }
        (Some(p), _) => Money::new(p)
            .map_err(|e| v.push(format!("{at}.unit_price_cents"), e.to_string()))
            .ok(),
    };
    let unit = parse_unit(v, at, input.unit);
    let tax_category = parse_category(v, at, input.tax_category);
    let tax_exemption_reason = parse_exemption_reason(v, at, input.tax_exemption_reason);
    let extras = LineExtras {
        unit: unit.ok()?,
        tax_category: tax_category.ok()?,
        tax_exemption_reason: tax_exemption_reason.ok()?,
    };
    let had_tax_rate = input.tax_rate.is_some();
    let tax_rate = match input.tax_rate {
        None => None,
        Some(t) => t
            .tax_rate()
            .map_err(|e| v.push(format!("{at}.tax_rate"), e))
            .ok(),
    };
    if let Some(product_id) = product_id {
        // A field that was given but failed has been reported, and the caller then drops
        // every line; absent fields come from the product.
        return Some(LineDraft::FromProduct(ProductLine {
            product_id,
            description,
            quantity: quantity?,
            unit_price,
            tax_rate,
            extras,
        }));
    }
    let tax_rate = if had_tax_rate {
        tax_rate?
    } else {
        TaxRate::ZERO
    };
    let priced = Priced {
        description: description?,
        quantity: quantity?,
        unit_price: unit_price?,
        tax_rate,
    };
    complete_line(v, at, None, priced, extras).map(LineDraft::Complete)
}

/// What every line has once its product (if any) filled it in.
struct Priced {
    description: String,
    quantity: Quantity,
    unit_price: Money,
    tax_rate: TaxRate,
}

fn complete_line(
    v: &mut Violations,
    at: &str,
    product_id: Option<ProductId>,
    line: Priced,
    extras: LineExtras,
) -> Option<LineItem> {
    let tax = LineTax::for_rate(
        v,
        at,
        line.tax_rate,
        extras.tax_category,
        extras.tax_exemption_reason,
    )?;
    let Priced {
        description,
        quantity,
        unit_price,
        tax_rate,
    } = line;
    match line_amounts(quantity, unit_price, tax_rate) {
        Ok(amounts) => Some(LineItem {
            product_id,
            description,
            quantity,
            unit_price,
            tax_rate,
            amounts,
            unit: extras.unit.unwrap_or_else(|| DEFAULT_UNIT.to_string()),
            tax,
        }),
        Err(_) => {
            v.push(
                format!("{at}.unit_price_cents"),
                "makes the line amount exceed ±1000000000000000",
            );
            None
        }
    }
}

fn totals(v: &mut Violations, items: Vec<LineItem>) -> Option<Lines> {
    match document_totals(items.iter().map(|l| &l.amounts)) {
        Ok(totals) => Some(Lines { items, totals }),
        Err(TotalsError::NegativeTotal) => {
            v.push("line_items", "the document total must not be negative");
            None
        }
        Err(TotalsError::Money(_)) => {
            v.push("line_items", "the document total exceeds ±1000000000000000");
            None
        }
    }
}

impl LineDrafts {
    /// Parses 1 to 500 lines, reporting every failing field as `line_items[i].field`. Lines
    /// that name no product are checked completely here, totals included, so a client learns
    /// of every mistake in one answer.
    pub fn parse(v: &mut Violations, inputs: Option<Vec<LineItemInput>>) -> Option<LineDrafts> {
        let Some(inputs) = inputs else {
            v.push("line_items", crate::validation::Problem::Required);
            return None;
        };
        if inputs.is_empty() || inputs.len() > MAX_LINES {
            v.push("line_items", format!("must have 1 to {MAX_LINES} items"));
            return None;
        }
        let before = v.errors().len();
        let items: Vec<LineDraft> = inputs
            .into_iter()
            .enumerate()
            .filter_map(|(i, input)| parse_line(v, &format!("line_items[{i}]"), input))
            .collect();
        if v.errors().len() > before {
            return None;
        }
        let drafts = LineDrafts { items };
        if drafts.product_ids().is_empty() {
            drafts.resolve_in(v, None, &HashMap::new())?;
        }
        Some(drafts)
    }

    /// The products the lines name, each once.
    pub fn product_ids(&self) -> Vec<ProductId> {
        let mut ids: Vec<ProductId> = self
            .items
            .iter()
            .filter_map(|l| match l {
                LineDraft::FromProduct(p) => Some(p.product_id),
                LineDraft::Complete(_) => None,
            })
            .collect();
        ids.sort();
        ids.dedup();
        ids
    }

    /// The final lines of a document in `currency`: each product line takes what it left out
    /// from its product in `catalog` (the tenant's products that the lines name), which must
    /// exist there, be active and be priced in `currency`.
    pub fn resolve(
        &self,
        currency: Currency,
        catalog: &HashMap<ProductId, Product>,
    ) -> Result<Lines, Violations> {
        let mut v = Violations::new();
        match self.resolve_in(&mut v, Some(currency), catalog) {
            Some(lines) if v.is_empty() => Ok(lines),
            _ => Err(v),
        }
    }

    fn resolve_in(
        &self,
        v: &mut Violations,
        currency: Option<Currency>,
        catalog: &HashMap<ProductId, Product>,
    ) -> Option<Lines> {
        let before = v.errors().len();
        let mut items = Vec::with_capacity(self.items.len());
        for (i, line) in self.items.iter().enumerate() {
            let at = format!("line_items[{i}]");
            let p = match line {
                LineDraft::Complete(item) => {
                    items.push(item.clone());
                    continue;
                }
                LineDraft::FromProduct(p) => p,
            };
            let param = format!("{at}.product_id");
            let Some(product) = catalog.get(&p.product_id) else {
                v.push(param, "no such product");
                continue;
            };
            if !product.active {
                v.push(param, "the product is archived (active: false)");
                continue;
            }
            if currency.is_some_and(|c| c != product.currency) {
                v.push(
                    param,
                    format!(
                        "the product is priced in {}, the document in {}",
                        product.currency,
                        currency.map(|c| c.code()).unwrap_or_default()
                    ),
                );
                continue;
            }
            let unit_price = match p.unit_price {
                Some(price) => price,
                None => match Money::new(product.unit_price_cents) {
                    Ok(price) => price,
                    Err(e) => {
                        v.push(param, e.to_string());
                        continue;
                    }
                },
            };
            let description = p
                .description
                .clone()
                .unwrap_or_else(|| product.line_description().to_string());
            let tax_rate = p.tax_rate.unwrap_or(product.tax_rate);
            let priced = Priced {
                description,
                quantity: p.quantity,
                unit_price,
                tax_rate,
            };
            if let Some(item) = complete_line(v, &at, Some(p.product_id), priced, p.extras.clone())
            {
                items.push(item);
            }
        }
        if v.errors().len() > before {
            return None;
        }
        totals(v, items)
    }
}

impl Lines {
    /// The lines with their tax rounded as `mode` says (SPEC §23). Lines come priced per line
    /// (SPEC §7); `document` rounding computes each rate's tax once and shares it out over the
    /// rate's lines, so the totals stay the sums of the lines.
    pub fn rounded(self, mode: TaxRounding) -> Result<Lines, Violations> {
        if mode == TaxRounding::Line {
            return Ok(self);
        }
        let pairs: Vec<(i64, TaxRate)> = self
            .items
            .iter()
            .map(|l| (l.amounts.subtotal.minor(), l.tax_rate))
            .collect();
        let mut v = Violations::new();
        let mut items = self.items;
        for (item, tax) in items.iter_mut().zip(allocate_document_tax(&pairs)) {
            let tax = Money::new(tax).ok();
            match tax.and_then(|t| {
                item.amounts
                    .subtotal
                    .checked_add(t)
                    .ok()
                    .map(|total| (t, total))
            }) {
                Some((tax, total)) => {
                    item.amounts.tax = tax;
                    item.amounts.total = total;
                }
                None => v.push("line_items", "the document total exceeds ±1000000000000000"),
            }
        }
        if !v.is_empty() {
            return Err(v);
        }
        totals(&mut v, items).ok_or(v)
    }
}

/// Lines copied from a stored document are complete: they keep their product link but need
/// nothing from the catalog any more (an archived product does not stop a conversion).
impl From<Lines> for LineDrafts {
    fn from(lines: Lines) -> LineDrafts {
        LineDrafts {
            items: lines.items.into_iter().map(LineDraft::Complete).collect(),
        }
    }
}

/// A line as the API returns it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LineItemView {
    pub id: i64,
    /// The catalog product the line was made from, if any.
    pub product_id: Option<i64>,
    pub description: String,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "1.5"))]
    pub quantity: Quantity,
    pub unit_price_cents: i64,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "19"))]
    pub tax_rate: TaxRate,
    pub subtotal_cents: i64,
    pub tax_cents: i64,
    pub total_cents: i64,
    /// A UN/ECE Recommendation 20 unit code.
    pub unit: String,
    /// `null` on a 0 % line whose category was not given.
    pub tax_category: Option<TaxCategory>,
    pub tax_exemption_reason: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn eur() -> Currency {
        Currency::parse("EUR").unwrap()
    }

    fn drafts(value: Value) -> Result<LineDrafts, Violations> {
        let inputs: Vec<LineItemInput> = serde_json::from_value(value).unwrap();
        let mut v = Violations::new();
        let parsed = LineDrafts::parse(&mut v, Some(inputs));
        parsed.ok_or(v)
    }

    fn lines(value: Value) -> Result<Lines, Violations> {
        drafts(value)?.resolve(eur(), &HashMap::new())
    }

    fn product(id: i64, currency: &str, active: bool, description: Option<&str>) -> Product {
        Product {
            id: ProductId(id),
            object: Product::OBJECT,
            name: format!("Product {id}"),
            description: description.map(str::to_string),
            unit_price_cents: 1000,
            currency: Currency::parse(currency).unwrap(),
            tax_rate: TaxRate::parse("19").unwrap(),
            active,
            metadata: Default::default(),
            livemode: false,
            created_at: chrono::DateTime::UNIX_EPOCH,
            updated_at: chrono::DateTime::UNIX_EPOCH,
        }
    }

    fn catalog(products: Vec<Product>) -> HashMap<ProductId, Product> {
        products.into_iter().map(|p| (p.id, p)).collect()
    }

    #[test]
    fn products_fill_what_a_line_leaves_out() {
        let d = drafts(json!([
            {"product_id": 1, "quantity": 2},
            {"product_id": 1, "quantity": 1, "description": "Custom", "unit_price_cents": 500, "tax_rate": 0},
            {"product_id": 2, "quantity": 1},
            {"description": "Plain", "quantity": 1, "unit_price_cents": 1}
        ]))
        .unwrap();
        assert_eq!(d.product_ids(), [ProductId(1), ProductId(2)]);
        let l = d
            .resolve(
                eur(),
                &catalog(vec![
                    product(1, "EUR", true, Some("Hosting, monthly")),
                    product(2, "EUR", true, None),
                ]),
            )
            .unwrap();
        let first = &l.items[0];
        assert_eq!(first.product_id, Some(ProductId(1)));
        assert_eq!(first.description, "Hosting, monthly");
        assert_eq!(first.unit_price.minor(), 1000);
        assert_eq!(first.tax_rate.to_string(), "19");
        assert_eq!(first.amounts.total.minor(), 2380);
        let second = &l.items[1];
        assert_eq!(
            (second.description.as_str(), second.unit_price.minor()),
            ("Custom", 500)
        );
        assert_eq!(second.tax_rate, TaxRate::ZERO);
        assert_eq!(
            l.items[2].description, "Product 2",
            "the name when no description"
        );
        assert_eq!(l.items[3].product_id, None);
        assert_eq!(l.totals.total.minor(), 2380 + 500 + 1190 + 1);
    }

    #[test]
    fn unusable_products_are_reported_per_line() {
        let d = drafts(json!([
            {"product_id": 1, "quantity": 1},
            {"product_id": 2, "quantity": 1},
            {"product_id": 3, "quantity": 1},
            {"product_id": 4, "quantity": 1}
        ]))
        .unwrap();
        let err = d
            .resolve(
                eur(),
                &catalog(vec![
                    product(1, "EUR", true, None),
                    product(2, "EUR", false, None),
                    product(3, "USD", true, None),
                ]),
            )
            .unwrap_err();
        let found: Vec<_> = err
            .errors()
            .iter()
            .map(|e| (e.param.as_str(), e.message.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "line_items[1].product_id",
                    "the product is archived (active: false)"
                ),
                (
                    "line_items[2].product_id",
                    "the product is priced in USD, the document in EUR"
                ),
                ("line_items[3].product_id", "no such product"),
            ]
        );
        let err = drafts(json!([{"product_id": 0, "quantity": 1}, {"product_id": 5}])).unwrap_err();
        let params: Vec<_> = err.errors().iter().map(|e| e.param.as_str()).collect();
        assert_eq!(
            params,
            ["line_items[0].product_id", "line_items[1].quantity"]
        );
    }

    #[test]
    fn copied_lines_need_no_catalog() {
        let l = lines(json!([{"description": "x", "quantity": 1, "unit_price_cents": 7}])).unwrap();
        let mut item = l.items[0].clone();
        item.product_id = Some(ProductId(9));
        let copied = LineDrafts::from(Lines {
            items: vec![item],
            totals: l.totals,
        });
        assert!(copied.product_ids().is_empty());
        let again = copied.resolve(eur(), &HashMap::new()).unwrap();
        assert_eq!(again.items[0].product_id, Some(ProductId(9)));
    }

    #[test]
    fn spec_example_totals() {
        let l = lines(json!([{"description": "Work", "quantity": 1.5, "unit_price_cents": 333, "tax_rate": 19}])).unwrap();
        assert_eq!(l.totals.subtotal.minor(), 500);
        assert_eq!(l.totals.tax.minor(), 95);
        assert_eq!(l.totals.total.minor(), 595);
    }

    #[test]
    fn every_failing_line_field_is_reported() {
        let err = lines(json!([
            {"description": "ok", "quantity": "1", "unit_price_cents": 100},
            {"description": "", "quantity": 0, "unit_price_cents": 100, "tax_rate": "101"},
            {"quantity": "1.0005"}
        ]))
        .unwrap_err();
        let params: Vec<_> = err.errors().iter().map(|e| e.param.as_str()).collect();
        assert_eq!(
            params,
            [
                "line_items[1].description",
                "line_items[1].quantity",
                "line_items[1].tax_rate",
                "line_items[2].description",
                "line_items[2].quantity",
                "line_items[2].unit_price_cents"
            ]
        );
    }

    #[test]
    fn negative_totals_and_overflow_are_refused() {
        let err =
            lines(json!([{"description": "discount", "quantity": 1, "unit_price_cents": -5}]))
                .unwrap_err();
        assert_eq!(err.errors()[0].param, "line_items");
        let err = lines(json!([{"description": "x", "quantity": 1000000, "unit_price_cents": 1_000_000_000_000_000i64}])).unwrap_err();
        assert_eq!(err.errors()[0].param, "line_items[0].unit_price_cents");
        let many: Vec<_> = (0..501)
            .map(|_| json!({"description": "x", "quantity": 1, "unit_price_cents": 1}))
            .collect();
        assert_eq!(
            lines(Value::Array(many)).unwrap_err().errors()[0].param,
            "line_items"
        );
        assert!(lines(json!([])).is_err());
    }
}
