//! Places everything on A4 pages as a display list (text runs, rectangles, the logo, the QR
//! code), so page breaks and "page N of M" are settled before a single PDF object is written.
//! Coordinates are points from the top-left corner; a text's `y` is its baseline.

mod statement;

use invoicing_domain::supply::Supply;
use krilla::image::Image;

use crate::qr::{self, QrRuns};
use crate::text::{sanitize, width, wrap, Face};
use crate::{
    Body, Document, DocumentKind, ImageKind, Line, Locale, Mark, Party, RenderError, Totals,
};

pub const PAGE_W: f32 = 595.28;
pub const PAGE_H: f32 = 841.89;
const MARGIN: f32 = 45.0;
const RIGHT: f32 = PAGE_W - MARGIN;
const CONTENT_W: f32 = PAGE_W - 2.0 * MARGIN;
/// Content stops here; the footer lives below.
const BOTTOM: f32 = PAGE_H - 58.0;

pub type Rgb = [u8; 3];
/// Face, size and colour of a text run.
type Style = (Face, f32, Rgb);
const INK: Rgb = [0x1f, 0x29, 0x37];
const MUTED: Rgb = [0x6b, 0x72, 0x80];
const RULE: Rgb = [0xe3, 0xe6, 0xea];
const WHITE: Rgb = [0xff, 0xff, 0xff];
const DEFAULT_BRAND: Rgb = [0x1d, 0x4e, 0xd8];

// The lines table: right edges of the numeric columns, and the description's span.
const PAD: f32 = 8.0;
const COL_AMOUNT_R: f32 = RIGHT - PAD;
const COL_TAX_R: f32 = COL_AMOUNT_R - 92.0;
const COL_UNIT_R: f32 = COL_TAX_R - 56.0;
const COL_QTY_R: f32 = COL_UNIT_R - 88.0;
const COL_DESC_X: f32 = MARGIN + PAD;
const COL_DESC_W: f32 = COL_QTY_R - 52.0 - COL_DESC_X;

const TOTALS_W: f32 = 240.0;
const LINK_SIZE: f32 = 7.0;
const BODY: f32 = 9.0;
const LEADING: f32 = 12.0;

// Descriptions keep a useful width beside the numeric columns.
const _: () = assert!(COL_DESC_W > 180.0 && COL_DESC_X + COL_DESC_W < COL_QTY_R - 40.0);

#[derive(Clone, Debug)]
pub enum Op {
    Text {
        x: f32,
        y: f32,
        face: Face,
        size: f32,
        color: Rgb,
        text: String,
    },
    Rect {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        color: Rgb,
    },
    Frame {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        width: f32,
        color: Rgb,
    },
    Image {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        image: Image,
    },
    Qr {
        x: f32,
        y: f32,
        module: f32,
        code: QrRuns,
    },
    Link {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        uri: String,
    },
}

pub type Page = Vec<Op>;

struct Ctx<'a> {
    doc: &'a Document,
    loc: Locale,
    brand: Rgb,
    /// Text colour on a brand-filled band: white unless the brand colour is light.
    on_brand: Rgb,
    pages: Vec<Page>,
    y: f32,
}

pub fn layout(doc: &Document) -> Result<Vec<Page>, RenderError> {
    let brand = doc.brand_color.unwrap_or(DEFAULT_BRAND);
    let luma =
        0.299 * f32::from(brand[0]) + 0.587 * f32::from(brand[1]) + 0.114 * f32::from(brand[2]);
    let mut cx = Ctx {
        doc,
        loc: doc.locale,
        brand,
        on_brand: if luma > 170.0 { INK } else { WHITE },
        pages: vec![Vec::new()],
        y: MARGIN,
    };
    cx.first_page_header()?;
    match &doc.body {
        Body::Lines { lines, totals } => {
            cx.lines_table(lines);
            cx.summary(totals)?;
        }
        Body::Statement(s) => {
            cx.statement_table(s);
            cx.statement_summary(s);
        }
    }
    cx.notes();
    cx.footers();
    Ok(cx.pages)
}

/// Document title in the document's language.
pub fn title(doc: &Document) -> &'static str {
    doc.locale.text(match doc.kind {
        DocumentKind::Invoice => "doc.invoice",
        DocumentKind::Quotation => "doc.quotation",
        DocumentKind::CreditNote => "doc.credit_note",
        DocumentKind::Statement => "statement.title",
    })
}

/// The mark's catalogue key (a quotation's draft is the quotation's) and its colour.
fn mark_style(doc: &Document) -> Option<(&'static str, Rgb)> {
    let green = [0x04, 0x7a, 0x55];
    let red = [0xc8, 0x1e, 0x1e];
    let quote = doc.kind == DocumentKind::Quotation;
    Some(match doc.mark {
        Mark::None => return None,
        Mark::Draft if quote => ("quotation.status.draft", MUTED),
        Mark::Draft => ("invoice.status.draft", MUTED),
        Mark::Paid => ("invoice.status.paid", green),
        Mark::Cancelled => ("invoice.status.cancelled", red),
        Mark::Accepted => ("quotation.status.accepted", green),
        Mark::Declined => ("quotation.status.rejected", red),
        Mark::Expired => ("quotation.status.expired", [0xb4, 0x53, 0x09]),
    })
}

/// A light tint of `c` (`t` of the way to white).
fn tint(c: Rgb, t: f32) -> Rgb {
    c.map(|v| (f32::from(v) + (255.0 - f32::from(v)) * t).round() as u8)
}

impl Ctx<'_> {
    fn ops(&mut self) -> &mut Page {
        // There is always a current page.
        let last = self.pages.len() - 1;
        &mut self.pages[last]
    }

    fn text(&mut self, x: f32, y: f32, face: Face, size: f32, color: Rgb, s: &str) {
        if s.is_empty() {
            return;
        }
        self.ops().push(Op::Text {
            x,
            y,
            face,
            size,
            color,
            text: sanitize(s),
        });
    }

    /// Text whose right edge is at `right`; shrunk (down to 70 %) to stay within `max_w`.
    fn text_right(&mut self, right: f32, y: f32, style: Style, s: &str, max_w: f32) {
        let (f, size, color) = style;
        let s = sanitize(s);
        let mut size = size;
        let mut w = width(&s, f, size);
        if w > max_w {
            size = (size * max_w / w).max(size * 0.7);
            w = width(&s, f, size);
        }
        self.ops().push(Op::Text {
            x: right - w,
            y,
            face: f,
            size,
            color,
            text: s,
        });
    }

    fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, color: Rgb) {
        self.ops().push(Op::Rect { x, y, w, h, color });
    }

    fn hrule(&mut self, x: f32, w: f32, y: f32, color: Rgb) {
        self.rect(x, y, w, 0.6, color);
    }

    fn brand_bar(&mut self) {
        let brand = self.brand;
        self.rect(0.0, 0.0, PAGE_W, 6.0, brand);
    }

    /// Starts a page with a one-line header naming seller, document and mark.
    fn new_page(&mut self) {
        self.pages.push(Vec::new());
        self.brand_bar();
        let seller = self.doc.seller.name.clone();
        let y = MARGIN + 4.0;
        self.text(MARGIN, y, Face::Bold, 10.0, INK, &seller);
        let mut head = format!("{} {}", title(self.doc), self.doc.number);
        if let Some((key, _)) = mark_style(self.doc) {
            head = format!("{head} · {}", self.loc.text(key).to_uppercase());
        }
        self.text_right(
            RIGHT,
            y,
            (Face::Regular, 9.0, MUTED),
            &head,
            CONTENT_W / 2.0,
        );
        self.hrule(MARGIN, CONTENT_W, y + 8.0, RULE);
        self.y = y + 24.0;
    }

    /// Breaks the page unless `h` more points fit; reports whether it did.
    fn ensure(&mut self, h: f32) -> bool {
        if self.y + h > BOTTOM {
            self.new_page();
            true
        } else {
            false
        }
    }

    fn party_block(&mut self, x: f32, y: f32, width: f32, p: &Party, name_size: f32) -> f32 {
        let mut y = y;
        for l in wrap(&p.name, Face::Bold, name_size, width) {
            y += name_size + 3.0;
            self.text(x, y, Face::Bold, name_size, INK, &l);
        }
        y += 2.0;
        let tax_ids: Vec<String> = p
            .tax_ids
            .iter()
            .map(|t| format!("{}: {}", self.loc.text(t.label), t.value))
            .collect();
        let legal = p.legal_name.as_ref().filter(|l| **l != p.name);
        let rows = legal
            .into_iter()
            .chain(&p.company)
            .chain(&p.address_lines)
            .chain(&p.country)
            .chain(&tax_ids)
            .chain(&p.email)
            .chain(&p.phone)
            .chain(&p.website);
        for row in rows {
            for l in wrap(row, Face::Regular, BODY, width) {
                y += LEADING;
                self.text(x, y, Face::Regular, BODY, MUTED, &l);
            }
        }
        y
    }

    fn first_page_header(&mut self) -> Result<(), RenderError> {
        self.brand_bar();
        let doc = self.doc;
        let loc = self.loc;
        let brand = self.brand;
        let left_w = 270.0;

        // Left: logo, then the seller.
        let mut ly = MARGIN;
        if let Some(logo) = &doc.logo {
            let data = logo.bytes.clone().into();
            let image = match logo.kind {
                ImageKind::Png => Image::from_png(data, false),
                ImageKind::Jpeg => Image::from_jpeg(data, false),
            }
            .map_err(|reason| RenderError::Logo {
                kind: logo.kind,
                reason,
            })?;
            let (pw, ph) = image.size();
            if pw == 0 || ph == 0 {
                return Err(RenderError::Logo {
                    kind: logo.kind,
                    reason: "empty image".into(),
                });
            }
            let scale = (160.0 / pw as f32).min(56.0 / ph as f32);
            let (w, h) = (pw as f32 * scale, ph as f32 * scale);
            self.ops().push(Op::Image {
                x: MARGIN,
                y: ly,
                w,
                h,
                image,
            });
            ly += h + 8.0;
        }
        ly = self.party_block(MARGIN, ly, left_w, &doc.seller, 12.0);

        // Right: title, mark, number and dates.
        let mut ry = MARGIN + 22.0;
        self.text_right(RIGHT, ry, (Face::Bold, 24.0, brand), title(doc), 230.0);
        if let Some((key, color)) = mark_style(doc) {
            let label = sanitize(&loc.text(key).to_uppercase());
            let size = 10.0;
            let w = width(&label, Face::Bold, size) + 16.0;
            let top = ry + 10.0;
            self.ops().push(Op::Frame {
                x: RIGHT - w,
                y: top,
                w,
                h: 20.0,
                width: 1.4,
                color,
            });
            self.text(RIGHT - w + 8.0, top + 14.0, Face::Bold, size, color, &label);
            ry = top + 20.0;
        }
        ry += 10.0;
        let mut meta: Vec<(&str, String)> = vec![("field.number", doc.number.clone())];
        meta.push(("field.issue_date", loc.date(doc.issue_date)));
        if let Some(d) = doc.due_date {
            meta.push(("field.due_date", loc.date(d)));
        }
        if let Some(d) = doc.valid_until {
            meta.push(("field.valid_until", loc.date(d)));
        }
        match doc.supply {
            Some(Supply::Delivered(d)) => meta.push(("field.delivery_date", loc.date(d))),
            Some(Supply::Period(p)) => meta.push((
                "field.service_period",
                format!("{} – {}", loc.date(p.start), loc.date(p.end)),
            )),
            None => {}
        }
        if let Some((from, to)) = doc.period() {
            meta.push((
                "statement.period",
                format!("{} – {}", loc.date(from), loc.date(to)),
            ));
        }
        let label_x = RIGHT - 230.0;
        for (key, value) in meta {
            ry += 15.0;
            self.text(label_x, ry, Face::Regular, BODY, MUTED, loc.text(key));
            self.text_right(RIGHT, ry, (Face::Bold, 9.5, INK), &value, 125.0);
        }

        // The customer.
        let y = ly.max(ry) + 26.0;
        let to = if doc.kind == DocumentKind::Quotation {
            "field.prepared_for"
        } else {
            "field.bill_to"
        };
        let bill_to = loc.text(to).to_uppercase();
        self.text(MARGIN, y, Face::Bold, 8.0, brand, &bill_to);
        self.y = self.party_block(MARGIN, y + 2.0, left_w, &doc.buyer, 11.0) + 24.0;
        Ok(())
    }

    fn table_header(&mut self) {
        let (brand, fg, loc) = (self.brand, self.on_brand, self.loc);
        let y = self.y;
        self.rect(MARGIN, y, CONTENT_W, 22.0, brand);
        let base = y + 14.5;
        let size = 8.5;
        self.text(
            COL_DESC_X,
            base,
            Face::Bold,
            size,
            fg,
            loc.text("lines.description"),
        );
        self.text_right(
            COL_QTY_R,
            base,
            (Face::Bold, size, fg),
            loc.text("lines.quantity"),
            48.0,
        );
        self.text_right(
            COL_UNIT_R,
            base,
            (Face::Bold, size, fg),
            loc.text("lines.unit_price"),
            84.0,
        );
        self.text_right(
            COL_TAX_R,
            base,
            (Face::Bold, size, fg),
            loc.text("lines.tax"),
            52.0,
        );
        self.text_right(
            COL_AMOUNT_R,
            base,
            (Face::Bold, size, fg),
            loc.text("lines.amount"),
            88.0,
        );
        self.y = y + 22.0;
    }

    fn lines_table(&mut self, lines: &[Line]) {
        let (doc, loc) = (self.doc, self.loc);
        // The rows of a continuation page start here (brand bar, page header, table header).
        let fresh_top = MARGIN + 28.0 + 22.0;
        let rows: Vec<(Vec<String>, f32)> = lines
            .iter()
            .map(|line| {
                let mut desc = wrap(&line.description, Face::Regular, BODY, COL_DESC_W);
                if let Some(reason) = &line.exemption {
                    let note = format!("{}: {reason}", loc.text("lines.exemption"));
                    desc.extend(wrap(&note, Face::Regular, BODY, COL_DESC_W));
                }
                let h = desc.len() as f32 * LEADING + 10.0;
                (desc, h)
            })
            .collect();
        // The header keeps its first row: the whole row when it fits on a page (it would move
        // to the next page otherwise), at least two of its lines when it flows over pages.
        let first = rows.first().map_or(0.0, |(_, h)| *h);
        self.ensure(22.0 + first.clamp(2.0 * LEADING + 10.0, BOTTOM - fresh_top));
        self.table_header();
        for (line, (desc, h)) in lines.iter().zip(rows) {
            // A row stays on one page when it can; one taller than a page flows over pages.
            if (h <= BOTTOM - fresh_top || self.y + 10.0 + LEADING > BOTTOM) && self.ensure(h) {
                self.table_header();
            }
            // The numbers go on the row's first page, beside its first line.
            let base = self.y + 6.0 + BODY;
            let regular = (Face::Regular, BODY, INK);
            let qty = loc.quantity(line.quantity);
            self.text_right(COL_QTY_R, base, regular, &qty, 48.0);
            let unit = loc.money(line.unit_price, doc.currency);
            self.text_right(COL_UNIT_R, base, regular, &unit, 84.0);
            let rate = loc.percent(line.tax_rate);
            self.text_right(COL_TAX_R, base, (Face::Regular, BODY, MUTED), &rate, 52.0);
            let amount = loc.money(line.amount, doc.currency);
            self.text_right(COL_AMOUNT_R, base, regular, &amount, 88.0);
            let mut y = base;
            for l in &desc {
                if y + 4.0 > BOTTOM {
                    self.hrule(MARGIN, CONTENT_W, y - BODY - 2.0, RULE);
                    self.new_page();
                    self.table_header();
                    y = self.y + 6.0 + BODY;
                }
                self.text(COL_DESC_X, y, Face::Regular, BODY, INK, l);
                y += LEADING;
            }
            // The row ends 5 pt below the last baseline (as `h` above has it).
            self.y = y + 4.0 - BODY;
            self.hrule(MARGIN, CONTENT_W, self.y - 0.6, RULE);
        }
    }

    /// The totals box at the right; returns its bottom. Does not move `self.y`.
    fn totals(&mut self, t: &Totals) -> f32 {
        let (doc, loc, brand) = (self.doc, self.loc, self.brand);
        let money = |m| loc.money(m, doc.currency);
        let mut rows: Vec<(String, String)> =
            vec![(loc.text("totals.subtotal").into(), money(t.subtotal))];
        for (rate, amount) in &t.taxes {
            rows.push((
                loc.fill("totals.tax_at_rate", &[("rate", &loc.percent(*rate))]),
                money(*amount),
            ));
        }
        let mut after: Vec<(String, String)> = Vec::new();
        if let Some(c) = t.credited {
            after.push((loc.text("totals.amount_credited").into(), money(c.neg())));
        }
        if let Some(p) = t.paid {
            after.push((loc.text("totals.amount_paid").into(), money(p.neg())));
        }
        let due = t
            .due
            .map(|d| (loc.text("totals.amount_due").to_string(), money(d)));
        let total = (loc.text("totals.total").to_string(), money(t.total));

        let row_h = 17.0;
        let x = RIGHT - TOTALS_W;
        let w = TOTALS_W;
        let mut y = self.y;
        for (label, value) in rows {
            y += row_h;
            self.text(x + PAD, y - 5.0, Face::Regular, BODY, MUTED, &label);
            self.text_right(
                RIGHT - PAD,
                y - 5.0,
                (Face::Regular, BODY, INK),
                &value,
                130.0,
            );
        }
        let emphasise_total = due.is_none();
        y += 4.0;
        self.hrule(x, w, y, INK);
        y += row_h + 2.0;
        if emphasise_total {
            self.rect(x, y - row_h + 1.0, w, row_h + 6.0, tint(brand, 0.88));
        }
        let color = if emphasise_total { brand } else { INK };
        self.text(x + PAD, y - 3.0, Face::Bold, 10.5, color, &total.0);
        self.text_right(
            RIGHT - PAD,
            y - 3.0,
            (Face::Bold, 10.5, color),
            &total.1,
            130.0,
        );
        y += 4.0;
        for (label, value) in after {
            y += row_h;
            self.text(x + PAD, y - 5.0, Face::Regular, BODY, MUTED, &label);
            self.text_right(
                RIGHT - PAD,
                y - 5.0,
                (Face::Regular, BODY, INK),
                &value,
                130.0,
            );
        }
        if let Some((label, value)) = due {
            y += 6.0;
            self.rect(x, y, w, 26.0, tint(brand, 0.88));
            self.rect(x, y, 3.0, 26.0, brand);
            self.text(x + PAD + 2.0, y + 17.0, Face::Bold, 11.0, brand, &label);
            self.text_right(
                RIGHT - PAD,
                y + 17.0,
                (Face::Bold, 11.0, brand),
                &value,
                130.0,
            );
            y += 26.0;
        }
        y
    }

    /// Height the totals box will take, to keep it on one page.
    fn totals_height(t: &Totals) -> f32 {
        let rows =
            1 + t.taxes.len() + usize::from(t.credited.is_some()) + usize::from(t.paid.is_some());
        rows as f32 * 17.0 + 27.0 + if t.due.is_some() { 32.0 } else { 0.0 }
    }

    fn heading(&mut self, x: f32, key: &str) {
        let (brand, loc, y) = (self.brand, self.loc, self.y);
        self.text(
            x,
            y + 9.0,
            Face::Bold,
            8.0,
            brand,
            &loc.text(key).to_uppercase(),
        );
        self.y = y + 12.0;
    }

    /// Wrapped body text that flows over pages line by line.
    fn paragraph(&mut self, s: &str, x: f32, width: f32, color: Rgb) {
        for l in wrap(s, Face::Regular, BODY, width) {
            self.ensure(LEADING);
            self.y += LEADING;
            self.text(x, self.y - 3.0, Face::Regular, BODY, color, &l);
        }
    }

    /// Totals at the right; payment instructions, then the QR code with the link under it, in
    /// the column to their left. The column flows onto the next page if it must; the totals box
    /// never splits.
    fn summary(&mut self, totals: &Totals) -> Result<(), RenderError> {
        let doc = self.doc;
        self.y += 14.0;
        self.ensure(Self::totals_height(totals));
        let page = self.pages.len();
        let totals_bottom = self.totals(totals);

        let x = MARGIN;
        let width = CONTENT_W - TOTALS_W - 28.0;
        if let Some(instr) = &doc.payment_instructions {
            self.y += 2.0;
            self.heading(x, "payment.instructions");
            self.paragraph(instr, x, width, INK);
            self.y += 14.0;
        }
        if let Some(link) = &doc.payment_link {
            let code = qr::encode(link)?;
            let qr_size = 84.0;
            let link_lines = wrap_url(link, LINK_SIZE, width);
            self.ensure(12.0 + qr_size + 6.0 + link_lines.len() as f32 * 9.0);
            // A quotation's link opens its page to answer, not to pay.
            self.heading(
                x,
                match doc.kind {
                    DocumentKind::Quotation => "quote.scan_to_answer",
                    DocumentKind::Invoice | DocumentKind::CreditNote | DocumentKind::Statement => {
                        "payment.scan_to_pay"
                    }
                },
            );
            let module = qr_size / code.side as f32;
            let top = self.y + 2.0;
            self.ops().push(Op::Qr {
                x,
                y: top,
                module,
                code,
            });
            self.ops().push(Op::Link {
                x,
                y: top,
                w: qr_size,
                h: qr_size,
                uri: link.clone(),
            });
            self.y = top + qr_size + 4.0;
            for l in &link_lines {
                self.y += 9.0;
                let y = self.y - 2.0;
                self.text(x, y, Face::Regular, LINK_SIZE, MUTED, l);
            }
        }
        self.y = if self.pages.len() == page {
            self.y.max(totals_bottom)
        } else {
            self.y
        } + 26.0;
        Ok(())
    }

    fn notes(&mut self) {
        if let Some(notes) = &self.doc.notes {
            self.ensure(12.0 + 2.0 * LEADING);
            self.heading(MARGIN, "field.notes");
            self.paragraph(notes, MARGIN, CONTENT_W, INK);
        }
    }

    fn footers(&mut self) {
        let m = self.pages.len();
        let footer = self
            .doc
            .footer
            .as_deref()
            .map(|f| wrap(f, Face::Regular, 7.5, CONTENT_W - 110.0))
            .unwrap_or_default();
        let loc = self.loc;
        for (i, page) in self.pages.iter_mut().enumerate() {
            let y = PAGE_H - 42.0;
            page.push(Op::Rect {
                x: MARGIN,
                y,
                w: CONTENT_W,
                h: 0.6,
                color: RULE,
            });
            for (j, l) in footer.iter().take(3).enumerate() {
                let text = sanitize(l);
                page.push(Op::Text {
                    x: MARGIN,
                    y: y + 14.0 + j as f32 * 9.5,
                    face: Face::Regular,
                    size: 7.5,
                    color: MUTED,
                    text,
                });
            }
            let n = loc.fill(
                "pdf.page_of",
                &[("n", &(i + 1).to_string()), ("m", &m.to_string())],
            );
            let text = sanitize(&n);
            let w = width(&text, Face::Regular, 7.5);
            page.push(Op::Text {
                x: RIGHT - w,
                y: y + 14.0,
                face: Face::Regular,
                size: 7.5,
                color: MUTED,
                text,
            });
        }
    }
}

/// A URL broken after `/`, `?`, `&`, `=` or `-` where it must be, so each piece stays readable.
fn wrap_url(url: &str, size: f32, max_w: f32) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = sanitize(url);
    while width(&rest, Face::Regular, size) > max_w {
        let mut cut = 0;
        let mut last_break = 0;
        for (i, c) in rest.char_indices() {
            let end = i + c.len_utf8();
            if width(&rest[..end], Face::Regular, size) > max_w {
                break;
            }
            cut = end;
            if matches!(c, '/' | '?' | '&' | '=' | '-') {
                last_break = end;
            }
        }
        let at = if last_break > 0 {
            last_break
        } else {
            cut.max(rest.chars().next().map_or(1, char::len_utf8))
        };
        out.push(rest[..at].to_string());
        rest = rest[at..].to_string();
    }
    out.push(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_links_break_after_separators() {
        let lines = wrap_url(
            "https://pay.example.com/a/very/long/path?token=abcdef&x=1",
            7.0,
            90.0,
        );
        assert!(lines.len() > 1, "{lines:?}");
        assert_eq!(
            lines.concat(),
            "https://pay.example.com/a/very/long/path?token=abcdef&x=1"
        );
        for l in &lines[..lines.len() - 1] {
            assert!(l.ends_with(['/', '?', '&', '=', '-']), "{lines:?}");
        }
    }

    #[test]
    fn tint_moves_towards_white() {
        assert_eq!(tint([0, 100, 255], 0.5), [128, 178, 255]);
        assert_eq!(tint([10, 20, 30], 0.0), [10, 20, 30]);
    }
}
