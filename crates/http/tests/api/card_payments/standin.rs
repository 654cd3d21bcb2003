//! The Stripe stand-in the card tests run against (`invoicing_gateway_stripe::testing`).

pub use invoicing_gateway_stripe::testing::{Account, StandIn};
