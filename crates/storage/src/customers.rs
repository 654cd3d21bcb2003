//! Customers: one row per email per tenant, enforced by a unique index.

use crate::capped::{capped_page, count_up_to_cap, kept_page, uncounted_page};
use crate::connection::AnyConnection;
use crate::events::record;
use crate::rows::{from_db, lower, missing_or_forbidden, now_db, returning, scoped};
use crate::schema::{customers, invoices, payments, quotations};
use crate::store::{Store, TxError};
use chrono::NaiveDateTime;
use diesel::prelude::*;
use invoicing_domain::contact::phone_e164;
use invoicing_domain::customer::{
    Address, Created, Customer, CustomerFilter, CustomerId, CustomerPatch, Email, NewCustomer,
};
use invoicing_domain::einvoice::VatId;
use invoicing_domain::locale::Locale;
use invoicing_domain::paging::{Page, PageRequest};
use invoicing_domain::ports::{CustomerRepository, RepoError, RepoResult};
use invoicing_domain::tenant::Scope;
use invoicing_domain::validation::Metadata;

#[derive(Queryable, Selectable)]
#[diesel(table_name = customers)]
struct CustomerRow {
    id: i64,
    livemode: bool,
    name: String,
    email: String,
    phone: Option<String>,
    company: Option<String>,
    address: Option<String>,
    metadata: String,
    created_at: NaiveDateTime,
    updated_at: NaiveDateTime,
    locale: Option<String>,
    tax_id: Option<String>,
    vat_id: Option<String>,
    electronic_address: Option<String>,
    phone_e164: Option<String>,
}

impl CustomerRow {
    fn into_domain(self) -> Result<Customer, TxError> {
        let email = Email::parse(&self.email)
            .map_err(|_| RepoError::Internal(format!("customer {} has a bad email", self.id)))?;
        let address =
            match self.address {
                None => None,
                Some(text) => Some(serde_json::from_str::<Address>(&text).map_err(|e| {
                    RepoError::Internal(format!("customer {} address: {e}", self.id))
                })?),
            };
        Ok(Customer {
            id: CustomerId(self.id),
            object: Customer::OBJECT,
            name: self.name,
            email,
            phone: self.phone,
            phone_e164: self.phone_e164,
            company: self.company,
            address,
            // A code no longer known falls back to the account's locale, not a failed read.
            locale: self.locale.as_deref().and_then(Locale::parse),
            tax_id: self.tax_id,
            vat_id: self.vat_id.map(VatId::from_stored),
            electronic_address: match self.electronic_address {
                None => None,
                Some(text) => Some(serde_json::from_str(&text).map_err(|e| {
                    RepoError::Internal(format!("customer {} electronic address: {e}", self.id))
                })?),
            },
            metadata: Metadata::from_json(&self.metadata),
            livemode: self.livemode,
            created_at: from_db(self.created_at),
            updated_at: from_db(self.updated_at),
        })
    }
}

/// The customer's phone in E.164 (SPEC §26) by the domain's rule: from its `+`, or as written
/// in the country of the customer's address, or else of the account's; a number that cannot be
/// dialled there is refused on `phone`.
fn dialled(
    conn: &mut AnyConnection,
    scope: Scope,
    phone: Option<&str>,
    address: Option<&Address>,
) -> Result<Option<String>, TxError> {
    let Some(phone) = phone else {
        return Ok(None);
    };
    let own = address.and_then(|a| a.country.as_deref());
    let home = if phone.trim_start().starts_with('+') {
        None
    } else {
        crate::profiles::address_of(conn, scope)?.and_then(|a| a.country)
    };
    phone_e164(phone, &[own, home.as_deref()])
        .map_err(|problem| RepoError::invalid("phone", problem).into())
}

/// A structured field (address, electronic address) as its JSON column keeps it.
fn json_column<T: serde::Serialize>(value: &Option<T>) -> Option<String> {
    value
        .as_ref()
        .map(|a| serde_json::to_string(a).unwrap_or_else(|_| "{}".into()))
}

const EMAIL_TAKEN: &str = "another customer already has this email";
const IN_USE: &str = "documents or payments refer to this customer, so it cannot be deleted";

pub(crate) fn find_by_email(
    conn: &mut AnyConnection,
    scope: Scope,
    email: &Email,
) -> Result<Option<Customer>, TxError> {
    scoped!(customers, scope)
        .filter(customers::email_normalized.eq(email.normalized()))
        .select(CustomerRow::as_select())
        .first::<CustomerRow>(conn)
        .optional()?
        .map(CustomerRow::into_domain)
        .transpose()
}

/// Finds the customer with this email or inserts it, inside the caller's transaction. Documents
/// with an inline customer use the same path, so both behave exactly as SPEC §8 says.
pub(crate) fn find_or_insert(
    conn: &mut AnyConnection,
    scope: Scope,
    new: &NewCustomer,
) -> Result<Created<Customer>, TxError> {
    if let Some(existing) = find_by_email(conn, scope, &new.email)? {
        return Ok(Created::Existing(existing));
    }
    let now = now_db();
    let phone_e164 = dialled(conn, scope, new.phone.as_deref(), new.address.as_ref())?;
    let row = diesel::insert_into(customers::table)
        .values((
            customers::account_id.eq(scope.account_id.0),
            customers::livemode.eq(scope.livemode()),
            customers::name.eq(&new.name),
            customers::email.eq(new.email.as_str()),
            customers::email_normalized.eq(new.email.normalized()),
            customers::phone.eq(&new.phone),
            customers::phone_e164.eq(phone_e164),
            customers::company.eq(&new.company),
            customers::address.eq(json_column(&new.address)),
            customers::locale.eq(new.locale.map(Locale::code)),
            customers::tax_id.eq(&new.tax_id),
            customers::vat_id.eq(new.vat_id.as_ref().map(VatId::as_str)),
            customers::electronic_address.eq(json_column(&new.electronic_address)),
            customers::metadata.eq(new.metadata.to_json()),
            customers::created_at.eq(now),
            customers::updated_at.eq(now),
        ))
        .returning(returning::<CustomerRow>())
        .get_result::<CustomerRow>(conn)?;
    Ok(Created::New(row.into_domain()?))
}

/// [`find_or_insert`] plus the `customer.created` event when a customer is made.
pub(crate) fn find_or_insert_with_event(
    conn: &mut AnyConnection,
    scope: Scope,
    new: &NewCustomer,
) -> Result<Created<Customer>, TxError> {
    let created = find_or_insert(conn, scope, new)?;
    if let Created::New(c) = &created {
        record(conn, scope, "customer.created", c)?;
    }
    Ok(created)
}

pub(crate) fn load_scoped(
    conn: &mut AnyConnection,
    scope: Scope,
    id: CustomerId,
) -> Result<Customer, TxError> {
    match scoped!(customers, scope)
        .filter(customers::id.eq(id.0))
        .select(CustomerRow::as_select())
        .first::<CustomerRow>(conn)
        .optional()?
    {
        Some(row) => row.into_domain(),
        None => Err(missing_or_forbidden!(conn, customers, id.0).into()),
    }
}

impl CustomerRepository for Store {
    fn customer_names(
        &self,
        scope: Scope,
        ids: &[CustomerId],
    ) -> RepoResult<Vec<(CustomerId, String, String)>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let raw: Vec<i64> = ids.iter().map(|c| c.0).collect();
        self.read(|conn| {
            let rows: Vec<(i64, String, String)> = scoped!(customers, scope)
                .filter(customers::id.eq_any(&raw))
                .select((customers::id, customers::name, customers::email))
                .load(conn)?;
            Ok(rows
                .into_iter()
                .map(|(id, name, email)| (CustomerId(id), name, email))
                .collect())
        })
    }

    fn create_customer(&self, scope: Scope, new: NewCustomer) -> RepoResult<Created<Customer>> {
        // A concurrent create of the same email can win between our lookup and insert (PostgreSQL
        // at READ COMMITTED); the unique index refuses ours, and the retry finds theirs.
        self.write_retrying_unique(|conn| find_or_insert_with_event(conn, scope, &new))
    }

    fn get_customer(&self, scope: Scope, id: CustomerId) -> RepoResult<Customer> {
        self.read(|conn| load_scoped(conn, scope, id))
    }

    fn list_customers(
        &self,
        scope: Scope,
        filter: &CustomerFilter,
        page: PageRequest,
    ) -> RepoResult<Page<Customer>> {
        let email = filter.email.as_ref().map(|e| e.trim().to_lowercase());
        self.read(|conn| {
            let mut count = scoped!(customers, scope).into_boxed();
            let mut rows = scoped!(customers, scope).into_boxed();
            if let Some(email) = &email {
                count = count.filter(customers::email_normalized.eq(email.clone()));
                rows = rows.filter(customers::email_normalized.eq(email.clone()));
            }
            if let Some(text) = &filter.search {
                let pattern = text.like_pattern();
                let matches = || {
                    lower(customers::name)
                        .like(pattern.clone())
                        .escape('\\')
                        .or(customers::email_normalized
                            .like(pattern.clone())
                            .escape('\\'))
                };
                count = count.filter(matches());
                rows = rows.filter(matches());
            }
            let rows = crate::rows::below!(rows, customers, page)
                .order((customers::created_at.desc(), customers::id.desc()))
                .limit(page.limit() + 1)
                .offset(page.offset())
                .select(CustomerRow::as_select())
                .load::<CustomerRow>(conn)?;
            let convert =
                |rows: Vec<CustomerRow>| rows.into_iter().map(CustomerRow::into_domain).collect();
            if !page.counts() {
                return uncounted_page(rows, page, convert);
            }
            if email.is_none() && filter.search.is_none() {
                let total = crate::documents::kept_count(conn, scope, "customer", None)?;
                return kept_page(rows, page, total, convert);
            }
            let counted = count_up_to_cap(conn, count.select(customers::id))?;
            capped_page(rows, page, counted, convert)
        })
    }

    fn update_customer(
        &self,
        scope: Scope,
        id: CustomerId,
        patch: CustomerPatch,
    ) -> RepoResult<Customer> {
        let result = self.try_write(|conn| {
            let current = load_scoped(conn, scope, id)?;
            if let Some(email) = &patch.email {
                if let Some(other) = find_by_email(conn, scope, email)? {
                    if other.id != current.id {
                        return Err(RepoError::InUse(EMAIL_TAKEN.into()).into());
                    }
                }
            }
            // E.164 is worked out when the phone or the address is written, so a change that
            // touches neither is never refused over a number stored before.
            let redial = patch.phone.is_some() || patch.address.is_some();
            let name = patch.name.unwrap_or(current.name);
            let email = patch.email.unwrap_or(current.email);
            let phone = patch.phone.unwrap_or(current.phone);
            let company = patch.company.unwrap_or(current.company);
            let address = patch.address.unwrap_or(current.address);
            let locale = patch.locale.unwrap_or(current.locale);
            let tax_id = patch.tax_id.unwrap_or(current.tax_id);
            let vat_id = patch.vat_id.unwrap_or(current.vat_id);
            let electronic_address = patch
                .electronic_address
                .unwrap_or(current.electronic_address);
            let metadata = patch.metadata.unwrap_or(current.metadata);
            let phone_e164 = if redial {
                dialled(conn, scope, phone.as_deref(), address.as_ref())?
            } else {
                current.phone_e164
            };
            diesel::update(scoped!(customers, scope).filter(customers::id.eq(id.0)))
                .set((
                    customers::name.eq(name),
                    customers::email.eq(email.as_str()),
                    customers::email_normalized.eq(email.normalized()),
                    customers::phone.eq(phone),
                    customers::phone_e164.eq(phone_e164),
                    customers::company.eq(company),
                    customers::address.eq(json_column(&address)),
                    customers::locale.eq(locale.map(Locale::code)),
                    customers::tax_id.eq(tax_id),
                    customers::vat_id.eq(vat_id.as_ref().map(VatId::as_str)),
                    customers::electronic_address.eq(json_column(&electronic_address)),
                    customers::metadata.eq(metadata.to_json()),
                    customers::updated_at.eq(now_db()),
                ))
                .execute(conn)?;
            let updated = load_scoped(conn, scope, id)?;
            record(conn, scope, "customer.updated", &updated)?;
            Ok(updated)
        });
        // Two renames to the same email at once: the unique index stops the second.
        result.map_err(|e| {
            if e.is_unique_violation() {
                RepoError::InUse(EMAIL_TAKEN.into())
            } else {
                e.into_repo()
            }
        })
    }

    fn delete_customer(&self, scope: Scope, id: CustomerId) -> RepoResult<()> {
        let result = self.try_write(|conn| {
            let customer = load_scoped(conn, scope, id)?;
            let invoiced: bool = diesel::select(diesel::dsl::exists(
                scoped!(invoices, scope).filter(invoices::customer_id.eq(id.0)),
            ))
            .get_result(conn)?;
            let quoted: bool = diesel::select(diesel::dsl::exists(
                scoped!(quotations, scope).filter(quotations::customer_id.eq(id.0)),
            ))
            .get_result(conn)?;
            let paid: bool = diesel::select(diesel::dsl::exists(
                scoped!(payments, scope).filter(payments::customer_id.eq(id.0)),
            ))
            .get_result(conn)?;
            if invoiced || quoted || paid {
                return Err(RepoError::InUse(IN_USE.into()).into());
            }
            diesel::delete(scoped!(customers, scope).filter(customers::id.eq(id.0)))
                .execute(conn)?;
            record(conn, scope, "customer.deleted", &customer)?;
            Ok(())
        });
        // Documents added by a racing transaction are still caught by the foreign key.
        result.map_err(|e| {
            if e.is_foreign_key_violation() {
                RepoError::InUse(IN_USE.into())
            } else {
                e.into_repo()
            }
        })
    }
}
