//! The render layer's document built from what a document's page shows (with its kept
//! parties and logo), so the API, the public pages and email attach the same PDF.

use crate::{Body, Document, DocumentKind, Line, Mark, Party, Statement, Totals};
use invoicing_domain::credit_note::PublicCreditNote;
use invoicing_domain::customer::Address;
use invoicing_domain::decimal::TaxRate;
use invoicing_domain::document::LineItemView;
use invoicing_domain::invoice::PublicInvoice;
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::locale::Locale;
use invoicing_domain::money::Money;
use invoicing_domain::parties::{country_in, street_lines, Issuer, Recipient};
use invoicing_domain::profile::BrandColor;
use invoicing_domain::quotation::PublicQuotation;
use invoicing_domain::quotation_status::QuotationStatus;
use invoicing_domain::report::StatementShown;
use std::collections::BTreeMap;

/// Stored amounts are always in range; zero is the harmless reading if one were not.
pub(crate) fn money(minor: i64) -> Money {
    Money::new(minor).unwrap_or(Money::ZERO)
}

/// Street, city and state; the country has a line of its own in the render.
fn lines_without_country(
    address: &Option<Address>,
    locale: Locale,
) -> (Vec<String>, Option<String>) {
    address.as_ref().map_or((Vec::new(), None), |a| {
        (street_lines(a), country_in(a, locale))
    })
}

fn seller(i: &Issuer, locale: Locale) -> Party {
    let (address_lines, country) = lines_without_country(&i.address, locale);
    // The legal name, else the name (SPEC §16): the one name documents are issued under.
    Party {
        name: i.display_name().to_string(),
        legal_name: None,
        company: None,
        address_lines,
        country,
        tax_ids: i.tax_identifiers(),
        email: i.email.clone(),
        phone: i.phone.clone(),
        website: i.website.clone(),
    }
}

fn buyer(r: &Recipient, locale: Locale) -> Party {
    let (address_lines, country) = lines_without_country(&r.address, locale);
    Party {
        name: r.name.clone(),
        legal_name: None,
        company: r.company.clone(),
        address_lines,
        country,
        tax_ids: r.tax_identifiers(),
        email: Some(r.email.clone()),
        phone: r.phone.clone(),
        website: None,
    }
}

fn lines(items: &[LineItemView]) -> Vec<Line> {
    items
        .iter()
        .map(|l| Line {
            description: l.description.clone(),
            quantity: l.quantity,
            unit_price: money(l.unit_price_cents),
            tax_rate: l.tax_rate,
            amount: money(l.subtotal_cents),
            exemption: l.tax_exemption_reason.clone(),
        })
        .collect()
}

/// Tax per rate, lowest rate first; a 0 % group only when it is the only one.
fn taxes(items: &[LineItemView]) -> Vec<(TaxRate, Money)> {
    let mut by_rate: BTreeMap<i64, (TaxRate, i64)> = BTreeMap::new();
    for l in items {
        by_rate
            .entry(l.tax_rate.thousandths())
            .or_insert((l.tax_rate, 0))
            .1 += l.tax_cents;
    }
    let several = by_rate.len() > 1;
    by_rate
        .into_iter()
        .filter(|(rate, _)| !(several && *rate == 0))
        .map(|(_, (rate, tax))| (rate, money(tax)))
        .collect()
}

fn brand(i: &Issuer) -> Option<[u8; 3]> {
    i.brand_color
        .as_deref()
        .and_then(BrandColor::parse)
        .map(|c| c.0)
}

/// The CII of a document that EN 16931 can express, for its Factur-X PDF.
fn cii(
    model: Result<invoicing_einvoice::Model<'_>, invoicing_einvoice::ModelError>,
) -> Option<Vec<u8>> {
    model
        .ok()
        .map(|m| invoicing_einvoice::write(&m, invoicing_einvoice::Syntax::Cii))
}

pub fn invoice_document(p: PublicInvoice) -> Document {
    let factur_x = cii(invoicing_einvoice::invoice_model(&p));
    let inv = p.invoice;
    let locale = p.parties.locale();
    let zone = p.parties.issuer.time_zone;
    let paid = (inv.amount_paid_cents > 0).then(|| money(inv.amount_paid_cents));
    let credited = (inv.amount_credited_cents > 0).then(|| money(inv.amount_credited_cents));
    // Its credit notes, listed above the notes: number, date and amount.
    let credits: Vec<String> = p
        .credit_notes
        .iter()
        .map(|c| {
            format!(
                "{}: {}, {}",
                locale.fill(
                    "doc.credit_note_title",
                    &[("number", &c.credit_note_number)]
                ),
                locale.date(zone.today(c.created_at)),
                locale.money(money(c.total_cents), c.currency)
            )
        })
        .collect();
    let supply = inv.supply();
    let notes = match (credits.is_empty(), inv.notes) {
        (true, notes) => notes,
        (false, None) => Some(credits.join("\n")),
        (false, Some(n)) => Some(format!("{}\n{n}", credits.join("\n"))),
    };
    Document {
        kind: DocumentKind::Invoice,
        number: inv.invoice_number,
        issue_date: inv.issue_date,
        due_date: Some(inv.due_date),
        supply,
        valid_until: None,
        currency: inv.currency,
        seller: seller(&p.parties.issuer, locale),
        logo: p.logo,
        brand_color: brand(&p.parties.issuer),
        buyer: buyer(&p.parties.recipient, locale),
        body: Body::Lines {
            lines: lines(&inv.line_items),
            totals: Totals {
                subtotal: money(inv.subtotal_cents),
                taxes: taxes(&inv.line_items),
                total: money(inv.total_cents),
                credited,
                paid,
                due: Some(money(inv.amount_due_cents)),
            },
        },
        payment_instructions: p.parties.issuer.payment_instructions.clone(),
        // A draft has no public page yet: its link would open nothing.
        payment_link: (inv.status != InvoiceStatus::Draft).then_some(inv.payment_link),
        notes,
        footer: p.parties.issuer.invoice_footer.clone(),
        mark: match inv.status {
            InvoiceStatus::Draft => Mark::Draft,
            InvoiceStatus::Paid => Mark::Paid,
            InvoiceStatus::Cancelled => Mark::Cancelled,
            _ => Mark::None,
        },
        locale,
        factur_x,
    }
}

pub fn quotation_document(p: PublicQuotation) -> Document {
    let q = p.quotation;
    let locale = p.parties.locale();
    Document {
        kind: DocumentKind::Quotation,
        number: q.quote_number,
        issue_date: q.issue_date,
        due_date: None,
        supply: None,
        valid_until: Some(q.valid_until),
        currency: q.currency,
        seller: seller(&p.parties.issuer, locale),
        logo: p.logo,
        brand_color: brand(&p.parties.issuer),
        buyer: buyer(&p.parties.recipient, locale),
        body: Body::Lines {
            lines: lines(&q.line_items),
            totals: Totals {
                subtotal: money(q.subtotal_cents),
                taxes: taxes(&q.line_items),
                total: money(q.total_cents),
                credited: None,
                paid: None,
                due: None,
            },
        },
        payment_instructions: None,
        payment_link: (q.status != QuotationStatus::Draft).then_some(q.public_url),
        notes: q.notes,
        footer: p.parties.issuer.invoice_footer.clone(),
        mark: match q.status {
            QuotationStatus::Draft => Mark::Draft,
            QuotationStatus::Accepted | QuotationStatus::Converted => Mark::Accepted,
            QuotationStatus::Rejected => Mark::Declined,
            QuotationStatus::Expired => Mark::Expired,
            QuotationStatus::Sent | QuotationStatus::Viewed => Mark::None,
        },
        locale,
        factur_x: None,
    }
}

/// A credit note prints its invoice's parties, its reason's memo and a line naming the invoice;
/// its "due" is the refund owed, when there is one.
pub fn credit_note_document(p: PublicCreditNote) -> Document {
    let factur_x = cii(invoicing_einvoice::credit_note_model(&p));
    let c = p.credit_note;
    let locale = p.parties.locale();
    let reference = locale.fill("doc.credit_note_for", &[("number", &p.invoice_number)]);
    let supply = c.supply();
    let notes = match c.memo {
        Some(memo) => format!("{reference}\n{memo}"),
        None => reference,
    };
    Document {
        kind: DocumentKind::CreditNote,
        number: c.credit_note_number,
        issue_date: p.parties.issuer.time_zone.today(c.created_at),
        due_date: None,
        supply,
        valid_until: None,
        currency: c.currency,
        seller: seller(&p.parties.issuer, locale),
        logo: p.logo,
        brand_color: brand(&p.parties.issuer),
        buyer: buyer(&p.parties.recipient, locale),
        body: Body::Lines {
            lines: lines(&c.line_items),
            totals: Totals {
                subtotal: money(c.subtotal_cents),
                taxes: taxes(&c.line_items),
                total: money(c.total_cents),
                credited: None,
                paid: None,
                due: None,
            },
        },
        payment_instructions: None,
        payment_link: Some(p.invoice_link),
        notes: Some(notes),
        footer: p.parties.issuer.invoice_footer.clone(),
        mark: Mark::None,
        locale,
        factur_x,
    }
}

/// A customer's statement, dated `today`: the merchant and the customer as they are now, in the
/// customer's language, the merchant's payment instructions under the closing balance.
pub fn statement_document(p: StatementShown, today: chrono::NaiveDate) -> Document {
    let s = p.statement;
    let locale = p.parties.locale();
    Document {
        kind: DocumentKind::Statement,
        number: s.reference(),
        issue_date: today,
        due_date: None,
        supply: None,
        valid_until: None,
        currency: s.currency,
        seller: seller(&p.parties.issuer, locale),
        logo: p.logo,
        brand_color: brand(&p.parties.issuer),
        buyer: buyer(&p.parties.recipient, locale),
        body: Body::Statement(Statement {
            from: s.from,
            to: s.to,
            opening: money(s.opening_balance_cents),
            entries: s.entries,
            closing: money(s.closing_balance_cents),
            aging: s.aging,
        }),
        payment_instructions: (s.closing_balance_cents > 0)
            .then(|| p.parties.issuer.payment_instructions.clone())
            .flatten(),
        payment_link: None,
        notes: None,
        footer: p.parties.issuer.invoice_footer.clone(),
        mark: Mark::None,
        locale,
        factur_x: None,
    }
}
