//! Throwaway databases for tests: a fresh SQLite file or a fresh PostgreSQL database, migrated,
//! and removed again on drop. Under `CI=true` an unreachable PostgreSQL fails the test instead
//! of skipping it.
// Test support, built only with the `testing` feature: a failure here is the test failing.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::connection::Backend;
use crate::store::Store;
use diesel::connection::SimpleConnection;
use diesel::Connection;
use std::sync::atomic::{AtomicU32, Ordering};

static COUNTER: AtomicU32 = AtomicU32::new(0);

fn unique_name() -> String {
    format!(
        "invoicing_test_{}_{}_{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        rand_suffix()
    )
}

fn rand_suffix() -> u32 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0)
}

/// Where tests reach PostgreSQL: `TEST_POSTGRES_URL`, or the local trust-auth server.
pub fn postgres_admin_url() -> String {
    std::env::var("TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

pub struct TestDb {
    pub url: String,
    pub store: Store,
    backend: Backend,
    name: String,
}

impl TestDb {
    pub fn new(backend: Backend) -> Option<TestDb> {
        match backend {
            Backend::Sqlite => Some(TestDb::sqlite()),
            Backend::Postgres => TestDb::postgres(),
        }
    }

    pub fn sqlite() -> TestDb {
        let name = std::env::temp_dir()
            .join(format!("{}.db", unique_name()))
            .display()
            .to_string();
        let url = format!("sqlite://{name}");
        let store = Store::connect(&url, 8).expect("open SQLite");
        store.migrate().expect("migrate SQLite");
        TestDb {
            url,
            store,
            backend: Backend::Sqlite,
            name,
        }
    }

    /// A fresh database on the local PostgreSQL; `None` (skip) only outside CI.
    pub fn postgres() -> Option<TestDb> {
        let admin_url = postgres_admin_url();
        let mut admin = match diesel::PgConnection::establish(&admin_url) {
            Ok(c) => c,
            Err(e) if std::env::var("CI").as_deref() == Ok("true") => {
                panic!("PostgreSQL is required under CI but unreachable at {admin_url}: {e}")
            }
            Err(e) => {
                eprintln!("skipping a PostgreSQL test: {admin_url} unreachable ({e})");
                return None;
            }
        };
        let name = unique_name();
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("create test database");
        let (base, _) = admin_url
            .rsplit_once('/')
            .expect("URL with a database name");
        let url = format!("{base}/{name}");
        let store = Store::connect(&url, 8).expect("open PostgreSQL");
        store.migrate().expect("migrate PostgreSQL");
        Some(TestDb {
            url,
            store,
            backend: Backend::Postgres,
            name,
        })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Makes the database unreachable for the store, to test how outages are reported.
    pub fn destroy(&self) {
        match self.backend {
            Backend::Postgres => drop_pg(&self.name),
            Backend::Sqlite => {
                for suffix in ["", "-wal", "-shm"] {
                    let _ = std::fs::remove_file(format!("{}{suffix}", self.name));
                }
            }
        }
    }

    /// Asserts that the kept list counts (`document_counts`) equal the rows they count, for
    /// every kind, tenant and status, that the kept receivables (`receivable_changes`) add up to
    /// what the open invoices owe, and that the kept books and collections are the documents':
    /// what the triggers and the books' writer must keep true after any change.
    pub fn assert_kept_counts(&self) {
        use diesel::prelude::*;
        use diesel::sql_types::{BigInt, Bool, Text};
        #[derive(QueryableByName, Debug, PartialEq, Eq, PartialOrd, Ord)]
        struct Count {
            #[diesel(sql_type = Text)]
            kind: String,
            #[diesel(sql_type = BigInt)]
            account_id: i64,
            #[diesel(sql_type = Bool)]
            livemode: bool,
            #[diesel(sql_type = Text)]
            status: String,
            #[diesel(sql_type = BigInt)]
            n: i64,
        }
        let url = crate::connection::DatabaseUrl::parse(&self.url).expect("test URL");
        let Ok(mut conn) = crate::connection::establish(&url) else {
            // Gone already: a test that took the database away on purpose.
            return;
        };
        let mut kept: Vec<Count> = diesel::sql_query(
            "SELECT kind, account_id, livemode, status, n FROM document_counts WHERE n <> 0",
        )
        .load(&mut conn)
        .expect("read the kept counts");
        let mut rows: Vec<Count> = diesel::sql_query(
            "SELECT 'invoice' AS kind, account_id, livemode, status, COUNT(*) AS n FROM invoices \
               GROUP BY account_id, livemode, status \
             UNION ALL SELECT 'quotation', account_id, livemode, status, COUNT(*) FROM quotations \
               GROUP BY account_id, livemode, status \
             UNION ALL SELECT 'payment', account_id, livemode, status, COUNT(*) FROM payments \
               GROUP BY account_id, livemode, status \
             UNION ALL SELECT 'customer', account_id, livemode, '', COUNT(*) FROM customers \
               GROUP BY account_id, livemode",
        )
        .load(&mut conn)
        .expect("count the rows");
        kept.sort();
        rows.sort();
        assert_eq!(kept, rows, "the kept counts differ from the rows");
        #[derive(QueryableByName, Debug, PartialEq, Eq, PartialOrd, Ord)]
        struct Owed {
            #[diesel(sql_type = BigInt)]
            account_id: i64,
            #[diesel(sql_type = Bool)]
            livemode: bool,
            #[diesel(sql_type = Text)]
            currency: String,
            #[diesel(sql_type = BigInt)]
            owed: i64,
        }
        let mut kept: Vec<Owed> = diesel::sql_query(
            "SELECT account_id, livemode, currency, CAST(SUM(delta) AS BIGINT) AS owed \
             FROM receivable_changes GROUP BY account_id, livemode, currency \
             HAVING SUM(delta) <> 0",
        )
        .load(&mut conn)
        .expect("read the kept receivables");
        let due = "CASE WHEN total_cents - amount_paid_cents - amount_credited_cents > 0 \
                   THEN total_cents - amount_paid_cents - amount_credited_cents ELSE 0 END";
        let mut owed: Vec<Owed> = diesel::sql_query(format!(
            "SELECT account_id, livemode, currency, CAST(SUM({due}) AS BIGINT) AS owed \
             FROM invoices WHERE status IN ('sent', 'viewed', 'overdue') \
             GROUP BY account_id, livemode, currency HAVING SUM({due}) <> 0"
        ))
        .load(&mut conn)
        .expect("sum what invoices owe");
        kept.sort();
        owed.sort();
        assert_eq!(
            kept, owed,
            "the kept receivables differ from what invoices owe"
        );
        self.assert_kept_revenue(&mut conn);
    }

    /// The kept books (`booked_days`) are what the domain's rule makes of the documents, and
    /// the kept collections (`collected_days`) the verified payments' sums by day.
    fn assert_kept_revenue(&self, conn: &mut crate::connection::AnyConnection) {
        use diesel::prelude::*;
        use diesel::sql_types::{BigInt, Bool, Text};
        let recounted = crate::books::recount(conn).expect("recount the books");
        let kept = crate::books::kept(conn).expect("read the kept books");
        assert_eq!(kept, recounted, "the kept books differ from the documents");
        #[derive(QueryableByName, Debug, PartialEq, Eq, PartialOrd, Ord)]
        struct Day {
            #[diesel(sql_type = BigInt)]
            account_id: i64,
            #[diesel(sql_type = Bool)]
            livemode: bool,
            #[diesel(sql_type = Text)]
            currency: String,
            #[diesel(sql_type = Text)]
            day: String,
            #[diesel(sql_type = BigInt)]
            collected: i64,
        }
        let mut kept: Vec<Day> = diesel::sql_query(
            "SELECT account_id, livemode, currency, SUBSTR(CAST(day AS TEXT), 1, 10) AS day, \
               collected FROM collected_days WHERE collected <> 0",
        )
        .load(conn)
        .expect("read the kept collections");
        let mut sums: Vec<Day> = diesel::sql_query(
            "SELECT account_id, livemode, currency, \
               SUBSTR(CAST(collected_on AS TEXT), 1, 10) AS day, \
               CAST(SUM(amount_cents) AS BIGINT) AS collected FROM payments \
             WHERE status = 'verified' AND collected_on IS NOT NULL \
             GROUP BY account_id, livemode, currency, SUBSTR(CAST(collected_on AS TEXT), 1, 10) \
             HAVING SUM(amount_cents) <> 0",
        )
        .load(conn)
        .expect("sum the payments by day");
        kept.sort();
        sums.sort();
        assert_eq!(kept, sums, "the kept collections differ from the payments");
        // Each verified payment counts on its account's date of verification (SPEC §27).
        let zone = |conn: &mut crate::connection::AnyConnection, account: i64, live: bool| {
            let scope = invoicing_domain::tenant::Scope::new(
                invoicing_domain::tenant::AccountId(account),
                invoicing_domain::tenant::Environment::from_livemode(live),
            );
            crate::local_days::zone_of(conn, scope).expect("the account's zone")
        };
        use crate::schema::payments;
        let verified: Vec<(
            i64,
            bool,
            Option<chrono::NaiveDateTime>,
            Option<chrono::NaiveDate>,
        )> = payments::table
            .filter(payments::status.eq("verified"))
            .select((
                payments::account_id,
                payments::livemode,
                payments::verified_at,
                payments::collected_on,
            ))
            .load(conn)
            .expect("read the verified payments");
        for (account, live, at, on) in verified {
            let zone = zone(conn, account, live);
            let day = at.map(|at| zone.today(at.and_utc()));
            assert_eq!(
                on, day,
                "a payment of account {account} counts on its local day"
            );
        }
    }

    /// Runs raw SQL against the test database (for test setup only).
    pub fn execute(&self, sql: &str) {
        let url = crate::connection::DatabaseUrl::parse(&self.url).expect("test URL");
        let mut conn = crate::connection::establish(&url).expect("connect");
        conn.batch_execute(sql).expect("execute");
    }
}

/// What PostgreSQL did with the statements a store's one connection keeps prepared whose text
/// contains `text`: how often it ran each on its generic plan and how often it planned anew.
/// For a store opened with one connection, so the connection asked is the one that ran them.
#[derive(diesel::QueryableByName, Debug)]
pub struct PreparedPlans {
    #[diesel(sql_type = diesel::sql_types::Text)]
    pub statement: String,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub generic_plans: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub custom_plans: i64,
}

pub fn prepared_plans(store: &Store, text: &str) -> Vec<PreparedPlans> {
    use diesel::RunQueryDsl;
    let mut conn = store.pool.get().expect("the store's connection");
    diesel::sql_query(
        "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements \
         WHERE strpos(statement, $1) > 0",
    )
    .bind::<diesel::sql_types::Text, _>(text)
    .load(&mut conn.conn)
    .expect("read pg_prepared_statements")
}

fn drop_pg(name: &str) {
    if let Ok(mut admin) = diesel::PgConnection::establish(&postgres_admin_url()) {
        let _ = admin.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
    }
}

impl Drop for TestDb {
    /// Every test on a database ends with the kept counts and receivables checked against the
    /// rows, so each test of any crate is also a test of the triggers that keep them.
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.assert_kept_counts();
        }
        self.destroy();
    }
}

/// Declares each named test body (`fn(TestDb)`) once per backend: `sqlite::name` and
/// `postgres::name`.
#[macro_export]
macro_rules! backend_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $( #[test] fn $name() { super::$name($crate::testing::TestDb::sqlite()) } )*
        }
        mod postgres {
            $( #[test] fn $name() {
                if let Some(db) = $crate::testing::TestDb::postgres() { super::$name(db) }
            } )*
        }
    };
}

/// Noon UTC on `day`: an instant on that date in every zone from UTC−11 to UTC+11, for tests
/// that sweep "on a day" without caring where.
pub fn noon(day: chrono::NaiveDate) -> chrono::DateTime<chrono::Utc> {
    day.and_hms_opt(12, 0, 0).unwrap_or_default().and_utc()
}
