//! Whether a document can be written as an EN 16931 e-invoice (SPEC §23), and if not, every
//! business term that is missing with the field that fills it. The exporters write only what
//! this calls ready, so no file that breaks a rule ever leaves the service.

use super::{
    identifier_fault, is_eas_scheme, is_peppol_scheme, over_peppol, ElectronicAddress, TaxCategory,
};
use crate::currency::Currency;
use crate::decimal::TaxRate;
use crate::document::LineItemView;
use crate::lines::round_div_half_away;
use crate::locale::Locale;
use crate::parties::{Issuer, Recipient};
use serde::Serialize;
use std::collections::BTreeMap;

/// One thing a document lacks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = EInvoiceMissing))]
pub struct Missing {
    /// The EN 16931 business term or rule (`BT-31`, `BR-CO-17`).
    pub term: &'static str,
    /// What to fill in: `account.vat_id`, `customer.address.country`, `line_items[2].tax_category`.
    pub field: String,
    /// [`Missing::reason`] in English, for the API.
    pub message: String,
    /// Why, for a message in any language ([`Missing::text`]).
    #[serde(skip)]
    pub reason: Reason,
    /// The line it is about (0 for the first), if one.
    #[serde(skip)]
    pub line: Option<usize>,
    /// Of a document that left draft, which keeps what it was issued with ([`Missing::keep`]).
    #[serde(skip)]
    pub kept: bool,
}

/// Why a document is not yet an e-invoice: each a catalogue text (`einvoice.*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    CurrencyDecimals(Currency),
    SellerCountry,
    BuyerCountryCode,
    BuyerCountry,
    LineCategory,
    ExemptionReason(TaxCategory),
    OneExemptionReason(TaxCategory),
    OutsideScopeMixed,
    SellerIdentifier,
    SellerVatId,
    BuyerVatId,
    Rounding(TaxRate),
    PeppolReference,
    PeppolSellerAddress,
    /// An electronic address in a scheme (its EAS code) Peppol does not deliver to.
    PeppolScheme(&'static str),
    /// An identifier that fails its scheme's (EAS code) check digits.
    IdentifierCheck(&'static str),
    /// An electronic address in a scheme that is not (or no longer) on the EAS list.
    UnlistedScheme,
}

impl Reason {
    fn key(self) -> &'static str {
        match self {
            Reason::CurrencyDecimals(_) => "einvoice.currency_decimals",
            Reason::SellerCountry => "einvoice.seller_country",
            Reason::BuyerCountryCode => "einvoice.buyer_country_code",
            Reason::BuyerCountry => "einvoice.buyer_country",
            Reason::LineCategory => "einvoice.line_category",
            Reason::ExemptionReason(_) => "einvoice.exemption_reason",
            Reason::OneExemptionReason(_) => "einvoice.one_exemption_reason",
            Reason::OutsideScopeMixed => "einvoice.outside_scope_mixed",
            Reason::SellerIdentifier => "einvoice.seller_identifier",
            Reason::SellerVatId => "einvoice.seller_vat_id",
            Reason::BuyerVatId => "einvoice.buyer_vat_id",
            Reason::Rounding(_) => "einvoice.rounding",
            Reason::PeppolReference => "einvoice.peppol_reference",
            Reason::PeppolSellerAddress => "einvoice.peppol_seller_address",
            Reason::PeppolScheme(_) => "einvoice.peppol_scheme",
            Reason::IdentifierCheck(_) => "einvoice.identifier_check",
            Reason::UnlistedScheme => "einvoice.unlisted_scheme",
        }
    }

    /// The reason in `locale`'s words.
    pub fn text(self, locale: Locale) -> String {
        let value = match self {
            Reason::CurrencyDecimals(c) => Some(("currency", c.code().to_string())),
            Reason::ExemptionReason(c) | Reason::OneExemptionReason(c) => {
                Some(("category", c.code().to_string()))
            }
            Reason::Rounding(rate) => Some(("rate", rate.to_string())),
            Reason::PeppolScheme(scheme) | Reason::IdentifierCheck(scheme) => {
                Some(("scheme", scheme.to_string()))
            }
            _ => None,
        };
        let values: Vec<(&str, &str)> = value.iter().map(|(k, v)| (*k, v.as_str())).collect();
        locale.fill(self.key(), &values)
    }
}

impl Missing {
    /// One of Peppol BIS Billing 3.0's rules: binding on the UBL that travels over Peppol, not
    /// on a file that claims EN 16931 alone.
    pub fn is_peppol(&self) -> bool {
        self.term.starts_with("PEPPOL-")
    }

    /// What is missing in `locale`'s words, with the line it is about.
    pub fn text(&self, locale: Locale) -> String {
        let mut text = self.reason.text(locale);
        if let Some(i) = self.line {
            let n = (i + 1).to_string();
            text = format!("{}: {text}", locale.fill("einvoice.line", &[("n", &n)]));
        }
        if self.kept {
            text = format!("{text} {}", locale.text("einvoice.kept"));
        }
        text
    }

    /// Marks this as of a document that left draft (SPEC §9): filling it in now helps the next
    /// documents, not this one, and the message says so.
    pub fn keep(&mut self) {
        if !self.kept {
            self.kept = true;
            self.message = format!(
                "{} {}",
                self.reason.text(Locale::En),
                Locale::En.text("einvoice.kept")
            );
        }
    }
}

/// The answer of `…/einvoice/check`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = EInvoiceReadiness))]
pub struct Readiness {
    pub ready: bool,
    pub missing: Vec<Missing>,
}

/// What the check reads of a document.
#[derive(Clone, Copy, Debug)]
pub struct Subject<'a> {
    pub currency: Currency,
    pub issuer: &'a Issuer,
    pub recipient: &'a Recipient,
    pub lines: &'a [LineItemView],
    /// BT-10 and BT-13, of which Peppol wants one.
    pub buyer_reference: Option<&'a str>,
    pub purchase_order: Option<&'a str>,
}

/// One VAT breakdown group (BG-23): the lines of one category and rate, with the sums of their
/// stored amounts (never recomputed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VatGroup {
    pub category: TaxCategory,
    pub rate: TaxRate,
    pub exemption_reason: Option<String>,
    pub taxable: i64,
    pub tax: i64,
}

/// The document's VAT breakdown, by category then rate. Lines without a category are left
/// out (such a document is not ready).
pub fn vat_breakdown(lines: &[LineItemView]) -> Vec<VatGroup> {
    let mut groups: BTreeMap<(TaxCategory, i64), VatGroup> = BTreeMap::new();
    for l in lines {
        let Some(category) = l.tax_category else {
            continue;
        };
        let g = groups
            .entry((category, l.tax_rate.thousandths()))
            .or_insert_with(|| VatGroup {
                category,
                rate: l.tax_rate,
                exemption_reason: l.tax_exemption_reason.clone(),
                taxable: 0,
                tax: 0,
            });
        g.taxable += l.subtotal_cents;
        g.tax += l.tax_cents;
    }
    groups.into_values().collect()
}

fn is_country_code(c: &str) -> bool {
    c.len() == 2 && isocountry::CountryCode::for_alpha2(c).is_ok()
}

struct Found(Vec<Missing>);

impl Found {
    fn add(&mut self, term: &'static str, field: &str, reason: Reason) {
        self.add_at(term, field, None, reason);
    }

    /// A line's: `field` is under `line_items[line]`.
    fn add_at(&mut self, term: &'static str, field: &str, line: Option<usize>, reason: Reason) {
        let field = match line {
            Some(i) => format!("line_items[{i}].{field}"),
            None => field.to_string(),
        };
        if !self.0.iter().any(|m| m.term == term && m.field == field) {
            self.0.push(Missing {
                term,
                field,
                message: reason.text(Locale::En),
                reason,
                line,
                kept: false,
            });
        }
    }
}

/// Checks `doc` against the rules of EN 16931 that its data can break.
pub fn check(doc: Subject<'_>) -> Readiness {
    let mut found = Found(Vec::new());
    if doc.currency.exponent() > 2 {
        found.add(
            "BR-DEC-23",
            "currency",
            Reason::CurrencyDecimals(doc.currency),
        );
    }
    parties(&mut found, &doc);
    lines(&mut found, doc.lines);
    let categories: Vec<TaxCategory> = vat_breakdown(doc.lines)
        .iter()
        .map(|g| g.category)
        .collect();
    vat_ids(&mut found, &doc, &categories);
    rounding(&mut found, doc.currency, doc.lines);
    if over_peppol(doc.recipient) {
        peppol(&mut found, &doc);
    }
    Readiness {
        ready: found.0.is_empty(),
        missing: found.0,
    }
}

/// Both parties' electronic addresses, each with the field that fills it in.
fn addresses<'a>(doc: &Subject<'a>) -> [(Option<&'a ElectronicAddress>, &'static str); 2] {
    [
        (
            doc.issuer.electronic_address.as_ref(),
            "account.electronic_address",
        ),
        (
            doc.recipient.electronic_address.as_ref(),
            "customer.electronic_address",
        ),
    ]
}

fn parties(found: &mut Found, doc: &Subject<'_>) {
    // BR-CL-25: an address kept from before its scheme was refused at input (0219, 0220).
    for (address, field) in addresses(doc) {
        if address.is_some_and(|a| !is_eas_scheme(&a.scheme)) {
            found.add(
                "BR-CL-25",
                &format!("{field}.scheme"),
                Reason::UnlistedScheme,
            );
        }
    }
    let seller_country = doc
        .issuer
        .address
        .as_ref()
        .and_then(|a| a.country.as_deref());
    if !seller_country.is_some_and(is_country_code) {
        found.add("BT-40", "account.address.country", Reason::SellerCountry);
    }
    match doc
        .recipient
        .address
        .as_ref()
        .and_then(|a| a.country.as_deref())
    {
        Some(c) if is_country_code(c) => {}
        Some(_) => found.add(
            "BT-55",
            "customer.address.country",
            Reason::BuyerCountryCode,
        ),
        None => found.add("BT-55", "customer.address.country", Reason::BuyerCountry),
    }
}

fn lines(found: &mut Found, lines: &[LineItemView]) {
    // BR-E-01, BR-AE-01…: one breakdown group per category but S, so one reason each.
    let mut reasons: BTreeMap<TaxCategory, &Option<String>> = BTreeMap::new();
    for (i, l) in lines.iter().enumerate() {
        let at = Some(i);
        let Some(category) = l.tax_category else {
            found.add_at("BT-151", "tax_category", at, Reason::LineCategory);
            continue;
        };
        if !category.needs_exemption_reason() {
            continue;
        }
        if l.tax_exemption_reason.is_none() {
            found.add_at(
                "BT-120",
                "tax_exemption_reason",
                at,
                Reason::ExemptionReason(category),
            );
            continue;
        }
        match reasons.get(&category) {
            Some(first) if *first != &l.tax_exemption_reason => found.add_at(
                "BR-CO-17",
                "tax_exemption_reason",
                at,
                Reason::OneExemptionReason(category),
            ),
            Some(_) => {}
            None => {
                reasons.insert(category, &l.tax_exemption_reason);
            }
        }
    }
    let categories: Vec<TaxCategory> = lines.iter().filter_map(|l| l.tax_category).collect();
    if categories.contains(&TaxCategory::O) && categories.iter().any(|c| *c != TaxCategory::O) {
        found.add("BR-O-11", "line_items", Reason::OutsideScopeMixed);
    }
}

fn vat_ids(found: &mut Found, doc: &Subject<'_>, categories: &[TaxCategory]) {
    use TaxCategory::*;
    let outside_vat = !categories.is_empty() && categories.iter().all(|c| *c == O);
    if outside_vat {
        // No VAT identifier may be written (BR-O-02), yet the buyer must be able to tell who
        // the seller is (BR-CO-26): the seller's identifier (BT-29) in an ISO 6523 scheme.
        let identified = doc.issuer.electronic_address.as_ref().is_some_and(|a| {
            a.scheme.len() == 4
                && a.scheme.bytes().all(|b| b.is_ascii_digit())
                && !a.scheme.starts_with("99")
        });
        if !identified {
            found.add(
                "BT-29",
                "account.electronic_address",
                Reason::SellerIdentifier,
            );
        }
        return;
    }
    // BR-CO-26 (the buyer must be able to tell who the seller is) and BR-S-02, BR-Z-02, BR-E-02,
    // BR-AE-02, BR-IC-02, BR-G-02: the seller's VAT identifier.
    if doc.issuer.vat_id.is_none() {
        found.add("BT-31", "account.vat_id", Reason::SellerVatId);
    }
    if categories.iter().any(|c| matches!(c, AE | K)) && doc.recipient.vat_id.is_none() {
        found.add("BT-48", "customer.vat_id", Reason::BuyerVatId);
    }
}

/// Line rounding sums each line's rounded tax; EN 16931 computes each rate's tax once and allows
/// the two to differ by less than one unit of the currency (BR-CO-17).
fn rounding(found: &mut Found, currency: Currency, lines: &[LineItemView]) {
    // The rule's arithmetic: hundredths of the currency's unit, whatever its exponent.
    let to_hundredths = 10i128.pow(2u32.saturating_sub(u32::from(currency.exponent())));
    for g in vat_breakdown(lines) {
        let expected = round_div_half_away(
            i128::from(g.taxable) * to_hundredths * i128::from(g.rate.thousandths()),
            100_000,
        );
        if (i128::from(g.tax) * to_hundredths - expected).abs() >= 100 {
            found.add("BR-CO-17", "tax_rounding", Reason::Rounding(g.rate));
        }
    }
}

/// The rules of Peppol BIS Billing 3.0 that a document's data decides (the rest hold for every
/// file the exporters write).
fn peppol(found: &mut Found, doc: &Subject<'_>) {
    let blank = |r: Option<&str>| r.is_none_or(|r| r.trim().is_empty());
    if blank(doc.buyer_reference) && blank(doc.purchase_order) {
        found.add(
            "PEPPOL-EN16931-R003",
            "buyer_reference",
            Reason::PeppolReference,
        );
    }
    match &doc.issuer.electronic_address {
        None => found.add(
            "PEPPOL-EN16931-R020",
            "account.electronic_address",
            Reason::PeppolSellerAddress,
        ),
        Some(a) if !is_peppol_scheme(&a.scheme) => found.add(
            "PEPPOL-EN16931-CL008",
            "account.electronic_address.scheme",
            Reason::PeppolScheme(super::eas_schemes().find(|s| *s == a.scheme).unwrap_or("?")),
        ),
        Some(_) => {}
    }
    // Identifiers stored before their schemes' checks were enforced at input.
    for (address, field) in addresses(doc) {
        if let Some(check) = address.and_then(|a| identifier_fault(&a.scheme, &a.id)) {
            found.add(
                check.rule,
                &format!("{field}.id"),
                Reason::IdentifierCheck(check.scheme),
            );
        }
    }
}
