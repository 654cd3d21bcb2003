//! The `{id}` segment of a route, typed: `Id<CustomerId>` is the customer the path names. Ids
//! are positive integers, so any other segment names no resource: 404 `resource_missing`, with
//! the noun of the id's kind ("No such customer").
//!
//! Extraction never fails on a bad id: the handler asks for the id with [`Id::get`] where it
//! needs it, after its scope check and after its body was read, so a request with a bad id and
//! also a missing scope or a broken body is answered as before (403, 400, 415 or 422, not 404).

use crate::error::ApiError;
use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use invoicing_domain::credit_note::CreditNoteId;
use invoicing_domain::customer::CustomerId;
use invoicing_domain::email::EmailId;
use invoicing_domain::event::EventId;
use invoicing_domain::invoice::InvoiceId;
use invoicing_domain::payment::PaymentId;
use invoicing_domain::product::ProductId;
use invoicing_domain::quotation::QuotationId;
use invoicing_domain::recurring::RecurringId;
use invoicing_domain::webhook::WebhookEndpointId;
use serde::Deserialize;
use std::future::{ready, Ready};

/// An id a route takes in its path.
pub trait PathId: Copy {
    /// What a missing one is called: "No such {NAME}".
    const NAME: &'static str;
    fn from_raw(id: i64) -> Self;
}

macro_rules! path_ids {
    ($($ty:ty => $name:literal),* $(,)?) => {
        $(impl PathId for $ty {
            const NAME: &'static str = $name;
            fn from_raw(id: i64) -> Self {
                Self(id)
            }
        })*
    };
}

path_ids! {
    CreditNoteId => "credit note",
    CustomerId => "customer",
    EmailId => "email",
    EventId => "event",
    InvoiceId => "invoice",
    PaymentId => "payment",
    ProductId => "product",
    QuotationId => "quotation",
    RecurringId => "recurring invoice",
    WebhookEndpointId => "webhook endpoint",
}

/// The route's `{id}`: `None` when it is not a positive integer.
#[derive(Clone, Copy, Debug)]
pub struct Id<T>(Option<T>);

impl<T: PathId> Id<T> {
    /// Reads `raw` as a path id.
    pub fn parse(raw: &str) -> Self {
        Id(raw
            .parse::<i64>()
            .ok()
            .filter(|id| *id > 0)
            .map(T::from_raw))
    }

    /// An id the caller already holds (a document it just made or read).
    pub fn of(id: T) -> Self {
        Id(Some(id))
    }

    /// The id, or 404 `resource_missing` naming `T`'s kind when the segment names none.
    pub fn get(self) -> Result<T, ApiError> {
        self.0.ok_or_else(|| ApiError::resource_missing(T::NAME))
    }
}

#[derive(Deserialize)]
struct Segment {
    id: String,
}

impl<T: PathId> FromRequest for Id<T> {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        // Through `web::Path`, which percent-decodes the segment as `Path<String>` did.
        let segment = web::Path::<Segment>::extract(req).into_inner();
        ready(match segment {
            Ok(segment) => Ok(Id::parse(&segment.id)),
            Err(_) => {
                // Only a route without `{id}` gets here: a mistake in the route table.
                log::error!("no {{id}} segment in {} for {}", req.path(), T::NAME);
                Err(ApiError::internal())
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn ids_are_positive_integers() {
        assert_eq!(Id::<CustomerId>::parse("12").get().unwrap(), CustomerId(12));
        for bad in ["0", "-1", "abc", "1.5", "", " 1", "9223372036854775808"] {
            let e = Id::<CustomerId>::parse(bad).get().unwrap_err();
            assert_eq!(
                (e.status.as_u16(), e.code),
                (404, "resource_missing"),
                "{bad}"
            );
            assert_eq!(e.message, "No such customer", "{bad}");
        }
        let e = Id::<RecurringId>::parse("x").get().unwrap_err();
        assert_eq!(e.message, "No such recurring invoice");
    }

    #[actix_web::test]
    async fn reads_the_decoded_id_segment() {
        let req = TestRequest::with_uri("/things/%31%32")
            .param("id", "%31%32")
            .to_http_request();
        let id = Id::<InvoiceId>::extract(&req).await.unwrap();
        assert_eq!(id.get().unwrap(), InvoiceId(12));
        let req = TestRequest::with_uri("/things").to_http_request();
        assert_eq!(
            Id::<InvoiceId>::extract(&req).await.unwrap_err().code,
            "internal_error"
        );
    }
}
