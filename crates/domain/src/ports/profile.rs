//! The merchant profile and logo (SPEC §16).

use super::RepoResult;
use crate::profile::{Logo, Profile, ProfilePatch};
use crate::tenant::Scope;

/// The merchant's profile and logo (SPEC §16), one per account and environment. A profile that
/// was never changed is read as its defaults (the account's name and currency).
pub trait ProfileRepository {
    fn get_profile(&self, scope: Scope) -> RepoResult<Profile>;
    /// The zone `scope` keeps its days in (SPEC §27): the profile's, UTC without one.
    fn time_zone(&self, scope: Scope) -> RepoResult<crate::time_zone::TimeZone>;
    fn update_profile(&self, scope: Scope, patch: ProfilePatch) -> RepoResult<Profile>;
    fn put_logo(&self, scope: Scope, logo: Logo) -> RepoResult<()>;
    fn get_logo(&self, scope: Scope) -> RepoResult<Option<Logo>>;
    /// `false` when there was none.
    fn delete_logo(&self, scope: Scope) -> RepoResult<bool>;
    /// Copies the test profile and logo of `scope`'s account over its live ones (SPEC §27;
    /// never keys, webhooks or secrets); the live profile as it is then.
    fn copy_profile_to_live(&self, scope: Scope) -> RepoResult<Profile>;
}
