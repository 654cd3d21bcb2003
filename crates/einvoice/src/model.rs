//! One EN 16931 model of a document, built from the stored integers, which both syntaxes write.
//! Amounts are never recomputed: the breakdown sums the lines' stored figures, and each amount
//! is written with its currency's exponent.

use crate::Syntax;
use chrono::NaiveDate;
use invoicing_domain::credit_note::PublicCreditNote;
use invoicing_domain::currency::Currency;
use invoicing_domain::document::LineItemView;
use invoicing_domain::einvoice::{
    self, vat_breakdown, Missing, Readiness, Subject, TaxCategory, VatGroup,
};
use invoicing_domain::invoice::{Invoice, PublicInvoice};
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::parties::{Issuer, Parties, Recipient};
use invoicing_domain::supply::Supply;

/// Invoice (380) or credit note (381, referring to its invoice: BG-3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Invoice,
    CreditNote { invoice_number: String },
}

/// The document as EN 16931 sees it.
#[derive(Clone, Debug)]
pub struct Model<'a> {
    pub kind: Kind,
    pub number: &'a str,
    pub issue_date: NaiveDate,
    pub due_date: Option<NaiveDate>,
    /// BT-72 or BG-14.
    pub supply: Option<Supply>,
    pub currency: Currency,
    pub buyer_reference: Option<&'a str>,
    pub purchase_order: Option<&'a str>,
    pub note: Option<&'a str>,
    pub seller: &'a Issuer,
    pub buyer: &'a Recipient,
    pub lines: &'a [LineItemView],
    pub breakdown: Vec<VatGroup>,
    /// BT-106: the sum of the lines' net amounts.
    pub line_total: i64,
    /// BT-110.
    pub tax_total: i64,
    /// BT-112.
    pub grand_total: i64,
    /// BT-113: verified payments.
    pub prepaid: i64,
}

impl Model<'_> {
    /// BT-115 (BR-CO-16: total − prepaid).
    pub fn payable(&self) -> i64 {
        self.grand_total - self.prepaid
    }

    /// Travels over Peppol, so the file claims Peppol BIS Billing 3.0 (else EN 16931 alone).
    pub fn over_peppol(&self) -> bool {
        einvoice::over_peppol(self.buyer)
    }

    /// Outside the scope of VAT: no VAT identifiers may be written (BR-O-02).
    pub fn outside_vat(&self) -> bool {
        self.breakdown.iter().all(|g| g.category == TaxCategory::O)
    }

    /// The actual delivery date (BT-72): the one given, or for an intra-community supply with
    /// no service period the issue date (BR-IC-11 wants one or the other).
    pub fn delivery_date(&self) -> Option<NaiveDate> {
        match self.supply {
            Some(Supply::Delivered(day)) => Some(day),
            Some(Supply::Period(_)) => None,
            None => self.intra_community().then_some(self.issue_date),
        }
    }

    /// An intra-community supply needs its delivery: the date (BT-72) and country (BT-80).
    pub fn intra_community(&self) -> bool {
        self.breakdown.iter().any(|g| g.category == TaxCategory::K)
    }

    pub fn amount(&self, minor: i64) -> String {
        amount(minor, self.currency.exponent())
    }
}

/// Why no e-invoice can be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelError {
    /// Drafts are not documents yet (SPEC §23: 409).
    Draft,
    /// Something EN 16931 needs is missing (422 `einvoice_incomplete`).
    Incomplete(Readiness),
}

/// The references a document carries (BT-10, BT-13).
#[derive(Clone, Copy)]
struct Refs<'a> {
    buyer_reference: Option<&'a str>,
    purchase_order: Option<&'a str>,
}

fn subject<'a>(
    currency: Currency,
    parties: &'a Parties,
    lines: &'a [LineItemView],
    refs: Refs<'a>,
) -> Subject<'a> {
    Subject {
        currency,
        issuer: &parties.issuer,
        recipient: &parties.recipient,
        lines,
        buyer_reference: refs.buyer_reference,
        purchase_order: refs.purchase_order,
    }
}

/// What the check says of an invoice (drafts included, so they can be fixed before sending).
pub fn check_invoice(p: &PublicInvoice) -> Readiness {
    check_invoice_with(&p.invoice, &p.parties)
}

/// The check of an invoice with the parties it names (its kept copy once sent).
pub fn check_invoice_with(i: &Invoice, parties: &Parties) -> Readiness {
    let r = einvoice::check(subject(
        i.currency,
        parties,
        &i.line_items,
        Refs {
            buyer_reference: i.buyer_reference.as_deref(),
            purchase_order: i.purchase_order.as_deref(),
        },
    ));
    if i.status == InvoiceStatus::Draft {
        r
    } else {
        kept(r)
    }
}

pub fn check_credit_note(p: &PublicCreditNote) -> Readiness {
    let c = &p.credit_note;
    kept(einvoice::check(subject(
        c.currency,
        &p.parties,
        &c.line_items,
        Refs {
            buyer_reference: c.buyer_reference.as_deref(),
            purchase_order: c.purchase_order.as_deref(),
        },
    )))
}

/// A document that left draft keeps the parties and lines it was issued with (SPEC §9): what is
/// filled in now helps the next documents, not this one, and each message says so.
fn kept(mut r: Readiness) -> Readiness {
    for m in &mut r.missing {
        m.keep();
    }
    r
}

/// Whether a file in `syntax` can be written: the UBL of a document that travels over Peppol
/// needs every rule, Peppol's included; a file claiming EN 16931 alone (the CII, the Factur-X
/// PDF, any other UBL) needs EN 16931's. The refusal lists all that is missing.
fn ready(r: Readiness, syntax: Syntax) -> Result<(), ModelError> {
    let binding = |m: &Missing| syntax == Syntax::Ubl || !m.is_peppol();
    if r.missing.iter().any(binding) {
        Err(ModelError::Incomplete(r))
    } else {
        Ok(())
    }
}

/// The model of a sent invoice, as EN 16931 alone needs it (the CII, the Factur-X PDF).
pub fn invoice_model(p: &PublicInvoice) -> Result<Model<'_>, ModelError> {
    invoice_model_for(p, Syntax::Cii)
}

/// The model of a credit note, as EN 16931 alone needs it.
pub fn credit_note_model(p: &PublicCreditNote) -> Result<Model<'_>, ModelError> {
    credit_note_model_for(p, Syntax::Cii)
}

/// The model of a sent invoice for a file in `syntax`: its kept parties, stored lines and
/// verified payments.
pub fn invoice_model_for(p: &PublicInvoice, syntax: Syntax) -> Result<Model<'_>, ModelError> {
    let i = &p.invoice;
    if i.status == InvoiceStatus::Draft {
        return Err(ModelError::Draft);
    }
    ready(check_invoice(p), syntax)?;
    Ok(Model {
        kind: Kind::Invoice,
        number: &i.invoice_number,
        issue_date: i.issue_date,
        due_date: Some(i.due_date),
        currency: i.currency,
        supply: i.supply(),
        buyer_reference: i.buyer_reference.as_deref(),
        purchase_order: i.purchase_order.as_deref(),
        note: i.notes.as_deref(),
        seller: &p.parties.issuer,
        buyer: &p.parties.recipient,
        lines: &i.line_items,
        breakdown: vat_breakdown(&i.line_items),
        line_total: i.subtotal_cents,
        tax_total: i.tax_cents,
        grand_total: i.total_cents,
        prepaid: i.amount_paid_cents,
    })
}

/// The model of a credit note for a file in `syntax`, referring to its invoice.
pub fn credit_note_model_for(
    p: &PublicCreditNote,
    syntax: Syntax,
) -> Result<Model<'_>, ModelError> {
    let c = &p.credit_note;
    ready(check_credit_note(p), syntax)?;
    Ok(Model {
        kind: Kind::CreditNote {
            invoice_number: p.invoice_number.clone(),
        },
        number: &c.credit_note_number,
        issue_date: p.parties.issuer.time_zone.today(c.created_at),
        due_date: None,
        supply: c.supply(),
        currency: c.currency,
        buyer_reference: c.buyer_reference.as_deref(),
        purchase_order: c.purchase_order.as_deref(),
        note: c.memo.as_deref(),
        seller: &p.parties.issuer,
        buyer: &p.parties.recipient,
        lines: &c.line_items,
        breakdown: vat_breakdown(&c.line_items),
        line_total: c.subtotal_cents,
        tax_total: c.tax_cents,
        grand_total: c.total_cents,
        prepaid: 0,
    })
}

/// `minor` written with `exponent` decimals: 1250 → `12.50`, JPY 1000 → `1000`, -5 → `-0.05`.
pub fn amount(minor: i64, exponent: u8) -> String {
    if exponent == 0 {
        return minor.to_string();
    }
    let scale = 10u64.pow(u32::from(exponent));
    let abs = minor.unsigned_abs();
    let sign = if minor < 0 { "-" } else { "" };
    format!(
        "{sign}{}.{:0width$}",
        abs / scale,
        abs % scale,
        width = usize::from(exponent)
    )
}

/// A line's quantity and price as EN 16931 wants them: the price (BT-146) is never negative
/// (BR-27), so a discount line bills a negative quantity at a positive price.
pub fn quantity_and_price(l: &LineItemView, exponent: u8) -> (String, String) {
    let price = amount(l.unit_price_cents.abs(), exponent);
    let quantity = l.quantity.to_string();
    if l.unit_price_cents < 0 {
        (format!("-{quantity}"), price)
    } else {
        (quantity, price)
    }
}

/// Whether the exemption reason is a VATEX code (BT-121) rather than text (BT-120).
pub fn is_code(reason: &str) -> bool {
    einvoice::is_vatex_code(reason)
}
