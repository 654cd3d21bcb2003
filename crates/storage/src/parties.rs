//! Who a document is from and to (SPEC §9): copied into the document's row when it leaves
//! draft, read live while it is one. The logo a copy names is kept by content hash in
//! `document_logos`, once however many documents show it.

use crate::connection::AnyConnection;
use crate::customers::load_scoped;
use crate::profiles::{load_logo, load_profile, load_profile_fields};
use crate::rows::scoped;
use crate::schema::{document_logos, invoices, quotations};
use crate::store::TxError;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Binary, Text};
use invoicing_domain::customer::{Customer, CustomerId};
use invoicing_domain::document::DocumentKind;
use invoicing_domain::parties::{Issuer, Parties, Recipient};
use invoicing_domain::ports::RepoError;
use invoicing_domain::profile::{ImageKind, Logo, Profile};
use invoicing_domain::tenant::Scope;
use sha2::{Digest, Sha256};

fn hash(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The parties as they are now, with the current logo.
fn live(
    conn: &mut AnyConnection,
    scope: Scope,
    customer: CustomerId,
) -> Result<(Parties, Option<Logo>), TxError> {
    let profile = load_profile(conn, scope)?;
    let customer = load_scoped(conn, scope, customer)?;
    current(conn, scope, &profile, &customer)
}

/// Refuses (422 naming the `account.*` fields) to fix a live document's parties while the
/// profile lacks what the domain requires of a seller (`Profile::missing_to_send`).
pub(crate) fn sendable(profile: &Profile) -> Result<(), TxError> {
    let missing = profile.missing_to_send();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(RepoError::Invalid(missing).into())
    }
}

/// The parties as the profile and the customer are now, and the logo.
pub(crate) fn current(
    conn: &mut AnyConnection,
    scope: Scope,
    profile: &Profile,
    customer: &Customer,
) -> Result<(Parties, Option<Logo>), TxError> {
    let logo = load_logo(conn, scope)?;
    let issuer = Issuer::from_profile(profile, logo.as_ref().map(|l| hash(&l.bytes)));
    let recipient = Recipient::from_customer(customer);
    Ok((Parties { issuer, recipient }, logo))
}

fn json<T: serde::Serialize>(value: &T) -> Result<String, TxError> {
    serde_json::to_string(value)
        .map_err(|e| RepoError::Internal(format!("document parties: {e}")).into())
}

/// Copies the parties into the document's row: called by the status move that takes it out
/// of draft, inside its transaction.
pub(crate) fn keep_parties(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: DocumentKind,
    id: i64,
    customer: CustomerId,
) -> Result<(), TxError> {
    let profile = load_profile(conn, scope)?;
    sendable(&profile)?;
    let customer = load_scoped(conn, scope, customer)?;
    let (parties, logo) = current(conn, scope, &profile, &customer)?;
    if let (Some(logo), Some(h)) = (&logo, &parties.issuer.logo) {
        diesel::sql_query(
            "INSERT INTO document_logos (account_id, hash, content_type, bytes) \
             VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
        )
        .bind::<BigInt, _>(scope.account_id.0)
        .bind::<Text, _>(h)
        .bind::<Text, _>(logo.kind.content_type())
        .bind::<Binary, _>(&logo.bytes)
        .execute(conn)?;
    }
    let (issuer, recipient) = (json(&parties.issuer)?, json(&parties.recipient)?);
    match kind {
        DocumentKind::Invoice => {
            diesel::update(scoped!(invoices, scope).filter(invoices::id.eq(id)))
                .set((
                    invoices::issuer.eq(issuer),
                    invoices::recipient.eq(recipient),
                ))
                .execute(conn)?
        }
        // A credit note shows its invoice's parties, kept when the invoice was sent; a
        // schedule is never sent itself.
        DocumentKind::CreditNote | DocumentKind::RecurringInvoice => 0,
        DocumentKind::Quotation => {
            diesel::update(scoped!(quotations, scope).filter(quotations::id.eq(id)))
                .set((
                    quotations::issuer.eq(issuer),
                    quotations::recipient.eq(recipient),
                ))
                .execute(conn)?
        }
    };
    Ok(())
}

/// The parties a document shows, with its logo: for pages, PDFs and email attachments.
pub(crate) fn document_parties(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: DocumentKind,
    id: i64,
    customer: CustomerId,
) -> Result<(Parties, Option<Logo>), TxError> {
    let Some(parties) = kept(conn, scope, kind, id)? else {
        return live(conn, scope, customer);
    };
    let logo = match &parties.issuer.logo {
        None => None,
        Some(h) => document_logos::table
            .filter(document_logos::account_id.eq(scope.account_id.0))
            .filter(document_logos::hash.eq(h))
            .select((document_logos::content_type, document_logos::bytes))
            .first::<(String, Vec<u8>)>(conn)
            .optional()?
            .and_then(|(t, bytes)| {
                ImageKind::from_content_type(&t).map(|kind| Logo { kind, bytes })
            }),
    };
    Ok((parties, logo))
}

/// An invoice's parties for its e-invoice check (the dashboard's invoice screen): the kept copy
/// once sent (one statement), else the live profile and customer; no logo.
pub(crate) fn invoice_parties(
    conn: &mut AnyConnection,
    scope: Scope,
    invoice: &invoicing_domain::invoice::Invoice,
) -> Result<Parties, TxError> {
    if invoice.status != invoicing_domain::invoice_status::InvoiceStatus::Draft {
        if let Some(parties) = kept(conn, scope, DocumentKind::Invoice, invoice.id.0)? {
            return Ok(parties);
        }
    }
    let profile = load_profile_fields(conn, scope)?;
    let customer = load_scoped(conn, scope, invoice.customer_id)?;
    Ok(Parties {
        issuer: Issuer::from_profile(&profile, None),
        recipient: Recipient::from_customer(&customer),
    })
}

/// The parties a document shows, without the logo's bytes (an email's recipient and subject).
pub(crate) fn kept_parties(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: DocumentKind,
    id: i64,
    customer: CustomerId,
) -> Result<Parties, TxError> {
    match kept(conn, scope, kind, id)? {
        Some(parties) => Ok(parties),
        None => Ok(live(conn, scope, customer)?.0),
    }
}

/// The document's copy of its parties once it has left draft; a credit note shows its
/// invoice's. `None` for a draft: it shows the live ones.
fn kept(
    conn: &mut AnyConnection,
    scope: Scope,
    kind: DocumentKind,
    id: i64,
) -> Result<Option<Parties>, TxError> {
    if kind == DocumentKind::CreditNote {
        let invoice = crate::credit_notes::credit_note_ref(conn, scope, id)?.invoice_id;
        return kept(conn, scope, DocumentKind::Invoice, invoice);
    }
    let kept: Option<(Option<String>, Option<String>)> = match kind {
        DocumentKind::Invoice => scoped!(invoices, scope)
            .filter(invoices::id.eq(id))
            .select((invoices::issuer, invoices::recipient))
            .first(conn)
            .optional()?,
        DocumentKind::Quotation => scoped!(quotations, scope)
            .filter(quotations::id.eq(id))
            .select((quotations::issuer, quotations::recipient))
            .first(conn)
            .optional()?,
        DocumentKind::CreditNote | DocumentKind::RecurringInvoice => None,
    };
    let Some((Some(issuer), Some(recipient))) = kept else {
        return Ok(None);
    };
    let unreadable =
        |e: serde_json::Error| RepoError::Internal(format!("document {id} parties: {e}"));
    let issuer: Issuer = serde_json::from_str(&issuer).map_err(unreadable)?;
    let recipient: Recipient = serde_json::from_str(&recipient).map_err(unreadable)?;
    Ok(Some(Parties { issuer, recipient }))
}
