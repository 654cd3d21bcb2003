//! Saving the document form: a new document (created, and sent if asked) or a draft's changes,
//! with the operations' refusals brought back beside the fields they name.

use super::show::{show, SETTINGS_NEEDED};
use super::typed::Typed;
use super::{draft, parse_id, Kind};
use crate::dashboard::form::{field_errors, is_field_mistake, non_blank};
use crate::dashboard::Posted;
use crate::dashboard::{see_other, Answer};
use crate::error::ApiError;
use crate::path_id::Id;
use crate::AppState;
use actix_web::HttpRequest;
use invoicing_domain::customer::CustomerInput;
use invoicing_domain::invoice::{InvoiceInput, InvoicePatchInput};
use invoicing_domain::quotation::{QuotationInput, QuotationPatchInput};
use invoicing_domain::recurring::{RecurringInput, RecurringPatchInput};
use std::collections::HashMap;

fn errors_of(e: &ApiError, req: &HttpRequest) -> HashMap<String, String> {
    field_errors(e, req)
}

/// Creates the document (and sends it, with `action=save_send`; with `save_email` the email is
/// shown to check before it leaves, SPEC §27).
pub(crate) async fn save_new(
    kind: Kind,
    Posted { me, form }: Posted,
    state: &AppState,
    req: &HttpRequest,
) -> Answer {
    let ops = me.ops(state);
    let mut typed = Typed::read(kind, &form);
    if typed.edit_lines(&form) {
        return show(state, req, &me, &ops, kind, None, typed, HashMap::new()).await;
    }
    let mut errors = HashMap::new();
    let line_items = typed.line_inputs(&mut errors, crate::dashboard::locale_of(req));
    let customer_id = form.id("customer_id").unwrap_or_else(|e| {
        errors.extend(errors_of(&e, req));
        None
    });
    let customer = customer_id.is_none().then(|| CustomerInput {
        name: non_blank(&typed.new_name),
        email: non_blank(&typed.new_email),
        ..CustomerInput::default()
    });
    if !errors.is_empty() {
        return show(state, req, &me, &ops, kind, None, typed, errors).await;
    }
    let action = form.get("action").unwrap_or("save");
    let sends = action == "save_send";
    let created = match kind {
        Kind::Invoice => {
            let input = InvoiceInput {
                customer_id,
                customer,
                currency: non_blank(&typed.currency),
                issue_date: non_blank(&typed.issue_date),
                due_date: non_blank(&typed.date),
                payment_terms: if typed.date.trim().is_empty() {
                    non_blank(&typed.payment_terms)
                } else {
                    None
                },
                line_items: Some(line_items),
                notes: non_blank(&typed.notes),
                metadata: None,
                reminders: None,
                delivery_date: non_blank(&typed.delivery_date),
                service_period: typed.service_period(),
                buyer_reference: non_blank(&typed.buyer_reference),
                purchase_order: non_blank(&typed.purchase_order),
            };
            // "Save and send" is one operation: a refused send leaves no draft behind.
            if sends {
                ops.create_and_send_invoice(input, None).await
            } else {
                ops.create_invoice(input).await
            }
            .map(|i| i.id.0)
        }
        Kind::Quotation => {
            let input = QuotationInput {
                customer_id,
                customer,
                currency: non_blank(&typed.currency),
                issue_date: non_blank(&typed.issue_date),
                valid_until: non_blank(&typed.date),
                line_items: Some(line_items),
                notes: non_blank(&typed.notes),
                metadata: None,
            };
            if sends {
                ops.create_and_send_quotation(input, None).await
            } else {
                ops.create_quotation(input).await
            }
            .map(|q| q.id.0)
        }
        Kind::Recurring => {
            let count = match non_blank(&typed.interval_count).map(|n| n.parse::<i64>()) {
                Some(Ok(n)) => Some(n),
                Some(Err(_)) => {
                    let e = ApiError::invalid_parameter("interval_count", "must be a whole number");
                    return show(state, req, &me, &ops, kind, None, typed, errors_of(&e, req))
                        .await;
                }
                None => None,
            };
            let input = RecurringInput {
                customer_id,
                customer,
                currency: non_blank(&typed.currency),
                line_items: Some(line_items),
                interval: non_blank(&typed.interval),
                interval_count: count,
                start_date: non_blank(&typed.date),
                end_date: non_blank(&typed.end_date),
                occurrences: None,
                payment_terms: non_blank(&typed.payment_terms),
                notes: non_blank(&typed.notes),
                metadata: None,
                auto_send: Some(typed.auto_send),
                email: Some(typed.email),
            };
            ops.create_recurring(input).await.map(|r| r.id.0)
        }
    };
    let id = match created {
        Ok(id) => id,
        Err(e) if is_field_mistake(&e) => {
            let errors = if super::super::views::seller_missing(&e) {
                // A live document goes out only once the seller's details are in Settings.
                let t = crate::dashboard::locale_of(req);
                let say = t.text("dash.error.profile_needed").to_string();
                HashMap::from([
                    ("form".to_string(), say),
                    (
                        SETTINGS_NEEDED.to_string(),
                        t.text("dash.error.to_settings").into(),
                    ),
                ])
            } else {
                errors_of(&e, req)
            };
            return show(state, req, &me, &ops, kind, None, typed, errors).await;
        }
        Err(e) => return Err(e.into()),
    };
    let next = match (action, kind) {
        ("save_email", Kind::Invoice | Kind::Quotation) => "/email",
        ("save_send", _) => "?done=sent",
        _ => "?done=created",
    };
    Ok(see_other(&format!("{}/{id}{next}", kind.base())))
}

/// Saves the draft (lines, customer, currency, date, notes), as `PATCH` does.
pub(crate) async fn save_edit(
    kind: Kind,
    Posted { me, form }: Posted,
    state: &AppState,
    req: &HttpRequest,
    raw_id: &str,
) -> Answer {
    let ops = me.ops(state);
    let id = parse_id(kind, raw_id)?;
    let (editing, stored) = draft(kind, &ops, id, crate::dashboard::locale_of(req)).await?;
    let mut typed = Typed::read(kind, &form);
    if typed.currency.is_empty() {
        // A schedule's form has no currency field: its prices are in the schedule's.
        typed.currency = stored.currency;
    }
    if typed.edit_lines(&form) {
        return show(
            state,
            req,
            &me,
            &ops,
            kind,
            Some(editing),
            typed,
            HashMap::new(),
        )
        .await;
    }
    let mut errors = HashMap::new();
    let line_items = typed.line_inputs(&mut errors, crate::dashboard::locale_of(req));
    let customer_id = form.id("customer_id").unwrap_or_else(|e| {
        errors.extend(errors_of(&e, req));
        None
    });
    if !errors.is_empty() {
        return show(state, req, &me, &ops, kind, Some(editing), typed, errors).await;
    }
    let saved = match kind {
        Kind::Invoice => {
            let input = InvoicePatchInput {
                line_items: Some(Some(line_items)),
                customer_id: customer_id.map(Some),
                currency: non_blank(&typed.currency).map(Some),
                due_date: non_blank(&typed.date).map(Some),
                notes: Some(non_blank(&typed.notes)),
                delivery_date: Some(non_blank(&typed.delivery_date)),
                service_period: Some(typed.service_period()),
                buyer_reference: Some(non_blank(&typed.buyer_reference)),
                purchase_order: Some(non_blank(&typed.purchase_order)),
                ..InvoicePatchInput::default()
            };
            match input.parse() {
                Ok(patch) => ops
                    .update_invoice(Id::parse(raw_id), patch)
                    .await
                    .map(|_| ()),
                Err(v) => Err(ApiError::from(v)),
            }
        }
        Kind::Quotation => {
            let input = QuotationPatchInput {
                line_items: Some(Some(line_items)),
                customer_id: customer_id.map(Some),
                currency: non_blank(&typed.currency).map(Some),
                valid_until: non_blank(&typed.date).map(Some),
                notes: Some(non_blank(&typed.notes)),
                ..QuotationPatchInput::default()
            };
            ops.update_quotation(Id::parse(raw_id), input)
                .await
                .map(|_| ())
        }
        Kind::Recurring => {
            let input = RecurringPatchInput {
                line_items: Some(Some(line_items)),
                payment_terms: non_blank(&typed.payment_terms).map(Some),
                notes: Some(non_blank(&typed.notes)),
                end_date: Some(non_blank(&typed.end_date)),
                auto_send: Some(Some(typed.auto_send)),
                email: Some(Some(typed.email)),
                ..RecurringPatchInput::default()
            };
            ops.update_recurring(Id::parse(raw_id), input)
                .await
                .map(|_| ())
        }
    };
    match saved {
        Ok(()) => Ok(see_other(&format!("{}/{id}?done=saved", kind.base()))),
        Err(e) if is_field_mistake(&e) => {
            show(
                state,
                req,
                &me,
                &ops,
                kind,
                Some(editing),
                typed,
                errors_of(&e, req),
            )
            .await
        }
        Err(e) => Err(e.into()),
    }
}
