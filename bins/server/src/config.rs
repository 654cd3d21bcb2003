//! Command line and environment (SPEC §1): every flag falls back to its variable, then to the
//! documented default.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Where customers and users reach the server unless PUBLIC_URL says otherwise.
const DEFAULT_PUBLIC_URL: &str = "https://localhost:8443";

#[derive(Parser, Debug)]
#[command(
    name = "invoicing-server",
    version,
    about = "Self-hosted invoicing API",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// With no subcommand the server runs (`serve`).
    #[command(flatten)]
    pub serve: ServeArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Apply pending migrations, then serve (the default).
    Serve(Box<ServeArgs>),
    /// Apply pending migrations and exit.
    Migrate(DbArgs),
    /// Manage accounts (tenants).
    #[command(subcommand)]
    Accounts(AccountsCommand),
    /// Manage API keys.
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Manage dashboard users and their roles.
    #[command(subcommand)]
    Users(UsersCommand),
    /// Copy the database while the server runs (SQLite's online snapshot; on PostgreSQL
    /// `pg_dump --format=custom`), checked, then renamed into place; prints {path, bytes, took_ms}.
    Backup(BackupArgs),
    /// Put an SQLite backup in place of the database (the server stopped): checked, migrated
    /// forward if older, the current database kept beside it.
    Restore(RestoreArgs),
    /// Everything of one account and environment as a ZIP: JSON Lines per resource and the
    /// PDFs of every document that left draft.
    Export(ExportArgs),
    /// Tenants' sealed secrets (SPEC §25).
    #[command(subcommand)]
    Secrets(SecretsCommand),
}

#[derive(Subcommand, Debug)]
pub enum SecretsCommand {
    /// After SECRETS_KEY became "new,old": seal every secret again with the new key (then the
    /// old one can go); prints {"resealed": n}.
    Reseal {
        #[command(flatten)]
        db: DbArgs,
        #[arg(long, env = "SECRETS_KEY", hide_env_values = true, value_parser = secrets_key)]
        secrets_key: invoicing_storage::secrets::SecretsKey,
    },
    /// A new key for SECRETS_KEY (base64 of 32 random bytes).
    Generate,
}

#[derive(Args, Debug, Clone)]
pub struct ExportArgs {
    #[command(flatten)]
    pub db: DbArgs,
    #[arg(long)]
    pub account: i64,
    /// `live` or `test`.
    #[arg(long, value_parser = ["live", "test"])]
    pub env: String,
    /// The ZIP to write (written under a temporary name, renamed when whole).
    #[arg(long)]
    pub to: PathBuf,
}

#[derive(Args, Debug, Clone)]
pub struct BackupArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// The file to write (made anew; an existing one is replaced only once the copy is whole).
    #[arg(long)]
    pub to: PathBuf,
}

#[derive(Args, Debug, Clone)]
pub struct RestoreArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// The backup to put in place.
    #[arg(long)]
    pub from: PathBuf,
}

/// `BACKUP_INTERVAL`: `30m`, `6h`, `24h`, `7d`…
fn secrets_key(text: &str) -> Result<invoicing_storage::secrets::SecretsKey, String> {
    invoicing_storage::secrets::SecretsKey::parse(text).map_err(|e| e.to_string())
}

fn interval(text: &str) -> Result<std::time::Duration, String> {
    invoicing_domain::time::parse_duration(text.trim()).and_then(|d| {
        if d.is_zero() {
            Err("must be more than 0".into())
        } else {
            Ok(d)
        }
    })
}

#[derive(Args, Debug, Clone)]
pub struct DbArgs {
    /// sqlite://PATH (embedded) or postgres://… ; the scheme picks the backend.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "sqlite://./data/invoicing.db"
    )]
    pub database_url: String,
}

#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// TLS listener.
    #[arg(long, env = "HTTPS_BIND", default_value = "127.0.0.1:8443")]
    pub https_bind: String,
    /// Plain listener that only rejects API calls and redirects pages; `off` disables it.
    #[arg(long, env = "HTTP_BIND", default_value = "127.0.0.1:8080")]
    pub http_bind: String,
    /// Base address of the public pages.
    #[arg(long, env = "PUBLIC_URL", default_value = DEFAULT_PUBLIC_URL)]
    pub public_url: String,
    /// PEM certificate chain; unset: a self-signed certificate is generated into DATA_DIR.
    #[arg(long, env = "TLS_CERT_FILE", requires = "tls_key_file")]
    pub tls_cert_file: Option<PathBuf>,
    /// PEM private key for TLS_CERT_FILE.
    #[arg(long, env = "TLS_KEY_FILE", requires = "tls_cert_file")]
    pub tls_key_file: Option<PathBuf>,
    /// Embedded database and generated certificate.
    #[arg(long, env = "DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,
    /// CIDRs whose X-Forwarded-Proto / X-Forwarded-For are believed (comma-separated).
    #[arg(long, env = "TRUSTED_PROXIES", default_value = "")]
    pub trusted_proxies: String,
    /// How often overdue invoices and expired quotations are swept, in seconds.
    #[arg(long, env = "SCHEDULER_INTERVAL_SECS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub scheduler_interval_secs: u64,
    /// Delays between webhook delivery attempts after the first.
    #[arg(
        long,
        env = "WEBHOOK_RETRY_SCHEDULE",
        default_value = "5s,5m,30m,2h,5h,10h,10h"
    )]
    pub webhook_retry_schedule: String,
    /// The key tenants' secrets (their Stripe keys) are sealed with: base64 of 32 bytes;
    /// several comma-separated while rotating (the first seals, all open). Unset: one is
    /// generated once into DATA_DIR/secrets.key. A fleet sets the same value on every server.
    #[arg(long, env = "SECRETS_KEY", hide_env_values = true, value_parser = secrets_key)]
    pub secrets_key: Option<invoicing_storage::secrets::SecretsKey>,
    /// Stripe's API (SPEC §25); tests point it at a local stand-in (plain http only for
    /// loopback addresses).
    #[arg(
        long,
        env = "STRIPE_API_BASE",
        default_value = "https://api.stripe.com"
    )]
    pub stripe_api_base: String,
    /// The first dashboard owner of a new install (SPEC §27): the person the printed
    /// set-password link is for.
    #[arg(long, env = "OWNER_EMAIL", default_value = "admin@localhost")]
    pub owner_email: String,
    /// Allow webhook URLs on addresses that are not globally reachable (loopback, private, …).
    #[arg(long, env = "WEBHOOK_ALLOW_PRIVATE_TARGETS", default_value_t = false, action = clap::ArgAction::Set)]
    pub webhook_allow_private_targets: bool,
    /// Outgoing mail: `smtp://user:pass@host:587` (STARTTLS required), `smtps://host:465`, or
    /// `smtp://host:port` in plain text with --smtp-allow-plaintext. Unset: no mail.
    #[arg(long, env = "SMTP_URL")]
    pub smtp_url: Option<String>,
    /// Allow `smtp://` without STARTTLS (local relays and tests).
    #[arg(long, env = "SMTP_ALLOW_PLAINTEXT", default_value_t = false, action = clap::ArgAction::Set)]
    pub smtp_allow_plaintext: bool,
    /// An extra PEM CA certificate to trust for the SMTP server.
    #[arg(long, env = "SMTP_CA_FILE")]
    pub smtp_ca_file: Option<std::path::PathBuf>,
    /// The sender of all mail; the display name becomes the merchant's on each message.
    #[arg(long, env = "MAIL_FROM", default_value = "Billing <billing@localhost>")]
    pub mail_from: String,
    /// Delays between mail attempts after the first.
    #[arg(long, env = "MAIL_RETRY_SCHEDULE", default_value = "1m,5m,30m,2h,6h")]
    pub mail_retry_schedule: String,
    /// Default requests per minute per key (and per IP without a valid key).
    #[arg(long, env = "RATE_LIMIT_PER_MINUTE", default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..))]
    pub rate_limit_per_minute: u32,
    /// Default burst per key (and per IP without a valid key).
    #[arg(long, env = "RATE_LIMIT_BURST", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub rate_limit_burst: u32,
    /// Public pages: requests per minute per client IP.
    #[arg(long, env = "PUBLIC_RATE_LIMIT_PER_MINUTE", default_value_t = 120, value_parser = clap::value_parser!(u32).range(1..))]
    pub public_rate_limit_per_minute: u32,
    /// Public pages: burst per client IP.
    #[arg(long, env = "PUBLIC_RATE_LIMIT_BURST", default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..))]
    pub public_rate_limit_burst: u32,
    /// Connections to PostgreSQL per process; 0: twice the CPUs, at least 4. More connections
    /// than the database's cores can run only queue inside the database (measured in
    /// docs/BENCHMARKS.md: 16 instead of 4 on two cores gave a p99 of 160 ms instead of 6 ms).
    #[arg(long, env = "DATABASE_POOL_SIZE", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub database_pool_size: u32,
    /// Where the API's rate-limit buckets live: `database` (shared by every server on one
    /// PostgreSQL; on SQLite the same as `process`) or `process` (this process's memory: for a
    /// single server on PostgreSQL, which then spends no statement per request on them).
    #[arg(long, env = "RATE_LIMITS", default_value = "database", value_parser = ["database", "process"])]
    pub rate_limits: String,
    /// Scheduled backups (SPEC §24) into this directory; unset: none.
    #[arg(long, env = "BACKUP_DIR")]
    pub backup_dir: Option<PathBuf>,
    /// How often a scheduled backup is taken.
    #[arg(long, env = "BACKUP_INTERVAL", default_value = "24h", value_parser = interval)]
    pub backup_interval: std::time::Duration,
    /// How many scheduled backups are kept (the newest).
    #[arg(long, env = "BACKUP_KEEP", default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub backup_keep: u32,
}

#[derive(Subcommand, Debug)]
pub enum AccountsCommand {
    /// Create an account; prints it as JSON.
    Create {
        #[arg(long)]
        name: String,
        /// Default currency of the account's documents.
        #[arg(long, default_value = "EUR")]
        currency: String,
        #[command(flatten)]
        db: DbArgs,
    },
}

#[derive(Subcommand, Debug)]
pub enum KeysCommand {
    /// Create a key; prints it as JSON, the only time the key itself is shown.
    Create {
        #[arg(long)]
        account: i64,
        #[arg(long, value_parser = ["test", "live"])]
        env: String,
        /// `*` or a comma-separated list of RESOURCE:read|write.
        #[arg(long, default_value = "*")]
        scopes: String,
        /// RFC 3339 time after which the key stops working.
        #[arg(long)]
        expires_at: Option<String>,
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        rate_per_minute: Option<u32>,
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        burst: Option<u32>,
        #[command(flatten)]
        db: DbArgs,
    },
    /// List an account's keys (never the keys themselves).
    List {
        #[arg(long)]
        account: i64,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Revoke a key at once.
    Revoke {
        key_id: i64,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Issue a replacement; the old key keeps working for the grace period.
    Rotate {
        key_id: i64,
        #[arg(long, default_value_t = 24)]
        grace_hours: u32,
        #[command(flatten)]
        db: DbArgs,
    },
}

#[derive(Subcommand, Debug)]
pub enum UsersCommand {
    /// Add a user (created if new) to an account with a role; prints a one-time link, valid
    /// 24 hours, where they set their password.
    Create {
        #[arg(long)]
        account: i64,
        #[arg(long)]
        email: String,
        #[arg(long, value_parser = ["owner", "staff", "viewer"])]
        role: String,
        #[command(flatten)]
        link: LinkArgs,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Print a new one-time link, valid 24 hours, where the user sets a new password.
    ResetPassword {
        #[arg(long)]
        email: String,
        #[command(flatten)]
        link: LinkArgs,
        #[command(flatten)]
        db: DbArgs,
    },
    /// List an account's users and their roles.
    List {
        #[arg(long)]
        account: i64,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Change a user's email (the sign-in name); the user keeps password, accounts and roles.
    ChangeEmail {
        #[arg(long)]
        from: String,
        #[arg(long)]
        to: String,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Remove a user from an account (never its last owner).
    Remove {
        #[arg(long)]
        account: i64,
        #[arg(long)]
        email: String,
        #[command(flatten)]
        db: DbArgs,
    },
}

/// Where the one-time links the users commands print point.
#[derive(Args, Debug, Clone)]
pub struct LinkArgs {
    /// Base address of the dashboard, as the server's PUBLIC_URL.
    #[arg(long, env = "PUBLIC_URL", default_value = DEFAULT_PUBLIC_URL)]
    pub public_url: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }
}
