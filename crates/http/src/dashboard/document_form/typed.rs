//! What the document form holds, as typed: its fields and lines, read from a post or filled from
//! a stored document, and turned into the lines the operations take.

use super::line::{blank_line, is_blank, LineField};
use super::Kind;
use crate::dashboard::form::{non_blank, price_minor, Form};
use invoicing_domain::currency::Currency;
use invoicing_domain::decimal::DecimalText;
use invoicing_domain::document_lines::{LineItemInput, LineItemView};
use invoicing_domain::invoice::Invoice;
use invoicing_domain::locale::Locale;
use invoicing_domain::money::Money;
use invoicing_domain::quotation::Quotation;
use invoicing_domain::recurring::RecurringInvoice;
use invoicing_domain::supply::ServicePeriodInput;
use std::collections::HashMap;

/// More lines than this are typed through the API.
const MAX_LINES: usize = 100;

/// What the form holds, as typed.
pub(crate) struct Typed {
    pub customer_id: String,
    pub new_name: String,
    pub new_email: String,
    pub currency: String,
    pub payment_terms: String,
    /// The due date of an invoice, the validity date of a quotation, a schedule's first day.
    pub date: String,
    pub notes: String,
    pub lines: Vec<LineField>,
    /// A schedule's cadence (`week`, `month`, `year`, every `interval_count`), last day, and
    /// whether its invoices are sent and emailed by themselves.
    pub interval: String,
    pub interval_count: String,
    pub end_date: String,
    pub auto_send: bool,
    pub email: bool,
    /// A new document's issue date (blank: the merchant's today).
    pub issue_date: String,
    /// An invoice's supply (SPEC §27): a delivery date, or a service period.
    pub delivery_date: String,
    pub service_start: String,
    pub service_end: String,
    /// An invoice's buyer references (BT-10, BT-13), which public bodies and Peppol ask for.
    pub buyer_reference: String,
    pub purchase_order: String,
    /// "Update totals" was pressed: what the lines come to is asked for, refusals included.
    pub totals_asked: bool,
}

impl Typed {
    pub(super) fn blank(currency: Currency) -> Typed {
        Typed {
            customer_id: String::new(),
            new_name: String::new(),
            new_email: String::new(),
            currency: currency.code().to_string(),
            payment_terms: "net_30".into(),
            date: String::new(),
            notes: String::new(),
            lines: vec![blank_line(0)],
            interval: "month".into(),
            interval_count: "1".into(),
            end_date: String::new(),
            auto_send: false,
            email: false,
            issue_date: String::new(),
            delivery_date: String::new(),
            service_start: String::new(),
            service_end: String::new(),
            buyer_reference: String::new(),
            purchase_order: String::new(),
            totals_asked: false,
        }
    }

    pub(super) fn of_recurring(r: &RecurringInvoice, t: Locale) -> Typed {
        Typed {
            customer_id: r.customer_id.0.to_string(),
            currency: r.currency.code().to_string(),
            payment_terms: r.payment_terms.clone(),
            date: r.start_date.to_string(),
            notes: r.notes.clone().unwrap_or_default(),
            lines: Typed::of_lines(r.currency, &r.line_items, t),
            interval: r.interval.as_str().to_string(),
            interval_count: r.interval_count.to_string(),
            end_date: r.end_date.map(|d| d.to_string()).unwrap_or_default(),
            auto_send: r.auto_send,
            email: r.email,
            ..Typed::blank(r.currency)
        }
    }

    /// The lines as the form shows them, prices as `t` writes amounts (SPEC §27).
    fn of_lines(cur: Currency, lines: &[LineItemView], t: Locale) -> Vec<LineField> {
        lines
            .iter()
            .enumerate()
            .map(|(index, l)| LineField {
                index,
                product: l.product_id.map(|p| p.to_string()).unwrap_or_default(),
                description: l.description.clone(),
                quantity: l.quantity.to_string(),
                unit_price: Money::new(l.unit_price_cents)
                    .map(|m| t.amount_field(m, cur))
                    .unwrap_or_default(),
                tax_rate: l.tax_rate.to_string(),
                unit: l.unit.clone(),
                tax_category: l
                    .tax_category
                    .map(|c| c.code().to_string())
                    .unwrap_or_default(),
                tax_exemption_reason: l.tax_exemption_reason.clone().unwrap_or_default(),
            })
            .collect()
    }

    pub(super) fn of_invoice(inv: &Invoice, t: Locale) -> Typed {
        Typed {
            customer_id: inv.customer_id.0.to_string(),
            new_name: String::new(),
            new_email: String::new(),
            currency: inv.currency.code().to_string(),
            payment_terms: String::new(),
            date: inv.due_date.to_string(),
            notes: inv.notes.clone().unwrap_or_default(),
            lines: Typed::of_lines(inv.currency, &inv.line_items, t),
            issue_date: inv.issue_date.to_string(),
            delivery_date: day_text(inv.delivery_date),
            service_start: day_text(inv.service_period.map(|p| p.start)),
            service_end: day_text(inv.service_period.map(|p| p.end)),
            buyer_reference: inv.buyer_reference.clone().unwrap_or_default(),
            purchase_order: inv.purchase_order.clone().unwrap_or_default(),
            ..Typed::blank(inv.currency)
        }
    }

    pub(super) fn of_quotation(q: &Quotation, t: Locale) -> Typed {
        Typed {
            customer_id: q.customer_id.0.to_string(),
            new_name: String::new(),
            new_email: String::new(),
            currency: q.currency.code().to_string(),
            payment_terms: String::new(),
            date: q.valid_until.to_string(),
            notes: q.notes.clone().unwrap_or_default(),
            lines: Typed::of_lines(q.currency, &q.line_items, t),
            ..Typed::blank(q.currency)
        }
    }

    pub(super) fn read(kind: Kind, form: &Form) -> Typed {
        let count = form
            .get("line_count")
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(1)
            .clamp(1, MAX_LINES);
        let lines = (0..count)
            .map(|i| LineField {
                index: i,
                product: form.raw(&format!("line_items[{i}].product_id")),
                description: form.raw(&format!("line_items[{i}].description")),
                quantity: form.raw(&format!("line_items[{i}].quantity")),
                unit_price: form.raw(&format!("line_items[{i}].unit_price")),
                tax_rate: form.raw(&format!("line_items[{i}].tax_rate")),
                unit: form.raw(&format!("line_items[{i}].unit")),
                tax_category: form.raw(&format!("line_items[{i}].tax_category")),
                tax_exemption_reason: form.raw(&format!("line_items[{i}].tax_exemption_reason")),
            })
            .collect();
        Typed {
            customer_id: form.raw("customer_id"),
            new_name: form.raw("customer.name"),
            new_email: form.raw("customer.email"),
            currency: form.raw("currency").trim().to_uppercase(),
            payment_terms: form.raw("payment_terms"),
            date: form.raw(kind.date_param()),
            notes: form.raw("notes"),
            lines,
            interval: form.raw("interval"),
            interval_count: form.raw("interval_count"),
            end_date: form.raw("end_date"),
            auto_send: form.checked("auto_send"),
            email: form.checked("email"),
            issue_date: form.raw("issue_date"),
            delivery_date: form.raw("delivery_date"),
            service_start: form.raw("service_period.start"),
            service_end: form.raw("service_period.end"),
            buyer_reference: form.raw("buyer_reference"),
            purchase_order: form.raw("purchase_order"),
            totals_asked: form.get("action") == Some("totals"),
        }
    }

    /// What the supply field `name` holds.
    pub fn supply_field(&self, name: &str) -> &str {
        match name {
            "delivery_date" => &self.delivery_date,
            "service_period.start" => &self.service_start,
            _ => &self.service_end,
        }
    }

    /// What the reference field `name` holds.
    pub fn reference_field(&self, name: &str) -> &str {
        match name {
            "buyer_reference" => &self.buyer_reference,
            _ => &self.purchase_order,
        }
    }

    /// Whether the references are worth showing open: filled in, or refused.
    pub fn has_references(&self) -> bool {
        !self.buyer_reference.trim().is_empty() || !self.purchase_order.trim().is_empty()
    }

    /// The service period as the API takes it: none when both days are blank.
    pub(super) fn service_period(&self) -> Option<ServicePeriodInput> {
        let (start, end) = (non_blank(&self.service_start), non_blank(&self.service_end));
        (start.is_some() || end.is_some()).then_some(ServicePeriodInput { start, end })
    }

    /// The lines as the API takes them; a price that is no amount of the currency is refused
    /// here, beside its field.
    pub(super) fn line_inputs(
        &self,
        errors: &mut HashMap<String, String>,
        t: Locale,
    ) -> Vec<LineItemInput> {
        let currency = Currency::parse(&self.currency).ok();
        self.lines
            .iter()
            .filter(|l| !is_blank(l))
            .map(|l| {
                let i = l.index;
                let unit_price_cents = match (non_blank(&l.unit_price), currency) {
                    (None, _) | (_, None) => None,
                    (Some(p), Some(cur)) => match price_minor(&p, cur, t) {
                        Ok(cents) => Some(cents),
                        Err(message) => {
                            errors.insert(format!("line_items[{i}].unit_price"), message);
                            None
                        }
                    },
                };
                LineItemInput {
                    description: non_blank(&l.description),
                    quantity: non_blank(&l.quantity).map(DecimalText::typed),
                    unit_price_cents,
                    tax_rate: non_blank(&l.tax_rate).map(DecimalText::typed),
                    product_id: non_blank(&l.product).and_then(|p| p.parse().ok()),
                    unit: non_blank(&l.unit),
                    tax_category: non_blank(&l.tax_category),
                    tax_exemption_reason: non_blank(&l.tax_exemption_reason),
                }
            })
            .collect()
    }

    /// Adds or removes a line as the pressed button asks, or only brings the totals up to date;
    /// whether it did (the form is then shown again instead of saved).
    pub(super) fn edit_lines(&mut self, form: &Form) -> bool {
        match form.get("action").unwrap_or("save") {
            "add_line" => {
                if self.lines.len() < MAX_LINES {
                    self.lines.push(blank_line(self.lines.len()));
                }
                true
            }
            a if a.starts_with("remove_line-") => {
                if let Ok(i) = a["remove_line-".len()..].parse::<usize>() {
                    if i < self.lines.len() && self.lines.len() > 1 {
                        self.lines.remove(i);
                    }
                }
                for (i, l) in self.lines.iter_mut().enumerate() {
                    l.index = i;
                }
                true
            }
            "totals" => true,
            _ => false,
        }
    }
}

fn day_text(day: Option<chrono::NaiveDate>) -> String {
    day.map(|d| d.to_string()).unwrap_or_default()
}
