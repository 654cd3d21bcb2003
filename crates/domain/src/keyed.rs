//! Which lists a keyset walk reads (the exports): each item continues the walk from its
//! `created_at` and `id`. Kept apart from `paging` so the paging types name no resource.

use crate::paging::{Cursor, Keyed};

/// Every exported list's item continues a walk from its `created_at` and `id`.
macro_rules! keyed {
    ($($ty:ty => |$x:ident| $id:expr),* $(,)?) => {$(
        impl Keyed for $ty {
            fn cursor(&self) -> Cursor {
                let $x = self;
                Cursor { created_at: $x.created_at, id: $id }
            }
        }
    )*};
}

keyed! {
    crate::invoice::Invoice => |x| x.id.0,
    crate::invoice::InvoiceSummary => |x| x.id.0,
    crate::quotation::Quotation => |x| x.id.0,
    crate::customer::Customer => |x| x.id.0,
    crate::payment::Payment => |x| x.id.0,
    crate::product::Product => |x| x.id.0,
    crate::credit_note::CreditNote => |x| x.id.0,
    crate::recurring::RecurringInvoice => |x| x.id.0,
    crate::email::OutgoingEmail => |x| x.id.0,
    crate::event::Event => |x| x.id.0,
    crate::webhook::WebhookEndpoint => |x| x.id.0,
    crate::webhook_delivery::DeliveryAttempt => |x| x.id,
}
