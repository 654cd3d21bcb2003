//! The form of a new document and of a draft, for invoices and quotations alike (SPEC §21): pick
//! or create the customer, pick products or type lines, add and remove lines without JavaScript
//! (a button that shows the form again with one more line, or one fewer), terms or a due date
//! (an invoice) or a validity date (a quotation), notes; Save draft, or Save and send. Every rule
//! is the operations': their refusals come back beside the fields they name, with what was typed
//! kept. The routes of each kind are thin handlers over the functions here (`routes.rs`); this
//! file holds the document kinds and the entry points that open the form.

mod line;
pub(crate) mod routes;
pub(super) mod save;
mod show;
mod totals;
mod typed;

use crate::dashboard::chrome::Nav;
use crate::dashboard::session::Visitor;
use crate::dashboard::Answer;
use crate::error::ApiError;
use crate::ops::Ops;
use crate::path_id::Id;
use crate::AppState;
use actix_web::HttpRequest;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::invoice_status::InvoiceStatus;
use invoicing_domain::locale::Locale;
use invoicing_domain::quotation::QuotationId;
use invoicing_domain::quotation_status::QuotationStatus;
use invoicing_domain::recurring::{RecurringId, RecurringStatus};
use show::show;
use std::collections::HashMap;
use typed::Typed;

/// Which document the form makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Invoice,
    Quotation,
    /// A recurring invoice's schedule (SPEC §20): its lines, cadence and terms.
    Recurring,
}

impl Kind {
    /// Where its screens live.
    pub fn base(self) -> &'static str {
        match self {
            Kind::Invoice => "/dashboard/invoices",
            Kind::Quotation => "/dashboard/quotations",
            Kind::Recurring => "/dashboard/recurring",
        }
    }

    fn nav(self) -> Nav {
        match self {
            Kind::Invoice => Nav::Invoices,
            Kind::Quotation => Nav::Quotations,
            Kind::Recurring => Nav::Recurring,
        }
    }

    fn resource(self) -> ApiResource {
        match self {
            Kind::Invoice => ApiResource::Invoices,
            Kind::Quotation => ApiResource::Quotations,
            Kind::Recurring => ApiResource::RecurringInvoices,
        }
    }

    fn new_title(self) -> &'static str {
        match self {
            Kind::Invoice => "dash.invoice.new",
            Kind::Quotation => "dash.quotation.new",
            Kind::Recurring => "dash.recurring.new",
        }
    }

    /// The API's name for the form's one date: the due date, the validity date, the first issue.
    pub fn date_param(&self) -> &'static str {
        match self {
            Kind::Invoice => "due_date",
            Kind::Quotation => "valid_until",
            Kind::Recurring => "start_date",
        }
    }

    pub fn is_invoice(&self) -> bool {
        *self == Kind::Invoice
    }

    pub fn is_recurring(&self) -> bool {
        *self == Kind::Recurring
    }

    /// Whether the form offers payment terms: a new invoice, and a schedule (new or changed).
    fn has_terms(self, editing: bool) -> bool {
        match self {
            Kind::Invoice => !editing,
            Kind::Quotation => false,
            Kind::Recurring => true,
        }
    }
}

/// The form of a new document (`customer_id` in the query preselects the customer).
pub(crate) async fn new_page(
    kind: Kind,
    me: Visitor,
    state: &AppState,
    req: &HttpRequest,
) -> Answer {
    let ops = me.ops(state);
    ops.caller()
        .require_document_write(kind.resource(), false)?;
    let mut typed = Typed::blank(ops.default_currency().await?);
    typed.customer_id = crate::dashboard::form::query_value(req.query_string(), "customer_id");
    show(state, req, &me, &ops, kind, None, typed, HashMap::new()).await
}

/// What the draft's form starts from: the document, while it is a draft.
pub(super) async fn draft(
    kind: Kind,
    ops: &Ops,
    raw_id: i64,
    t: Locale,
) -> Result<((i64, String), Typed), ApiError> {
    ops.caller().require(kind.resource(), Access::Write)?;
    let only_draft = || ApiError::invalid_state_transition("Only a draft can be edited");
    match kind {
        Kind::Invoice => {
            let inv = ops.invoice(Id::parse(&raw_id.to_string())).await?;
            if inv.status != InvoiceStatus::Draft {
                return Err(only_draft());
            }
            Ok((
                (inv.id.0, inv.invoice_number.clone()),
                Typed::of_invoice(&inv, t),
            ))
        }
        Kind::Quotation => {
            let q = ops.quotation(Id::parse(&raw_id.to_string())).await?;
            if q.status != QuotationStatus::Draft {
                return Err(only_draft());
            }
            Ok(((q.id.0, q.quote_number.clone()), Typed::of_quotation(&q, t)))
        }
        Kind::Recurring => {
            let r = ops.recurring(Id::parse(&raw_id.to_string())).await?;
            if r.status.transition(RecurringStatus::Cancelled).is_err() {
                return Err(ApiError::invalid_state_transition(
                    "A cancelled or completed schedule cannot be changed",
                ));
            }
            // A schedule has no number: the form's title says what it is.
            Ok(((r.id.0, String::new()), Typed::of_recurring(&r, t)))
        }
    }
}

/// The form of a draft.
pub(crate) async fn edit_page(
    kind: Kind,
    me: Visitor,
    state: &AppState,
    req: &HttpRequest,
    raw_id: &str,
) -> Answer {
    let ops = me.ops(state);
    let id = parse_id(kind, raw_id)?;
    let (editing, typed) = draft(kind, &ops, id, super::locale_of(req)).await?;
    show(
        state,
        req,
        &me,
        &ops,
        kind,
        Some(editing),
        typed,
        HashMap::new(),
    )
    .await
}

pub(super) fn parse_id(kind: Kind, raw: &str) -> Result<i64, ApiError> {
    match kind {
        Kind::Invoice => Id::<InvoiceId>::parse(raw).get().map(|i| i.0),
        Kind::Quotation => Id::<QuotationId>::parse(raw).get().map(|q| q.0),
        Kind::Recurring => Id::<RecurringId>::parse(raw).get().map(|r| r.0),
    }
}
