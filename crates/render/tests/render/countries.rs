//! The party blocks through the mapping from what a page shows (`invoice_document`), as the API,
//! the pages and emails render them: an address's country as its name in the reader's language,
//! VAT IDs and tax numbers under their own labels.

use chrono::{TimeZone, Utc};
use invoicing_domain::customer::{Address, CustomerId};
use invoicing_domain::decimal::{Quantity, TaxRate};
use invoicing_domain::document::LineItemView;
use invoicing_domain::einvoice::VatId;
use invoicing_domain::invoice::{Invoice, InvoiceId, PublicInvoice};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::parties::{Issuer, Parties, Recipient};
use invoicing_domain::validation::Metadata;
use invoicing_render::{invoice_document, render_pdf, Locale};

use crate::fixture::{date, text};

fn address(line1: &str, city: &str, country: &str) -> Option<Address> {
    Some(Address {
        line1: Some(line1.into()),
        city: Some(city.into()),
        country: Some(country.into()),
        ..Address::default()
    })
}

/// A sent invoice from a merchant in `seller_country` to a customer in `buyer_country` who
/// reads `locale`.
fn public_invoice(locale: Locale, seller_country: &str, buyer_country: &str) -> PublicInvoice {
    let at = Utc.with_ymd_and_hms(2025, 3, 5, 9, 0, 0).unwrap();
    let invoice = Invoice {
        id: InvoiceId(1),
        object: "invoice",
        invoice_number: "INV-0007".into(),
        status: InvoiceStatus::Sent,
        customer_id: CustomerId(1),
        currency: invoicing_domain::currency::Currency::parse("EUR").unwrap(),
        issue_date: date(2025, 3, 5),
        due_date: date(2025, 4, 4),
        payment_terms: None,
        line_items: vec![LineItemView {
            id: 1,
            product_id: None,
            description: "Steelpan tuning".into(),
            quantity: Quantity::from_thousandths(1000).unwrap(),
            unit_price_cents: 10_000,
            tax_rate: TaxRate::from_thousandths(0).unwrap(),
            subtotal_cents: 10_000,
            tax_cents: 0,
            total_cents: 10_000,
            unit: "C62".into(),
            tax_category: None,
            tax_exemption_reason: None,
        }],
        subtotal_cents: 10_000,
        tax_cents: 0,
        total_cents: 10_000,
        amount_paid_cents: 0,
        amount_credited_cents: 0,
        amount_due_cents: 10_000,
        overpaid_cents: 0,
        payment_link: "https://pay.example/invoice/INV-0007?token=t".into(),
        notes: None,
        metadata: Metadata::default(),
        livemode: false,
        sent_at: Some(at),
        viewed_at: None,
        paid_at: None,
        cancelled_at: None,
        quotation_id: None,
        recurring_invoice_id: None,
        reminders: None,
        buyer_reference: None,
        purchase_order: None,
        delivery_date: None,
        service_period: None,
        tax_rounding: Default::default(),
        created_at: at,
        updated_at: at,
    };
    let issuer = Issuer {
        name: "Pan Works".into(),
        legal_name: None,
        email: None,
        phone: None,
        website: None,
        address: address("Hauptstraße 1", "Berlin", seller_country),
        tax_id: None,
        payment_instructions: None,
        invoice_footer: None,
        locale: Locale::En,
        brand_color: None,
        logo: None,
        vat_id: None,
        electronic_address: None,
        bank_account: None,
        contact: None,
        time_zone: Default::default(),
    };
    let recipient = Recipient {
        name: "Ada Customer".into(),
        email: "ada@example.com".into(),
        phone: None,
        company: None,
        address: address("1 Frederick Street", "Port of Spain", buyer_country),
        tax_id: None,
        locale: Some(locale),
        vat_id: None,
        electronic_address: None,
    };
    PublicInvoice {
        invoice,
        parties: Parties { issuer, recipient },
        logo: None,
        payments: Vec::new(),
        credit_notes: Vec::new(),
        checkout: None,
    }
}

fn printed(locale: Locale, seller_country: &str, buyer_country: &str) -> String {
    let doc = invoice_document(public_invoice(locale, seller_country, buyer_country));
    text(&render_pdf(&doc).unwrap(), None)
}

#[test]
fn countries_print_as_names_in_the_readers_language() {
    let en = printed(Locale::En, "DE", "TT");
    assert!(en.contains("Trinidad and Tobago"), "{en}");
    assert!(en.contains("Germany"), "{en}");
    let de = printed(Locale::De, "DE", "TT");
    assert!(de.contains("Trinidad und Tobago"), "{de}");
    assert!(de.contains("Deutschland"), "{de}");
    for t in [&en, &de] {
        assert!(
            !t.lines().any(|l| l.split_whitespace().any(|w| w == "TT")),
            "no bare code: {t}"
        );
    }
}

#[test]
fn a_country_that_is_not_a_code_prints_as_written() {
    let t = printed(Locale::Fr, "DE", "Trinidad");
    assert!(t.contains("Trinidad"), "{t}");
    assert!(t.contains("Allemagne"), "{t}");
    let t = printed(Locale::Fr, "DE", "XX");
    assert!(t.split_whitespace().any(|w| w == "XX"), "{t}");
}

#[test]
fn vat_ids_and_tax_numbers_print_under_their_own_labels() {
    let mut invoice = public_invoice(Locale::De, "DE", "AT");
    let issuer = &mut invoice.parties.issuer;
    issuer.vat_id = VatId::parse("DE123456789").ok();
    issuer.tax_id = Some("12/345/67890".into());
    let recipient = &mut invoice.parties.recipient;
    recipient.vat_id = VatId::parse("ATU12345678").ok();
    // Kept in `tax_id` too, as before `vat_id` existed: printed once.
    recipient.tax_id = Some("ATU 123 456 78".into());
    let t = text(&render_pdf(&invoice_document(invoice)).unwrap(), None);
    let flat = t.split_whitespace().collect::<Vec<_>>().join(" ");
    for needle in [
        "USt-IdNr.: DE123456789",
        "Steuernummer: 12/345/67890",
        "USt-IdNr.: ATU12345678",
    ] {
        assert!(flat.contains(needle), "{needle:?} missing from:\n{t}");
    }
    assert!(
        !flat.contains("ATU 123"),
        "the customer's VAT ID twice:\n{t}"
    );
}
