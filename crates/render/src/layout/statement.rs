//! A customer's statement: a table of dated entries with the running balance (the opening
//! balance first), then the closing balance in the totals' place and the aging of what is due.

use super::{tint, TOTALS_W};
use super::{Ctx, BODY, BOTTOM, CONTENT_W, INK, LEADING, MARGIN, MUTED, PAD, RIGHT, RULE};
use crate::text::Face;
use crate::{Statement, StatementEntryKind};

const COL_DATE_X: f32 = MARGIN + PAD;
const COL_ENTRY_X: f32 = COL_DATE_X + 86.0;
const COL_BALANCE_R: f32 = RIGHT - PAD;
const COL_AMOUNT_R: f32 = COL_BALANCE_R - 110.0;
const ROW_H: f32 = LEADING + 8.0;
const HEADER_H: f32 = 22.0;

impl Ctx<'_> {
    fn statement_header(&mut self) {
        let (brand, fg, loc) = (self.brand, self.on_brand, self.loc);
        let y = self.y;
        self.rect(MARGIN, y, CONTENT_W, HEADER_H, brand);
        let base = y + 14.5;
        let bold = (Face::Bold, 8.5, fg);
        self.text(
            COL_DATE_X,
            base,
            Face::Bold,
            8.5,
            fg,
            loc.text("statement.date"),
        );
        self.text(
            COL_ENTRY_X,
            base,
            Face::Bold,
            8.5,
            fg,
            loc.text("statement.entry"),
        );
        self.text_right(
            COL_AMOUNT_R,
            base,
            bold,
            loc.text("statement.amount"),
            100.0,
        );
        self.text_right(
            COL_BALANCE_R,
            base,
            bold,
            loc.text("statement.balance"),
            100.0,
        );
        self.y = y + HEADER_H;
    }

    /// One row: a date, what it is, what it adds (none for the opening balance), the balance.
    fn statement_row(&mut self, date: &str, entry: &str, amount: Option<&str>, balance: &str) {
        if self.ensure(ROW_H) {
            self.statement_header();
        }
        let base = self.y + 6.0 + BODY;
        let regular = (Face::Regular, BODY, INK);
        self.text(COL_DATE_X, base, Face::Regular, BODY, MUTED, date);
        self.text(COL_ENTRY_X, base, Face::Regular, BODY, INK, entry);
        if let Some(amount) = amount {
            self.text_right(COL_AMOUNT_R, base, regular, amount, 100.0);
        }
        self.text_right(COL_BALANCE_R, base, (Face::Bold, BODY, INK), balance, 100.0);
        self.y += ROW_H;
        self.hrule(MARGIN, CONTENT_W, self.y - 0.6, RULE);
    }

    pub(super) fn statement_table(&mut self, s: &Statement) {
        let (loc, currency) = (self.loc, self.doc.currency);
        let money = |m| loc.money(m, currency);
        self.ensure(HEADER_H + 2.0 * ROW_H);
        self.statement_header();
        let opening = loc.text("statement.opening_balance");
        self.statement_row(&loc.date(s.from), opening, None, &money(s.opening));
        for e in &s.entries {
            let number = [("number", e.number.as_str())];
            let entry = match e.kind {
                StatementEntryKind::Invoice => loc.fill("doc.invoice_title", &number),
                StatementEntryKind::Payment => loc.fill("statement.payment", &number),
                StatementEntryKind::CreditNote => loc.fill("doc.credit_note_title", &number),
                StatementEntryKind::Cancellation => loc.fill("statement.cancellation", &number),
                StatementEntryKind::MarkedPaid => loc.fill("statement.marked_paid", &number),
            };
            let amount = money(crate::from_domain::money(e.amount_cents));
            let balance = money(crate::from_domain::money(e.balance_cents));
            self.statement_row(&loc.date(e.date), &entry, Some(&amount), &balance);
        }
    }

    /// The closing balance at the right, the aging of what is due under it, then the payment
    /// instructions when something is owed. Neither box splits over pages.
    pub(super) fn statement_summary(&mut self, s: &Statement) {
        let (loc, brand, currency) = (self.loc, self.brand, self.doc.currency);
        let money = |m| loc.money(m, currency);
        self.y += 14.0;
        self.ensure(26.0 + 24.0 + 12.0 + 2.0 * LEADING + 8.0);
        let (x, y) = (RIGHT - TOTALS_W, self.y);
        self.rect(x, y, TOTALS_W, 26.0, tint(brand, 0.88));
        self.rect(x, y, 3.0, 26.0, brand);
        let label = loc.text("statement.closing_balance");
        self.text(x + PAD + 2.0, y + 17.0, Face::Bold, 11.0, brand, label);
        let closing = money(s.closing);
        self.text_right(
            RIGHT - PAD,
            y + 17.0,
            (Face::Bold, 11.0, brand),
            &closing,
            130.0,
        );
        self.y = y + 26.0 + 24.0;

        self.heading(MARGIN, "statement.aging");
        let a = &s.aging;
        let columns = [
            ("aging.current", a.current),
            ("aging.1_30", a.days_1_30),
            ("aging.31_60", a.days_31_60),
            ("aging.61_90", a.days_61_90),
            ("aging.over_90", a.over_90),
            ("totals.total", a.total),
        ];
        let w = CONTENT_W / columns.len() as f32;
        let top = self.y + LEADING;
        for (i, (key, minor)) in columns.into_iter().enumerate() {
            let right = MARGIN + w * (i + 1) as f32 - PAD;
            self.text_right(
                right,
                top,
                (Face::Regular, 8.0, MUTED),
                loc.text(key),
                w - PAD,
            );
            let value = money(crate::from_domain::money(minor));
            let face = if i == 5 { Face::Bold } else { Face::Regular };
            self.text_right(
                right,
                top + LEADING + 2.0,
                (face, BODY, INK),
                &value,
                w - PAD,
            );
        }
        self.y = top + LEADING + 8.0;
        self.hrule(MARGIN, CONTENT_W, self.y, RULE);
        self.y += 14.0;

        if let Some(instr) = &self.doc.payment_instructions {
            if self.y + 12.0 + 2.0 * LEADING > BOTTOM {
                self.new_page();
            }
            self.heading(MARGIN, "payment.instructions");
            self.paragraph(instr, MARGIN, CONTENT_W, INK);
            self.y += 14.0;
        }
    }
}
