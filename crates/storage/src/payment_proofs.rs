//! Proof files customers attach to the transfer they report (SPEC §25): kept with the payment,
//! read only by the merchant.

use crate::connection::AnyConnection;
use crate::events::record;
use crate::payment_rows::load_payment;
use crate::rows::{now_db, scoped};
use crate::schema::payment_proofs;
use crate::store::TxError;
use diesel::prelude::*;
use invoicing_domain::gateway::ProofFile;
use invoicing_domain::payment::PaymentId;
use invoicing_domain::tenant::Scope;

pub(crate) fn attach(
    conn: &mut AnyConnection,
    scope: Scope,
    payment: PaymentId,
    file: &ProofFile,
) -> Result<(), TxError> {
    // 403/404 before anything is written.
    load_payment(conn, scope, payment)?;
    diesel::delete(scoped!(payment_proofs, scope).filter(payment_proofs::payment_id.eq(payment.0)))
        .execute(conn)?;
    diesel::insert_into(payment_proofs::table)
        .values((
            payment_proofs::account_id.eq(scope.account_id.0),
            payment_proofs::livemode.eq(scope.livemode()),
            payment_proofs::payment_id.eq(payment.0),
            payment_proofs::filename.eq(&file.filename),
            payment_proofs::content_type.eq(&file.content_type),
            payment_proofs::size.eq(file.bytes.len() as i64),
            payment_proofs::bytes.eq(&file.bytes),
            payment_proofs::created_at.eq(now_db()),
        ))
        .execute(conn)?;
    let with_proof = load_payment(conn, scope, payment)?;
    record(conn, scope, "payment.proof_uploaded", &with_proof)
}

pub(crate) fn load(
    conn: &mut AnyConnection,
    scope: Scope,
    payment: PaymentId,
) -> Result<Option<ProofFile>, TxError> {
    load_payment(conn, scope, payment)?;
    let row: Option<(String, String, Vec<u8>)> = scoped!(payment_proofs, scope)
        .filter(payment_proofs::payment_id.eq(payment.0))
        .select((
            payment_proofs::filename,
            payment_proofs::content_type,
            payment_proofs::bytes,
        ))
        .first(conn)
        .optional()?;
    Ok(row.map(|(filename, content_type, bytes)| ProofFile {
        filename,
        content_type,
        bytes,
    }))
}
