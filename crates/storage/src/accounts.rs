//! Accounts (tenants) and the first-start bootstrap.

use crate::connection::AnyConnection;
use crate::keys::insert_key_row;
use crate::rows::{from_db, now_db, returning};
use crate::schema::accounts;
use crate::store::{Store, TxError, BOOTSTRAP_LOCK_ID};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use invoicing_domain::api_key::{ApiKey, NewApiKey};
use invoicing_domain::currency::Currency;
use invoicing_domain::ports::{Account, AccountRepository, RepoError, RepoResult};
use invoicing_domain::tenant::AccountId;

#[derive(Queryable, Selectable)]
#[diesel(table_name = accounts)]
struct AccountRow {
    id: i64,
    name: String,
    default_currency: String,
    created_at: chrono::NaiveDateTime,
}

impl AccountRow {
    fn into_domain(self) -> Result<Account, TxError> {
        let default_currency = Currency::parse(&self.default_currency).map_err(|_| {
            RepoError::Internal(format!(
                "account {} has currency {:?}",
                self.id, self.default_currency
            ))
        })?;
        Ok(Account {
            id: AccountId(self.id),
            name: self.name,
            default_currency,
            created_at: from_db(self.created_at),
        })
    }
}

/// The account: its name and currency are a profile's defaults until it is first changed.
pub(crate) fn load_account(conn: &mut AnyConnection, id: AccountId) -> Result<Account, TxError> {
    accounts::table
        .find(id.0)
        .select(AccountRow::as_select())
        .first::<AccountRow>(conn)?
        .into_domain()
}

fn insert_account(
    conn: &mut AnyConnection,
    name: &str,
    currency: Currency,
) -> Result<Account, TxError> {
    diesel::insert_into(accounts::table)
        .values((
            accounts::name.eq(name),
            accounts::default_currency.eq(currency.code()),
            accounts::created_at.eq(now_db()),
        ))
        .returning(returning::<AccountRow>())
        .get_result::<AccountRow>(conn)?
        .into_domain()
}

impl AccountRepository for Store {
    fn create_account(&self, name: &str, default_currency: Currency) -> RepoResult<Account> {
        self.write(|conn| insert_account(conn, name, default_currency))
    }

    fn get_account(&self, id: AccountId) -> RepoResult<Account> {
        self.read(|conn| load_account(conn, id))
    }

    fn bootstrap_if_empty(
        &self,
        name: &str,
        default_currency: Currency,
        key: NewApiKey,
    ) -> RepoResult<Option<(Account, ApiKey)>> {
        self.write(|conn| {
            bootstrap_lock(conn)?;
            let existing: i64 = accounts::table.count().get_result(conn)?;
            if existing > 0 {
                return Ok(None);
            }
            let account = insert_account(conn, name, default_currency)?;
            let api_key = insert_key_row(conn, account.id, key)?;
            Ok(Some((account, api_key)))
        })
    }
}

/// Serialises the first start's bootstraps across processes on PostgreSQL, for the rest of the
/// transaction; SQLite's write transaction is exclusive already.
pub(crate) fn bootstrap_lock(conn: &mut AnyConnection) -> Result<(), TxError> {
    if let AnyConnection::Postgresql(_) = conn {
        conn.batch_execute(&format!(
            "SELECT pg_advisory_xact_lock({BOOTSTRAP_LOCK_ID})"
        ))?;
    }
    Ok(())
}
