//! The billing domain, free of I/O: money in minor units, currencies, quantities, tax and rounding,
//! validation of what clients send, API-key rules, and the repository traits (ports) that storage
//! implements. The HTTP layer and other Rust services build on these types; nothing here knows
//! about diesel, actix or any transport.
#![forbid(unsafe_code)] // only storage calls the OS; the workspace lint is `deny` for it

pub mod api_key;
pub mod contact;
pub mod credit_note;
pub mod currency;
pub mod customer;
pub mod decimal;
pub mod document;
pub mod document_lines;
pub mod document_rules;
pub mod einvoice;
pub mod email;
pub mod event;
pub mod gateway;
pub mod idempotency;
pub mod invoice;
pub mod invoice_id;
pub mod invoice_status;
pub mod ip_ranges;
mod keyed;
pub mod lines;
pub mod locale;
pub mod money;
pub mod notice;
pub mod paging;
pub mod parties;
pub mod payment;
pub mod payment_amount;
pub mod payment_proof;
pub mod payment_request;
pub mod payment_status;
pub mod portal;
pub mod ports;
pub mod product;
pub mod profile;
pub mod quotation;
pub mod quotation_status;
pub mod recurring;
pub mod refund;
pub mod report;
pub mod sharing;
pub mod supply;
pub mod tenant;
pub mod time;
pub mod time_zone;
pub mod user;
pub mod validation;
pub mod webhook;
pub mod webhook_delivery;
pub mod webhook_signature;
