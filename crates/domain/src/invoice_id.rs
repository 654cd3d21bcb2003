//! An invoice's id: payments, credit notes and emails name it, and the invoice lists them in
//! turn, so it stands apart from both.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct InvoiceId(pub i64);
