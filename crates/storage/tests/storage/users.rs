//! Dashboard users on both backends: memberships and the last-owner rule, set-password links,
//! sessions and their timeouts, the shared sign-in throttle, and the first start's owner.

use chrono::{DateTime, Duration, Utc};
use invoicing_domain::api_key::{GeneratedKey, KeyScopes, NewApiKey, RateOverride};
use invoicing_domain::currency::Currency;
use invoicing_domain::ports::{AccountRepository, RepoError, UserRepository};
use invoicing_domain::tenant::{AccountId, Environment};
use invoicing_domain::time::whole_seconds;
use invoicing_domain::user::{
    hash_token, LinkPurpose, Member, NewLink, NewSession, PasswordHash, Role, SecretToken, Session,
    ThrottleKey, User, UserEmail, UserId, LOGIN_FAILURE_WINDOW,
};
use invoicing_storage::testing::TestDb;
use invoicing_storage::{backend_tests, Store};
use rand::rngs::OsRng;
use std::net::IpAddr;
use std::sync::{Arc, Barrier};

fn account(db: &TestDb, name: &str) -> AccountId {
    db.store
        .create_account(name, Currency::parse("EUR").unwrap())
        .unwrap()
        .id
}

fn email(text: &str) -> UserEmail {
    UserEmail::parse(text).unwrap()
}

fn add(db: &TestDb, account: AccountId, address: &str, role: Role) -> User {
    db.store
        .add_member(account, &email(address), role)
        .unwrap()
        .user
}

fn now() -> DateTime<Utc> {
    whole_seconds(Utc::now())
}

fn roles(members: &[Member]) -> Vec<(String, Role)> {
    members
        .iter()
        .map(|m| (m.user.email.to_string(), m.role))
        .collect()
}

fn hash(text: &str) -> PasswordHash {
    PasswordHash::from_stored(format!("$argon2id$v=19$m=19456,t=2,p=1$c2FsdA${text}"))
}

fn sign_in(db: &TestDb, user: UserId, account: AccountId, at: DateTime<Utc>) -> (Session, String) {
    let token = SecretToken::generate(&mut OsRng);
    let session = db
        .store
        .create_session(NewSession {
            user_id: user,
            account_id: account,
            token_hash: token.hash(),
            at,
        })
        .unwrap();
    (session, token.hash())
}

fn link_for(db: &TestDb, user: UserId, at: DateTime<Utc>) -> String {
    let token = SecretToken::generate(&mut OsRng);
    db.store
        .create_link(NewLink::new(user, LinkPurpose::Invitation, &token, at))
        .unwrap();
    token.hash()
}

fn members_roles_and_the_last_owner(db: TestDb) {
    let acme = account(&db, "Acme");
    let ada = add(&db, acme, "Ada@Example.com", Role::Owner);
    assert_eq!(ada.email.as_str(), "Ada@example.com");
    assert!(!ada.has_password());
    let bob = add(&db, acme, "bob@example.com", Role::Staff);
    add(&db, acme, "cy@example.com", Role::Viewer);
    assert_eq!(
        roles(&db.store.list_members(acme).unwrap()),
        vec![
            ("Ada@example.com".into(), Role::Owner),
            ("bob@example.com".into(), Role::Staff),
            ("cy@example.com".into(), Role::Viewer),
        ]
    );
    // The same person by another spelling is a member already.
    assert!(matches!(
        db.store
            .add_member(acme, &email("ADA@example.com"), Role::Viewer),
        Err(RepoError::InUse(_))
    ));
    assert!(matches!(
        db.store.add_member(
            AccountId(acme.0 + 1000),
            &email("x@example.com"),
            Role::Owner
        ),
        Err(RepoError::NotFound)
    ));

    // The only owner can be neither demoted nor removed (409 invalid_state_transition).
    for refused in [
        db.store.change_member_role(acme, ada.id, Role::Staff).err(),
        db.store.remove_member(acme, ada.id).err(),
    ] {
        assert!(
            matches!(refused, Some(RepoError::InvalidTransition(ref m)) if m.contains("owner")),
            "{refused:?}"
        );
    }
    // With a second owner, either may step down, and then the other is the last one.
    let promoted = db
        .store
        .change_member_role(acme, bob.id, Role::Owner)
        .unwrap();
    assert_eq!((promoted.user.id, promoted.role), (bob.id, Role::Owner));
    db.store
        .change_member_role(acme, ada.id, Role::Viewer)
        .unwrap();
    assert!(matches!(
        db.store.remove_member(acme, bob.id),
        Err(RepoError::InvalidTransition(_))
    ));
    // Owner to owner is no demotion.
    db.store
        .change_member_role(acme, bob.id, Role::Owner)
        .unwrap();
    db.store.remove_member(acme, ada.id).unwrap();
    assert_eq!(
        roles(&db.store.list_members(acme).unwrap()),
        vec![
            ("bob@example.com".into(), Role::Owner),
            ("cy@example.com".into(), Role::Viewer),
        ]
    );
    // The user stays, a member of nothing, and can be added again.
    assert_eq!(
        db.store
            .find_user_by_email(&email("ada@EXAMPLE.com"))
            .unwrap(),
        Some(ada.clone())
    );
    assert!(db.store.list_memberships(ada.id).unwrap().is_empty());
    assert!(matches!(
        db.store.remove_member(acme, ada.id),
        Err(RepoError::NotFound)
    ));
    let again = db
        .store
        .add_member(acme, &email("ada@example.com"), Role::Staff)
        .unwrap();
    assert_eq!(again.user, ada);
}

fn racing_demotions_keep_an_owner(db: TestDb) {
    let acme = account(&db, "Acme");
    let a = add(&db, acme, "a@example.com", Role::Owner);
    let b = add(&db, acme, "b@example.com", Role::Owner);
    let barrier = Arc::new(Barrier::new(2));
    let results: Vec<_> = [(a.id, b.id), (b.id, a.id)]
        .into_iter()
        .map(|(_, other)| {
            let (store, barrier) = (db.store.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                store.change_member_role(acme, other, Role::Staff)
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .collect();
    assert_eq!(
        results.iter().filter(|r| r.is_ok()).count(),
        1,
        "{results:?}"
    );
    assert!(results
        .iter()
        .any(|r| matches!(r, Err(RepoError::InvalidTransition(_)))));
    let owners = db
        .store
        .list_members(acme)
        .unwrap()
        .into_iter()
        .filter(|m| m.role == Role::Owner)
        .count();
    assert_eq!(owners, 1);
}

fn one_user_in_two_accounts_and_no_further(db: TestDb) {
    let a = account(&db, "A");
    let b = account(&db, "B");
    let ada = add(&db, a, "ada@example.com", Role::Owner);
    let same = add(&db, b, "ADA@example.com", Role::Viewer);
    assert_eq!(same, ada, "one user, two memberships");
    let only_a = add(&db, a, "only-a@example.com", Role::Staff);
    let only_b = add(&db, b, "only-b@example.com", Role::Owner);
    let memberships = db.store.list_memberships(ada.id).unwrap();
    assert_eq!(
        memberships
            .iter()
            .map(|m| (m.account_id, m.role))
            .collect::<Vec<_>>(),
        vec![(a, Role::Owner), (b, Role::Viewer)]
    );
    assert!(memberships.iter().all(|m| m.user_id == ada.id));

    // A's members are A's: B's member is neither listed nor reachable through A.
    let listed_a: Vec<UserId> = db
        .store
        .list_members(a)
        .unwrap()
        .iter()
        .map(|m| m.user.id)
        .collect();
    assert_eq!(listed_a, vec![ada.id, only_a.id]);
    assert!(!listed_a.contains(&only_b.id));
    assert!(matches!(
        db.store.change_member_role(a, only_b.id, Role::Viewer),
        Err(RepoError::NotFound)
    ));
    assert!(matches!(
        db.store.remove_member(a, only_b.id),
        Err(RepoError::NotFound)
    ));
    // A session in A is not a session in B.
    assert!(matches!(
        db.store.create_session(NewSession {
            user_id: only_a.id,
            account_id: b,
            token_hash: hash_token("x"),
            at: now(),
        }),
        Err(RepoError::Forbidden)
    ));
    // Changes in B leave A alone.
    db.store.remove_member(b, ada.id).unwrap();
    assert_eq!(db.store.list_memberships(ada.id).unwrap()[0].account_id, a);
    assert_eq!(db.store.list_members(b).unwrap().len(), 1);
}

fn emails_stay_unique(db: TestDb) {
    let acme = account(&db, "Acme");
    let ada = add(&db, acme, "ada@example.com", Role::Owner);
    add(&db, acme, "bob@example.com", Role::Staff);
    assert!(matches!(
        db.store
            .change_user_email(ada.id, &email("Bob@Example.com")),
        Err(RepoError::InUse(_))
    ));
    let renamed = db
        .store
        .change_user_email(ada.id, &email("Ada.Lovelace@example.com"))
        .unwrap();
    assert_eq!(renamed.email.as_str(), "Ada.Lovelace@example.com");
    assert_eq!(
        db.store
            .find_user_by_email(&email("ada.lovelace@example.com"))
            .unwrap()
            .map(|u| u.id),
        Some(ada.id)
    );
    assert_eq!(
        db.store
            .find_user_by_email(&email("ada@example.com"))
            .unwrap(),
        None
    );
    assert!(matches!(
        db.store.get_user(UserId(ada.id.0 + 1000)),
        Err(RepoError::NotFound)
    ));
}

fn links_work_once_and_not_after_a_day(db: TestDb) {
    let acme = account(&db, "Acme");
    let ada = add(&db, acme, "ada@example.com", Role::Owner);
    let t0 = now();
    let token = link_for(&db, ada.id, t0);
    let link = db
        .store
        .find_link(&token, t0)
        .unwrap()
        .expect("a new link works");
    assert_eq!(
        (link.user_id, link.purpose, link.expires_at),
        (ada.id, LinkPurpose::Invitation, t0 + Duration::hours(24))
    );
    // Looking does not use it; using it does, once.
    assert!(db.store.find_link(&token, t0).unwrap().is_some());
    assert_eq!(db.store.consume_link(&token, t0).unwrap(), Some(link));
    assert_eq!(db.store.consume_link(&token, t0).unwrap(), None);
    assert_eq!(db.store.find_link(&token, t0).unwrap(), None);
    assert_eq!(
        db.store.consume_link(&hash_token("unknown"), t0).unwrap(),
        None
    );

    // Past 24 hours it is dead, though never used.
    let late = link_for(&db, ada.id, t0);
    let expiry = t0 + Duration::hours(24);
    assert!(db
        .store
        .find_link(&late, expiry - Duration::seconds(1))
        .unwrap()
        .is_some());
    assert_eq!(db.store.find_link(&late, expiry).unwrap(), None);
    assert_eq!(db.store.consume_link(&late, expiry).unwrap(), None);

    // Racing holders of one link: exactly one gets it.
    let raced = link_for(&db, ada.id, t0);
    let barrier = Arc::new(Barrier::new(4));
    let winners = (0..4)
        .map(|_| {
            let (store, barrier, raced) = (db.store.clone(), barrier.clone(), raced.clone());
            std::thread::spawn(move || {
                barrier.wait();
                store.consume_link(&raced, t0).unwrap()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .filter_map(|h| h.join().unwrap())
        .count();
    assert_eq!(winners, 1);
    assert!(matches!(
        db.store.create_link(NewLink::new(
            UserId(ada.id.0 + 1000),
            LinkPurpose::PasswordReset,
            &SecretToken::generate(&mut OsRng),
            t0
        )),
        Err(RepoError::NotFound)
    ));
}

fn setting_a_password_ends_sessions_and_voids_links(db: TestDb) {
    let acme = account(&db, "Acme");
    let ada = add(&db, acme, "ada@example.com", Role::Owner);
    let t0 = now();
    let first = link_for(&db, ada.id, t0);
    let second = link_for(&db, ada.id, t0);
    let user = db
        .store
        .set_password_with_link(&first, &hash("one"), t0)
        .unwrap()
        .expect("the link sets the password");
    assert_eq!(user.password_changed_at, Some(t0));
    let creds = db.store.get_credentials(ada.id).unwrap();
    assert_eq!(creds.password_hash, Some(hash("one")));
    assert_eq!(
        db.store
            .find_credentials(&email("ADA@example.com"))
            .unwrap()
            .map(|c| c.user),
        Some(user)
    );
    assert_eq!(
        db.store
            .set_password_with_link(&first, &hash("two"), t0)
            .unwrap(),
        None,
        "a used link sets nothing"
    );
    assert_eq!(
        db.store.find_link(&second, t0).unwrap(),
        None,
        "the other unused link died with the change"
    );

    // Changing it while signed in keeps this session and ends the others.
    let (here, here_token) = sign_in(&db, ada.id, acme, t0);
    let (_, elsewhere_token) = sign_in(&db, ada.id, acme, t0);
    let t1 = t0 + Duration::minutes(1);
    db.store
        .set_password(ada.id, &hash("three"), t1, Some(here.id))
        .unwrap();
    assert!(db.store.find_session(&here_token, t1).unwrap().is_some());
    assert!(db
        .store
        .find_session(&elsewhere_token, t1)
        .unwrap()
        .is_none());
    assert_eq!(
        db.store.get_credentials(ada.id).unwrap().password_hash,
        Some(hash("three"))
    );
    // A reset through a link ends every session.
    let reset = link_for(&db, ada.id, t1);
    db.store
        .set_password_with_link(&reset, &hash("four"), t1)
        .unwrap()
        .unwrap();
    assert!(db.store.find_session(&here_token, t1).unwrap().is_none());
    assert!(matches!(
        db.store
            .set_password(UserId(ada.id.0 + 1000), &hash("x"), t1, None),
        Err(RepoError::NotFound)
    ));
}

fn sessions_end_when_idle_or_old(db: TestDb) {
    let acme = account(&db, "Acme");
    let ada = add(&db, acme, "ada@example.com", Role::Staff);
    let t0 = now();
    let (session, token) = sign_in(&db, ada.id, acme, t0);
    assert_eq!(session.environment, Environment::Test, "test by default");
    assert_eq!(
        (
            session.created_at,
            session.last_seen_at,
            session.password_entered_at
        ),
        (t0, t0, t0)
    );
    let found = db.store.find_session(&token, t0).unwrap().unwrap();
    assert_eq!((found.user, found.role), (ada.clone(), Role::Staff));

    // Used within the minute: not written again.
    let seen = db
        .store
        .find_session(&token, t0 + Duration::seconds(30))
        .unwrap()
        .unwrap();
    assert_eq!(seen.session.last_seen_at, t0);
    // Each use within 30 minutes keeps it alive.
    let mut at = t0;
    for _ in 0..3 {
        at += Duration::minutes(29);
        let s = db.store.find_session(&token, at).unwrap().expect("alive");
        assert_eq!(s.session.last_seen_at, at);
    }
    // 30 idle minutes end it, and it is gone for good (an earlier clock finds nothing either).
    assert!(db
        .store
        .find_session(&token, at + Duration::minutes(30))
        .unwrap()
        .is_none());
    assert!(db.store.find_session(&token, at).unwrap().is_none());

    // However busy, 12 hours end it.
    let (_, busy) = sign_in(&db, ada.id, acme, t0);
    let mut at = t0;
    while at + Duration::minutes(20) < t0 + Duration::hours(12) {
        at += Duration::minutes(20);
        assert!(db.store.find_session(&busy, at).unwrap().is_some(), "{at}");
    }
    assert!(db
        .store
        .find_session(&busy, t0 + Duration::hours(12))
        .unwrap()
        .is_none());
    assert!(db
        .store
        .find_session(&hash_token("unknown"), t0)
        .unwrap()
        .is_none());
}

fn sessions_follow_roles_and_environments(db: TestDb) {
    let acme = account(&db, "Acme");
    let other = account(&db, "Other");
    let owner = add(&db, acme, "owner@example.com", Role::Owner);
    let ada = add(&db, acme, "ada@example.com", Role::Viewer);
    add(&db, other, "ada@example.com", Role::Owner);
    let t0 = now();
    let (first, first_token) = sign_in(&db, ada.id, acme, t0);
    let (second, second_token) = sign_in(&db, ada.id, acme, t0 + Duration::seconds(1));
    let (in_other, other_token) = sign_in(&db, ada.id, other, t0 + Duration::seconds(2));
    let (owners, _) = sign_in(&db, owner.id, acme, t0);

    let live = db
        .store
        .switch_session_environment(first.id, Environment::Live)
        .unwrap();
    assert_eq!(live.environment, Environment::Live);
    assert_eq!(live.scope().environment, Environment::Live);
    let t1 = t0 + Duration::minutes(3);
    let confirmed = db.store.confirm_session_password(first.id, t1).unwrap();
    assert_eq!(confirmed.password_entered_at, t1);
    let found = db.store.find_session(&first_token, t1).unwrap().unwrap();
    assert_eq!(found.session.environment, Environment::Live);
    assert!(found.session.password_is_recent(t1));

    // The role is read at each use.
    db.store
        .change_member_role(acme, ada.id, Role::Staff)
        .unwrap();
    assert_eq!(
        db.store
            .find_session(&first_token, t1)
            .unwrap()
            .unwrap()
            .role,
        Role::Staff
    );

    let listed: Vec<_> = db
        .store
        .list_sessions(ada.id, t1)
        .unwrap()
        .iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(
        listed,
        vec![in_other.id, second.id, first.id],
        "newest first"
    );
    // One's own sessions only.
    assert!(matches!(
        db.store.delete_session(ada.id, owners.id),
        Err(RepoError::NotFound)
    ));
    db.store.delete_session(ada.id, second.id).unwrap();
    assert!(db.store.find_session(&second_token, t1).unwrap().is_none());
    assert_eq!(
        db.store
            .delete_other_sessions(ada.id, Some(first.id))
            .unwrap(),
        1
    );
    assert!(db.store.find_session(&other_token, t1).unwrap().is_none());

    // Removed from the account: the sessions there end.
    db.store.remove_member(acme, ada.id).unwrap();
    assert!(db.store.find_session(&first_token, t1).unwrap().is_none());
    assert!(db.store.list_sessions(ada.id, t1).unwrap().is_empty());
    assert!(matches!(
        db.store
            .switch_session_environment(first.id, Environment::Test),
        Err(RepoError::NotFound)
    ));
}

fn throttling_is_shared_by_every_process(db: TestDb) {
    // Two processes: two stores on one database.
    let other = Store::connect(&db.url, 2).unwrap();
    let ip: IpAddr = "192.0.2.10".parse().unwrap();
    let key = ThrottleKey::new("Ada@Example.com", ip);
    let t0 = now();
    for i in 0..10 {
        let store = if i % 2 == 0 { &db.store } else { &other };
        store
            .record_login_failure(&key, t0 + Duration::seconds(i))
            .unwrap();
    }
    let since = t0 + Duration::seconds(10) - LOGIN_FAILURE_WINDOW;
    assert_eq!(db.store.count_login_failures(&key, since).unwrap(), 10);
    assert_eq!(other.count_login_failures(&key, since).unwrap(), 10);
    assert!(ThrottleKey::is_throttled(
        other.count_login_failures(&key, since).unwrap()
    ));
    // The same email from elsewhere, and another email from here, are not held up.
    let elsewhere = ThrottleKey::new("ada@example.com", "198.51.100.1".parse().unwrap());
    let someone = ThrottleKey::new("bob@example.com", ip);
    assert_eq!(other.count_login_failures(&elsewhere, since).unwrap(), 0);
    assert_eq!(other.count_login_failures(&someone, since).unwrap(), 0);
    // Only failures since the given time count.
    assert_eq!(
        other
            .count_login_failures(&key, t0 + Duration::seconds(5))
            .unwrap(),
        5
    );
    // A success in one process clears the pair for all.
    other.record_login_failure(&elsewhere, t0).unwrap();
    other.clear_login_failures(&key).unwrap();
    assert_eq!(db.store.count_login_failures(&key, since).unwrap(), 0);
    assert_eq!(db.store.count_login_failures(&elsewhere, since).unwrap(), 1);
}

fn old_state_is_purged(db: TestDb) {
    let acme = account(&db, "Acme");
    let ada = add(&db, acme, "ada@example.com", Role::Owner);
    let t0 = now();
    let (_, idle) = sign_in(&db, ada.id, acme, t0 - Duration::minutes(31));
    let (_, live) = sign_in(&db, ada.id, acme, t0 - Duration::minutes(5));
    let expired = link_for(&db, ada.id, t0 - Duration::hours(25));
    let fresh = link_for(&db, ada.id, t0);
    let key = ThrottleKey::new("ada@example.com", "192.0.2.1".parse().unwrap());
    db.store
        .record_login_failure(&key, t0 - Duration::minutes(16))
        .unwrap();
    db.store.record_login_failure(&key, t0).unwrap();
    assert_eq!(db.store.purge_user_state(t0).unwrap(), 3);
    assert_eq!(db.store.purge_user_state(t0).unwrap(), 0);
    assert!(db.store.find_session(&live, t0).unwrap().is_some());
    assert!(db.store.find_session(&idle, t0).unwrap().is_none());
    assert!(db.store.find_link(&fresh, t0).unwrap().is_some());
    assert!(db
        .store
        .find_link(&expired, t0 - Duration::hours(24))
        .unwrap()
        .is_none());
    assert_eq!(
        db.store
            .count_login_failures(&key, t0 - Duration::hours(1))
            .unwrap(),
        1
    );
}

fn the_first_owner_is_made_once(db: TestDb) {
    let admin = email("admin@localhost");
    let token = SecretToken::generate(&mut OsRng);
    assert_eq!(
        db.store
            .bootstrap_first_owner(&admin, &token, now())
            .unwrap(),
        None,
        "no account yet"
    );
    let key = GeneratedKey::generate(Environment::Test, &mut OsRng);
    let (default, _) = db
        .store
        .bootstrap_if_empty(
            "Default",
            Currency::parse("EUR").unwrap(),
            NewApiKey::from_generated(&key, KeyScopes::All, RateOverride::default(), None),
        )
        .unwrap()
        .unwrap();
    account(&db, "Second");
    let barrier = Arc::new(Barrier::new(4));
    let made: Vec<_> = (0..4)
        .map(|_| {
            let (store, barrier, admin) = (db.store.clone(), barrier.clone(), admin.clone());
            std::thread::spawn(move || {
                let token = SecretToken::generate(&mut OsRng);
                barrier.wait();
                let made = store.bootstrap_first_owner(&admin, &token, now()).unwrap();
                made.map(|m| (m, token.hash()))
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .filter_map(|h| h.join().unwrap())
        .collect();
    assert_eq!(made.len(), 1, "exactly one process makes the owner");
    let ((account_id, user), token_hash) = &made[0];
    assert_eq!(*account_id, default.id, "the Default (first) account");
    assert_eq!(user.email.as_str(), "admin@localhost");
    assert_eq!(
        roles(&db.store.list_members(default.id).unwrap()),
        vec![("admin@localhost".into(), Role::Owner)]
    );
    let link = db.store.find_link(token_hash, now()).unwrap().unwrap();
    assert_eq!(link.user_id, user.id, "the link is the new user's");
    assert_eq!(
        db.store
            .bootstrap_first_owner(&admin, &token, now())
            .unwrap(),
        None
    );
}

backend_tests!(
    members_roles_and_the_last_owner,
    racing_demotions_keep_an_owner,
    one_user_in_two_accounts_and_no_further,
    emails_stay_unique,
    links_work_once_and_not_after_a_day,
    setting_a_password_ends_sessions_and_voids_links,
    sessions_end_when_idle_or_old,
    sessions_follow_roles_and_environments,
    throttling_is_shared_by_every_process,
    old_state_is_purged,
    the_first_owner_is_made_once,
);
