//! Products on both backends: the catalog with its events, lines that name a product (defaults,
//! overrides, archived and foreign-currency products), deletion refused while lines refer to a
//! product, and tenant isolation.

use chrono::Utc;
use invoicing_domain::currency::Currency;
use invoicing_domain::event::EventFilter;
use invoicing_domain::invoice::{InvoiceInput, InvoicePatchInput};
use invoicing_domain::paging::PageRequest;
use invoicing_domain::ports::{
    AccountRepository, EventRepository, InvoiceRepository, ProductRepository, QuotationRepository,
    RepoError,
};
use invoicing_domain::product::{Product, ProductFilter, ProductInput, ProductPatchInput};
use invoicing_domain::quotation::{Answer, QuotationInput};
use invoicing_domain::tenant::{Environment, Scope};
use invoicing_storage::backend_tests;
use invoicing_storage::testing::TestDb;
use serde_json::{json, Value};

fn scope(db: &TestDb) -> Scope {
    let account = db
        .store
        .create_account("Acme", Currency::parse("EUR").unwrap())
        .unwrap();
    Scope::new(account.id, Environment::Test)
}

fn product(db: &TestDb, scope: Scope, body: Value) -> Product {
    let new = serde_json::from_value::<ProductInput>(body)
        .unwrap()
        .parse()
        .unwrap();
    db.store.create_product(scope, new).unwrap()
}

fn hosting(db: &TestDb, scope: Scope) -> Product {
    product(
        db,
        scope,
        json!({"name": "Hosting", "description": "Managed hosting, monthly",
               "unit_price_cents": 2500, "currency": "EUR", "tax_rate": "19"}),
    )
}

fn patch(db: &TestDb, scope: Scope, p: &Product, body: Value) -> Result<Product, RepoError> {
    let patch = serde_json::from_value::<ProductPatchInput>(body)
        .unwrap()
        .parse()
        .unwrap();
    db.store.update_product(scope, p.id, patch)
}

fn invoice_with(
    db: &TestDb,
    scope: Scope,
    lines: Value,
) -> Result<invoicing_domain::invoice::Invoice, RepoError> {
    let new = serde_json::from_value::<InvoiceInput>(json!({
        "customer": {"name": "Ada", "email": "ada@example.com"}, "line_items": lines
    }))
    .unwrap()
    .parse(
        Utc::now().date_naive(),
        format!("tok{}", rand::random::<u64>()),
    )
    .unwrap();
    db.store.create_invoice(scope, new)
}

fn events_of(db: &TestDb, scope: Scope, event_type: &str) -> Vec<Value> {
    let filter = EventFilter {
        event_type: Some(event_type.into()),
    };
    db.store
        .list_events(scope, &filter, PageRequest::new(1, 100).unwrap())
        .unwrap()
        .data
        .into_iter()
        .map(|e| e.data.object)
        .collect()
}

fn value(v: &impl serde::Serialize) -> Value {
    serde_json::to_value(v).unwrap()
}

fn invalid_params(r: Result<impl std::fmt::Debug, RepoError>) -> Vec<(String, String)> {
    match r {
        Err(RepoError::Invalid(v)) => v
            .errors()
            .iter()
            .map(|e| (e.param.clone(), e.message.clone()))
            .collect(),
        other => panic!("expected a validation failure, got {other:?}"),
    }
}

fn catalog_crud_with_events(db: TestDb) {
    let scope = scope(&db);
    let p = hosting(&db, scope);
    assert!(p.active && !p.livemode);
    assert_eq!(
        (p.unit_price_cents, p.tax_rate.to_string()),
        (2500, "19".into())
    );
    assert_eq!(db.store.get_product(scope, p.id).unwrap(), p);
    assert_eq!(events_of(&db, scope, "product.created"), vec![value(&p)]);

    let unchanged = patch(&db, scope, &p, json!({})).unwrap();
    assert_eq!(unchanged, p);
    assert!(
        events_of(&db, scope, "product.updated").is_empty(),
        "no change, no event"
    );
    let changed = patch(
        &db,
        scope,
        &p,
        json!({"name": "Hosting+", "description": null, "unit_price_cents": 3000, "tax_rate": 7, "metadata": {"sku": "H1"}}),
    )
    .unwrap();
    assert_eq!(changed.name, "Hosting+");
    assert_eq!(changed.description, None);
    assert_eq!(changed.unit_price_cents, 3000);
    assert_eq!(changed.tax_rate.to_string(), "7");
    assert_eq!(changed.metadata.as_map()["sku"], "H1");
    assert_eq!(changed.currency, p.currency, "absent fields stay");
    assert_eq!(
        events_of(&db, scope, "product.updated"),
        vec![value(&changed)]
    );

    let archived = product(
        &db,
        scope,
        json!({"name": "Old", "unit_price_cents": 1, "currency": "EUR", "active": false}),
    );
    let list = |active: Option<bool>| -> Vec<i64> {
        db.store
            .list_products(scope, &ProductFilter { active }, PageRequest::default())
            .unwrap()
            .data
            .iter()
            .map(|p| p.id.0)
            .collect()
    };
    assert_eq!(list(None), [archived.id.0, p.id.0], "newest first");
    assert_eq!(list(Some(true)), [p.id.0]);
    assert_eq!(list(Some(false)), [archived.id.0]);

    db.store.delete_product(scope, archived.id).unwrap();
    assert!(matches!(
        db.store.get_product(scope, archived.id),
        Err(RepoError::NotFound)
    ));
    assert_eq!(
        events_of(&db, scope, "product.deleted"),
        vec![value(&archived)]
    );
    assert!(matches!(
        db.store.delete_product(scope, archived.id),
        Err(RepoError::NotFound)
    ));
}

fn lines_take_what_they_leave_out_from_the_product(db: TestDb) {
    let scope = scope(&db);
    let p = hosting(&db, scope);
    let inv = invoice_with(
        &db,
        scope,
        json!([
            {"product_id": p.id.0, "quantity": 2},
            {"product_id": p.id.0, "quantity": 1, "description": "Setup", "unit_price_cents": 1000, "tax_rate": 0},
            {"description": "Plain", "quantity": 1, "unit_price_cents": 5}
        ]),
    )
    .unwrap();
    let l = &inv.line_items;
    assert_eq!(l[0].product_id, Some(p.id.0));
    assert_eq!(l[0].description, "Managed hosting, monthly");
    assert_eq!(
        (l[0].unit_price_cents, l[0].tax_rate.to_string()),
        (2500, "19".into())
    );
    assert_eq!((l[0].subtotal_cents, l[0].tax_cents), (5000, 950));
    assert_eq!(l[1].product_id, Some(p.id.0));
    assert_eq!(
        (
            l[1].description.as_str(),
            l[1].unit_price_cents,
            l[1].tax_cents
        ),
        ("Setup", 1000, 0)
    );
    assert_eq!(l[2].product_id, None);
    assert_eq!(inv.total_cents, 5950 + 1000 + 5);
    // Later price changes do not touch the invoice: lines keep what they copied.
    patch(&db, scope, &p, json!({"unit_price_cents": 9999})).unwrap();
    assert_eq!(
        db.store.get_invoice(scope, inv.id).unwrap().total_cents,
        inv.total_cents
    );

    // A draft's lines can be replaced by product lines too.
    let edit = serde_json::from_value::<InvoicePatchInput>(
        json!({"line_items": [{"product_id": p.id.0, "quantity": 1}]}),
    )
    .unwrap()
    .parse()
    .unwrap();
    let edited = db.store.update_invoice(scope, inv.id, edit).unwrap();
    assert_eq!(edited.total_cents, 9999 + 1900);
}

fn unusable_products_are_refused_and_change_nothing(db: TestDb) {
    let other = scope(&db);
    let scope = scope(&db);
    let archived = product(
        &db,
        scope,
        json!({"name": "Old", "unit_price_cents": 100, "currency": "EUR", "active": false}),
    );
    let dollars = product(
        &db,
        scope,
        json!({"name": "US", "unit_price_cents": 100, "currency": "USD"}),
    );
    let foreign = product(
        &db,
        other,
        json!({"name": "Theirs", "unit_price_cents": 100, "currency": "EUR"}),
    );
    let found = invalid_params(invoice_with(
        &db,
        scope,
        json!([
            {"product_id": archived.id.0, "quantity": 1},
            {"product_id": dollars.id.0, "quantity": 1},
            {"product_id": foreign.id.0, "quantity": 1},
            {"product_id": 999_999, "quantity": 1}
        ]),
    ));
    assert_eq!(
        found,
        [
            (
                "line_items[0].product_id".into(),
                "the product is archived (active: false)".into()
            ),
            (
                "line_items[1].product_id".into(),
                "the product is priced in USD, the document in EUR".into()
            ),
            ("line_items[2].product_id".into(), "no such product".into()),
            ("line_items[3].product_id".into(), "no such product".into()),
        ]
    );
    assert_eq!(
        db.store
            .list_invoices(scope, &Default::default(), PageRequest::default())
            .unwrap()
            .total,
        0
    );
    assert!(events_of(&db, scope, "invoice.created").is_empty());
    // The document's currency decides: a USD invoice may use the USD product.
    let new = serde_json::from_value::<InvoiceInput>(json!({
        "customer": {"name": "Ada", "email": "ada@example.com"}, "currency": "usd",
        "line_items": [{"product_id": dollars.id.0, "quantity": 3}]
    }))
    .unwrap()
    .parse(Utc::now().date_naive(), "tok-usd".into())
    .unwrap();
    assert_eq!(
        db.store.create_invoice(scope, new).unwrap().total_cents,
        300
    );

    // A draft that keeps its product lines keeps their currency too.
    let eur = product(
        &db,
        scope,
        json!({"name": "EU", "unit_price_cents": 100, "currency": "EUR"}),
    );
    let draft = invoice_with(&db, scope, json!([{"product_id": eur.id.0, "quantity": 1}])).unwrap();
    let to_usd = |body: Value| {
        serde_json::from_value::<InvoicePatchInput>(body)
            .unwrap()
            .parse()
            .unwrap()
    };
    let found = invalid_params(db.store.update_invoice(
        scope,
        draft.id,
        to_usd(json!({"currency": "USD"})),
    ));
    assert_eq!(found[0].0, "currency");
    assert!(
        found[0]
            .1
            .starts_with("line_items[0] comes from a product priced in EUR"),
        "{found:?}"
    );
    assert_eq!(
        db.store
            .get_invoice(scope, draft.id)
            .unwrap()
            .currency
            .code(),
        "EUR"
    );
    let moved = db
        .store
        .update_invoice(
            scope,
            draft.id,
            to_usd(json!({"currency": "USD", "line_items": [{"product_id": dollars.id.0, "quantity": 2}]})),
        )
        .unwrap();
    assert_eq!((moved.currency.code(), moved.total_cents), ("USD", 200));
}

/// Quotations use the same lines; a conversion copies them with their product even if it was
/// archived meanwhile (the accepted offer stands).
fn quotations_and_conversions_keep_the_product(db: TestDb) {
    let scope = scope(&db);
    let p = hosting(&db, scope);
    let new = serde_json::from_value::<QuotationInput>(json!({
        "customer": {"name": "Ada", "email": "ada@example.com"},
        "line_items": [{"product_id": p.id.0, "quantity": 1}]
    }))
    .unwrap()
    .parse(Utc::now().date_naive(), "qtok".into())
    .unwrap();
    let q = db.store.create_quotation(scope, new).unwrap();
    assert_eq!(q.line_items[0].product_id, Some(p.id.0));
    assert_eq!(q.total_cents, 2975);
    db.store.send_quotation(scope, q.id, None).unwrap();
    let accept = Answer::Accept {
        name: None,
        ip: None,
        user_agent: None,
    };
    db.store
        .answer_quotation(scope, q.id, accept, Utc::now().date_naive())
        .unwrap();
    patch(&db, scope, &p, json!({"active": false})).unwrap();
    let converted = db
        .store
        .convert_quotation(
            scope,
            q.id,
            invoicing_domain::invoice::Due::Terms(
                invoicing_domain::document::PaymentTerms::DEFAULT,
            ),
            "conv-token".into(),
            Utc::now().date_naive(),
        )
        .unwrap();
    let inv = db
        .store
        .get_invoice(
            scope,
            invoicing_domain::invoice::InvoiceId(converted.invoice_id),
        )
        .unwrap();
    assert_eq!(inv.line_items[0].product_id, Some(p.id.0));
    assert_eq!(inv.total_cents, 2975);
}

fn products_in_use_cannot_be_deleted(db: TestDb) {
    let scope = scope(&db);
    let used = hosting(&db, scope);
    invoice_with(
        &db,
        scope,
        json!([{"product_id": used.id.0, "quantity": 1}]),
    )
    .unwrap();
    match db.store.delete_product(scope, used.id) {
        Err(RepoError::InUse(m)) => assert!(m.contains("active"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(db.store.get_product(scope, used.id).unwrap(), used);
    assert!(events_of(&db, scope, "product.deleted").is_empty());
    // Archiving is the way out; the line keeps its product.
    let archived = patch(&db, scope, &used, json!({"active": false})).unwrap();
    assert!(!archived.active);
    assert!(matches!(
        db.store.delete_product(scope, used.id),
        Err(RepoError::InUse(_))
    ));
}

fn tenants_are_isolated(db: TestDb) {
    let a = scope(&db);
    let other_account = scope(&db);
    let a_live = Scope::new(a.account_id, Environment::Live);
    let p = hosting(&db, a);
    for other in [other_account, a_live] {
        assert!(matches!(
            db.store.get_product(other, p.id),
            Err(RepoError::Forbidden)
        ));
        assert!(matches!(
            patch(&db, other, &p, json!({"name": "Stolen"})),
            Err(RepoError::Forbidden)
        ));
        assert!(matches!(
            db.store.delete_product(other, p.id),
            Err(RepoError::Forbidden)
        ));
        assert_eq!(
            db.store
                .list_products(other, &ProductFilter::default(), PageRequest::default())
                .unwrap()
                .total,
            0
        );
    }
    assert_eq!(
        db.store.get_product(a, p.id).unwrap(),
        p,
        "refused calls changed nothing"
    );
}

/// A delete racing a document that names the product: one of them wins cleanly (the delete with
/// the document refused as 422, or the document with the delete refused as 409), never a 500.
fn deleting_a_product_races_a_document_cleanly(db: TestDb) {
    let scope = scope(&db);
    for round in 0..10 {
        let p = hosting(&db, scope);
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
        let (store, b) = (db.store.clone(), barrier.clone());
        let deleter = std::thread::spawn(move || {
            b.wait();
            store.delete_product(scope, p.id)
        });
        barrier.wait();
        let created = invoice_with(&db, scope, json!([{"product_id": p.id.0, "quantity": 1}]));
        let deleted = deleter.join().unwrap();
        match (&created, &deleted) {
            (Ok(_), Err(RepoError::InUse(_))) | (Err(RepoError::Invalid(_)), Ok(())) => {}
            other => panic!("round {round}: {other:?}"),
        }
    }
}

backend_tests!(
    deleting_a_product_races_a_document_cleanly,
    catalog_crud_with_events,
    lines_take_what_they_leave_out_from_the_product,
    unusable_products_are_refused_and_change_nothing,
    quotations_and_conversions_keep_the_product,
    products_in_use_cannot_be_deleted,
    tenants_are_isolated,
);
