//! The document form's running totals (issue 54): what the typed lines come to, priced by the
//! operations as saving prices them.

use super::typed::Typed;
use super::Kind;
use crate::dashboard::form::field_errors;
use crate::ops::Ops;
use actix_web::HttpRequest;
use invoicing_domain::currency::Currency;
use invoicing_domain::decimal::TaxRate;
use invoicing_domain::document_lines::Lines;
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::locale::Locale;
use invoicing_domain::money::Money;
use std::collections::HashMap;

/// The document's figures as saving it would compute them, formatted: subtotal, the tax at
/// each rate, total.
pub(super) struct RunningTotals {
    pub subtotal: String,
    pub taxes: Vec<(String, String)>,
    pub total: String,
}

impl RunningTotals {
    fn of(lines: &Lines, currency: Currency, t: Locale) -> RunningTotals {
        let mut by_rate: Vec<(TaxRate, i64)> = Vec::new();
        for item in &lines.items {
            match by_rate.iter_mut().find(|(rate, _)| *rate == item.tax_rate) {
                Some((_, tax)) => *tax += item.amounts.tax.minor(),
                None => by_rate.push((item.tax_rate, item.amounts.tax.minor())),
            }
        }
        by_rate.sort_by_key(|(rate, _)| rate.thousandths());
        let money = |m: Money| t.money(m, currency);
        RunningTotals {
            subtotal: money(lines.totals.subtotal),
            taxes: by_rate
                .into_iter()
                .filter_map(|(rate, tax)| {
                    let label = t.fill("totals.tax_at_rate", &[("rate", &t.percent(rate))]);
                    Money::new(tax).ok().map(|tax| (label, money(tax)))
                })
                .collect(),
            total: money(lines.totals.total),
        }
    }
}

/// What the typed lines come to by the operations' own rules, or, when they cannot be priced
/// yet, the refusals by field.
pub(super) async fn running_totals(
    ops: &Ops,
    req: &HttpRequest,
    kind: Kind,
    editing: Option<i64>,
    typed: &Typed,
) -> (Option<RunningTotals>, HashMap<String, String>) {
    let t = crate::dashboard::locale_of(req);
    let mut errors = HashMap::new();
    let inputs = typed.line_inputs(&mut errors, t);
    let Ok(currency) = Currency::parse(&typed.currency) else {
        return (None, errors);
    };
    if inputs.is_empty() || !errors.is_empty() {
        return (None, errors);
    }
    let invoice = editing.filter(|_| kind.is_invoice()).map(InvoiceId);
    let priced = ops
        .price_lines(
            kind.resource(),
            Some(currency.code().into()),
            inputs,
            invoice,
        )
        .await;
    match priced {
        Ok(lines) => (Some(RunningTotals::of(&lines, currency, t)), errors),
        Err(e) => (None, field_errors(&e, req)),
    }
}
