//! The domain's property tests, one binary: money arithmetic against an independent reference,
//! and paying invoices.

mod money_props;
mod payment_props;
