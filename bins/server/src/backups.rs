//! Backups (SPEC §24): the `backup` and `restore` commands, and the backups the server takes by
//! itself when `BACKUP_DIR` is set. The work is the storage crate's (`invoicing_storage::backup`);
//! this is the schedule and the files' names.

use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use invoicing_storage::backup::{self, Written};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub fn backup_now(database_url: &str, to: &Path) -> Result<()> {
    let written = backup::backup_with(database_url, to, || {
        invoicing_http::failpoint::hit("backup.before_rename")
    })?;
    crate::cli::print(&serde_json::to_value(written)?)
}

pub fn restore(database_url: &str, from: &Path) -> Result<()> {
    let restored = backup::restore(database_url, from)?;
    crate::cli::print(&serde_json::to_value(restored)?)
}

/// `export`: the account's archive, written under a temporary name and renamed when whole, so
/// a file under the asked name is always a complete export.
pub fn export(args: &crate::config::ExportArgs) -> Result<()> {
    let store = crate::cli::open(&args.db.database_url)?;
    let account = invoicing_domain::tenant::AccountId(args.account);
    invoicing_domain::ports::AccountRepository::get_account(&store, account)
        .with_context(|| format!("account {}", args.account))?;
    let env = invoicing_domain::tenant::Environment::from_livemode(args.env == "live");
    let scope = invoicing_domain::tenant::Scope::new(account, env);
    let name = args
        .to
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "export.zip".into());
    let partial = args.to.with_file_name(format!(".{name}.partial"));
    let file = std::fs::File::create(&partial).with_context(|| partial.display().to_string())?;
    let written =
        invoicing_http::account_export::write_zip(&store, scope, std::io::BufWriter::new(file));
    let done = match written {
        Ok(done) => done,
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return Err(e.into());
        }
    };
    std::fs::File::open(&partial)
        .and_then(|f| f.sync_all())
        .and_then(|()| std::fs::rename(&partial, &args.to))
        .with_context(|| args.to.display().to_string())?;
    let bytes = std::fs::metadata(&args.to)?.len();
    crate::cli::print(&serde_json::json!({
        "path": args.to,
        "bytes": bytes,
        "files": done.files,
        "pdfs": done.pdfs,
    }))
}

/// The schedule: one backup per period of `every`, named by the period's start, so that every
/// process using the database names it alike; the first to hold the directory's lock and find
/// it missing writes it, the others see it there. Then only the newest `keep` stay.
pub struct Schedule {
    pub database_url: String,
    pub dir: PathBuf,
    pub every: Duration,
    pub keep: u32,
}

/// How often the schedule looks whether a period's backup is due.
const LOOK_EVERY: Duration = Duration::from_secs(60);

pub async fn run(schedule: Schedule) {
    let schedule = std::sync::Arc::new(schedule);
    let mut tick = actix_web::rt::time::interval(schedule.every.min(LOOK_EVERY));
    loop {
        tick.tick().await;
        let s = schedule.clone();
        match actix_web::web::block(move || s.take_due(Utc::now())).await {
            Ok(Ok(Some(w))) => log::info!(
                "backup: wrote {} ({} bytes in {} ms)",
                w.path.display(),
                w.bytes,
                w.took_ms
            ),
            Ok(Ok(None)) => {}
            Ok(Err(e)) => log::error!("backup: {e:#}"),
            Err(e) => log::error!("backup: {e}"),
        }
    }
}

impl Schedule {
    /// The backup of the period `now` falls in, unless it exists or another process is taking
    /// one; then the oldest beyond `keep` go.
    pub fn take_due(&self, now: DateTime<Utc>) -> Result<Option<Written>> {
        std::fs::create_dir_all(&self.dir)
            .with_context(|| format!("BACKUP_DIR {}", self.dir.display()))?;
        let lock_path = self.dir.join(".backup.lock");
        let Some(_lock) =
            backup::try_lock(&lock_path, true).with_context(|| lock_path.display().to_string())?
        else {
            // Another process is taking this period's backup.
            return Ok(None);
        };
        let path = self.dir.join(self.name_at(now));
        if path.exists() {
            return Ok(None);
        }
        let written = backup::backup(&self.database_url, &path)?;
        self.prune()?;
        Ok(Some(written))
    }

    /// `invoicing-20261126T080000Z.db`: the start of the period, in UTC, sorting by time.
    fn name_at(&self, now: DateTime<Utc>) -> String {
        let every = self.every.as_secs().max(1) as i64;
        let start = now.timestamp().div_euclid(every) * every;
        let start = DateTime::from_timestamp(start, 0).unwrap_or(now);
        format!(
            "{PREFIX}{}{}",
            start.format("%Y%m%dT%H%M%SZ"),
            self.extension()
        )
    }

    fn extension(&self) -> &'static str {
        if self.database_url.starts_with("sqlite") {
            ".db"
        } else {
            ".dump"
        }
    }

    /// Keeps the newest `keep` backups; removes copies a killed backup left half written.
    fn prune(&self) -> Result<()> {
        let mut ours = Vec::new();
        for entry in std::fs::read_dir(&self.dir)? {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if name.starts_with(PREFIX) && name.ends_with(self.extension()) {
                ours.push(name);
            } else if name.starts_with(&format!(".{PREFIX}")) && name.ends_with(".partial") {
                let _ = std::fs::remove_file(self.dir.join(&name));
            }
        }
        ours.sort();
        let beyond = ours.len().saturating_sub(self.keep as usize);
        for name in &ours[..beyond] {
            std::fs::remove_file(self.dir.join(name))
                .with_context(|| format!("removing the old backup {name}"))?;
        }
        Ok(())
    }
}

const PREFIX: &str = "invoicing-";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_period_has_one_name_whatever_the_moment_in_it() {
        let s = Schedule {
            database_url: "sqlite://x.db".into(),
            dir: PathBuf::from("/tmp"),
            every: Duration::from_secs(6 * 3600),
            keep: 7,
        };
        let at = |t: &str| s.name_at(t.parse().unwrap());
        assert_eq!(at("2026-11-26T07:59:59Z"), "invoicing-20261126T060000Z.db");
        assert_eq!(at("2026-11-26T06:00:00Z"), "invoicing-20261126T060000Z.db");
        assert_eq!(at("2026-11-26T12:00:00Z"), "invoicing-20261126T120000Z.db");
    }
}
