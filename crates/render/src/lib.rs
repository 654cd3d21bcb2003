//! Turns one billing document (invoice, quotation, credit note, or a customer's statement) and
//! the merchant's identity into PDF bytes, and does nothing else: no database, no HTTP, no file
//! or network access. Fonts (DejaVu Sans, and Droid Sans Fallback for Chinese and Japanese; each
//! subset on embedding) are compiled in, text is shaped and put in bidirectional order (Arabic
//! and Hebrew right to left), texts and formats come from the domain's locale catalogues, and the
//! same input always yields the same bytes. Every document is PDF/A-3b (the SPEC asks it of
//! invoices and credit notes; the others get it too, at no cost).
#![forbid(unsafe_code)] // only storage calls the OS; the workspace lint is `deny` for it

mod from_domain;
mod layout;
mod pdf;
mod qr;
mod text;

use chrono::NaiveDate;
use invoicing_domain::currency::Currency;
use invoicing_domain::decimal::{Quantity, TaxRate};
use invoicing_domain::money::Money;
use invoicing_domain::supply::Supply;

pub use from_domain::{
    credit_note_document, invoice_document, quotation_document, statement_document,
};
/// The document's language: its fixed texts come from the domain's catalogues and its amounts and
/// dates from the domain's formatters.
pub use invoicing_domain::locale::Locale;
pub use invoicing_domain::parties::TaxIdentifier;
/// The merchant's logo as stored with the profile. An image that cannot be decoded makes
/// [`render_pdf`] fail with [`RenderError::Logo`] rather than print a document without it
/// unnoticed.
pub use invoicing_domain::profile::{ImageKind, Logo};
pub use invoicing_domain::report::{AgingAmounts, StatementEntry, StatementEntryKind};

/// Who issues or receives the document, as printed in its address blocks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Party {
    /// The trading or display name.
    pub name: String,
    /// The registered name when it differs from `name` (printed under it).
    pub legal_name: Option<String>,
    /// The customer's company, for a person buying on a company's behalf.
    pub company: Option<String>,
    /// Street, postcode and city lines, in print order.
    pub address_lines: Vec<String>,
    pub country: Option<String>,
    /// The VAT ID and the tax number, each with its label's catalogue key.
    pub tax_ids: Vec<TaxIdentifier>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub website: Option<String>,
}

/// Which document is printed: decides the title, the date labels and PDF/A conformance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocumentKind {
    Invoice,
    Quotation,
    CreditNote,
    /// A customer's statement: its body is a [`Body::Statement`].
    Statement,
}

/// A status stamped next to the title; `None` prints nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mark {
    #[default]
    None,
    Draft,
    Paid,
    Cancelled,
    /// Quotations only.
    Accepted,
    Declined,
    Expired,
}

/// One row of the lines table; `amount` is the net line amount as the domain computed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub description: String,
    pub quantity: Quantity,
    pub unit_price: Money,
    pub tax_rate: TaxRate,
    pub amount: Money,
    /// Why no VAT is charged on it (text or a VATEX code), printed beneath it (SPEC §27).
    pub exemption: Option<String>,
}

/// The totals box, as the domain computed it: nothing is summed here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Totals {
    pub subtotal: Money,
    /// Tax per rate, in print order.
    pub taxes: Vec<(TaxRate, Money)>,
    pub total: Money,
    /// Credit notes issued against an invoice.
    pub credited: Option<Money>,
    pub paid: Option<Money>,
    /// The amount still to pay; printed as the last, emphasised row.
    pub due: Option<Money>,
}

/// What is printed between the parties and the notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// Invoices, quotations and credit notes: the priced lines and their totals.
    Lines { lines: Vec<Line>, totals: Totals },
    /// A customer's statement (its kind is [`DocumentKind::Statement`]).
    Statement(Statement),
}

/// A statement's figures, as the domain computed them: the balance at the start, each entry
/// with the balance after it, the balance at the end, and the aging of what is due now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub opening: Money,
    pub entries: Vec<StatementEntry>,
    pub closing: Money,
    pub aging: AgingAmounts,
}

/// Everything printed on one document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Document {
    pub kind: DocumentKind,
    pub number: String,
    pub issue_date: NaiveDate,
    /// Invoices and credit notes.
    pub due_date: Option<NaiveDate>,
    /// When the goods or services were supplied (SPEC §27).
    pub supply: Option<Supply>,
    /// Quotations.
    pub valid_until: Option<NaiveDate>,
    pub currency: Currency,
    pub seller: Party,
    pub logo: Option<Logo>,
    /// Accent colour (RGB) for the title, table header and totals; a neutral blue if absent.
    pub brand_color: Option<[u8; 3]>,
    pub buyer: Party,
    pub body: Body,
    /// Free text such as bank details; line breaks are kept.
    pub payment_instructions: Option<String>,
    /// Printed as text and as a QR code.
    pub payment_link: Option<String>,
    pub notes: Option<String>,
    pub footer: Option<String>,
    pub mark: Mark,
    pub locale: Locale,
    /// The document as CII XML (EN 16931), embedded as `factur-x.xml` to make the PDF Factur-X
    /// (SPEC §23); only for invoices and credit notes complete for EN 16931.
    pub factur_x: Option<Vec<u8>>,
}

impl Document {
    /// The document's total; a statement's is its closing balance.
    pub fn total(&self) -> Money {
        match &self.body {
            Body::Lines { totals, .. } => totals.total,
            Body::Statement(s) => s.closing,
        }
    }

    /// What is still to pay, when the document says; a statement's closing balance.
    pub fn amount_due(&self) -> Option<Money> {
        match &self.body {
            Body::Lines { totals, .. } => totals.due,
            Body::Statement(s) => Some(s.closing),
        }
    }

    /// What was paid, when the document says.
    pub fn amount_paid(&self) -> Option<Money> {
        match &self.body {
            Body::Lines { totals, .. } => totals.paid,
            Body::Statement(_) => None,
        }
    }

    /// A statement's days.
    pub fn period(&self) -> Option<(NaiveDate, NaiveDate)> {
        match &self.body {
            Body::Lines { .. } => None,
            Body::Statement(s) => Some((s.from, s.to)),
        }
    }
}

/// Why a document could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The logo's bytes are not a decodable image of the declared kind.
    #[error("the logo is not a valid {kind:?} image: {reason}")]
    Logo { kind: ImageKind, reason: String },
    /// The payment link is too long to fit in a QR code.
    #[error("the payment link cannot be encoded as a QR code: {0}")]
    PaymentLink(String),
    /// The PDF writer refused the document (a bug here, or a limit of the format).
    #[error("the PDF could not be written: {0}")]
    Pdf(String),
}

/// Renders `doc` to a complete PDF file.
pub fn render_pdf(doc: &Document) -> Result<Vec<u8>, RenderError> {
    let pages = layout::layout(doc)?;
    pdf::write(doc, &pages)
}
