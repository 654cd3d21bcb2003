//! `serve`: migrations, the first-start bootstrap, and the HTTPS and plain listeners with a
//! graceful drain on SIGTERM/SIGINT.

use crate::config::ServeArgs;
use crate::jobs::Workers;
use crate::mail::{MailConfig, MailRunner};
use crate::notices::NoticeRunner;
use crate::tls;
use crate::webhooks::WebhookRunner;
use actix_web::{web, HttpServer};
use anyhow::{anyhow, Context, Result};
use chrono::Utc;
use invoicing_domain::api_key::{GeneratedKey, KeyScopes, NewApiKey, RateOverride};
use invoicing_domain::currency::Currency;
use invoicing_domain::ports::{AccountRepository, UserRepository};
use invoicing_domain::tenant::Environment;
use invoicing_domain::user::{set_password_url, SecretToken, UserEmail};
use invoicing_domain::webhook_delivery::RetrySchedule;
use invoicing_gateway_stripe::StripeGateway;
use invoicing_http::body::STALL_TIMEOUT;
use invoicing_http::client::ConnectionSocket;
use invoicing_http::config::{parse_trusted_proxies, HttpConfig, RateConfig};
use invoicing_http::{build_app, AppState, StorageThreads, TlsConnection};
use invoicing_mail::SmtpSettings;
use invoicing_storage::secrets::SecretsKey;
use invoicing_storage::{Backend, Store};
use std::os::fd::AsFd;
use std::sync::Arc;
use std::time::Duration;

const DRAIN_SECS: u64 = 30;
/// Deliveries in flight at once per process: a slow receiver holds up only one of them.
const WEBHOOK_THREADS: usize = 4;
/// Emails in flight at once per process.
const MAIL_THREADS: usize = 2;
/// How long a call to Stripe may take before the page says card payment is unavailable.
const STRIPE_TIMEOUT: Duration = Duration::from_secs(15);

fn http_config(args: &ServeArgs) -> Result<HttpConfig> {
    if !(args.public_url.starts_with("https://") || args.public_url.starts_with("http://")) {
        return Err(anyhow!("PUBLIC_URL must be an absolute http(s) URL"));
    }
    let mut config = HttpConfig::new(&args.public_url);
    config.trusted_proxies = parse_trusted_proxies(&args.trusted_proxies)
        .map_err(|e| anyhow!("TRUSTED_PROXIES: {e}"))?;
    config.api_rate = RateConfig {
        per_minute: args.rate_limit_per_minute,
        burst: args.rate_limit_burst,
    };
    config.webhook_allow_private = args.webhook_allow_private_targets;
    config.mail_enabled = args.smtp_url.is_some();
    config.process_rate_limits = args.rate_limits == "process";
    config.public_rate = RateConfig {
        per_minute: args.public_rate_limit_per_minute,
        burst: args.public_rate_limit_burst,
    };
    let stripe = StripeGateway::new(&args.stripe_api_base, STRIPE_TIMEOUT)
        .map_err(|e| anyhow!("STRIPE_API_BASE: {e}"))?;
    config.gateway = Some(Arc::new(stripe));
    Ok(config)
}

/// `SECRETS_KEY`, else the key this server generated into DATA_DIR the first time (readable
/// by its owner only).
fn secrets_key(args: &ServeArgs) -> Result<SecretsKey> {
    if let Some(key) = &args.secrets_key {
        return Ok(key.clone());
    }
    let path = args.data_dir.join("secrets.key");
    if let Ok(text) = std::fs::read_to_string(&path) {
        return SecretsKey::parse(&text).map_err(|e| anyhow!("{}: {e}", path.display()));
    }
    std::fs::create_dir_all(&args.data_dir)?;
    let text = SecretsKey::generate();
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(&path) {
        Ok(mut file) => {
            use std::io::Write;
            file.write_all(text.as_bytes())?;
            file.sync_all()?;
            log::info!(
                "secrets: generated {} (set SECRETS_KEY to share one key across servers)",
                path.display()
            );
            SecretsKey::parse(&text).map_err(|e| anyhow!("{e}"))
        }
        // Another process of this install made it first.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let text = std::fs::read_to_string(&path)?;
            SecretsKey::parse(&text).map_err(|e| anyhow!("{}: {e}", path.display()))
        }
        Err(e) => Err(anyhow!("{}: {e}", path.display())),
    }
}

/// Creates account "Default" and one test key on an empty database and shows the key once.
#[allow(clippy::print_stdout)] // the operator reads the key here, once (README)
fn bootstrap(store: &Store, owner: &str) -> Result<()> {
    let key = GeneratedKey::generate(Environment::Test, &mut rand::rngs::OsRng);
    let new = NewApiKey::from_generated(&key, KeyScopes::All, RateOverride::default(), None);
    let eur = Currency::parse("EUR").map_err(|e| anyhow!("{e}"))?;
    if let Some((account, _)) = store.bootstrap_if_empty("Default", eur, new)? {
        println!(
            "Created account \"Default\" (id {}) with a test API key:",
            account.id
        );
        println!("    {}", key.plain());
        println!("This key will not be shown again: store it now.");
    }
    bootstrap_owner(store, owner)
}

/// While the database has no dashboard user (a new install, or one from before users): makes
/// `admin@localhost` an owner of the first account and shows the one-time link where they set
/// their password, exactly once however many processes start together.
#[allow(clippy::print_stdout)] // the operator reads the link here, once (README)
fn bootstrap_owner(store: &Store, owner: &str) -> Result<()> {
    let email = UserEmail::parse(owner).map_err(|e| anyhow!("OWNER_EMAIL {owner:?}: {e}"))?;
    let token = SecretToken::generate(&mut rand::rngs::OsRng);
    if let Some((account, user)) = store.bootstrap_first_owner(&email, &token, Utc::now())? {
        println!(
            "Created dashboard user {} (owner of account {account}). Set its password within 24 hours at:",
            user.email
        );
        println!("    {}", set_password_url(&store.public_url(), &token));
        println!(
            "This link works once and will not be shown again \
             (`invoicing-server users reset-password --email {email}` makes a new one)."
        );
    }
    Ok(())
}

pub async fn run(args: ServeArgs) -> Result<()> {
    let schedule = RetrySchedule::parse(&args.webhook_retry_schedule)
        .map_err(|e| anyhow!("WEBHOOK_RETRY_SCHEDULE: {e}"))?;
    let config = http_config(&args)?;
    let mail = MailConfig::from_settings(
        args.smtp_url.clone().map(|url| SmtpSettings {
            url,
            allow_plaintext: args.smtp_allow_plaintext,
            ca_file: args.smtp_ca_file.clone(),
        }),
        &args.mail_from,
        &args.mail_retry_schedule,
    )?;
    match &mail {
        Some(m) => log::info!(
            "mail: sending through {} as {}",
            m.mailer.endpoint(),
            m.sender.address()
        ),
        None => log::info!(
            "mail: off (SMTP_URL is not set): sends that ask for email answer 422 \
             email_not_configured, and no reminders or receipts are queued"
        ),
    }
    let mail_enabled = mail.is_some();
    let secrets = secrets_key(&args)?;
    let url = args.db.database_url.clone();
    let public_url = config.public_url.clone();
    let pool_size = match args.database_pool_size {
        0 => std::thread::available_parallelism()
            .map_or(4, |n| 2 * n.get() as u32)
            .max(4),
        n => n,
    };
    let store = web::block(move || -> Result<Store> {
        let pool_size = if url.starts_with("sqlite") {
            8
        } else {
            pool_size
        };
        let store = Store::connect(&url, pool_size)?
            .with_public_url(&public_url)
            .with_mail(mail_enabled)
            .with_secrets(secrets);
        store.migrate()?;
        bootstrap(&store, &args.owner_email)?;
        Ok(store)
    })
    .await??;
    log::info!(
        "database ready ({})",
        match store.backend() {
            Backend::Postgres => "PostgreSQL",
            Backend::Sqlite => "SQLite",
        }
    );
    let tls = tls::server_config(
        args.tls_cert_file.as_deref(),
        args.tls_key_file.as_deref(),
        &args.data_dir,
    )?;
    let scheduler = actix_web::rt::spawn(crate::scheduler::run(
        store.clone(),
        config.gateway.clone(),
        Duration::from_secs(args.scheduler_interval_secs),
    ));
    let backups = args.backup_dir.clone().map(|dir| {
        log::info!(
            "backups: every {} s into {}, the newest {} kept",
            args.backup_interval.as_secs(),
            dir.display(),
            args.backup_keep
        );
        actix_web::rt::spawn(crate::backups::run(crate::backups::Schedule {
            database_url: args.db.database_url.clone(),
            dir,
            every: args.backup_interval,
            keep: args.backup_keep,
        }))
    });
    invoicing_storage::wakeup::listen(&args.db.database_url);
    let webhooks = Workers::start(
        Arc::new(WebhookRunner::new(
            store.clone(),
            schedule,
            args.webhook_allow_private_targets,
        )),
        WEBHOOK_THREADS,
    );
    // Customers' email and people's notices: the same SMTP settings, their own threads, so a
    // queue of invoices never holds back someone's password reset.
    let mailers = mail.map(|m| {
        (
            Workers::start(
                Arc::new(MailRunner::new(store.clone(), m.clone())),
                MAIL_THREADS,
            ),
            Workers::start(Arc::new(NoticeRunner::new(store.clone(), m)), 1),
        )
    });
    // PostgreSQL: requests' storage calls on threads of their own, one per pooled connection.
    // SQLite keeps actix's blocking pool: its writes queue at the one writer already, and its
    // group commit grows with the writers waiting there on threads of their own.
    let storage_threads = match store.backend() {
        Backend::Postgres => Some(StorageThreads::start(pool_size as usize)?),
        Backend::Sqlite => None,
    };
    let mut state = AppState::new(Arc::new(store), config);
    if let Some(threads) = storage_threads {
        state = state.with_storage_threads(threads);
    }
    let state = web::Data::new(state);

    let mut server = HttpServer::new(move || build_app(state.clone()))
        .on_connect(|conn, data| {
            type Tcp = actix_web::rt::net::TcpStream;
            type Tls = actix_tls::accept::rustls_0_23::TlsStream<Tcp>;
            let tcp = match conn.downcast_ref::<Tls>() {
                Some(tls) => {
                    data.insert(TlsConnection);
                    Some(tls.get_ref().0)
                }
                None => conn.downcast_ref::<Tcp>(),
            };
            // A duplicate of the socket, for ending a stalled body's connection.
            match tcp.map(|tcp| tcp.as_fd().try_clone_to_owned()) {
                Some(Ok(fd)) => {
                    data.insert(ConnectionSocket(Arc::new(fd.into())));
                }
                Some(Err(e)) => log::warn!("duplicating a connection's socket: {e}"),
                None => {}
            }
        })
        // SPEC §3: the request head must be complete within 10 s, or actix answers 408 and
        // closes. Bodies get the same deadline per chunk where they are read.
        .client_request_timeout(STALL_TIMEOUT)
        .shutdown_timeout(DRAIN_SECS)
        .bind_rustls_0_23(&args.https_bind, tls)
        .with_context(|| format!("binding HTTPS_BIND {}", args.https_bind))?;
    let https_addrs = server.addrs();
    if !args.http_bind.eq_ignore_ascii_case("off") {
        server = server
            .bind(&args.http_bind)
            .with_context(|| format!("binding HTTP_BIND {}", args.http_bind))?;
    }
    let addrs = server.addrs();
    let running = server.disable_signals().run();
    stop_on_signals(running.handle())?;
    for addr in addrs {
        let scheme = if https_addrs.contains(&addr) {
            "https"
        } else {
            "http"
        };
        // Scripts and tests read the bound address here (a port of 0 is chosen by the OS).
        #[allow(clippy::print_stdout)]
        {
            println!("listening on {scheme}://{addr}");
        }
    }
    let served = running.await.context("serving");
    scheduler.abort();
    if let Some(b) = backups {
        b.abort();
    }
    // Attempts in flight finish (each within its timeout); unstarted claims go back to pending.
    web::block(move || {
        webhooks.stop();
        if let Some((mail, notices)) = mailers {
            mail.stop();
            notices.stop();
        }
    })
    .await?;
    served?;
    // Worker threads have drained by now; give log output a moment to flush.
    std::thread::sleep(Duration::from_millis(10));
    log::info!("stopped");
    Ok(())
}

/// Stops the server on TERM (draining what is in flight), INT and QUIT (at once), as actix would.
/// The handlers are ours and in place before "listening" is printed: actix installs its own only
/// once the server first runs, and a TERM sent in between killed the process with a failure.
fn stop_on_signals(handle: actix_web::dev::ServerHandle) -> anyhow::Result<()> {
    use actix_web::rt::signal::unix::{signal, SignalKind};
    for (kind, graceful) in [
        (SignalKind::terminate(), true),
        (SignalKind::interrupt(), false),
        (SignalKind::quit(), false),
    ] {
        let mut stream = signal(kind).context("installing a signal handler")?;
        let handle = handle.clone();
        actix_web::rt::spawn(async move {
            if stream.recv().await.is_some() {
                log::info!("signal received: stopping (graceful: {graceful})");
                handle.stop(graceful).await;
            }
        });
    }
    Ok(())
}
