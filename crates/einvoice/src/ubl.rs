//! UBL 2.1 `Invoice` and `CreditNote` following Peppol BIS Billing 3.0 (claimed as such when the
//! document travels over Peppol), in the element order the UBL schemas require.

use crate::model::{is_code, quantity_and_price, Kind, Model};
use crate::xml::Xml;
use invoicing_domain::customer::Address;
use invoicing_domain::einvoice::{ElectronicAddress, TaxCategory, VatGroup};
use invoicing_domain::parties::{Issuer, Recipient};
use invoicing_domain::supply::Supply;

const PEPPOL_CUSTOMIZATION: &str =
    "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0";
const PEPPOL_PROFILE: &str = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0";
/// A file that does not travel over Peppol claims the European standard alone: Peppol's rules
/// (an electronic address in one of its schemes for both parties…) need not hold for it.
const EN16931: &str = "urn:cen.eu:en16931:2017";
const CAC: &str = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2";
const CBC: &str = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2";

pub fn write(doc: &Model<'_>) -> Vec<u8> {
    let credit = matches!(doc.kind, Kind::CreditNote { .. });
    let (root, ns) = if credit {
        (
            "CreditNote",
            "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2",
        )
    } else {
        (
            "Invoice",
            "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
        )
    };
    let mut x = Xml::new();
    x.open(
        root,
        &[("xmlns", ns), ("xmlns:cac", CAC), ("xmlns:cbc", CBC)],
    );
    if doc.over_peppol() {
        x.leaf("cbc:CustomizationID", PEPPOL_CUSTOMIZATION);
        x.leaf("cbc:ProfileID", PEPPOL_PROFILE);
    } else {
        x.leaf("cbc:CustomizationID", EN16931);
    }
    x.leaf("cbc:ID", doc.number);
    x.leaf("cbc:IssueDate", &doc.issue_date.to_string());
    if credit {
        x.leaf("cbc:CreditNoteTypeCode", "381");
    } else {
        if let Some(due) = doc.due_date {
            x.leaf("cbc:DueDate", &due.to_string());
        }
        x.leaf("cbc:InvoiceTypeCode", "380");
    }
    x.opt("cbc:Note", doc.note);
    x.leaf("cbc:DocumentCurrencyCode", doc.currency.code());
    x.opt("cbc:BuyerReference", doc.buyer_reference);
    if let Some(Supply::Period(p)) = doc.supply {
        x.open("cac:InvoicePeriod", &[]);
        x.leaf("cbc:StartDate", &p.start.to_string());
        x.leaf("cbc:EndDate", &p.end.to_string());
        x.close("cac:InvoicePeriod");
    }
    if let Some(order) = doc.purchase_order {
        x.open("cac:OrderReference", &[]);
        x.leaf("cbc:ID", order);
        x.close("cac:OrderReference");
    }
    if let Kind::CreditNote { invoice_number } = &doc.kind {
        x.open("cac:BillingReference", &[]);
        x.open("cac:InvoiceDocumentReference", &[]);
        x.leaf("cbc:ID", invoice_number);
        x.close("cac:InvoiceDocumentReference");
        x.close("cac:BillingReference");
    }
    seller(&mut x, doc);
    buyer(&mut x, doc);
    delivery(&mut x, doc);
    payment(&mut x, doc, credit);
    taxes(&mut x, doc);
    totals(&mut x, doc);
    lines(&mut x, doc, credit);
    x.close(root);
    x.finish()
}

fn endpoint(x: &mut Xml, address: &Option<ElectronicAddress>) {
    if let Some(a) = address {
        x.leaf_with("cbc:EndpointID", &[("schemeID", &a.scheme)], &a.id);
    }
}

fn postal_address(x: &mut Xml, address: Option<&Address>) {
    let a = address.cloned().unwrap_or_default();
    x.open("cac:PostalAddress", &[]);
    x.opt("cbc:StreetName", a.line1.as_deref());
    x.opt("cbc:AdditionalStreetName", a.line2.as_deref());
    x.opt("cbc:CityName", a.city.as_deref());
    x.opt("cbc:PostalZone", a.postal_code.as_deref());
    x.opt("cbc:CountrySubentity", a.state.as_deref());
    x.open("cac:Country", &[]);
    x.leaf(
        "cbc:IdentificationCode",
        a.country.as_deref().unwrap_or_default(),
    );
    x.close("cac:Country");
    x.close("cac:PostalAddress");
}

fn tax_scheme(x: &mut Xml, company_id: &str, scheme: &str) {
    x.open("cac:PartyTaxScheme", &[]);
    x.leaf("cbc:CompanyID", company_id);
    x.open("cac:TaxScheme", &[]);
    x.leaf("cbc:ID", scheme);
    x.close("cac:TaxScheme");
    x.close("cac:PartyTaxScheme");
}

fn legal_entity(x: &mut Xml, name: &str) {
    x.open("cac:PartyLegalEntity", &[]);
    x.leaf("cbc:RegistrationName", name);
    x.close("cac:PartyLegalEntity");
}

fn seller(x: &mut Xml, doc: &Model<'_>) {
    let s: &Issuer = doc.seller;
    x.open("cac:AccountingSupplierParty", &[]);
    x.open("cac:Party", &[]);
    endpoint(x, &s.electronic_address);
    if doc.outside_vat() {
        // The seller's identifier (BT-29): the one way to name it without a VAT number.
        if let Some(a) = &s.electronic_address {
            x.open("cac:PartyIdentification", &[]);
            x.leaf_with("cbc:ID", &[("schemeID", &a.scheme)], &a.id);
            x.close("cac:PartyIdentification");
        }
    }
    if s.legal_name.is_some() && s.legal_name.as_deref() != Some(s.name.as_str()) {
        x.open("cac:PartyName", &[]);
        x.leaf("cbc:Name", &s.name);
        x.close("cac:PartyName");
    }
    postal_address(x, s.address.as_ref());
    if !doc.outside_vat() {
        if let Some(vat) = &s.vat_id {
            tax_scheme(x, vat.as_str(), "VAT");
        }
        if let Some(tax_id) = &s.tax_id {
            // The national tax number (BT-32) sits in a scheme other than VAT.
            tax_scheme(x, tax_id, "FC");
        }
    }
    legal_entity(x, s.display_name());
    if let Some(c) = &s.contact {
        x.open("cac:Contact", &[]);
        x.opt("cbc:Name", c.name.as_deref());
        x.opt("cbc:Telephone", c.phone.as_deref());
        x.opt("cbc:ElectronicMail", c.email.as_deref());
        x.close("cac:Contact");
    }
    x.close("cac:Party");
    x.close("cac:AccountingSupplierParty");
}

/// The buyer's name (BT-44): its company when it has one.
pub(crate) fn buyer_name(b: &Recipient) -> &str {
    b.company.as_deref().unwrap_or(&b.name)
}

fn buyer(x: &mut Xml, doc: &Model<'_>) {
    let b = doc.buyer;
    x.open("cac:AccountingCustomerParty", &[]);
    x.open("cac:Party", &[]);
    endpoint(x, &b.electronic_address);
    postal_address(x, b.address.as_ref());
    if !doc.outside_vat() {
        if let Some(vat) = &b.vat_id {
            tax_scheme(x, vat.as_str(), "VAT");
        }
    }
    legal_entity(x, buyer_name(b));
    x.open("cac:Contact", &[]);
    if b.company.is_some() {
        x.leaf("cbc:Name", &b.name);
    }
    x.opt("cbc:Telephone", b.phone.as_deref());
    x.leaf("cbc:ElectronicMail", &b.email);
    x.close("cac:Contact");
    x.close("cac:Party");
    x.close("cac:AccountingCustomerParty");
}

/// When the goods went (BT-72), and for an intra-community supply where (BR-IC-11, BR-IC-12):
/// the buyer's country.
fn delivery(x: &mut Xml, doc: &Model<'_>) {
    let day = doc.delivery_date();
    let intra = doc.intra_community();
    if day.is_none() && !intra {
        return;
    }
    x.open("cac:Delivery", &[]);
    if let Some(day) = day {
        x.leaf("cbc:ActualDeliveryDate", &day.to_string());
    }
    if intra {
        let country = doc
            .buyer
            .address
            .as_ref()
            .and_then(|a| a.country.as_deref())
            .unwrap_or_default();
        x.open("cac:DeliveryLocation", &[]);
        x.open("cac:Address", &[]);
        x.open("cac:Country", &[]);
        x.leaf("cbc:IdentificationCode", country);
        x.close("cac:Country");
        x.close("cac:Address");
        x.close("cac:DeliveryLocation");
    }
    x.close("cac:Delivery");
}

fn payment(x: &mut Xml, doc: &Model<'_>, credit: bool) {
    if let Some(bank) = &doc.seller.bank_account {
        x.open("cac:PaymentMeans", &[]);
        x.leaf("cbc:PaymentMeansCode", bank.payment_means_code());
        x.leaf("cbc:PaymentID", doc.number);
        x.open("cac:PayeeFinancialAccount", &[]);
        x.leaf("cbc:ID", &bank.iban);
        x.opt("cbc:Name", bank.name.as_deref());
        if let Some(bic) = &bank.bic {
            x.open("cac:FinancialInstitutionBranch", &[]);
            x.leaf("cbc:ID", bic);
            x.close("cac:FinancialInstitutionBranch");
        }
        x.close("cac:PayeeFinancialAccount");
        x.close("cac:PaymentMeans");
    }
    // BR-CO-25: an amount due needs a due date or terms; a credit note has no due date.
    if credit {
        if let Kind::CreditNote { invoice_number } = &doc.kind {
            x.open("cac:PaymentTerms", &[]);
            x.leaf("cbc:Note", &format!("Credit for invoice {invoice_number}"));
            x.close("cac:PaymentTerms");
        }
    }
}

fn tax_category(x: &mut Xml, element: &str, g: &VatGroup, with_reason: bool) {
    x.open(element, &[]);
    x.leaf("cbc:ID", g.category.code());
    if g.category != TaxCategory::O {
        x.leaf("cbc:Percent", &g.rate.to_string());
    }
    if with_reason {
        match g.exemption_reason.as_deref() {
            Some(code) if is_code(code) => x.leaf("cbc:TaxExemptionReasonCode", code),
            Some(text) => x.leaf("cbc:TaxExemptionReason", text),
            None => {}
        }
    }
    x.open("cac:TaxScheme", &[]);
    x.leaf("cbc:ID", "VAT");
    x.close("cac:TaxScheme");
    x.close(element);
}

fn taxes(x: &mut Xml, doc: &Model<'_>) {
    let currency = [("currencyID", doc.currency.code())];
    x.open("cac:TaxTotal", &[]);
    x.leaf_with("cbc:TaxAmount", &currency, &doc.amount(doc.tax_total));
    for g in &doc.breakdown {
        x.open("cac:TaxSubtotal", &[]);
        x.leaf_with("cbc:TaxableAmount", &currency, &doc.amount(g.taxable));
        x.leaf_with("cbc:TaxAmount", &currency, &doc.amount(g.tax));
        let reason = g.category.needs_exemption_reason();
        tax_category(x, "cac:TaxCategory", g, reason);
        x.close("cac:TaxSubtotal");
    }
    x.close("cac:TaxTotal");
}

fn totals(x: &mut Xml, doc: &Model<'_>) {
    let currency = [("currencyID", doc.currency.code())];
    x.open("cac:LegalMonetaryTotal", &[]);
    x.leaf_with(
        "cbc:LineExtensionAmount",
        &currency,
        &doc.amount(doc.line_total),
    );
    x.leaf_with(
        "cbc:TaxExclusiveAmount",
        &currency,
        &doc.amount(doc.line_total),
    );
    x.leaf_with(
        "cbc:TaxInclusiveAmount",
        &currency,
        &doc.amount(doc.grand_total),
    );
    if doc.prepaid != 0 {
        x.leaf_with("cbc:PrepaidAmount", &currency, &doc.amount(doc.prepaid));
    }
    x.leaf_with("cbc:PayableAmount", &currency, &doc.amount(doc.payable()));
    x.close("cac:LegalMonetaryTotal");
}

fn lines(x: &mut Xml, doc: &Model<'_>, credit: bool) {
    let (element, quantity_element) = if credit {
        ("cac:CreditNoteLine", "cbc:CreditedQuantity")
    } else {
        ("cac:InvoiceLine", "cbc:InvoicedQuantity")
    };
    let currency = [("currencyID", doc.currency.code())];
    for (i, l) in doc.lines.iter().enumerate() {
        let (quantity, price) = quantity_and_price(l, doc.currency.exponent());
        x.open(element, &[]);
        x.leaf("cbc:ID", &(i + 1).to_string());
        x.leaf_with(quantity_element, &[("unitCode", &l.unit)], &quantity);
        x.leaf_with(
            "cbc:LineExtensionAmount",
            &currency,
            &doc.amount(l.subtotal_cents),
        );
        x.open("cac:Item", &[]);
        x.leaf("cbc:Name", &l.description);
        // The model only holds lines with a category (the check refused the others).
        let group = VatGroup {
            category: l.tax_category.unwrap_or(TaxCategory::S),
            rate: l.tax_rate,
            exemption_reason: None,
            taxable: 0,
            tax: 0,
        };
        tax_category(x, "cac:ClassifiedTaxCategory", &group, false);
        x.close("cac:Item");
        x.open("cac:Price", &[]);
        x.leaf_with("cbc:PriceAmount", &currency, &price);
        x.close("cac:Price");
        x.close(element);
    }
}
