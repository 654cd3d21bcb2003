//! Dashboard users, sessions and the sign-in throttle (SPEC §21).

use super::RepoResult;
use crate::notice::NewNotice;
use crate::tenant::{AccountId, Environment};
use crate::user::{
    Credentials, Invitation, Link, Member, Membership, NewLink, NewSession, PasswordHash,
    PendingInvitation, Role, SecretToken, Session, SessionId, SignedIn, ThrottleKey, TotpSecret,
    User, UserEmail, UserId,
};
use chrono::{DateTime, Utc};

/// Dashboard users, their memberships, set-password links, sessions and the sign-in throttle
/// (SPEC §21). Users are not tenant data: one user may belong to several accounts, so these
/// methods name the account where it matters instead of taking a [`Scope`](crate::tenant::Scope). Tokens are only
/// ever passed and kept as their SHA-256 (`user::hash_token`).
pub trait UserRepository {
    /// Makes the user with `email` (created without a password if there is none) a member of
    /// `account` with `role`. `InUse` when they are a member already; `NotFound` for no account.
    fn add_member(&self, account: AccountId, email: &UserEmail, role: Role) -> RepoResult<Member>;
    /// The account's members, by email.
    fn list_members(&self, account: AccountId) -> RepoResult<Vec<Member>>;
    /// `NotFound` when the user is no member of `account` (a member of another account included);
    /// `InvalidTransition` (409 `invalid_state_transition`) for the last owner's demotion.
    fn change_member_role(
        &self,
        account: AccountId,
        user: UserId,
        role: Role,
    ) -> RepoResult<Member>;
    /// Ends the membership and the user's sessions in that account; the user stays (they may
    /// belong elsewhere). Refused like [`Self::change_member_role`] for the last owner.
    fn remove_member(&self, account: AccountId, user: UserId) -> RepoResult<()>;
    fn get_user(&self, id: UserId) -> RepoResult<User>;
    /// By [`UserEmail::normalized`]: `Ada@Example.com` finds `ada@example.com`.
    fn find_user_by_email(&self, email: &UserEmail) -> RepoResult<Option<User>>;
    /// The user and their password's hash, for a sign-in.
    fn find_credentials(&self, email: &UserEmail) -> RepoResult<Option<Credentials>>;
    /// The same by id, to confirm a signed-in user's password.
    fn get_credentials(&self, user: UserId) -> RepoResult<Credentials>;
    /// `InUse` when another user has that email.
    fn change_user_email(&self, user: UserId, email: &UserEmail) -> RepoResult<User>;
    /// The accounts the user belongs to, by account id.
    fn list_memberships(&self, user: UserId) -> RepoResult<Vec<Membership>>;
    /// Stores a new password hash (stamping `password_changed_at`), and in the same transaction
    /// ends every session of the user but `keep` (the one changing it) and voids their unused
    /// set-password links.
    fn set_password(
        &self,
        user: UserId,
        hash: &PasswordHash,
        at: DateTime<Utc>,
        keep: Option<SessionId>,
    ) -> RepoResult<User>;
    /// Keeps a set-password link (its token's hash, never the token).
    fn create_link(&self, link: NewLink) -> RepoResult<Link>;
    /// The set-password link while it works (unused, not expired), without using it: the
    /// page's form. Email-change links are never set-password links.
    fn find_link(&self, token_hash: &str, now: DateTime<Utc>) -> RepoResult<Option<Link>>;
    /// Uses the link: it answers once, however many callers race for it, and never after
    /// `expires_at`. An invitation makes its user a member of its account (keeping the role of
    /// one who is a member already), in the same transaction, and of no other account.
    fn consume_link(&self, token_hash: &str, now: DateTime<Utc>) -> RepoResult<Option<Link>>;
    /// An owner's invitation of `email` to the invitation's account, working from `now` for
    /// [`crate::user::INVITATION_VALIDITY`]: the user is created without a password if there
    /// is none; `InUse` when they are a member already; an earlier pending invitation of them to
    /// that account is replaced.
    /// `notice` (the invitation's email, when this server sends email) is queued in the same
    /// transaction.
    fn invite(
        &self,
        email: &UserEmail,
        invitation: Invitation,
        token_hash: &str,
        now: DateTime<Utc>,
        notice: Option<NewNotice>,
    ) -> RepoResult<Link>;
    /// A password reset asked for on the sign-in page: when `email` is a user's who belongs to
    /// an account, a link for `token_hash` working [`crate::user::EMAILED_RESET_VALIDITY`] and
    /// `notice` (its email) in one transaction; nothing for anyone else, nor when the user was
    /// sent one in the last minute (nobody can flood an inbox from the sign-in page). Whether
    /// it was sent is for the logs, never for the person asking.
    fn email_password_reset(
        &self,
        email: &UserEmail,
        token_hash: &str,
        now: DateTime<Utc>,
        notice: NewNotice,
    ) -> RepoResult<bool>;
    /// Keeps `link` (an [`NewLink::email_change`], replacing the user's earlier ones) and
    /// queues the notices to the new and the old address, in one transaction; `InUse` when the
    /// new email is another user's; `false` (nothing done) when the user asked less than a
    /// minute before.
    fn request_email_change(
        &self,
        link: NewLink,
        to_new: NewNotice,
        to_old: NewNotice,
    ) -> RepoResult<bool>;
    /// Uses an email-change link: its user's email becomes the one it confirms (`InUse` when
    /// another user took it meanwhile). `None` when the link is unknown, used or expired.
    fn confirm_email_change(
        &self,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> RepoResult<Option<User>>;
    /// The account's invitations that still work, newest first.
    fn list_invitations(
        &self,
        account: AccountId,
        now: DateTime<Utc>,
    ) -> RepoResult<Vec<PendingInvitation>>;
    /// Withdraws an invitation; `NotFound` when it is no pending invitation to `account`.
    fn revoke_invitation(&self, account: AccountId, id: i64) -> RepoResult<()>;
    /// In one transaction: uses the link (as [`Self::consume_link`]), then
    /// [`Self::set_password`] for its user with no session kept. `None` when the link is unknown, used or expired.
    fn set_password_with_link(
        &self,
        token_hash: &str,
        hash: &PasswordHash,
        now: DateTime<Utc>,
    ) -> RepoResult<Option<User>>;
    /// Turns the second factor on: the secret, the step of the code that proved it, and the
    /// hashes of fresh recovery codes (replacing any), in one transaction.
    fn enable_totp(
        &self,
        user: UserId,
        secret: &TotpSecret,
        step: i64,
        recovery_hashes: &[String],
    ) -> RepoResult<()>;
    /// Off: the secret and the recovery codes go.
    fn disable_totp(&self, user: UserId) -> RepoResult<()>;
    /// New recovery codes (their hashes), replacing the old ones.
    fn replace_recovery_codes(&self, user: UserId, recovery_hashes: &[String]) -> RepoResult<()>;
    /// The user's secret and the last step used, while the factor is on.
    fn totp_of(&self, user: UserId) -> RepoResult<Option<(TotpSecret, Option<i64>)>>;
    /// Uses `step` of the user's codes: `false` when it (or a later one) was used already,
    /// however many requests race with it.
    fn use_totp_step(&self, user: UserId, step: i64) -> RepoResult<bool>;
    /// Uses a recovery code by its hash: `false` when the user has no such unused code.
    fn use_recovery_code(&self, user: UserId, hash: &str, at: DateTime<Utc>) -> RepoResult<bool>;
    fn recovery_codes_left(&self, user: UserId) -> RepoResult<u32>;
    /// The secret being set up in this session, chosen by the server: the one kept, else
    /// `fresh` (kept from now on). Turning the factor on forgets it.
    fn pending_totp(&self, session: SessionId, fresh: &TotpSecret) -> RepoResult<TotpSecret>;
    /// The second factor was given in this session.
    fn confirm_second_factor(&self, session: SessionId, at: DateTime<Utc>) -> RepoResult<Session>;
    /// Whether every member of the account must sign in with a second factor.
    fn require_totp(&self, account: AccountId, required: bool) -> RepoResult<()>;
    fn account_requires_totp(&self, account: AccountId) -> RepoResult<bool>;
    /// A session in the test environment. `Forbidden` when the user is no member of the account.
    fn create_session(&self, new: NewSession) -> RepoResult<Session>;
    /// The live session with that token hash, its user and their role now, noting the use
    /// (`last_seen_at`, at most once a minute, so a session may end up to a minute early, never
    /// late). A session past its idle or absolute limit, or whose membership is gone, is deleted
    /// and not returned.
    fn find_session(&self, token_hash: &str, now: DateTime<Utc>) -> RepoResult<Option<SignedIn>>;
    fn switch_session_environment(
        &self,
        session: SessionId,
        environment: Environment,
    ) -> RepoResult<Session>;
    /// The password was typed again in this session (re-authentication, SPEC §21).
    fn confirm_session_password(
        &self,
        session: SessionId,
        at: DateTime<Utc>,
    ) -> RepoResult<Session>;
    /// Ends one of the user's sessions; `NotFound` for a session that is not theirs.
    fn delete_session(&self, user: UserId, session: SessionId) -> RepoResult<()>;
    /// Ends every session of the user but `keep`; how many.
    fn delete_other_sessions(&self, user: UserId, keep: Option<SessionId>) -> RepoResult<usize>;
    /// The user's live sessions, newest first.
    fn list_sessions(&self, user: UserId, now: DateTime<Utc>) -> RepoResult<Vec<Session>>;
    /// A failed sign-in of the pair, seen by every process on the database.
    fn record_login_failure(&self, key: &ThrottleKey, at: DateTime<Utc>) -> RepoResult<()>;
    /// The pair's failures at or after `since`.
    fn count_login_failures(&self, key: &ThrottleKey, since: DateTime<Utc>) -> RepoResult<u64>;
    /// Forgets the pair's failures (a successful sign-in).
    fn clear_login_failures(&self, key: &ThrottleKey) -> RepoResult<()>;
    /// Deletes ended sessions, expired links and failures older than the throttle's window,
    /// across users; how many rows.
    fn purge_user_state(&self, now: DateTime<Utc>) -> RepoResult<usize>;
    /// While the database has no user at all: creates `email` as an owner of the first account
    /// (the Default account of a new install) with an invitation link for `token` from `now`,
    /// exactly once even when processes start together. `None` when a user exists or there is
    /// no account.
    fn bootstrap_first_owner(
        &self,
        email: &UserEmail,
        token: &SecretToken,
        now: DateTime<Utc>,
    ) -> RepoResult<Option<(AccountId, User)>>;
}
