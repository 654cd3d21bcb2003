//! Customers on both backends: idempotent create (also concurrent), tenant isolation, paging,
//! updates and deletes.

use invoicing_domain::currency::Currency;
use invoicing_domain::customer::{
    Created, CustomerFilter, CustomerId, CustomerInput, CustomerPatch, CustomerPatchInput,
    NewCustomer,
};
use invoicing_domain::paging::PageRequest;
use invoicing_domain::ports::{AccountRepository, CustomerRepository, RepoError};
use invoicing_domain::tenant::{Environment, Scope};
use invoicing_storage::backend_tests;
use invoicing_storage::testing::TestDb;
use std::sync::{Arc, Barrier};

fn scopes(db: &TestDb) -> (Scope, Scope, Scope) {
    let eur = Currency::parse("EUR").unwrap();
    let a = db.store.create_account("A", eur).unwrap().id;
    let b = db.store.create_account("B", eur).unwrap().id;
    (
        Scope::new(a, Environment::Test),
        Scope::new(a, Environment::Live),
        Scope::new(b, Environment::Test),
    )
}

fn customer(name: &str, email: &str) -> NewCustomer {
    CustomerInput {
        name: Some(name.into()),
        email: Some(email.into()),
        ..Default::default()
    }
    .parse()
    .unwrap()
}

fn patch(json: &str) -> CustomerPatch {
    serde_json::from_str::<CustomerPatchInput>(json)
        .unwrap()
        .parse()
        .unwrap()
}

fn create_is_idempotent_on_email(db: TestDb) {
    let (a, _, _) = scopes(&db);
    let first = db
        .store
        .create_customer(a, customer("Ada", "Ada@Example.com"))
        .unwrap();
    assert!(first.is_new());
    let again = db
        .store
        .create_customer(a, customer("Other name", "ada@EXAMPLE.com"))
        .unwrap();
    assert!(!again.is_new());
    assert_eq!(
        again.into_inner(),
        first.into_inner(),
        "existing record returned unchanged"
    );
    let page = db
        .store
        .list_customers(a, &CustomerFilter::default(), PageRequest::default())
        .unwrap();
    assert_eq!(page.total, 1);
}

fn concurrent_identical_creates_make_one_row(db: TestDb) {
    let (a, _, _) = scopes(&db);
    let threads = 8;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let store = db.store.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                store
                    .create_customer(a, customer("Ada", "ada@example.com"))
                    .unwrap()
            })
        })
        .collect();
    let results: Vec<Created<_>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(results.iter().filter(|r| r.is_new()).count(), 1);
    let ids: std::collections::HashSet<_> =
        results.into_iter().map(|r| r.into_inner().id).collect();
    assert_eq!(ids.len(), 1);
    let page = db
        .store
        .list_customers(a, &CustomerFilter::default(), PageRequest::default())
        .unwrap();
    assert_eq!(page.total, 1);
}

fn tenants_are_isolated(db: TestDb) {
    let (a, a_live, b) = scopes(&db);
    let ada = db
        .store
        .create_customer(a, customer("Ada", "ada@example.com"))
        .unwrap()
        .into_inner();
    // The same email is a different customer in another environment or account.
    assert!(db
        .store
        .create_customer(a_live, customer("Ada", "ada@example.com"))
        .unwrap()
        .is_new());
    assert!(db
        .store
        .create_customer(b, customer("Ada", "ada@example.com"))
        .unwrap()
        .is_new());
    assert!(!ada.livemode);
    for other in [a_live, b] {
        assert!(matches!(
            db.store.get_customer(other, ada.id),
            Err(RepoError::Forbidden)
        ));
        assert!(matches!(
            db.store
                .update_customer(other, ada.id, patch(r#"{"name": "x"}"#)),
            Err(RepoError::Forbidden)
        ));
        assert!(matches!(
            db.store.delete_customer(other, ada.id),
            Err(RepoError::Forbidden)
        ));
        let seen = db
            .store
            .list_customers(other, &CustomerFilter::default(), PageRequest::default())
            .unwrap();
        assert!(seen.data.iter().all(|c| c.id != ada.id));
    }
    assert_eq!(db.store.get_customer(a, ada.id).unwrap(), ada);
    assert!(matches!(
        db.store.get_customer(a, CustomerId(ada.id.0 + 10_000)),
        Err(RepoError::NotFound)
    ));
}

fn lists_newest_first_with_paging_and_email(db: TestDb) {
    let (a, _, _) = scopes(&db);
    for i in 0..5 {
        db.store
            .create_customer(a, customer(&format!("C{i}"), &format!("c{i}@example.com")))
            .unwrap();
    }
    let first = db
        .store
        .list_customers(
            a,
            &CustomerFilter::default(),
            PageRequest::new(1, 2).unwrap(),
        )
        .unwrap();
    assert_eq!(
        (first.total, first.has_more, first.data.len()),
        (5, true, 2)
    );
    assert_eq!(first.data[0].name, "C4", "newest first");
    assert_eq!(first.data[1].name, "C3");
    let last = db
        .store
        .list_customers(
            a,
            &CustomerFilter::default(),
            PageRequest::new(3, 2).unwrap(),
        )
        .unwrap();
    assert_eq!((last.has_more, last.data.len()), (false, 1));
    assert_eq!(last.data[0].name, "C0");
    let beyond = db
        .store
        .list_customers(
            a,
            &CustomerFilter::default(),
            PageRequest::new(9, 2).unwrap(),
        )
        .unwrap();
    assert!(beyond.data.is_empty());
    let by_email = db
        .store
        .list_customers(
            a,
            &CustomerFilter {
                email: Some(" C2@EXAMPLE.com ".into()),
                search: None,
            },
            PageRequest::default(),
        )
        .unwrap();
    assert_eq!(by_email.total, 1);
    assert_eq!(by_email.data[0].name, "C2");
    // A search matches names and emails anywhere, in any case; its wildcards are literal.
    let search = |text: &str| {
        let filter = CustomerFilter {
            email: None,
            search: invoicing_domain::paging::SearchText::parse(text).unwrap(),
        };
        let found = db
            .store
            .list_customers(a, &filter, PageRequest::default())
            .unwrap();
        let mut names: Vec<String> = found.data.into_iter().map(|c| c.name).collect();
        names.sort();
        names
    };
    assert_eq!(search("c2"), vec!["C2"]);
    assert_eq!(search("C2@example"), vec!["C2"]);
    assert!(
        search("%").is_empty(),
        "a % is a percent sign, not a wildcard"
    );
    assert!(search("c_").is_empty(), "an _ is an underscore");
    let uncounted = db
        .store
        .list_customers(
            a,
            &CustomerFilter::default(),
            PageRequest::new(1, 1).unwrap().uncounted(),
        )
        .unwrap();
    assert!(uncounted.has_more);
}

fn updates_apply_and_keep_email_unique(db: TestDb) {
    let (a, _, _) = scopes(&db);
    let ada = db
        .store
        .create_customer(a, customer("Ada", "ada@example.com"))
        .unwrap()
        .into_inner();
    db.store
        .create_customer(a, customer("Bob", "bob@example.com"))
        .unwrap();
    let updated = db
        .store
        .update_customer(a, ada.id, patch(r#"{"company": "Analytical Engines", "phone": "+44 20 7946 0000", "metadata": {"tier": "gold"}, "address": {"city": "London", "country": "GB"}}"#))
        .unwrap();
    assert_eq!(updated.company.as_deref(), Some("Analytical Engines"));
    assert_eq!(updated.metadata.as_map()["tier"], "gold");
    assert_eq!(
        updated.address.as_ref().unwrap().city.as_deref(),
        Some("London")
    );
    assert_eq!(updated.name, "Ada", "absent fields are kept");
    let cleared = db
        .store
        .update_customer(a, ada.id, patch(r#"{"phone": null, "address": null}"#))
        .unwrap();
    assert_eq!(cleared.phone, None);
    assert_eq!(cleared.address, None);
    assert_eq!(cleared.company.as_deref(), Some("Analytical Engines"));
    assert!(matches!(
        db.store
            .update_customer(a, ada.id, patch(r#"{"email": "BOB@example.com"}"#)),
        Err(RepoError::InUse(_))
    ));
    let renamed = db
        .store
        .update_customer(a, ada.id, patch(r#"{"email": "ADA@example.com"}"#))
        .unwrap();
    assert_eq!(
        renamed.email.as_str(),
        "ADA@example.com",
        "changing only the case is allowed"
    );
    assert_eq!(db.store.get_customer(a, ada.id).unwrap(), renamed);
}

fn deletes_remove_the_row(db: TestDb) {
    let (a, _, _) = scopes(&db);
    let ada = db
        .store
        .create_customer(a, customer("Ada", "ada@example.com"))
        .unwrap()
        .into_inner();
    db.store.delete_customer(a, ada.id).unwrap();
    assert!(matches!(
        db.store.get_customer(a, ada.id),
        Err(RepoError::NotFound)
    ));
    assert!(matches!(
        db.store.delete_customer(a, ada.id),
        Err(RepoError::NotFound)
    ));
    // The email is free again.
    assert!(db
        .store
        .create_customer(a, customer("Ada", "ada@example.com"))
        .unwrap()
        .is_new());
}

backend_tests!(
    create_is_idempotent_on_email,
    concurrent_identical_creates_make_one_row,
    tenants_are_isolated,
    lists_newest_first_with_paging_and_email,
    updates_apply_and_keep_email_unique,
    deletes_remove_the_row,
);
