//! UN/CEFACT Cross Industry Invoice (D16B) in the EN 16931 profile of Factur-X/ZUGFeRD, in the
//! element order its schema requires. The same bytes go inside Factur-X PDFs.

use crate::model::{is_code, quantity_and_price, Kind, Model};
use crate::ubl::buyer_name;
use crate::xml::Xml;
use chrono::NaiveDate;
use invoicing_domain::customer::Address;
use invoicing_domain::einvoice::{ElectronicAddress, TaxCategory, VatId};
use invoicing_domain::supply::Supply;

const RSM: &str = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100";
const RAM: &str =
    "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100";
const UDT: &str = "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100";
const QDT: &str = "urn:un:unece:uncefact:data:standard:QualifiedDataType:100";
/// The EN 16931 profile of Factur-X 1.0 / ZUGFeRD 2.x (BT-24).
const GUIDELINE: &str = "urn:cen.eu:en16931:2017";

pub fn write(doc: &Model<'_>) -> Vec<u8> {
    let mut x = Xml::new();
    x.open(
        "rsm:CrossIndustryInvoice",
        &[
            ("xmlns:rsm", RSM),
            ("xmlns:ram", RAM),
            ("xmlns:udt", UDT),
            ("xmlns:qdt", QDT),
        ],
    );
    x.open("rsm:ExchangedDocumentContext", &[]);
    x.open("ram:GuidelineSpecifiedDocumentContextParameter", &[]);
    x.leaf("ram:ID", GUIDELINE);
    x.close("ram:GuidelineSpecifiedDocumentContextParameter");
    x.close("rsm:ExchangedDocumentContext");

    x.open("rsm:ExchangedDocument", &[]);
    x.leaf("ram:ID", doc.number);
    let type_code = match doc.kind {
        Kind::Invoice => "380",
        Kind::CreditNote { .. } => "381",
    };
    x.leaf("ram:TypeCode", type_code);
    date(&mut x, "ram:IssueDateTime", doc.issue_date);
    if let Some(note) = doc.note {
        x.open("ram:IncludedNote", &[]);
        x.leaf("ram:Content", note);
        x.close("ram:IncludedNote");
    }
    x.close("rsm:ExchangedDocument");

    x.open("rsm:SupplyChainTradeTransaction", &[]);
    lines(&mut x, doc);
    agreement(&mut x, doc);
    delivery(&mut x, doc);
    settlement(&mut x, doc);
    x.close("rsm:SupplyChainTradeTransaction");
    x.close("rsm:CrossIndustryInvoice");
    x.finish()
}

fn date(x: &mut Xml, element: &str, d: NaiveDate) {
    x.open(element, &[]);
    x.leaf_with(
        "udt:DateTimeString",
        &[("format", "102")],
        &d.format("%Y%m%d").to_string(),
    );
    x.close(element);
}

fn lines(x: &mut Xml, doc: &Model<'_>) {
    for (i, l) in doc.lines.iter().enumerate() {
        let (quantity, price) = quantity_and_price(l, doc.currency.exponent());
        let category = l.tax_category.unwrap_or(TaxCategory::S);
        x.open("ram:IncludedSupplyChainTradeLineItem", &[]);
        x.open("ram:AssociatedDocumentLineDocument", &[]);
        x.leaf("ram:LineID", &(i + 1).to_string());
        x.close("ram:AssociatedDocumentLineDocument");
        x.open("ram:SpecifiedTradeProduct", &[]);
        x.leaf("ram:Name", &l.description);
        x.close("ram:SpecifiedTradeProduct");
        x.open("ram:SpecifiedLineTradeAgreement", &[]);
        x.open("ram:NetPriceProductTradePrice", &[]);
        x.leaf("ram:ChargeAmount", &price);
        x.close("ram:NetPriceProductTradePrice");
        x.close("ram:SpecifiedLineTradeAgreement");
        x.open("ram:SpecifiedLineTradeDelivery", &[]);
        x.leaf_with("ram:BilledQuantity", &[("unitCode", &l.unit)], &quantity);
        x.close("ram:SpecifiedLineTradeDelivery");
        x.open("ram:SpecifiedLineTradeSettlement", &[]);
        x.open("ram:ApplicableTradeTax", &[]);
        x.leaf("ram:TypeCode", "VAT");
        x.leaf("ram:CategoryCode", category.code());
        if category != TaxCategory::O {
            x.leaf("ram:RateApplicablePercent", &l.tax_rate.to_string());
        }
        x.close("ram:ApplicableTradeTax");
        x.open("ram:SpecifiedTradeSettlementLineMonetarySummation", &[]);
        x.leaf("ram:LineTotalAmount", &doc.amount(l.subtotal_cents));
        x.close("ram:SpecifiedTradeSettlementLineMonetarySummation");
        x.close("ram:SpecifiedLineTradeSettlement");
        x.close("ram:IncludedSupplyChainTradeLineItem");
    }
}

fn address(x: &mut Xml, a: Option<&Address>) {
    let a = a.cloned().unwrap_or_default();
    x.open("ram:PostalTradeAddress", &[]);
    x.opt("ram:PostcodeCode", a.postal_code.as_deref());
    x.opt("ram:LineOne", a.line1.as_deref());
    x.opt("ram:LineTwo", a.line2.as_deref());
    x.opt("ram:CityName", a.city.as_deref());
    x.leaf("ram:CountryID", a.country.as_deref().unwrap_or_default());
    x.opt("ram:CountrySubDivisionName", a.state.as_deref());
    x.close("ram:PostalTradeAddress");
}

fn uri(x: &mut Xml, address: &Option<ElectronicAddress>) {
    if let Some(a) = address {
        x.open("ram:URIUniversalCommunication", &[]);
        x.leaf_with("ram:URIID", &[("schemeID", &a.scheme)], &a.id);
        x.close("ram:URIUniversalCommunication");
    }
}

fn registration(x: &mut Xml, id: &str, scheme: &str) {
    x.open("ram:SpecifiedTaxRegistration", &[]);
    x.leaf_with("ram:ID", &[("schemeID", scheme)], id);
    x.close("ram:SpecifiedTaxRegistration");
}

fn vat(x: &mut Xml, doc: &Model<'_>, id: &Option<VatId>) {
    if let Some(id) = id.as_ref().filter(|_| !doc.outside_vat()) {
        registration(x, id.as_str(), "VA");
    }
}

fn agreement(x: &mut Xml, doc: &Model<'_>) {
    x.open("ram:ApplicableHeaderTradeAgreement", &[]);
    x.opt("ram:BuyerReference", doc.buyer_reference);

    let s = doc.seller;
    x.open("ram:SellerTradeParty", &[]);
    if doc.outside_vat() {
        if let Some(a) = &s.electronic_address {
            x.leaf_with("ram:GlobalID", &[("schemeID", &a.scheme)], &a.id);
        }
    }
    x.leaf("ram:Name", s.display_name());
    if let Some(c) = &s.contact {
        x.open("ram:DefinedTradeContact", &[]);
        x.opt("ram:PersonName", c.name.as_deref());
        if let Some(phone) = &c.phone {
            x.open("ram:TelephoneUniversalCommunication", &[]);
            x.leaf("ram:CompleteNumber", phone);
            x.close("ram:TelephoneUniversalCommunication");
        }
        if let Some(email) = &c.email {
            x.open("ram:EmailURIUniversalCommunication", &[]);
            x.leaf("ram:URIID", email);
            x.close("ram:EmailURIUniversalCommunication");
        }
        x.close("ram:DefinedTradeContact");
    }
    address(x, s.address.as_ref());
    uri(x, &s.electronic_address);
    vat(x, doc, &s.vat_id);
    if let Some(tax_id) = s.tax_id.as_ref().filter(|_| !doc.outside_vat()) {
        registration(x, tax_id, "FC");
    }
    x.close("ram:SellerTradeParty");

    let b = doc.buyer;
    x.open("ram:BuyerTradeParty", &[]);
    x.leaf("ram:Name", buyer_name(b));
    address(x, b.address.as_ref());
    uri(x, &b.electronic_address);
    vat(x, doc, &b.vat_id);
    x.close("ram:BuyerTradeParty");

    if let Some(order) = doc.purchase_order {
        x.open("ram:BuyerOrderReferencedDocument", &[]);
        x.leaf("ram:IssuerAssignedID", order);
        x.close("ram:BuyerOrderReferencedDocument");
    }
    x.close("ram:ApplicableHeaderTradeAgreement");
}

/// Where an intra-community supply went (BR-IC-12), and when the goods went (BT-72).
fn delivery(x: &mut Xml, doc: &Model<'_>) {
    x.open("ram:ApplicableHeaderTradeDelivery", &[]);
    if doc.intra_community() {
        let country = doc.buyer.address.as_ref().and_then(|a| a.country.clone());
        x.open("ram:ShipToTradeParty", &[]);
        x.open("ram:PostalTradeAddress", &[]);
        x.leaf("ram:CountryID", country.as_deref().unwrap_or_default());
        x.close("ram:PostalTradeAddress");
        x.close("ram:ShipToTradeParty");
    }
    if let Some(day) = doc.delivery_date() {
        x.open("ram:ActualDeliverySupplyChainEvent", &[]);
        date(x, "ram:OccurrenceDateTime", day);
        x.close("ram:ActualDeliverySupplyChainEvent");
    }
    x.close("ram:ApplicableHeaderTradeDelivery");
}

fn settlement(x: &mut Xml, doc: &Model<'_>) {
    x.open("ram:ApplicableHeaderTradeSettlement", &[]);
    if doc.seller.bank_account.is_some() {
        x.leaf("ram:PaymentReference", doc.number);
    }
    x.leaf("ram:InvoiceCurrencyCode", doc.currency.code());
    if let Some(bank) = &doc.seller.bank_account {
        x.open("ram:SpecifiedTradeSettlementPaymentMeans", &[]);
        x.leaf("ram:TypeCode", bank.payment_means_code());
        x.open("ram:PayeePartyCreditorFinancialAccount", &[]);
        x.leaf("ram:IBANID", &bank.iban);
        x.opt("ram:AccountName", bank.name.as_deref());
        x.close("ram:PayeePartyCreditorFinancialAccount");
        if let Some(bic) = &bank.bic {
            x.open("ram:PayeeSpecifiedCreditorFinancialInstitution", &[]);
            x.leaf("ram:BICID", bic);
            x.close("ram:PayeeSpecifiedCreditorFinancialInstitution");
        }
        x.close("ram:SpecifiedTradeSettlementPaymentMeans");
    }
    for g in &doc.breakdown {
        let reason = g.exemption_reason.as_deref();
        x.open("ram:ApplicableTradeTax", &[]);
        x.leaf("ram:CalculatedAmount", &doc.amount(g.tax));
        x.leaf("ram:TypeCode", "VAT");
        if let Some(text) = reason.filter(|r| !is_code(r)) {
            x.leaf("ram:ExemptionReason", text);
        }
        x.leaf("ram:BasisAmount", &doc.amount(g.taxable));
        x.leaf("ram:CategoryCode", g.category.code());
        if let Some(code) = reason.filter(|r| is_code(r)) {
            x.leaf("ram:ExemptionReasonCode", code);
        }
        if g.category != TaxCategory::O {
            x.leaf("ram:RateApplicablePercent", &g.rate.to_string());
        }
        x.close("ram:ApplicableTradeTax");
    }
    if let Some(Supply::Period(p)) = doc.supply {
        x.open("ram:BillingSpecifiedPeriod", &[]);
        date(x, "ram:StartDateTime", p.start);
        date(x, "ram:EndDateTime", p.end);
        x.close("ram:BillingSpecifiedPeriod");
    }
    x.open("ram:SpecifiedTradePaymentTerms", &[]);
    match (&doc.kind, doc.due_date) {
        (Kind::CreditNote { invoice_number }, _) => {
            x.leaf(
                "ram:Description",
                &format!("Credit for invoice {invoice_number}"),
            );
        }
        (Kind::Invoice, Some(due)) => date(x, "ram:DueDateDateTime", due),
        (Kind::Invoice, None) => {}
    }
    x.close("ram:SpecifiedTradePaymentTerms");
    x.open("ram:SpecifiedTradeSettlementHeaderMonetarySummation", &[]);
    x.leaf("ram:LineTotalAmount", &doc.amount(doc.line_total));
    x.leaf("ram:TaxBasisTotalAmount", &doc.amount(doc.line_total));
    x.leaf_with(
        "ram:TaxTotalAmount",
        &[("currencyID", doc.currency.code())],
        &doc.amount(doc.tax_total),
    );
    x.leaf("ram:GrandTotalAmount", &doc.amount(doc.grand_total));
    if doc.prepaid != 0 {
        x.leaf("ram:TotalPrepaidAmount", &doc.amount(doc.prepaid));
    }
    x.leaf("ram:DuePayableAmount", &doc.amount(doc.payable()));
    x.close("ram:SpecifiedTradeSettlementHeaderMonetarySummation");
    if let Kind::CreditNote { invoice_number } = &doc.kind {
        x.open("ram:InvoiceReferencedDocument", &[]);
        x.leaf("ram:IssuerAssignedID", invoice_number);
        x.close("ram:InvoiceReferencedDocument");
    }
    x.close("ram:ApplicableHeaderTradeSettlement");
}
