//! `invoicing-server users …` (SPEC §21): dashboard users of an account. `create` and
//! `reset-password` print a one-time link, valid 24 hours, where the person sets a password;
//! only the link's hash is stored.

use super::{open, print};
use crate::config::UsersCommand;
use anyhow::{anyhow, Result};
use chrono::Utc;
use invoicing_domain::ports::{AccountRepository, RepoError, UserRepository};
use invoicing_domain::tenant::AccountId;
use invoicing_domain::time::format;
use invoicing_domain::user::{
    set_password_url, LinkPurpose, Member, NewLink, Role, SecretToken, User, UserEmail,
};
use invoicing_storage::Store;
use serde_json::{json, Value};

fn user_json(user: &User) -> Value {
    json!({
        "id": user.id.0,
        "object": "user",
        "email": user.email.as_str(),
        "has_password": user.has_password(),
        "created_at": format(&user.created_at),
    })
}

fn member_json(account: AccountId, member: &Member) -> Value {
    json!({
        "object": "member",
        "account_id": account.0,
        "role": member.role.as_str(),
        "user": user_json(&member.user),
    })
}

fn parse_email(text: &str) -> Result<UserEmail> {
    UserEmail::parse(text).map_err(|e| anyhow!("--email {e}"))
}

/// A new link for `user`, written into `out`: its address and when it stops working.
fn new_link(
    store: &Store,
    user: &User,
    purpose: LinkPurpose,
    public_url: &str,
    out: &mut Value,
) -> Result<()> {
    let token = SecretToken::generate(&mut rand::rngs::OsRng);
    let link = store.create_link(NewLink::new(user.id, purpose, &token, Utc::now()))?;
    out["set_password_url"] = json!(set_password_url(public_url, &token));
    out["set_password_url_expires_at"] = json!(format(&link.expires_at));
    Ok(())
}

/// The account, which must exist.
fn account(store: &Store, id: i64) -> Result<AccountId> {
    Ok(store
        .get_account(AccountId(id))
        .map_err(|_| anyhow!("no account {id}"))?
        .id)
}

fn user_by_email(store: &Store, email: &UserEmail) -> Result<User> {
    store
        .find_user_by_email(email)?
        .ok_or_else(|| anyhow!("no user with email {email}"))
}

pub fn users(cmd: UsersCommand) -> Result<()> {
    match cmd {
        UsersCommand::Create {
            account,
            email,
            role,
            link,
            db,
        } => {
            let role = Role::parse(&role).ok_or_else(|| anyhow!("--role {role:?} is unknown"))?;
            let email = parse_email(&email)?;
            let store = open(&db.database_url)?;
            let account = self::account(&store, account)?;
            let member = store
                .add_member(account, &email, role)
                .map_err(|e| anyhow!("{e}"))?;
            let mut out = member_json(account, &member);
            // Someone who already signs in (a member of another account) keeps their password.
            if member.user.has_password() {
                out["set_password_url"] = Value::Null;
                out["note"] = json!(
                    "this user already has a password and signs in with it; \
                     `users reset-password` makes a link to set a new one"
                );
            } else {
                let purpose = LinkPurpose::Invitation;
                new_link(&store, &member.user, purpose, &link.public_url, &mut out)?;
            }
            print(&out)
        }
        UsersCommand::ResetPassword { email, link, db } => {
            let email = parse_email(&email)?;
            let store = open(&db.database_url)?;
            let user = user_by_email(&store, &email)?;
            let mut out = user_json(&user);
            let purpose = LinkPurpose::PasswordReset;
            new_link(&store, &user, purpose, &link.public_url, &mut out)?;
            print(&out)
        }
        UsersCommand::List { account, db } => {
            let store = open(&db.database_url)?;
            let account = self::account(&store, account)?;
            let members = store.list_members(account)?;
            let data: Vec<Value> = members.iter().map(|m| member_json(account, m)).collect();
            print(&json!({ "data": data }))
        }
        UsersCommand::ChangeEmail { from, to, db } => {
            let from = UserEmail::parse(&from).map_err(|e| anyhow!("--from {e}"))?;
            let to = UserEmail::parse(&to).map_err(|e| anyhow!("--to {e}"))?;
            let store = open(&db.database_url)?;
            let user = user_by_email(&store, &from)?;
            match store.change_user_email(user.id, &to) {
                Ok(user) => print(&user_json(&user)),
                Err(RepoError::InUse(_)) => Err(anyhow!("{to} is already another user's email")),
                Err(e) => Err(anyhow!("{e}")),
            }
        }
        UsersCommand::Remove { account, email, db } => {
            let email = parse_email(&email)?;
            let store = open(&db.database_url)?;
            let user = user_by_email(&store, &email)?;
            match store.remove_member(AccountId(account), user.id) {
                Ok(()) => print(&json!({
                    "object": "member",
                    "account_id": account,
                    "user": user_json(&user),
                    "removed": true,
                })),
                Err(RepoError::NotFound) => {
                    Err(anyhow!("{email} is not a member of account {account}"))
                }
                Err(e) => Err(anyhow!("{e}")),
            }
        }
    }
}
