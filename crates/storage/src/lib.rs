//! Storage: the domain's repository ports implemented with diesel over PostgreSQL and SQLite
//! through one code path (`AnyConnection`), with embedded migrations for each backend.
//! The backend is chosen by the `DATABASE_URL` scheme at run time.

mod accounts;
pub mod backup;
mod books;
mod capped;
pub mod connection;
mod credit_notes;
mod customers;
mod documents;
mod emails;
mod events;
mod gateways;
mod idempotency;
mod invoice_insert;
mod invoice_list;
mod invoice_rows;
mod invoices;
mod jobs;
mod keys;
mod local_days;
mod notices;
mod outbox;
mod parties;
mod payment_proofs;
mod payment_requests;
mod payment_rows;
mod payments;
mod portal;
mod prepared;
mod product_rows;
mod products;
mod profiles;
mod quotation_flow;
mod quotation_rows;
mod quotations;
mod rate_limits;
mod recurring;
mod reports;
mod request_tx;
mod rows;
mod schema;
pub mod secrets;
mod store;
mod tx;
mod users;
pub mod wakeup;
mod watchdog;
mod webhook_queue;
mod webhooks;
mod writer;

pub use connection::{Backend, DatabaseUrl};
pub use store::{Store, StoreError};

#[cfg(feature = "testing")]
pub mod testing;
