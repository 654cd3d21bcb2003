//! The merchant's profile and logo (SPEC §16), one row per account and environment. A profile
//! never changed has no row and reads as its defaults; the first change writes the row, under
//! the conflict rule of both backends so two first changes cannot both insert.

use crate::accounts::load_account;
use crate::connection::AnyConnection;
use crate::rows::{from_db, now_db, scoped};
use crate::schema::{account_logos, account_profiles};
use crate::store::{Store, TxError};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Binary, Bool, Text, Timestamp};
use invoicing_domain::currency::Currency;
use invoicing_domain::customer::{Address, Email};
use invoicing_domain::einvoice::{TaxRounding, VatId};
use invoicing_domain::locale::Locale;
use invoicing_domain::ports::{ProfileRepository, RepoError, RepoResult};
use invoicing_domain::profile::{BrandColor, ImageKind, Logo, Profile, ProfilePatch, Reminders};
use invoicing_domain::tenant::{Environment, Scope};
use invoicing_domain::time_zone::TimeZone;

#[derive(Queryable, Selectable)]
#[diesel(table_name = account_profiles)]
struct ProfileRow {
    account_id: i64,
    livemode: bool,
    name: String,
    legal_name: Option<String>,
    email: Option<String>,
    phone: Option<String>,
    website: Option<String>,
    address: Option<String>,
    tax_id: Option<String>,
    payment_instructions: Option<String>,
    invoice_footer: Option<String>,
    locale: String,
    brand_color: Option<String>,
    default_currency: String,
    reminders: String,
    send_receipts: bool,
    created_at: chrono::NaiveDateTime,
    updated_at: chrono::NaiveDateTime,
    vat_id: Option<String>,
    electronic_address: Option<String>,
    bank_account: Option<String>,
    contact: Option<String>,
    tax_rounding: String,
    time_zone: String,
}

/// A structured field kept as JSON text.
fn from_json<T: serde::de::DeserializeOwned>(text: &Option<String>) -> Result<Option<T>, ()> {
    text.as_deref()
        .map(serde_json::from_str)
        .transpose()
        .map_err(|_| ())
}

fn to_json<T: serde::Serialize>(value: &Option<T>) -> Result<Option<String>, TxError> {
    value
        .as_ref()
        .map(serde_json::to_string)
        .transpose()
        .map_err(|e| RepoError::Internal(format!("profile field: {e}")).into())
}

impl ProfileRow {
    fn into_domain(self, has_logo: bool) -> Result<Profile, TxError> {
        let bad = |what: &str| {
            TxError::from(RepoError::Internal(format!(
                "account {} profile has an unreadable {what}",
                self.account_id
            )))
        };
        let address = match &self.address {
            None => None,
            Some(text) => Some(serde_json::from_str::<Address>(text).map_err(|_| bad("address"))?),
        };
        Ok(Profile {
            id: self.account_id,
            object: Profile::OBJECT,
            livemode: self.livemode,
            email: match &self.email {
                None => None,
                Some(e) => Some(Email::parse(e).map_err(|_| bad("email"))?),
            },
            address,
            locale: Locale::parse(&self.locale).ok_or_else(|| bad("locale"))?,
            brand_color: match &self.brand_color {
                None => None,
                Some(c) => Some(BrandColor::parse(c).ok_or_else(|| bad("brand colour"))?),
            },
            default_currency: Currency::parse(&self.default_currency)
                .map_err(|_| bad("currency"))?,
            reminders: Reminders::from_json(&self.reminders),
            vat_id: self.vat_id.map(VatId::from_stored),
            electronic_address: from_json(&self.electronic_address)
                .map_err(|_| bad("electronic address"))?,
            bank_account: from_json(&self.bank_account).map_err(|_| bad("bank account"))?,
            contact: from_json(&self.contact).map_err(|_| bad("contact"))?,
            tax_rounding: TaxRounding::parse(&self.tax_rounding)
                .ok_or_else(|| bad("tax rounding"))?,
            time_zone: TimeZone::from_stored(&self.time_zone),
            name: self.name,
            legal_name: self.legal_name,
            phone: self.phone,
            website: self.website,
            tax_id: self.tax_id,
            payment_instructions: self.payment_instructions,
            invoice_footer: self.invoice_footer,
            send_receipts: self.send_receipts,
            has_logo,
            created_at: from_db(self.created_at),
            updated_at: from_db(self.updated_at),
        })
    }
}

fn has_logo(conn: &mut AnyConnection, scope: Scope) -> Result<bool, TxError> {
    Ok(diesel::select(diesel::dsl::exists(scoped!(account_logos, scope))).get_result(conn)?)
}

/// The profile as stored, or the defaults an account starts with.
/// The account's own address in this environment, if its profile has one: where a customer's
/// phone written without `+` is dialled when the customer names no country (SPEC §26).
pub(crate) fn address_of(
    conn: &mut AnyConnection,
    scope: Scope,
) -> Result<Option<Address>, TxError> {
    let stored: Option<Option<String>> = account_profiles::table
        .filter(account_profiles::account_id.eq(scope.account_id.0))
        .filter(account_profiles::livemode.eq(scope.livemode()))
        .select(account_profiles::address)
        .first(conn)
        .optional()?;
    Ok(stored
        .flatten()
        .and_then(|text| serde_json::from_str::<Address>(&text).ok()))
}

pub(crate) fn load_profile(conn: &mut AnyConnection, scope: Scope) -> Result<Profile, TxError> {
    let logo = has_logo(conn, scope)?;
    profile_with(conn, scope, logo)
}

/// The profile without asking whether there is a logo (`has_logo` reads false): for what only
/// reads its fields, such as an e-invoice check.
pub(crate) fn load_profile_fields(
    conn: &mut AnyConnection,
    scope: Scope,
) -> Result<Profile, TxError> {
    profile_with(conn, scope, false)
}

fn profile_with(conn: &mut AnyConnection, scope: Scope, logo: bool) -> Result<Profile, TxError> {
    let row = scoped!(account_profiles, scope)
        .select(ProfileRow::as_select())
        .first::<ProfileRow>(conn)
        .optional()?;
    match row {
        Some(row) => row.into_domain(logo),
        None => {
            let account = load_account(conn, scope.account_id)?;
            Ok(Profile {
                id: scope.account_id.0,
                object: Profile::OBJECT,
                livemode: scope.livemode(),
                name: account.name,
                legal_name: None,
                email: None,
                phone: None,
                website: None,
                address: None,
                tax_id: None,
                payment_instructions: None,
                invoice_footer: None,
                locale: Locale::DEFAULT,
                brand_color: None,
                default_currency: account.default_currency,
                reminders: Reminders::default(),
                send_receipts: false,
                vat_id: None,
                electronic_address: None,
                bank_account: None,
                contact: None,
                tax_rounding: TaxRounding::default(),
                time_zone: TimeZone::UTC,
                has_logo: logo,
                created_at: account.created_at,
                updated_at: account.created_at,
            })
        }
    }
}

fn save(conn: &mut AnyConnection, scope: Scope, p: &Profile) -> Result<(), TxError> {
    let address = p
        .address
        .as_ref()
        .map(serde_json::to_string)
        .transpose()
        .map_err(|e| RepoError::Internal(format!("profile address: {e}")))?;
    let now = now_db();
    // The row first (the same statement on both backends: two first changes cannot both
    // insert), then every field.
    diesel::sql_query(
        "INSERT INTO account_profiles (account_id, livemode, name, locale, default_currency, \
         reminders, send_receipts, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, '[]', FALSE, $6, $6) ON CONFLICT DO NOTHING",
    )
    .bind::<BigInt, _>(scope.account_id.0)
    .bind::<Bool, _>(scope.livemode())
    .bind::<Text, _>(&p.name)
    .bind::<Text, _>(p.locale.code())
    .bind::<Text, _>(p.default_currency.code())
    .bind::<Timestamp, _>(now)
    .execute(conn)?;
    diesel::update(scoped!(account_profiles, scope))
        .set((
            account_profiles::name.eq(&p.name),
            account_profiles::legal_name.eq(&p.legal_name),
            account_profiles::email.eq(p.email.as_ref().map(Email::as_str)),
            account_profiles::phone.eq(&p.phone),
            account_profiles::website.eq(&p.website),
            account_profiles::address.eq(&address),
            account_profiles::tax_id.eq(&p.tax_id),
            account_profiles::payment_instructions.eq(&p.payment_instructions),
            account_profiles::invoice_footer.eq(&p.invoice_footer),
            account_profiles::locale.eq(p.locale.code()),
            account_profiles::brand_color.eq(p.brand_color.map(|c| c.to_string())),
            account_profiles::default_currency.eq(p.default_currency.code()),
            account_profiles::reminders.eq(p.reminders.to_json()),
            account_profiles::send_receipts.eq(p.send_receipts),
            account_profiles::vat_id.eq(p.vat_id.as_ref().map(VatId::as_str)),
            account_profiles::electronic_address.eq(to_json(&p.electronic_address)?),
            account_profiles::bank_account.eq(to_json(&p.bank_account)?),
            account_profiles::contact.eq(to_json(&p.contact)?),
            account_profiles::tax_rounding.eq(p.tax_rounding.as_str()),
            account_profiles::time_zone.eq(p.time_zone.name()),
            account_profiles::updated_at.eq(now),
        ))
        .execute(conn)?;
    Ok(())
}

impl ProfileRepository for Store {
    fn get_profile(&self, scope: Scope) -> RepoResult<Profile> {
        self.read(|conn| load_profile(conn, scope))
    }

    fn time_zone(&self, scope: Scope) -> RepoResult<TimeZone> {
        self.read(|conn| crate::local_days::zone_of(conn, scope))
    }

    fn update_profile(&self, scope: Scope, patch: ProfilePatch) -> RepoResult<Profile> {
        self.write(|conn| {
            let changed = load_profile(conn, scope)?.apply(patch);
            save(conn, scope, &changed)?;
            load_profile(conn, scope)
        })
    }

    fn put_logo(&self, scope: Scope, logo: Logo) -> RepoResult<()> {
        self.write(|conn| {
            diesel::sql_query(
                "INSERT INTO account_logos (account_id, livemode, content_type, bytes, updated_at) \
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (account_id, livemode) DO UPDATE SET \
                 content_type = excluded.content_type, bytes = excluded.bytes, \
                 updated_at = excluded.updated_at",
            )
            .bind::<BigInt, _>(scope.account_id.0)
            .bind::<Bool, _>(scope.livemode())
            .bind::<Text, _>(logo.kind.content_type())
            .bind::<Binary, _>(&logo.bytes)
            .bind::<Timestamp, _>(now_db())
            .execute(conn)?;
            Ok(())
        })
    }

    fn get_logo(&self, scope: Scope) -> RepoResult<Option<Logo>> {
        self.read(|conn| load_logo(conn, scope))
    }

    fn delete_logo(&self, scope: Scope) -> RepoResult<bool> {
        self.write(|conn| Ok(diesel::delete(scoped!(account_logos, scope)).execute(conn)? > 0))
    }

    fn copy_profile_to_live(&self, scope: Scope) -> RepoResult<Profile> {
        let test = Scope::new(scope.account_id, Environment::Test);
        let live = Scope::new(scope.account_id, Environment::Live);
        self.write(|conn| {
            let profile = load_profile(conn, test)?;
            save(conn, live, &profile)?;
            diesel::delete(scoped!(account_logos, live)).execute(conn)?;
            if let Some(logo) = load_logo(conn, test)? {
                diesel::insert_into(account_logos::table)
                    .values((
                        account_logos::account_id.eq(scope.account_id.0),
                        account_logos::livemode.eq(true),
                        account_logos::content_type.eq(logo.kind.content_type()),
                        account_logos::bytes.eq(&logo.bytes),
                        account_logos::updated_at.eq(now_db()),
                    ))
                    .execute(conn)?;
            }
            load_profile(conn, live)
        })
    }
}

/// The account's current logo, if any.
pub(crate) fn load_logo(conn: &mut AnyConnection, scope: Scope) -> Result<Option<Logo>, TxError> {
    let row: Option<(String, Vec<u8>)> = scoped!(account_logos, scope)
        .select((account_logos::content_type, account_logos::bytes))
        .first(conn)
        .optional()?;
    row.map(|(content_type, bytes)| {
        ImageKind::from_content_type(&content_type)
            .map(|kind| Logo { kind, bytes })
            .ok_or_else(|| RepoError::Internal(format!("logo of type {content_type:?}")).into())
    })
    .transpose()
}
