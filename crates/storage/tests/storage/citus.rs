//! PostgreSQL only: the schema stays distributable by account (SPEC §12, Citus). Every tenant
//! table leads its primary key, each unique index and each foreign key to another tenant table
//! with `account_id`, so a distributed database can keep an account's rows on one node and
//! check those constraints there. A new table or index that breaks this fails here.

use diesel::prelude::*;
use diesel::sql_types::Text;
use invoicing_storage::testing::TestDb;

/// Tables looked up before the tenant is known, or not about one tenant: reference (or local)
/// tables under Citus, each with the reason.
const GLOBAL: &[(&str, &str)] = &[
    (
        "accounts",
        "the tenant itself: distributed by its own id, which is the account id",
    ),
    (
        "api_keys",
        "found by the key's hash before the account is known",
    ),
    (
        "rate_limits",
        "a bucket is taken before the key is verified (by key id or client IP)",
    ),
    (
        "users",
        "a user may belong to several accounts; found by email before any account is known",
    ),
    (
        "memberships",
        "read by user across accounts (a user's accounts, at sign-in)",
    ),
    (
        "user_sessions",
        "found by the cookie token's hash before the account is known",
    ),
    (
        "user_tokens",
        "set-password links, found by the token's hash",
    ),
    (
        "login_failures",
        "the sign-in throttle counts by email and IP, before any account is known",
    ),
    (
        "recovery_codes",
        "a user's second factor, used at sign-in before the account matters",
    ),
    (
        "notices",
        "mail to people (a password reset belongs to no account), claimed across accounts",
    ),
    (
        "gateway_accounts",
        "found by its webhook URL's endpoint name before the account is known (a Stripe event)",
    ),
    (
        "__diesel_schema_migrations",
        "the migrations' own bookkeeping",
    ),
];

#[derive(QueryableByName, Debug)]
struct Finding {
    #[diesel(sql_type = Text)]
    what: String,
}

#[test]
fn tenant_tables_lead_every_key_with_account_id() {
    let Some(db) = TestDb::postgres() else {
        return;
    };
    let url = invoicing_storage::DatabaseUrl::parse(&db.url).unwrap();
    let mut conn = invoicing_storage::connection::establish(&url).unwrap();
    let global: Vec<String> = GLOBAL.iter().map(|(t, _)| format!("'{t}'")).collect();
    let global = global.join(", ");
    let sql = format!(
        "WITH tenant AS (
           SELECT c.oid, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname NOT IN ({global})
         ),
         first_column AS (
           SELECT con.conrelid, con.conname, con.contype, con.confrelid,
                  (SELECT attname FROM pg_attribute
                   WHERE attrelid = con.conrelid AND attnum = con.conkey[1]) AS first
           FROM pg_constraint con WHERE con.contype IN ('p', 'u', 'f')
         )
         SELECT t.relname || ': table without account_id' AS what FROM tenant t
         WHERE NOT EXISTS (SELECT 1 FROM pg_attribute a
                           WHERE a.attrelid = t.oid AND a.attname = 'account_id')
         UNION ALL
         SELECT t.relname || ': ' || f.conname || ' leads with ' || f.first FROM tenant t
         JOIN first_column f ON f.conrelid = t.oid
         WHERE f.first <> 'account_id'
           AND (f.contype IN ('p', 'u') OR f.confrelid IN (SELECT oid FROM tenant))
         UNION ALL
         SELECT t.relname || ': unique index ' || i.relname || ' leads with ' || a.attname
         FROM tenant t JOIN pg_index x ON x.indrelid = t.oid AND x.indisunique
         JOIN pg_class i ON i.oid = x.indexrelid
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = x.indkey[0]
         WHERE a.attname <> 'account_id'
         ORDER BY 1"
    );
    let findings: Vec<Finding> = diesel::sql_query(sql).load(&mut conn).unwrap();
    let findings: Vec<String> = findings.into_iter().map(|f| f.what).collect();
    assert!(
        findings.is_empty(),
        "not distributable by account:\n{}",
        findings.join("\n")
    );
}

/// The list of global tables names only tables that exist, so it cannot hide a typo.
#[test]
fn the_global_tables_exist() {
    let Some(db) = TestDb::postgres() else {
        return;
    };
    let url = invoicing_storage::DatabaseUrl::parse(&db.url).unwrap();
    let mut conn = invoicing_storage::connection::establish(&url).unwrap();
    for (table, _) in GLOBAL {
        let found: Vec<Finding> = diesel::sql_query(format!(
            "SELECT relname::text AS what FROM pg_class WHERE relname = '{table}' AND relkind = 'r'"
        ))
        .load(&mut conn)
        .unwrap();
        assert_eq!(
            found.len(),
            1,
            "{table} is listed as global but does not exist"
        );
    }
}
